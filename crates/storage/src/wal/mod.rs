//! The write-ahead log shared by all regions of a process (RFC 0002; ARCHITECTURE.md,
//! "The life of a write").
//!
//! A region logs each row mutation as one [`Entry`] (region id, sequence id, cells) with
//! [`Wal::append`] before inserting it into its memtables; after a crash, [`Wal::replay`]
//! gives back every entry not yet flushed to store files. Durability is chosen per append:
//! `SKIP_WAL`, `ASYNC_WAL`, `SYNC_WAL` (the default) or `FSYNC_WAL`.
//!
//! ```text
//!   region threads ──append──▶ group commit ──one write (+ one fdatasync)──▶ active segment
//!                                   ▲                                          │ ≥ segment_size
//!   wal-flusher (ASYNC_WAL) ────────┘                                          ▼
//!   mark_flushed / forget_region ──▶ segment set ──▶ delete obsolete    closed segments
//! ```
//!
//! Module map:
//! - `log`: [`Wal`] (append, sync, flush marks, stats, close); `open`: recovery on open;
//!   [`Replay`]: entries for recovery; [`read_fenced`]: a dead writer's entries, read once.
//! - `group_commit`: leader/follower batching; `writer`: the active segment (write, sync,
//!   roll, rewind after a failure); `segments`: which segments may be deleted.
//! - `entry`: the payload of a record; `record`: framing of segments and records;
//!   [`SegmentReader`]: reads one segment, telling a torn tail from corruption.
//! - [`LogStore`] / [`LogFile`]: where segments live (local files or HDFS; tests inject faults
//!   with [`crate::vfs::Faulty`]).
//! - [`Error`] / [`ErrorKind`], [`WalOptions`], [`WalStats`].

mod entry;
mod error;
mod fenced;
mod group_commit;
mod log;
mod open;
mod options;
mod reader;
mod record;
mod replay;
mod segments;
mod stats;
mod writer;

pub use crate::vfs::{LogFile, LogStore};
pub use entry::{Entry, Nonce};
pub use error::{Error, ErrorKind, Result};
pub use fenced::{read_fenced, Fenced};
pub use log::Wal;
pub use options::WalOptions;
pub use reader::{ReadOptions, SegmentReader};
pub use replay::Replay;
pub use stats::WalStats;
