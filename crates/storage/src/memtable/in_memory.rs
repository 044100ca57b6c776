//! In-memory compaction of the pipeline: choosing the action per policy, and the optimistic
//! swap.
//!
//! # Concurrency
//! A compaction copies the pipeline's `Arc`s and the pipeline version under the state lock
//! (a few microseconds), builds its result with no lock held (inserts and reads go on), and
//! takes the write lock again only to swap: if the version moved (a disk-flush `snapshot()`
//! took the pipeline, or another compaction swapped), the result is dropped. In-memory flushes
//! meanwhile only push new segments at the pipeline's head, so the inputs are still its tail
//! and are replaced in place. `snapshot()` bumps the version, which also makes a running build
//! stop at its next check (every 1024 cells). One compaction runs at a time per memtable.
//!
//! Who runs it: the writer whose insert seals the active segment runs one right after the seal
//! (outside the lock: other writers go on into the fresh active segment). Without a smallest
//! read point from the region ([`Memtable::set_smallest_read_point`]) that one only flattens
//! and merges, since EAGER's drops are safe only for readers at or above it. A background
//! pool may also call [`Memtable::compact_in_memory`] with the region's smallest read point.

use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::Arc;

use strata_model::schema::InMemoryCompaction;

use crate::clock::Clock;
use crate::read::CompactionSpec;

use super::compact::{build, Action, Mode, Stop, ADAPTIVE_DROP_SHARE};
use super::segment::Segment;
use super::Memtable;

/// An idle merge runs when at least one in this many of a memtable's cells lie outside its
/// largest flat segment ([`Memtable::mergeable_when_idle`]).
pub const IDLE_MERGE_SHARE: u64 = 16;

/// What one in-memory compaction did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// The action taken (or tried).
    pub action: Action,
    /// Pipeline segments taken as input.
    pub segments_in: usize,
    /// Cells in those segments.
    pub cells_in: u64,
    /// Cells in the segments that replaced them.
    pub cells_out: u64,
    /// Cells of the newest segments BASIC merged into one (0 when it only flattened, and for
    /// EAGER and ADAPTIVE copies): the keys this compaction copied beyond flattening.
    pub cells_merged: u64,
    /// True when the result replaced its inputs; false when there was nothing to do, another
    /// compaction was running, or a disk flush interrupted it.
    pub swapped: bool,
}

impl Report {
    fn noop() -> Report {
        Report {
            action: Action::Noop,
            segments_in: 0,
            cells_in: 0,
            cells_out: 0,
            cells_merged: 0,
            swapped: false,
        }
    }
}

/// What to build.
enum Plan {
    /// BASIC: merge the newest `merge` inputs (all of them when more) into one flat segment
    /// when that is at least two, and flatten every other skiplist segment on its own.
    Basic { merge: usize },
    /// Build one segment from all inputs.
    All(Mode),
}

impl Memtable {
    /// Tells the memtable the oldest read point any reader of its store may still use, so that
    /// the compactions it runs after in-memory flushes may drop cells (EAGER, ADAPTIVE).
    /// Only a larger value is kept.
    pub fn set_smallest_read_point(&self, read_point: u64) {
        self.smallest_read_point.fetch_max(read_point, Relaxed);
    }

    /// Sets where compactions after in-memory flushes ask for the oldest reader's read point
    /// (the region's reader registry). Set once; later calls are ignored.
    pub fn set_read_point_source(&self, source: super::ReadPointSource) {
        let _ = self.read_point_source.set(source);
    }

    /// Sets the clock the family's TTL is measured by when compactions after in-memory flushes
    /// and [`compact_in_memory`](Memtable::compact_in_memory) copy (EAGER, ADAPTIVE): cells
    /// with a timestamp before `now − TTL` are dropped, MIN_VERSIONS kept. Without a clock no
    /// cell is dropped for its age. Set once; later calls are ignored.
    pub fn set_clock(&self, clock: Arc<dyn Clock>) {
        let _ = self.clock.set(clock);
    }

    /// True when the policy has work for [`compact_in_memory`](Memtable::compact_in_memory).
    pub fn needs_in_memory_compaction(&self) -> bool {
        let inputs = self.state.read().pipeline.clone();
        self.plan(&inputs, true).is_some()
    }

