//! Strata's benchmarks, shared by `strata bench` and `strata demo`.
//!
//! - [`phoenix`]: the data set of seed 003 (a Phoenix table `(pk integer, v1 float, v2 float)`).
//! - [`encoding`]: seed 003's experiment on store files: footprint per encoding × compression,
//!   one- and multi-threaded scans per cached form, random gets.
//! - [`bloom`]: measured false-positive rates of the bloom filters.
//! - [`engine`]: seed 002's random writes and reads against an embedded region.
//! - [`history`]: per-row workloads with recorded histories, for the linearizability checker
//!   of the fault harness.
//! - [`table`]: plain-text result tables.
//! - [`cmd`]: `strata bench …`, the command line over all of the above (the `strata` binary
//!   parses its arguments and calls [`cmd::run`]).

pub mod bloom;
pub mod cmd;
pub mod encoding;
pub mod engine;
pub mod history;
pub mod phoenix;
pub mod progress;
pub mod table;
pub mod ycsb;
