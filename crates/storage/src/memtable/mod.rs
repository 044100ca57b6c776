//! A store's in-memory write buffer (HBase's MemStore, and its CompactingMemStore policies).
//!
//! ```text
//!   insert ──▶ active segment ──seal_active──▶ pipeline (immutable segments, newest first)
//!                                                  │ snapshot()
//!                                                  ▼
//!                      pending FlushSnapshot ──(flush writes a store file)──▶ release()
//!   iter(read_point): active + pipeline + pending snapshot, merged in store order
//! ```
//!
//! A segment is a lock-free skiplist whose 64-byte nodes live in slabs and link by `u32` ids,
//! over cells copied into 2 MiB arena chunks (see `docs/rfcs/0003-memtable.md`). The classic
//! memtable (`NONE`) seals its active segment only when snapshotting (or when its index is
//! full). The in-memory compaction policies (`BASIC`, `EAGER`, `ADAPTIVE`, see
//! [`Options::policy`]) seal it once it passes [`Options::in_memory_flush_size`] and then
//! compact the pipeline (`in_memory.rs`): flatten segments into sorted key arrays, merge their
//! indexes, or copy-compact their surviving cells into new chunks.
//!
//! # Thread safety
//! `Memtable` is `Sync`: any number of threads insert, read and take stats at once; one
//! flusher calls `snapshot` and `release`. Inserts run concurrently inside the active segment
//! (lock-free index; a short mutex per cell copy in the arena). They take the state read lock,
//! so `snapshot` waits only for inserts in flight (microseconds), never for a flush, and an
//! insert waits only while `snapshot` swaps segments. Iterators hold their segments, not the
//! lock.
//!
//! # Invariants
//! 1. Only the active segment takes inserts, and it stops being active only under the state
//!    write lock, after every insert into it has returned. A pipeline or snapshot segment never
//!    changes again.
//! 2. `view` lists every segment readers must see, newest first: active, pipeline, snapshot.
//! 3. At most one snapshot is pending.
//! 4. An in-memory compaction replaces pipeline segments by segments showing the same cells
//!    to every reader at or above the smallest read point it was given (EAGER and ADAPTIVE
//!    drop only what `read::Retention` drops), and only while the pipeline version is the one
//!    it started from; `snapshot()` bumps the version.

mod arena;
mod chunks;
mod compact;
mod cursor;
mod flat;
mod flat_build;
#[cfg(test)]
mod idle_tests;
mod in_memory;
mod iter;
mod key;
mod merge_index;
mod options;
#[cfg(test)]
mod reseek_tests;
mod row_filter;
#[cfg(test)]
mod row_rule_tests;
mod segment;
mod skiplist;
mod slab;
mod snapshot;
mod stats;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Release};
use std::sync::Arc;

use parking_lot::RwLock;
use strata_model::cell::Cell;
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;

use crate::clock::Clock;

pub use compact::{Action, ADAPTIVE_DROP_SHARE};
pub use in_memory::{Report, IDLE_MERGE_SHARE};
pub use iter::Iter;
pub use key::MAX_SEQ;
pub use options::Options;
pub use snapshot::FlushSnapshot;
pub use stats::{InsertError, ReleaseError, Stats};

use key::RowRule;
use segment::Segment;
use skiplist::Splice;

/// Where a caller's next [`Memtable::insert_hinted`] starts its search: the active segment
/// it last inserted into and the skiplist nodes around that insert.
#[derive(Debug, Default)]
pub(crate) struct InsertHint {
    segment: Option<u64>,
    splice: Splice,
}
use skiplist::Insert;

/// Answers the oldest read point any reader of the store may still use.
pub type ReadPointSource = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Called when a writer seals the active segment: schedules
/// [`Memtable::compact_after_seal`] elsewhere (the region's background pool), so no writer
/// waits for an in-memory compaction.
pub type SealHook = Arc<dyn Fn() + Send + Sync>;