    /// Runs one in-memory compaction of the pipeline per the policy, dropping (EAGER, ADAPTIVE)
    /// only what no reader at `smallest_read_point` or above can see. Never blocks inserts or
    /// reads; see the module notes for how it interacts with a disk flush.
    pub fn compact_in_memory(&self, smallest_read_point: u64) -> Report {
        let now = self.clock.get().map(|c| c.now_ms());
        self.compact_with(smallest_read_point, true, now)
    }

    /// [`compact_in_memory`](Memtable::compact_in_memory) with TTL measured at `now_ms`
    /// (milliseconds since the epoch) whatever the clock: EAGER and ADAPTIVE copies drop cells
    /// with a timestamp before `now_ms − TTL` (MIN_VERSIONS kept, as HBase).
    pub fn compact_in_memory_at(&self, smallest_read_point: u64, now_ms: i64) -> Report {
        self.compact_with(smallest_read_point, true, Some(now_ms))
    }

    /// Has seals call `hook` instead of compacting on the sealing writer's thread; the hook
    /// must see that [`compact_after_seal`](Memtable::compact_after_seal) runs soon. Set once;
    /// later calls are ignored.
    pub fn set_seal_hook(&self, hook: super::SealHook) {
        let _ = self.seal_hook.set(hook);
    }

    /// The compaction a seal asks for (flatten, merge or copy by policy), at the read point
    /// the read-point source gives and the clock's time. A no-op while another runs.
    pub fn compact_after_seal(&self) {
        self.compaction_queued.store(false, Release);
        let read_point = match self.read_point_source.get() {
            Some(source) => source(),
            None => self.smallest_read_point.load(Relaxed),
        };
        let now = self.clock.get().map(|c| c.now_ms());
        self.compact_with(read_point, read_point > 0, now);
    }

    /// Merges a memtable that takes no writes into one flat segment: the active segment is
    /// sealed and the whole pipeline's indexes merged (no cell copied or dropped, as BASIC's
    /// merge), so a get searches one index instead of one per segment. Meant for a region
    /// idle for a while (the server's flush check asks); a no-op under `NONE` (one skiplist,
    /// never sealed), when the memtable already is one flat segment or empty, and while
    /// another in-memory compaction runs.
    pub fn merge_idle(&self) -> Report {
        if self.options.policy == InMemoryCompaction::None || !self.mergeable_when_idle() {
            return Report::noop();
        }
        self.seal_active();
        self.run_compaction(0, false, None, Some(Plan::Basic { merge: usize::MAX }))
    }

    /// True when [`merge_idle`](Memtable::merge_idle) is worth its index pass: the cells
    /// outside the largest flat segment (the active segment's, the other pipeline segments')
    /// are at least one in [`IDLE_MERGE_SHARE`] of the memtable's. A few writes after a merge leave
    /// a small active segment beside the flat one; searching it costs a get little, while
    /// merging again would pass over every cell for them.
    pub fn mergeable_when_idle(&self) -> bool {
        let state = self.state.read();
        let largest_flat = state
            .pipeline
            .iter()
            .filter(|s| s.is_flat())
            .map(|s| s.cells())
            .max()
            .unwrap_or(0);
        let total = state.active.cells() + state.pipeline.iter().map(|s| s.cells()).sum::<u64>();
        let outside = total - largest_flat;
        outside > 0 && outside * IDLE_MERGE_SHARE >= total
    }

    fn compact_with(&self, smallest_read_point: u64, allow_copy: bool, now: Option<i64>) -> Report {
        self.run_compaction(smallest_read_point, allow_copy, now, None)
    }

    /// One compaction at a time: `plan` when given, else the policy's.
    fn run_compaction(
        &self,
        smallest_read_point: u64,
        allow_copy: bool,
        now: Option<i64>,
        plan: Option<Plan>,
    ) -> Report {
        if self
            .compacting
            .compare_exchange(false, true, AcqRel, Acquire)
            .is_err()
        {
            return Report::noop();
        }
        let report = self.compact_locked_out(smallest_read_point, allow_copy, now, plan);
        self.compacting.store(false, Release);
        report
    }

