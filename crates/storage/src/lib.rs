//! Strata's region engine: a region is a row range of a table with one store per column family.
//! This crate works as an embedded library; it knows nothing of RPC.
//!
//! Module map (ARCHITECTURE.md, "The life of a write" and "The life of a get"; RFC 0005):
//! - [`region`]: a region: writes, reads, flush, compaction, splits and merges, recovery — the
//!   engine's entry point.
//! - [`background`]: worker threads for flushes and compactions, and the process-wide memtable
//!   budget.
//! - [`wal`]: the write-ahead log shared by the regions of a process (RFC 0002).
//! - [`memtable`]: a store's in-memory write buffer (active segment + immutable segments;
//!   RFC 0003).
//! - [`manifest`]: a region's durable list of store files and flushed sequence ids (RFC 0004).
//! - [`compaction`]: policies that choose files to compact (pure functions; RFC 0006).
//! - [`read`]: merging a store's sources and deciding which cells a read sees; filters.
//! - [`tiers`]: volumes of a storage type and the storage policies that place files on them
//!   (RFC 0010); [`tier_check`]: the periodic check that moves files whose tier changed.
//! - [`vfs`]: the file store and log store every byte goes through (local files, fault
//!   injection; HDFS and S3 in `strata-shared-storage`; RFC 0011).
//! - [`events`]: failures of background work, logged once and counted for `/metrics`.
//! - [`periodic`]: a thread running one round of work every interval.
//! - [`clock`]: time, behind a trait so tests control it.
//! - [`error`]: the engine's [`Error`] and its [`ErrorKind`].
//! - `spin`: the brief busy wait the MVCC and group-commit waits share before sleeping.

pub mod background;
pub mod clock;
pub mod compaction;
pub mod error;
pub mod events;
pub mod manifest;
pub mod memtable;
pub mod periodic;
pub mod read;
pub mod region;
mod spin;
pub mod tier_check;
pub mod tiers;
pub mod vfs;
pub mod wal;

pub use error::{Error, ErrorKind, Result};
pub use region::{Region, RegionConfig};
