//! A segment: a skiplist index over cells stored in arena chunks, and a cursor over it.
//!
//! # Thread safety
//! `insert` may run on many threads at once and alongside any number of cursors; see
//! [`skiplist`](super::skiplist) and [`arena`](super::arena). The memtable decides which
//! segment takes inserts (only its active one).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use std::cmp::Ordering::{Greater, Less};
use strata_sstable::CellRef;

use super::arena::Arena;
use super::key::{Key, Probe};
use super::skiplist::{Insert, SkipList, HEAD, LINK_BYTES, NIL, NODE_BYTES};
use super::Stats;

/// One part of a memtable: the active segment, or an immutable one in the pipeline.
pub(crate) struct Segment {
    id: u64,
    arena: Arena,
    list: SkipList,
    cells: AtomicU64,
    data_bytes: AtomicU64,
    index_bytes: AtomicU64,
    min_seq: AtomicU64,
    max_seq: AtomicU64,
}

impl Segment {
    /// An empty segment whose cells go to `chunk_size`-byte chunks.
    pub(crate) fn new(id: u64, chunk_size: usize) -> Segment {
        Segment {
            id,
            arena: Arena::new(chunk_size),
            list: SkipList::new(),
            cells: AtomicU64::new(0),
            data_bytes: AtomicU64::new(0),
            index_bytes: AtomicU64::new(0),
            min_seq: AtomicU64::new(u64::MAX),
            max_seq: AtomicU64::new(0),
        }
    }

    /// The id the memtable gave this segment.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// True before the first cell.
    pub(crate) fn is_empty(&self) -> bool {
        self.cells.load(Relaxed) == 0
    }

    /// Copies `cell` into the arena and indexes it, unless its key is already here.
    ///
    /// Requires: `cell.seq <= MAX_SEQ`.
    pub(crate) fn insert(&self, cell: &CellRef<'_>) -> Insert {
        let len = Key::encoded_len(cell);
        let make_key = || {
            let data = self.arena.alloc(len, |out| Key::encode(cell, out));
            Key::new(data, cell)
        };
        let result = self.list.insert(&Probe::of_cell(cell), make_key);
        if let Insert::Inserted { upper_links } = result {
            let data = cell.row.len() + cell.qualifier.len() + cell.value.len();
            let index = NODE_BYTES + (len - data) + upper_links as usize * LINK_BYTES;
            self.cells.fetch_add(1, Relaxed);
            self.data_bytes.fetch_add(data as u64, Relaxed);
            self.index_bytes.fetch_add(index as u64, Relaxed);
            self.min_seq.fetch_min(cell.seq, Relaxed);
            self.max_seq.fetch_max(cell.seq, Relaxed);
        }
        result
    }

    /// Cell bytes plus index bytes: what flush decisions count.
    pub(crate) fn size_bytes(&self) -> u64 {
        self.data_bytes.load(Relaxed) + self.index_bytes.load(Relaxed)
    }

    /// Adds this segment's figures to `stats`.
    pub(crate) fn add_to(&self, stats: &mut Stats) {
        stats.segments += 1;
        let cells = self.cells.load(Relaxed);
        stats.cells += cells;
        stats.data_bytes += self.data_bytes.load(Relaxed);
        stats.index_bytes += self.index_bytes.load(Relaxed);
        stats.chunks += self.arena.chunks();
        stats.large_cells += self.arena.large_cells();
        stats.reserved_bytes += self.arena.reserved_bytes() + self.list.reserved_bytes();
        if cells > 0 {
            let (min, max) = (self.min_seq.load(Relaxed), self.max_seq.load(Relaxed));
            stats.min_seq = Some(stats.min_seq.map_or(min, |s| s.min(min)));
            stats.max_seq = Some(stats.max_seq.map_or(max, |s| s.max(max)));
        }
    }
}

/// A position in one segment, skipping cells newer than its read point.
///
/// Moves on an unpositioned cursor leave it unpositioned (except seeks).
pub(crate) struct Cursor {
    segment: Arc<Segment>,
    node: u32,
    read_point: u64,
}

impl Cursor {
    /// An unpositioned cursor over `segment` that shows cells with seq ≤ `read_point`.
    pub(crate) fn new(segment: Arc<Segment>, read_point: u64) -> Cursor {
        Cursor {
            segment,
            node: NIL,
            read_point,
        }
    }

    /// The key under the cursor, if positioned.
    #[inline]
    pub(crate) fn key(&self) -> Option<&Key> {
        self.segment.list.key(self.node)
    }

    /// The cell under the cursor, if positioned.
    #[inline]
    pub(crate) fn current(&self) -> Option<CellRef<'_>> {
        self.key().map(Key::cell)
    }

    /// To the first cell ≥ `probe`.
    pub(crate) fn seek(&mut self, probe: &Probe<'_>) {
        let pred = self.segment.list.last_where(|k| k.cmp_probe(probe) == Less);
        self.forward_from(self.segment.list.successor(pred));
    }

    /// To the first cell > `probe`.
    pub(crate) fn seek_after(&mut self, probe: &Probe<'_>) {
        let pred = self
            .segment
            .list
            .last_where(|k| k.cmp_probe(probe) != Greater);
        self.forward_from(self.segment.list.successor(pred));
    }

    /// To the last cell ≤ `probe`.
    pub(crate) fn seek_for_prev(&mut self, probe: &Probe<'_>) {
        let node = self
            .segment
            .list
            .last_where(|k| k.cmp_probe(probe) != Greater);
        self.backward_from(node);
    }

    /// To the last cell < `probe`.
    pub(crate) fn seek_before(&mut self, probe: &Probe<'_>) {
        let node = self.segment.list.last_where(|k| k.cmp_probe(probe) == Less);
        self.backward_from(node);
    }

    /// To the first cell.
    pub(crate) fn seek_to_first(&mut self) {
        self.forward_from(self.segment.list.successor(HEAD));
    }

    /// To the last cell.
    pub(crate) fn seek_to_last(&mut self) {
        let node = self.segment.list.last_where(|_| true);
        self.backward_from(node);
    }

    /// To the next cell.
    pub(crate) fn next(&mut self) {
        if self.node != NIL {
            self.forward_from(self.segment.list.successor(self.node));
        }
    }

    /// To the previous cell (a search: O(log n)).
    pub(crate) fn prev(&mut self) {
        let list = &self.segment.list;
        if let Some(key) = list.key(self.node) {
            let probe = key.probe();
            let node = list.last_where(|k| k.cmp_probe(&probe) == Less);
            self.backward_from(node);
        }
    }

    /// Settles on the first visible cell at or after `node`.
    fn forward_from(&mut self, mut node: u32) {
        let list = &self.segment.list;
        while let Some(key) = list.key(node) {
            if key.seq() <= self.read_point {
                break;
            }
            node = list.successor(node);
        }
        self.node = node;
    }

    /// Settles on the last visible cell at or before `node` ([`HEAD`] for none).
    fn backward_from(&mut self, mut node: u32) {
        let list = &self.segment.list;
        while let Some(key) = list.key(node) {
            if key.seq() <= self.read_point {
                self.node = node;
                return;
            }
            let probe = key.probe();
            node = list.last_where(|k| k.cmp_probe(&probe) == Less);
        }
        self.node = NIL;
    }
}