/// The memtable of one store (one column family).
pub struct Memtable {
    chunk_size: usize,
    /// Row filter bits of a new active segment.
    filter_bits: usize,
    options: Options,
    /// Pipeline version: bumped (under the state write lock) by every disk-flush snapshot and
    /// every compaction swap, never by an in-memory flush. A compaction swaps its result in
    /// only if it is unchanged, and stops building as soon as it changes.
    version: AtomicU64,
    /// True while an in-memory compaction builds (one at a time).
    compacting: AtomicBool,
    /// The oldest read point a reader may hold, as last told by the region; 0 when unknown
    /// (then compactions after an in-memory flush only flatten and merge).
    smallest_read_point: AtomicU64,
    /// Where the oldest reader's read point is asked for when a compaction starts (the
    /// region's reader registry); without one, `smallest_read_point` is used.
    read_point_source: std::sync::OnceLock<ReadPointSource>,
    /// The clock TTL is measured by in EAGER and ADAPTIVE copies; without one, compactions
    /// drop nothing for its age (except through `compact_in_memory_at`).
    clock: std::sync::OnceLock<Arc<dyn Clock>>,
    /// Runs the compaction a seal asks for elsewhere; without one, the sealing writer runs it.
    seal_hook: std::sync::OnceLock<SealHook>,
    /// True from a seal handing its compaction to the hook until that compaction starts.
    compaction_queued: AtomicBool,
    /// Lock order: taken before an arena chunk mutex (inserts copy cells under the read guard);
    /// nothing else is taken while it is held.
    state: RwLock<State>,
}

struct State {
    active: Arc<Segment>,
    /// Sealed segments not yet snapshotted, newest first.
    pipeline: Vec<Arc<Segment>>,
    pending: Option<FlushSnapshot>,
    /// Active, pipeline, pending snapshot's segments: newest first.
    view: Arc<[Arc<Segment>]>,
    /// Next segment or snapshot id.
    next_id: u64,
    /// The bytes every row sealed so far starts with (`None` before the first seal).
    rows_share: Option<Vec<u8>>,
    /// The row rule of the active segment's keys (see [`key`]): `rows_share`, capped.
    rule: Option<Arc<RowRule>>,
    /// The id the next new rule takes; ids are never reused, none is made past 255.
    next_rule: u16,
}

impl State {
    fn rebuild_view(&mut self) {
        let snapshot = self.pending.iter().flat_map(|p| p.segments().iter());
        self.view = std::iter::once(&self.active)
            .chain(&self.pipeline)
            .chain(snapshot)
            .cloned()
            .collect();
    }

    fn take_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Narrows `rows_share` to the active segment's rows (its first and last bound them) and
    /// makes the rule of the next active segment from it: the current one while the bytes
    /// are the same, a new id when they shrank, none once no byte is shared.
    fn learn_rule(&mut self) {
        let Some((first, last)) = self.active.first_and_last_rows() else {
            return;
        };
        let shared = flat::common_prefix(first, last);
        let share = match &mut self.rows_share {
            Some(share) => {
                // Every row so far starts with `share`: it only ever gets shorter.
                share.truncate(shared.min(flat::common_prefix(share, first)));
                share
            }
            none => none.insert(first[..shared].to_vec()),
        };
        let wanted = &share[..share.len().min(RowRule::MAX_BYTES)];
        if self.rule.as_ref().map(|r| r.shared()) == Some(wanted) {
            return;
        }
        if wanted.is_empty() {
            self.rule = None;
        } else if let Ok(id) = u8::try_from(self.next_rule) {
            self.next_rule += 1;
            self.rule = RowRule::new(id, wanted).map(Arc::new);
        }
    }

    /// Pushes a non-empty active segment onto the pipeline and starts a new one.
    fn seal_active(&mut self, chunk_size: usize, filter_bits: usize) {
        if self.active.is_empty() {
            return;
        }
        self.learn_rule();
        let fresh = Arc::new(Segment::new(
            self.take_id(),
            chunk_size,
            filter_bits,
            self.rule.clone(),
        ));
        let sealed = std::mem::replace(&mut self.active, fresh);
        self.pipeline.insert(0, sealed);
        self.rebuild_view();
    }
}

impl Memtable {
    /// An empty memtable; allocates no chunk until the first insert.
    pub fn new(options: Options) -> Memtable {
        let chunk_size = options.segment_chunk_size();
        // An active segment's row filter: a bit per 8 data bytes it takes before an in-memory
        // flush seals it (3.75 KiB at the default 240 KiB); without in-memory flushes it holds
        // the whole memtable, so 256 KiB.
        let filter_bits = match options.policy {
            InMemoryCompaction::None => 1 << 21,
            _ => usize::try_from(options.in_memory_flush_size / 8).unwrap_or(usize::MAX),
        };
        let active = Arc::new(Segment::new(1, chunk_size, filter_bits, None));
        let view = Arc::from([Arc::clone(&active)]);
        Memtable {
            chunk_size,
            filter_bits,
            options,
            version: AtomicU64::new(0),
            compacting: AtomicBool::new(false),
            smallest_read_point: AtomicU64::new(0),
            read_point_source: std::sync::OnceLock::new(),
            clock: std::sync::OnceLock::new(),
            seal_hook: std::sync::OnceLock::new(),
            compaction_queued: AtomicBool::new(false),
            state: RwLock::new(State {
                active,
                pipeline: Vec::new(),
                pending: None,
                view,
                next_id: 1,
                rows_share: None,
                rule: None,
                next_rule: 1,
            }),
        }
    }

