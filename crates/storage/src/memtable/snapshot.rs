//! What a disk flush writes: the memtable's immutable segments at one moment.

use std::sync::Arc;

use super::iter::Iter;
use super::segment::Segment;
use super::Stats;

/// The segments a flush writes to one store file, taken by
/// [`Memtable::snapshot`](super::Memtable::snapshot). Readers keep seeing them until
/// [`Memtable::release`](super::Memtable::release), after the file is installed.
///
/// Its segments take no more inserts, so its contents never change. Cloning is cheap.
#[derive(Clone)]
pub struct FlushSnapshot {
    id: u64,
    /// Newest first.
    segments: Arc<[Arc<Segment>]>,
}

impl FlushSnapshot {
    pub(crate) fn new(id: u64, segments: Arc<[Arc<Segment>]>) -> FlushSnapshot {
        FlushSnapshot { id, segments }
    }

    pub(crate) fn segments(&self) -> &Arc<[Arc<Segment>]> {
        &self.segments
    }

    /// Identifies the snapshot within its memtable (0 for an empty snapshot).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// True when there is nothing to flush.
    pub fn is_empty(&self) -> bool {
        self.segments.iter().all(|s| s.is_empty())
    }

    /// The largest sequence id in the snapshot (the file's max sequence id); `None` when empty.
    ///
    /// Sequence ids reach the memtable out of order, so edits below it may still be in the
    /// active segment: WAL truncation goes by the smallest id still in memory
    /// ([`Stats::min_seq`] of the memtable after release), not by this.
    pub fn max_seq(&self) -> Option<u64> {
        self.stats().max_seq
    }

    /// Cells, bytes, chunks and segments of the snapshot.
    pub fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        for segment in self.segments.iter() {
            segment.add_to(&mut stats);
        }
        stats
    }

    /// Every cell of the snapshot in store order, each key once (what the flush writes to
    /// `sstable::Writer::add`); no read point hides anything.
    pub fn iter(&self) -> Iter {
        Iter::new(self.segments.iter(), u64::MAX)
    }
}

impl std::fmt::Debug for FlushSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlushSnapshot")
            .field("id", &self.id)
            .field("stats", &self.stats())
            .finish()
    }
}
