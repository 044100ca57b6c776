//! A segment: an index over cells stored in arena chunks. The active segment's index is a
//! lock-free skiplist; an immutable segment's may be flat: sorted entries over chunks of its
//! own (flattening copies the cells there; see [`chunks`](super::chunks)).
//!
//! # Thread safety
//! `insert` may run on many threads at once and alongside any number of cursors; see
//! [`skiplist`](super::skiplist) and [`arena`](super::arena). The memtable decides which
//! segment takes inserts (only its active one, always a skiplist). A flat segment never
//! changes after it is built.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use strata_sstable::CellRef;

use super::arena::Arena;
use super::flat::{FlatIndex, FLAT_ENTRY_BYTES};
use super::flat_build::FlatParts;
use super::key::{Key, KeyRef, Probe, RowRule};
use super::row_filter::RowFilter;
use super::skiplist::{Insert, SkipList, Splice, HEAD, LINK_BYTES, NODE_BYTES, TAIL_BYTES};
use super::Stats;

/// How a segment finds its cells.
pub(crate) enum Index {
    /// The mutable form: lock-free inserts, O(log n) searches, `prev` a search.
    List(Box<SkipList>),
    /// The flat form: entries in store order over the segment's own chunks, binary search
    /// (dense row keys first), O(1) steps both ways.
    Flat(FlatIndex),
}

/// Chunk figures of a flat segment: the chunks it copied cells into, and those of the flat
/// segments it merged (it holds their chunks).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Carried {
    pub(crate) chunks: u64,
    pub(crate) large_cells: u64,
    pub(crate) reserved_bytes: u64,
}

impl Carried {
    /// The figures of `self` and `other` together.
    pub(crate) fn plus(self, other: Carried) -> Carried {
        Carried {
            chunks: self.chunks + other.chunks,
            large_cells: self.large_cells + other.large_cells,
            reserved_bytes: self.reserved_bytes + other.reserved_bytes,
        }
    }
}

/// One part of a memtable: the active segment, or an immutable one in the pipeline.
pub(crate) struct Segment {
    id: u64,
    arena: Arena,
    pub(crate) index: Index,
    carried: Carried,
    /// Built by an eager copy-compaction: holds nothing such a compaction would drop (at the
    /// read point it was built for).
    compacted: bool,
    /// The rows held (made at the first insert, or with a flat index).
    filter: OnceLock<RowFilter>,
    /// Bits of the filter the first insert makes.
    filter_bits: usize,
    cells: AtomicU64,
    data_bytes: AtomicU64,
    index_bytes: AtomicU64,
    min_seq: AtomicU64,
    max_seq: AtomicU64,
}

impl Segment {
    /// An empty skiplist segment whose cells go to `chunk_size`-byte chunks, with a row filter
    /// of about `filter_bits` bits once it takes a cell.
    pub(crate) fn new(
        id: u64,
        chunk_size: usize,
        filter_bits: usize,
        rule: Option<Arc<RowRule>>,
    ) -> Segment {
        let mut segment = Segment::with_index(
            id,
            Arena::new(chunk_size),
            Index::List(Box::new(SkipList::new(rule))),
        );
        segment.filter_bits = filter_bits;
        segment
    }

    fn with_index(id: u64, arena: Arena, index: Index) -> Segment {
        Segment {
            id,
            arena,
            index,
            carried: Carried::default(),
            compacted: false,
            filter: OnceLock::new(),
            filter_bits: 0,
            cells: AtomicU64::new(0),
            data_bytes: AtomicU64::new(0),
            index_bytes: AtomicU64::new(0),
            min_seq: AtomicU64::new(u64::MAX),
            max_seq: AtomicU64::new(0),
        }
    }

    /// A flat segment over a built index (a flatten, a merge or a copy), with its figures.
    pub(crate) fn from_flat(id: u64, parts: FlatParts) -> Segment {
        let mut segment = Segment::with_index(id, Arena::new(0), Index::Flat(FlatIndex::empty()));
        segment.carried = parts.figures;
        segment.count_all(&parts.sums);
        segment.set_flat(parts.index);
        segment
    }

    /// Installs `flat` as the index, with a filter of its distinct dense row keys.
    fn set_flat(&mut self, flat: FlatIndex) {
        let dense = flat.dense();
        let distinct = 1 + dense.windows(2).filter(|w| w[0] != w[1]).count();
        let filter = RowFilter::for_rows(distinct);
        let mut last = None;
        for &d in dense {
            if last != Some(d) {
                filter.insert_dense(d);
                last = Some(d);
            }
        }
        self.filter = OnceLock::from(filter);
        self.index_bytes
            .fetch_add(flat.extra_bytes() as u64, Relaxed);
        self.index = Index::Flat(flat);
    }