    /// Adds a cell (its `seq` is the mutation's sequence id). Returns `false`, storing nothing,
    /// when the active segment already holds the same key (sequence id included), as when
    /// an edit is replayed twice.
    ///
    /// # Errors
    /// [`InsertError::SeqTooLarge`] when `cell.seq > MAX_SEQ`.
    pub fn insert(&self, cell: &CellRef<'_>) -> Result<bool, InsertError> {
        self.insert_hinted(cell, &mut InsertHint::default())
    }

    /// [`insert`](Memtable::insert), searching the active segment from where `hint` says
    /// this caller's previous insert landed: a caller inserting a row's cells in store order
    /// finds each next place in a couple of comparisons. Any hint is correct; a stale one
    /// only costs the search it could not save.
    ///
    /// # Errors
    /// As [`insert`](Memtable::insert).
    pub(crate) fn insert_hinted(
        &self,
        cell: &CellRef<'_>,
        hint: &mut InsertHint,
    ) -> Result<bool, InsertError> {
        if cell.seq > MAX_SEQ {
            return Err(InsertError::SeqTooLarge { seq: cell.seq });
        }
        loop {
            let (full, id) = {
                let state = self.state.read();
                let active = state.active.id();
                if hint.segment != Some(active) {
                    *hint = InsertHint {
                        segment: Some(active),
                        splice: Splice::default(),
                    };
                }
                match state.active.insert_hinted(cell, &mut hint.splice) {
                    Insert::Inserted { .. } if !self.over_threshold(&state.active) => {
                        return Ok(true)
                    }
                    Insert::Inserted { .. } => (false, state.active.id()),
                    Insert::Duplicate => return Ok(false),
                    Insert::Full => (true, state.active.id()),
                }
            };
            // The active segment passed the in-memory flush threshold, or its index ran out
            // of node ids (2²⁶ cells): seal it, unless a racing writer already did.
            let sealed = {
                let mut state = self.state.write();
                let same = state.active.id() == id;
                if same {
                    state.seal_active(self.chunk_size, self.filter_bits);
                }
                same
            };
            if !full {
                if sealed {
                    match self.seal_hook.get() {
                        // As when the sealing writer compacts: a seal while a compaction runs
                        // or is queued leaves its segment to the next one.
                        Some(hook) => {
                            if !self.compacting.load(std::sync::atomic::Ordering::Acquire)
                                && !self
                                    .compaction_queued
                                    .swap(true, std::sync::atomic::Ordering::AcqRel)
                            {
                                hook();
                            }
                        }
                        None => self.compact_after_seal(),
                    }
                }
                return Ok(true);
            }
        }
    }

    /// True when the policy seals `active` now.
    fn over_threshold(&self, active: &Segment) -> bool {
        self.options.policy != InMemoryCompaction::None
            && active.data_bytes() > self.options.in_memory_flush_size
    }

    /// [`insert`](Memtable::insert) for an owned cell (its family is ignored).
    ///
    /// # Errors
    /// As [`insert`](Memtable::insert).
    pub fn insert_cell(&self, cell: &Cell) -> Result<bool, InsertError> {
        self.insert(&CellRef::from_cell(cell))
    }

    /// Cell bytes plus index bytes over every segment (active, pipeline, pending snapshot):
    /// what flush decisions compare with the flush size. Grows with inserts; drops on
    /// [`release`](Memtable::release).
    pub fn size_bytes(&self) -> u64 {
        self.view().iter().map(|s| s.size_bytes()).sum()
    }

