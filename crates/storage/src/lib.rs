//! Strata's region engine: a region is a row range of a table with one store per column family.
//! This crate works as an embedded library; it knows nothing of RPC.
//!
//! Module map (DESIGN §3–§9):
//! - [`region`]: a region: writes, reads, flush, recovery — the engine's entry point.
//! - [`background`]: worker threads for flushes and the process-wide memtable budget.
//! - [`wal`]: the write-ahead log shared by the regions of a process.
//! - [`memtable`]: a store's in-memory write buffer (active segment + immutable segments).
//! - [`manifest`]: a region's durable list of store files and flushed sequence ids.
//! - [`compaction`]: policies that choose files to compact (pure functions).
//! - [`read`]: merging a store's sources and deciding which cells a read sees.
//! - [`tiers`]: volumes of a storage type and the storage policies that place files on them.
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