    fn compact_locked_out(
        &self,
        smallest_read_point: u64,
        allow_copy: bool,
        now: Option<i64>,
        forced: Option<Plan>,
    ) -> Report {
        let (inputs, expected, first_id) = {
            let mut state = self.state.write();
            let inputs = state.pipeline.clone();
            let first_id = state.next_id + 1;
            state.next_id += inputs.len() as u64;
            (inputs, self.version.load(Acquire), first_id)
        };
        let expired_before = self.expired_before(now);
        let forced_plan = forced.is_some();
        let Some(mut plan) = forced.or_else(|| {
            let now = now.unwrap_or(i64::MIN);
            self.plan_with(
                &inputs,
                allow_copy,
                smallest_read_point,
                expired_before,
                now,
            )
        }) else {
            return Report::noop();
        };
        if forced_plan && inputs.is_empty() {
            return Report::noop();
        }
        if matches!(plan, Plan::All(Mode::Adaptive(_)))
            && !duplicates_likely(&inputs, expired_before)
        {
            // ADAPTIVE's exact count would only confirm a merge: do what BASIC does.
            match self.basic_plan(&inputs) {
                Some(basic) => plan = basic,
                None => return Report::noop(),
            }
        }
        let stop = Stop {
            version: &self.version,
            expected,
        };
        let cells_in = inputs.iter().map(|s| s.cells()).sum();
        let mut report = Report {
            action: Action::Flatten,
            segments_in: inputs.len(),
            cells_in,
            cells_out: 0,
            cells_merged: 0,
            swapped: false,
        };
        let mut outputs: Vec<Arc<Segment>> = Vec::with_capacity(inputs.len());
        match plan {
            Plan::Basic { merge } => {
                let merge = merge.min(inputs.len());
                let merged = if merge >= 2 {
                    let newest = &inputs[..merge];
                    let Some(built) = build(first_id, newest, Mode::Merge, self.chunk_size, &stop)
                    else {
                        return report;
                    };
                    report.action = built.action;
                    report.cells_merged = built.cells_in;
                    outputs.push(Arc::new(built.segment));
                    merge
                } else {
                    0
                };
                for (i, segment) in inputs.iter().enumerate().skip(merged) {
                    if segment.is_flat() {
                        outputs.push(Arc::clone(segment));
                        continue;
                    }
                    let id = first_id + i as u64;
                    let one = std::slice::from_ref(segment);
                    let Some(built) = build(id, one, Mode::Merge, self.chunk_size, &stop) else {
                        return report;
                    };
                    outputs.push(Arc::new(built.segment));
                }
            }
            Plan::All(mode) => {
                let Some(built) = build(first_id, &inputs, mode, self.chunk_size, &stop) else {
                    return report;
                };
                report.action = built.action;
                report.cells_in = built.cells_in;
                outputs.push(Arc::new(built.segment));
            }
        }
        report.cells_out = outputs.iter().map(|s| s.cells()).sum();
        report.swapped = self.swap(&inputs, outputs, expected);
        report
    }

    /// Replaces `inputs`, the pipeline's tail, by `outputs` if the version is `expected`.
    fn swap(&self, inputs: &[Arc<Segment>], outputs: Vec<Arc<Segment>>, expected: u64) -> bool {
        let mut state = self.state.write();
        if self.version.load(Acquire) != expected {
            return false;
        }
        let keep = state.pipeline.len().saturating_sub(inputs.len());
        let tail_matches = state.pipeline.len() >= inputs.len()
            && state.pipeline[keep..]
                .iter()
                .zip(inputs)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        if !tail_matches {
            return false;
        }
        state.pipeline.truncate(keep);
        state.pipeline.extend(outputs);
        self.version.fetch_add(1, Release);
        state.rebuild_view();
        true
    }

    fn plan(&self, inputs: &[Arc<Segment>], allow_copy: bool) -> Option<Plan> {
        let read_point = self.smallest_read_point.load(Relaxed);
        self.plan_with(inputs, allow_copy, read_point, i64::MIN, i64::MIN)
    }

    /// Cells with a timestamp below this are past the family's TTL at `now`; `i64::MIN` when
    /// the family keeps cells forever or there is no `now`.
    fn expired_before(&self, now: Option<i64>) -> i64 {
        match (self.options.ttl_ms, now) {
            (Some(ttl), Some(now)) => now.saturating_sub(ttl),
            _ => i64::MIN,
        }
    }