    /// Cells, bytes, chunks and segments over every segment.
    pub fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        for segment in self.view().iter() {
            segment.add_to(&mut stats);
        }
        stats
    }

    /// True when no segment holds a cell.
    pub fn is_empty(&self) -> bool {
        self.view().iter().all(|s| s.is_empty())
    }

    /// A cursor over every cell with sequence id ≤ `read_point`, unpositioned.
    pub fn iter(&self, read_point: u64) -> Iter {
        Iter::new(self.view().iter(), read_point)
    }

    /// A cursor over the cells of `row` with sequence id ≤ `read_point`, unpositioned: it
    /// leaves out the segments whose row filter rules `row` out, so it shows every cell of
    /// `row` but not necessarily the cells of other rows. `None` when no segment may hold it.
    pub fn iter_for_row(&self, read_point: u64, row: &[u8]) -> Option<Iter> {
        let view = self.view();
        let iter = Iter::new(view.iter().filter(|s| s.may_contain_row(row)), read_point);
        (!iter.has_no_segments()).then_some(iter)
    }

    /// In-memory flush: makes the active segment immutable and pushes it onto the pipeline
    /// (nothing if it is empty). New inserts go to a fresh active segment.
    pub fn seal_active(&self) {
        self.state
            .write()
            .seal_active(self.chunk_size, self.filter_bits);
    }

    /// Takes the flush snapshot. By default (the composite snapshot) it seals the active
    /// segment and hands over the whole pipeline. With
    /// [`Options::flush_oldest_segment_only`] and a non-empty pipeline it hands over only the
    /// pipeline's oldest segment; the rest of the pipeline and the active segment stay in
    /// memory (see [`min_seq_outside_snapshot`](Memtable::min_seq_outside_snapshot) for how
    /// far the WAL may then be truncated). Inserts continue into the active segment meanwhile;
    /// readers keep seeing the snapshot until [`release`](Memtable::release).
    ///
    /// While a snapshot is pending (its flush failed or is running), returns that same
    /// snapshot again, so a retried flush writes the same cells. Returns an empty snapshot
    /// (id 0, nothing pending) when there is nothing to flush.
    pub fn snapshot(&self) -> FlushSnapshot {
        self.snapshot_with(self.options.flush_oldest_segment_only)
    }

    /// [`snapshot`](Memtable::snapshot), always composite: active segment and whole pipeline
    /// (unless a snapshot is pending, which is returned again).
    pub fn snapshot_all(&self) -> FlushSnapshot {
        self.snapshot_with(false)
    }

    fn snapshot_with(&self, oldest_only: bool) -> FlushSnapshot {
        let mut state = self.state.write();
        if let Some(pending) = &state.pending {
            return pending.clone();
        }
        // Interrupts a running in-memory compaction: its result can no longer be swapped in.
        self.version.fetch_add(1, Release);
        // Segments are sealed in order, so the pipeline's last is the oldest.
        let oldest = if oldest_only {
            state.pipeline.pop()
        } else {
            None
        };
        let segments: Arc<[Arc<Segment>]> = match oldest {
            Some(oldest) => Arc::from([oldest]),
            None => {
                state.seal_active(self.chunk_size, self.filter_bits);
                if state.pipeline.is_empty() {
                    return FlushSnapshot::new(0, Arc::from([]));
                }
                std::mem::take(&mut state.pipeline).into()
            }
        };
        let snapshot = FlushSnapshot::new(state.take_id(), segments);
        state.pending = Some(snapshot.clone());
        state.rebuild_view();
        snapshot
    }

    /// The smallest sequence id held outside the pending snapshot (active segment and
    /// pipeline), `None` when they are empty: once the snapshot is in a file, every cell given
    /// to the memtable with a smaller sequence id is in files. A flush that holds off inserts
    /// (the region's updates lock) around `snapshot()` and this call, with every sequence id
    /// up to `last` already inserted, may record `min(last, this − 1)` as flushed.
    pub fn min_seq_outside_snapshot(&self) -> Option<u64> {
        let state = self.state.read();
        let mut stats = Stats::default();
        for segment in std::iter::once(&state.active).chain(&state.pipeline) {
            segment.add_to(&mut stats);
        }
        stats.min_seq
    }

    /// Drops the pending snapshot once its store file is installed: readers stop seeing it
    /// and its memory is freed when the last iterator over it is dropped.
    ///
    /// # Errors
    /// [`ReleaseError::NotPending`] when `snapshot` is not the pending one (releasing an
    /// empty snapshot always succeeds).
    pub fn release(&self, snapshot: FlushSnapshot) -> Result<(), ReleaseError> {
        if snapshot.id() == 0 {
            return Ok(());
        }
        let mut state = self.state.write();
        match &state.pending {
            Some(p) if p.id() == snapshot.id() => {
                state.pending = None;
                state.rebuild_view();
                Ok(())
            }
            _ => Err(ReleaseError::NotPending { id: snapshot.id() }),
        }
    }

    /// The settings.
    pub fn options(&self) -> &Options {
        &self.options
    }

    fn view(&self) -> Arc<[Arc<Segment>]> {
        Arc::clone(&self.state.read().view)
    }
}

impl Default for Memtable {
    fn default() -> Memtable {
        Memtable::new(Options::default())
    }
}
