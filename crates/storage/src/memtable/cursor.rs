//! A position in one segment (skiplist or flat), skipping cells newer than its read point.

use std::cmp::Ordering::{Equal, Greater, Less};
use std::sync::Arc;

use strata_sstable::CellRef;

use super::key::{Key, KeyRef, Probe};
use super::segment::{Index, Segment};
use super::skiplist::{SkipList, HEAD, NIL};

/// No position.
const NONE: usize = usize::MAX;

/// Links a forward seek in a skiplist follows before it searches instead.
const LIST_STEPS: usize = 4;

/// A position in one segment: a skiplist node id or a flat array index.
///
/// Moves on an unpositioned cursor leave it unpositioned (except seeks).
pub(crate) struct Cursor {
    segment: Arc<Segment>,
    pos: usize,
    read_point: u64,
}

/// True when `key` is below `probe` (`inclusive`: at or below).
#[inline]
fn below(key: KeyRef<'_>, probe: &Probe<'_>, inclusive: bool) -> bool {
    match key.cmp_probe(probe) {
        Less => true,
        Equal => inclusive,
        Greater => false,
    }
}

/// The position of the first node after `pred` (a search's result) not below `probe`. A
/// key linked after the search passed its place may sit between `pred` and the probe: it
/// steps over such keys.
fn first_not_below(list: &SkipList, pred: u32, probe: &Probe<'_>, inclusive: bool) -> usize {
    let mut id = list.successor(pred);
    while list
        .key(id)
        .is_some_and(|k| below(k.as_ref(), probe, inclusive))
    {
        id = list.successor(id);
    }
    node_pos(id)
}

/// A skiplist node id as a position ([`NIL`] and [`HEAD`] stay out of range).
fn node_pos(node: u32) -> usize {
    if node == NIL || node == HEAD {
        NONE
    } else {
        node as usize
    }
}

/// A position as a skiplist node id.
fn pos_node(pos: usize) -> u32 {
    u32::try_from(pos).unwrap_or(NIL)
}

impl Cursor {
    /// An unpositioned cursor over `segment` that shows cells with seq ≤ `read_point`.
    pub(crate) fn new(segment: Arc<Segment>, read_point: u64) -> Cursor {
        Cursor {
            segment,
            pos: NONE,
            read_point,
        }
    }

