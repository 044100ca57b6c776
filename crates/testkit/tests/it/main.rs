//! The end-to-end tests over a one-process Strata ([`strata_testkit::Single`]), as one test
//! binary: each file was its own binary, and each linked the whole server. Tests that install
//! a process-wide log subscriber stay binaries of their own (`bad_requests_logged.rs`).
#![allow(clippy::unwrap_used)]

#[path = "../support/mod.rs"]
mod support;

mod e2e_data;
mod e2e_files;
mod e2e_frames;
mod e2e_in_process;
mod e2e_namespaces;
mod e2e_snapshots;
mod e2e_split;
mod heatmap_scan;
mod split_volumes;
mod tls;