    /// A flat segment's figures as its entries count them (its upper level and chunk handles
    /// left out); `None`
    /// for a skiplist segment, whose keys must be read for them ([`Sums::add_cell`]).
    pub(crate) fn flat_sums(&self) -> Option<Sums> {
        match &self.index {
            Index::Flat(flat) => Some(Sums {
                cells: self.cells.load(Relaxed),
                data: self.data_bytes.load(Relaxed),
                index: self
                    .index_bytes
                    .load(Relaxed)
                    .saturating_sub(flat.extra_bytes() as u64),
                min_seq: self.min_seq.load(Relaxed),
                max_seq: self.max_seq.load(Relaxed),
            }),
            Index::List(_) => None,
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

    /// False when no cell of `row` is here (true may be a false positive).
    #[inline]
    pub(crate) fn may_contain_row(&self, row: &[u8]) -> bool {
        self.filter.get().is_some_and(|f| match &self.index {
            // A flat segment's filter holds its dense row keys.
            Index::Flat(flat) => f.may_contain_dense(flat.dense_of(row)),
            Index::List(_) => f.may_contain(row),
        })
    }

    /// True when the index is a sorted array.
    pub(crate) fn is_flat(&self) -> bool {
        matches!(self.index, Index::Flat(_))
    }

    /// Marks the segment as the output of an eager copy-compaction.
    pub(crate) fn into_compacted(mut self) -> Segment {
        self.compacted = true;
        self
    }

    /// True for the output of an eager copy-compaction.
    pub(crate) fn is_compacted(&self) -> bool {
        self.compacted
    }

    /// Cells held.
    pub(crate) fn cells(&self) -> u64 {
        self.cells.load(Relaxed)
    }

    /// Row, qualifier and value bytes held (what the in-memory flush threshold counts).
    pub(crate) fn data_bytes(&self) -> u64 {
        self.data_bytes.load(Relaxed)
    }

    /// Arena figures of this segment's cells, wherever their chunks came from.
    pub(crate) fn arena_figures(&self) -> Carried {
        Carried {
            chunks: self.carried.chunks + self.arena.chunks(),
            large_cells: self.carried.large_cells + self.arena.large_cells(),
            reserved_bytes: self.carried.reserved_bytes + self.arena.reserved_bytes(),
        }
    }

    /// The segment's first and last rows (`None` when empty). Requires, for a skiplist: no
    /// insert runs (the segment is sealed), or the caller accepts rows inserted since.
    pub(crate) fn first_and_last_rows(&self) -> Option<(&[u8], &[u8])> {
        match &self.index {
            Index::List(list) => {
                let first = list.key(list.successor(HEAD))?;
                let last = list.key(list.last_where(|_| true))?;
                Some((first.row_bytes(), last.row_bytes()))
            }
            Index::Flat(flat) => {
                let first = flat.key(0)?;
                let last = flat.key(flat.len().checked_sub(1)?)?;
                Some((first.row_bytes(), last.row_bytes()))
            }
        }
    }

    /// For a skiplist segment: its cells, and how many of them are another version of the
    /// column the cell before them has, belong to a row one of `older` may hold (per their
    /// row filters, probed once per row), or have a timestamp below `expired_before` (past the
    /// TTL). `None` for a flat segment. Requires: the segment is sealed (no insert runs).
    pub(crate) fn likely_duplicates(
        &self,
        older: &[std::sync::Arc<Segment>],
        expired_before: i64,
    ) -> Option<(u64, u64)> {
        let Index::List(list) = &self.index else {
            return None;
        };
        let (mut cells, mut likely) = (0u64, 0u64);
        // The previous cell's row and qualifier.
        let mut previous: (&[u8], &[u8]) = (&[], &[]);
        let mut row_elsewhere = false;
        let mut id = list.successor(HEAD);
        while let Some(key) = list.key(id) {
            let column = key.column();
            let same_row = cells > 0 && previous.0 == column.0;
            if !same_row {
                row_elsewhere = older.iter().any(|s| s.may_contain_row(column.0));
            }
            let same_column = same_row && previous.1 == column.1;
            let expired = key.timestamp() < expired_before;
            cells += 1;
            likely += u64::from(same_column || row_elsewhere || expired);
            previous = column;
            id = list.successor(id);
        }
        Some((cells, likely))
    }

    /// Counts cells added all at once (before the segment is shared).
    fn count_all(&self, sums: &Sums) {
        if sums.cells == 0 {
            return;
        }
        self.cells.fetch_add(sums.cells, Relaxed);
        self.data_bytes.fetch_add(sums.data, Relaxed);
        self.index_bytes.fetch_add(sums.index, Relaxed);
        self.min_seq.fetch_min(sums.min_seq, Relaxed);
        self.max_seq.fetch_max(sums.max_seq, Relaxed);
    }

    fn count(&self, data: usize, index: usize, seq: u64) {
        self.cells.fetch_add(1, Relaxed);
        self.data_bytes.fetch_add(data as u64, Relaxed);
        self.index_bytes.fetch_add(index as u64, Relaxed);
        self.min_seq.fetch_min(seq, Relaxed);
        self.max_seq.fetch_max(seq, Relaxed);
    }

    /// Copies `cell` into the arena and indexes it, unless its key is already here, searching
    /// from `splice` (see `SkipList::insert_hinted`). A flat segment takes no insert
    /// ([`Insert::Full`]).
    ///
    /// Requires: `cell.seq <= MAX_SEQ`.
    pub(crate) fn insert_hinted(&self, cell: &CellRef<'_>, splice: &mut Splice) -> Insert {
        let Index::List(list) = &self.index else {
            return Insert::Full;
        };
        // Before the cell is published: a reader that may show it sees its row's bits.
        self.filter
            .get_or_init(|| RowFilter::with_bits(self.filter_bits))
            .insert(cell.row);
        let len = Key::encoded_len(cell);
        let make_key = || {
            let data = self.arena.alloc(len, |out| Key::encode(cell, out));
            Key::under(data, cell, list.rule())
        };
        let probe = Probe::of_cell(cell).under(list.rule());
        let result = list.insert_hinted(&probe, make_key, splice);
        if let Insert::Inserted { upper_links } = result {
            let data = cell.row.len() + cell.qualifier.len() + cell.value.len();
            let index = NODE_BYTES + TAIL_BYTES + (len - data) + upper_links as usize * LINK_BYTES;
            self.count(data, index, cell.seq);
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
        stats.flat_segments += usize::from(self.is_flat());
        let cells = self.cells.load(Relaxed);
        stats.cells += cells;
        stats.data_bytes += self.data_bytes.load(Relaxed);
        stats.index_bytes += self.index_bytes.load(Relaxed);
        let arena = self.arena_figures();
        stats.chunks += arena.chunks;
        stats.large_cells += arena.large_cells;
        stats.reserved_bytes += arena.reserved_bytes
            + self.filter.get().map_or(0, |f| f.bytes() as u64)
            + match &self.index {
                Index::List(list) => list.reserved_bytes(),
                Index::Flat(flat) => (flat.len() * FLAT_ENTRY_BYTES + flat.extra_bytes()) as u64,
            };
        if cells > 0 {
            let (min, max) = (self.min_seq.load(Relaxed), self.max_seq.load(Relaxed));
            stats.min_seq = Some(stats.min_seq.map_or(min, |s| s.min(min)));
            stats.max_seq = Some(stats.max_seq.map_or(max, |s| s.max(max)));
        }
    }
}

/// Cell counts and sizes summed over many cells (see `Segment::count_all`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sums {
    cells: u64,
    data: u64,
    index: u64,
    min_seq: u64,
    max_seq: u64,
}

impl Default for Sums {
    fn default() -> Sums {
        Sums {
            cells: 0,
            data: 0,
            index: 0,
            min_seq: u64::MAX,
            max_seq: 0,
        }
    }
}

impl Sums {
    /// The figures of a flat entry for `cell`, which takes `stored_len` bytes in its chunk.
    fn entry(cell: &CellRef<'_>, stored_len: usize) -> (u64, u64) {
        let data = cell.row.len() + cell.qualifier.len() + cell.value.len();
        let header = stored_len.saturating_sub(data);
        (data as u64, (FLAT_ENTRY_BYTES + header) as u64)
    }

    /// Counts a key's `cell`, which takes `stored_len` bytes in its chunk.
    pub(crate) fn add_cell(&mut self, cell: &CellRef<'_>, stored_len: usize) {
        let (data, index) = Sums::entry(cell, stored_len);
        self.cells += 1;
        self.data += data;
        self.index += index;
        self.min_seq = self.min_seq.min(cell.seq);
        self.max_seq = self.max_seq.max(cell.seq);
    }

    /// Takes out a key counted twice (its sequence id is still another key's: the bounds stay).
    pub(crate) fn remove_key(&mut self, key: KeyRef<'_>) {
        let (data, index) = Sums::entry(&key.cell(), key.stored_len());
        self.cells = self.cells.saturating_sub(1);
        self.data = self.data.saturating_sub(data);
        self.index = self.index.saturating_sub(index);
    }

    /// The sums of `self` and `other`.
    pub(crate) fn plus(self, other: Sums) -> Sums {
        Sums {
            cells: self.cells + other.cells,
            data: self.data + other.data,
            index: self.index + other.index,
            min_seq: self.min_seq.min(other.min_seq),
            max_seq: self.max_seq.max(other.max_seq),
        }
    }
}