    /// The key under the cursor, if positioned.
    #[inline]
    pub(crate) fn key(&self) -> Option<KeyRef<'_>> {
        match &self.segment.index {
            Index::List(list) => list.key(pos_node(self.pos)).map(Key::as_ref),
            Index::Flat(flat) => flat.key(self.pos),
        }
    }

    /// The cell under the cursor, if positioned.
    #[inline]
    pub(crate) fn current(&self) -> Option<CellRef<'_>> {
        self.key().map(KeyRef::cell)
    }

    /// The sequence id of the key under the cursor, if positioned (a flat index answers
    /// without reading the cell).
    #[inline]
    fn seq(&self) -> Option<u64> {
        match &self.segment.index {
            Index::List(list) => list.key(pos_node(self.pos)).map(Key::seq),
            Index::Flat(flat) => flat.seq_at(self.pos),
        }
    }

    /// The position of the first key, or [`NONE`].
    fn first(&self) -> usize {
        match &self.segment.index {
            Index::List(list) => node_pos(list.successor(HEAD)),
            Index::Flat(_) => 0,
        }
    }

    /// The position of the last key, or [`NONE`].
    fn last(&self) -> usize {
        match &self.segment.index {
            Index::List(list) => node_pos(list.last_where(|_| true)),
            Index::Flat(flat) => flat.len().wrapping_sub(1),
        }
    }

    /// To the first cell ≥ `probe`.
    pub(crate) fn seek(&mut self, probe: &Probe<'_>) {
        let pos = self.first_above(probe, false);
        self.forward_from(pos);
    }

    /// As [`seek`](Cursor::seek), for a probe at or after the cursor's key when the cursor
    /// got there by forward moves: a cursor at or past the probe (or past the end) stays; one
    /// below it moves on from where it is (over whole column runs in a flat index; to its
    /// column's run tail, then a few links, in a skiplist) and, if that does not reach the
    /// probe, searches on from there (a finger search in a skiplist) or the whole index.
    pub(crate) fn seek_forward(&mut self, probe: &Probe<'_>) {
        match self.key() {
            Some(key) if below(key, probe, false) => {}
            _ => return,
        }
        match &self.segment.index {
            Index::Flat(flat) => {
                let pos = flat.partition_from(self.pos, probe);
                self.forward_from(pos);
            }
            Index::List(list) => {
                let probe = &probe.under(list.rule());
                let mut id = pos_node(self.pos);
                // Over the older versions of the cursor's column in one hop when the probe
                // is past them (a reader skipping to the next column): every node up to the
                // run's tail is of the column, so below the probe too.
                let tail = list.run_tail(id);
                if tail != id
                    && list
                        .key(tail)
                        .is_some_and(|k| below(k.as_ref(), probe, false))
                {
                    id = tail;
                }
                for _ in 0..LIST_STEPS {
                    let next = list.successor(id);
                    match list.key(next) {
                        Some(k) if below(k.as_ref(), probe, false) => id = next,
                        _ => {
                            self.forward_from(node_pos(next));
                            return;
                        }
                    }
                }
                // `id` is below the probe: search on from it rather than from the head.
                let pred = list.last_where_from(id, |k| below(k.as_ref(), probe, false));
                self.forward_from(first_not_below(list, pred, probe, false));
            }
        }
    }

    /// To the first cell > `probe`.
    pub(crate) fn seek_after(&mut self, probe: &Probe<'_>) {
        let pos = self.first_above(probe, true);
        self.forward_from(pos);
    }

    /// To the last cell ≤ `probe`.
    pub(crate) fn seek_for_prev(&mut self, probe: &Probe<'_>) {
        let pos = self.last_below(probe, true);
        self.backward_from(pos);
    }

    /// To the last cell < `probe`.
    pub(crate) fn seek_before(&mut self, probe: &Probe<'_>) {
        let pos = self.last_below(probe, false);
        self.backward_from(pos);
    }

    /// The position of the first key not below `probe` (`inclusive`: not at or below it), or
    /// [`NONE`]. A flat index is searched by dense row keys first.
    fn first_above(&self, probe: &Probe<'_>, inclusive: bool) -> usize {
        match &self.segment.index {
            Index::List(list) => {
                let probe = &probe.under(list.rule());
                let pred = list.last_where(|k| below(k.as_ref(), probe, inclusive));
                first_not_below(list, pred, probe, inclusive)
            }
            Index::Flat(flat) => flat.partition(probe, inclusive),
        }
    }

    /// The position of the last key below `probe` (`inclusive`: at or below it), or [`NONE`].
    fn last_below(&self, probe: &Probe<'_>, inclusive: bool) -> usize {
        match &self.segment.index {
            Index::List(list) => {
                let probe = &probe.under(list.rule());
                node_pos(list.last_where(|k| below(k.as_ref(), probe, inclusive)))
            }
            Index::Flat(flat) => flat.partition(probe, inclusive).wrapping_sub(1),
        }
    }

    /// To the first cell.
    pub(crate) fn seek_to_first(&mut self) {
        let pos = self.first();
        self.forward_from(pos);
    }

    /// To the last cell.
    pub(crate) fn seek_to_last(&mut self) {
        let pos = self.last();
        self.backward_from(pos);
    }

    /// To the next cell.
    pub(crate) fn next(&mut self) {
        if self.seq().is_some() {
            let pos = self.step_forward(self.pos);
            self.forward_from(pos);
        }
    }

    /// To the previous cell (a search in a skiplist, a step in a flat index).
    pub(crate) fn prev(&mut self) {
        if self.seq().is_some() {
            let pos = self.step_backward(self.pos);
            self.backward_from(pos);
        }
    }

    fn step_forward(&self, pos: usize) -> usize {
        match &self.segment.index {
            Index::List(list) => node_pos(list.successor(pos_node(pos))),
            Index::Flat(_) => pos + 1,
        }
    }

    fn step_backward(&self, pos: usize) -> usize {
        match &self.segment.index {
            Index::List(list) => match list.key(pos_node(pos)) {
                Some(key) => {
                    let probe = key.probe();
                    node_pos(list.last_where(|k| k.cmp_probe(&probe) == Less))
                }
                None => NONE,
            },
            Index::Flat(_) => pos.wrapping_sub(1),
        }
    }

    /// Settles on the first visible cell at or after `pos`.
    fn forward_from(&mut self, mut pos: usize) {
        self.pos = pos;
        while let Some(seq) = self.seq() {
            if seq <= self.read_point {
                return;
            }
            pos = self.step_forward(pos);
            self.pos = pos;
        }
        self.pos = NONE;
    }

    /// Settles on the last visible cell at or before `pos`.
    fn backward_from(&mut self, mut pos: usize) {
        self.pos = pos;
        while let Some(seq) = self.seq() {
            if seq <= self.read_point {
                return;
            }
            pos = self.step_backward(pos);
            self.pos = pos;
        }
        self.pos = NONE;
    }
}
