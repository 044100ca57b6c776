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

use std::sync::atomic::{AtomicU64, Ordering::Acquire};
use std::sync::Arc;

use crate::read::{CompactionSpec, Decision, Retention};

use super::flat_build::{shared_between, FlatBuilder};
use super::merge_index::merge_indexes;
use super::segment::Segment;

/// ADAPTIVE compacts eagerly when at least this share of the pipeline's cells would be dropped.
pub const ADAPTIVE_DROP_SHARE: f64 = 0.5;

/// How often (in cells) a build checks whether it was interrupted.
const CHECK_EVERY: usize = 1024;

/// What an in-memory compaction did to the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing to do (policy `NONE`, or the pipeline is already in its final form).
    Noop,
    /// Skiplist segments replaced by flat ones, one for one, their cells copied into chunks of
    /// the flat segment's own (BASIC under the segment limit).
    Flatten,
    /// Segment indexes merged into one flat index; no cell bytes copied but a skiplist
    /// input's, as a flatten would (BASIC, ADAPTIVE).
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

/// Merges `inputs` (newest first) into one flat segment ([`merge_indexes`]: a skiplist input's
/// cells are copied, a flat input's chunks taken over), then copies the survivors into new
/// chunks when `mode` says so. `None` when interrupted (or out of chunk ids).
pub(crate) fn build(
    id: u64,
    inputs: &[Arc<Segment>],
    mode: Mode,
    chunk_size: usize,
    stop: &Stop<'_>,
) -> Option<Built> {
    let cells_in: u64 = inputs.iter().map(|s| s.cells()).sum();
    let segments: Vec<&Segment> = inputs.iter().map(AsRef::as_ref).collect();
    let merged = merge_indexes(&segments, chunk_size, || stop.stopped())?;
    let action = if inputs.len() == 1 {
        Action::Flatten
    } else {
        Action::Merge
    };
    let (mut retention, copy_always) = match mode {
        Mode::Merge => (None, false),
        Mode::Compact(spec) => (Some(Retention::new(spec)), true),
        Mode::Adaptive(spec) => (Some(Retention::new(spec)), false),
    };
    let Some(retention) = retention.as_mut() else {
        return Some(Built {
            segment: Segment::from_flat(id, merged),
            action,
            cells_in,
        });
    };
    let index = &merged.index;
    let mut keep: Vec<bool> = Vec::with_capacity(index.len());
    let mut dropped = 0u64;
    for (i, key) in index.keys().enumerate() {
        if i.is_multiple_of(CHECK_EVERY) && stop.stopped() {
            return None;
        }
        let kept = retention.decide(&key.cell()) == Decision::Keep;
        dropped += u64::from(!kept);
        keep.push(kept);
    }
    let fresh: u64 = inputs
        .iter()
        .filter(|s| !s.is_compacted())
        .map(|s| s.cells())
        .sum();
    let copy = copy_always || (dropped > 0 && dropped as f64 >= ADAPTIVE_DROP_SHARE * fresh as f64);
    if !copy {
        return Some(Built {
            segment: Segment::from_flat(id, merged),
            action,
            cells_in,
        });
    }
    let first = keep.iter().position(|&k| k).and_then(|p| index.key(p));
    let last = keep.iter().rposition(|&k| k).and_then(|p| index.key(p));
    let survivors = index.len() - dropped as usize;
    let mut builder = FlatBuilder::new(chunk_size, shared_between(first, last), survivors);
    for (i, key) in index.keys().enumerate() {
        if i.is_multiple_of(CHECK_EVERY) && stop.stopped() {
            return None;
        }
        if keep[i] && !builder.push(key) {
            return None;
        }
    }
    Some(Built {
        segment: Segment::from_flat(id, builder.finish()).into_compacted(),
        action: Action::Compact,
        cells_in,
    })
}
