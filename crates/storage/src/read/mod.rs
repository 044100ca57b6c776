//! The read path of one store: merge the memtable's and the files' cursors into store order,
//! then decide which cells a read sees.
//!
//! - [`Cursor`]: what every source offers (the sstable iterator, the memtable cursor).
//! - [`MergeCursor`]: many cursors as one, in store order.
//! - [`Visibility`]: versions, time range, TTL, MIN_VERSIONS, KEEP_DELETED_CELLS, the four
//!   delete kinds and the MVCC read point, applied cell by cell (HBase's ScanQueryMatcher).

mod compaction;
mod cursor;
pub mod filter;
mod merge;
mod visibility;

pub use compaction::{CompactionSpec, Decision, Dropped, DroppedCells, Retention};
pub use cursor::Cursor;
pub use merge::MergeCursor;
pub use visibility::{ReadSpec, Verdict, Visibility};

#[cfg(test)]
mod visibility_tests;
