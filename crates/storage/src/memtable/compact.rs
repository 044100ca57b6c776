//! In-memory compaction builders: flatten, merge (BASIC), copy-compact (EAGER) and the
//! ADAPTIVE choice between the last two. They read immutable segments and build new ones
//! outside any lock; the memtable swaps the result in (see `Memtable::compact_in_memory`).
//!
//! # ADAPTIVE's estimator
//! HBase estimates the unique-key share from the last flatten or merge and then compacts with
//! a probability it tunes. Here the estimate is exact and free of chance: ADAPTIVE merges the
//! pipeline's indexes (what BASIC does anyway, no cell bytes copied) and, during that same
//! pass, runs EAGER's retention decision on every cell, so it knows exactly how many cells an
//! eager compaction would drop (duplicate versions beyond VERSIONS, masked puts). The share is
//! taken over the *fresh* cells: those not in a segment an earlier eager compaction produced
//! (such a segment holds nothing droppable, and counting it would dilute the share as the
//! pipeline grows). When dropped / fresh reaches [`ADAPTIVE_DROP_SHARE`] (duplicates dominate
//! the new data) it copies the survivors into new chunks, as EAGER; otherwise it keeps the
//! merged flat index, as BASIC. The extra cost over BASIC is one retention decision per cell
//! (a few comparisons) and one flag per cell.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering::Acquire};
use std::sync::Arc;

use crate::read::{CompactionSpec, Decision, Retention};

use super::arena::Arena;
use super::key::Key;
use super::merge_index::merge_indexes;
use super::runs::merge_runs;
use super::segment::{Carried, Segment};

/// ADAPTIVE compacts eagerly when at least this share of the pipeline's cells would be dropped.
pub const ADAPTIVE_DROP_SHARE: f64 = 0.5;

/// How often (in cells) a build checks whether it was interrupted.
const CHECK_EVERY: usize = 1024;

/// What an in-memory compaction did to the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing to do (policy `NONE`, or the pipeline is already in its final form).
    Noop,
    /// Skiplist segments replaced by flat ones, one for one (BASIC under the segment limit).
    Flatten,
    /// Segment indexes merged into one flat index; no cell bytes copied (BASIC, ADAPTIVE).
    Merge,
    /// Surviving cells copied into new chunks under one flat index (EAGER, ADAPTIVE).
    Compact,
}

/// How the build ends.
pub(crate) enum Mode {
    /// Merge the indexes only.
    Merge,
    /// Copy the survivors of `spec`.
    Compact(CompactionSpec),
    /// Count what `spec` drops; copy when the dropped share reaches the threshold.
    Adaptive(CompactionSpec),
}

/// Signals a build to stop: the pipeline version moved (a disk flush took the pipeline).
pub(crate) struct Stop<'a> {
    pub(crate) version: &'a AtomicU64,
    pub(crate) expected: u64,
}

impl Stop<'_> {
    fn stopped(&self) -> bool {
        self.version.load(Acquire) != self.expected
    }
}

/// A built segment and what it took.
pub(crate) struct Built {
    pub(crate) segment: Segment,
    pub(crate) action: Action,
    pub(crate) cells_in: u64,
}

/// The arena figures of `inputs` together: a segment over their keys holds their chunks.
fn carried(inputs: &[Arc<Segment>]) -> Carried {
    inputs.iter().fold(Carried::default(), |acc, s| {
        let f = s.arena_figures();
        Carried {
            chunks: acc.chunks + f.chunks,
            large_cells: acc.large_cells + f.large_cells,
            reserved_bytes: acc.reserved_bytes + f.reserved_bytes,
        }
    })
}

/// Merges `inputs` (newest first) into one flat segment, copying survivors into new chunks
/// when `mode` says so; a plain merge of several takes their indexes' dense keys, column runs
/// and figures over ([`merge_indexes`]). `None` when interrupted.
pub(crate) fn build(
    id: u64,
    inputs: &[Arc<Segment>],
    mode: Mode,
    chunk_size: usize,
    stop: &Stop<'_>,
) -> Option<Built> {
    let cells_in: u64 = inputs.iter().map(|s| s.cells()).sum();
    if matches!(mode, Mode::Merge) && inputs.len() > 1 {
        let segments: Vec<&Segment> = inputs.iter().map(AsRef::as_ref).collect();
        let merged = merge_indexes(&segments, || stop.stopped())?;
        let segment = Segment::from_merged(id, merged, Arena::new(chunk_size), carried(inputs));
        return Some(Built {
            segment,
            action: Action::Merge,
            cells_in,
        });
    }
    let (mut retention, copy_always) = match mode {
        Mode::Merge => (None, false),
        Mode::Compact(spec) => (Some(Retention::new(spec)), true),
        Mode::Adaptive(spec) => (Some(Retention::new(spec)), false),
    };
    let mut keep: Vec<bool> = Vec::new();
    let mut dropped = 0u64;
    let runs: Vec<Cow<'_, [Key]>> = inputs.iter().map(|s| s.keys_in_order()).collect();
    let keys = merge_runs(runs.iter().map(AsRef::as_ref).collect(), || stop.stopped())?;
    drop(runs);
    if let Some(retention) = retention.as_mut() {
        keep.reserve(keys.len());
        for (i, key) in keys.iter().enumerate() {
            if i.is_multiple_of(CHECK_EVERY) && stop.stopped() {
                return None;
            }
            let kept = retention.decide(&key.cell()) == Decision::Keep;
            dropped += u64::from(!kept);
            keep.push(kept);
        }
    }
    let fresh: u64 = inputs
        .iter()
        .filter(|s| !s.is_compacted())
        .map(|s| s.cells())
        .sum();
    let copy = retention.is_some()
        && (copy_always || (dropped > 0 && dropped as f64 >= ADAPTIVE_DROP_SHARE * fresh as f64));
    if !copy {
        let carried = carried(inputs);
        let action = if inputs.len() == 1 {
            Action::Flatten
        } else {
            Action::Merge
        };
        let segment = Segment::flat(id, keys, Arena::new(chunk_size), carried);
        return Some(Built {
            segment,
            action,
            cells_in,
        });
    }
    let arena = Arena::new(chunk_size);
    let mut survivors = Vec::with_capacity(keys.len() - dropped as usize);
    for (i, key) in keys.iter().enumerate() {
        if i.is_multiple_of(CHECK_EVERY) && stop.stopped() {
            return None;
        }
        if keep.get(i).copied().unwrap_or(true) {
            let cell = key.cell();
            let data = arena.alloc(Key::encoded_len(&cell), |out| Key::encode(&cell, out));
            survivors.push(Key::new(data, &cell));
        }
    }
    drop(keys);
    Some(Built {
        segment: Segment::flat(id, survivors, arena, Carried::default()).into_compacted(),
        action: Action::Compact,
        cells_in,
    })
}