    /// BASIC's decision for a pipeline of `inputs` (newest first): past the segment limit,
    /// merge the newest segments of one size tier (see [`newest_tier`]); flatten the other
    /// skiplist segments one for one.
    fn basic_plan(&self, inputs: &[Arc<Segment>]) -> Option<Plan> {
        let merge = if inputs.len() > self.options.pipeline_limit {
            newest_tier(inputs.iter().map(|s| s.cells()))
        } else {
            0
        };
        if merge >= 2 || inputs.iter().any(|s| !s.is_flat()) {
            Some(Plan::Basic { merge })
        } else {
            None
        }
    }

    /// The policy's decision for a pipeline of `inputs` (newest first); copies drop cells
    /// with a timestamp below `expired_before` (MIN_VERSIONS kept) and puts whose own TTL has
    /// expired at `now` (`i64::MIN`: none).
    fn plan_with(
        &self,
        inputs: &[Arc<Segment>],
        allow_copy: bool,
        smallest_read_point: u64,
        expired_before: i64,
        now: i64,
    ) -> Option<Plan> {
        let options = &self.options;
        let any_list = inputs.iter().any(|s| !s.is_flat());
        let several = inputs.len() > 1;
        let spec = || CompactionSpec {
            max_versions: options.max_versions,
            min_versions: options.min_versions,
            expired_before,
            keep_deleted: options.keep_deleted,
            now,
            smallest_read_point,
            drop_markers: false,
            trim_versions: true,
        };
        let basic = || self.basic_plan(inputs);
        match options.policy {
            InMemoryCompaction::None => None,
            InMemoryCompaction::Basic => basic(),
            InMemoryCompaction::Eager | InMemoryCompaction::Adaptive if !allow_copy => basic(),
            _ if !(several || any_list) => None,
            InMemoryCompaction::Eager => Some(Plan::All(Mode::Compact(spec()))),
            InMemoryCompaction::Adaptive => Some(Plan::All(Mode::Adaptive(spec()))),
        }
    }
}

/// How many of the pipeline's newest segments (`cells` per segment, newest first) form its
/// newest size tier: the newest, then each older one while the newer ones together hold at
/// least half its cells. Fewer than two: nothing to merge.
///
/// Merging the whole pipeline (HBase's rule) copies its large oldest segment's keys again
/// every second seal, so a cell's key is copied about (seals in the memtable) / 4 times.
/// Merging a tier copies a key each time its segment at least about doubles: a logarithmic
/// number of times, for a few more segments a get probes (each behind its row filter).
fn newest_tier(cells: impl IntoIterator<Item = u64>) -> usize {
    let mut cells = cells.into_iter();
    let Some(mut taken) = cells.next() else {
        return 0;
    };
    let mut tier = 1;
    for older in cells {
        if taken.saturating_mul(2) < older {
            break;
        }
        taken += older;
        tier += 1;
    }
    tier
}

/// ADAPTIVE's first look, before its exact count: whether at least [`ADAPTIVE_DROP_SHARE`] of
/// the cells of the pipeline's skiplist segments (the data sealed since the last compaction)
/// may be dropped: another version of the column the cell before it has in the same
/// segment, a cell of a row an older segment of the pipeline may hold (its row filter), or
/// a cell past the TTL (a timestamp below `expired_before`).
/// A row-level match mostly over-counts what a compaction can drop (another column of the row
/// is no duplicate), so below the share the exact pass would almost always merge, and ADAPTIVE
/// does what BASIC does without running it: a load of new keys then costs about what it costs
/// under BASIC (what this misses is in RFC 0003, "ADAPTIVE's estimator"). True when no
/// skiplist segment is there to look at (an explicit compaction of flat segments keeps the
/// exact pass).
fn duplicates_likely(inputs: &[Arc<Segment>], expired_before: i64) -> bool {
    let (mut cells, mut likely) = (0u64, 0u64);
    for (i, segment) in inputs.iter().enumerate() {
        if let Some((n, d)) = segment.likely_duplicates(&inputs[i + 1..], expired_before) {
            cells += n;
            likely += d;
        }
    }
    cells == 0 || likely as f64 >= ADAPTIVE_DROP_SHARE * cells as f64
}
