//! A cursor over a whole memtable: every segment merged in store order, both directions.

use std::cmp::Ordering::{Equal, Greater, Less};
use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::{Cell, CellKey};
use strata_sstable::CellRef;

use super::cursor::Cursor;
use super::key::Probe;
use super::segment::Segment;

/// A cursor over a memtable's cells (or a flush snapshot's), in store order, mirroring
/// [`strata_sstable::Iter`]: moves return `true` when positioned on a cell, `false` past
/// either end.
///
/// It shows cells whose sequence id is at most its read point, from the segments the memtable
/// held when it was made (cells inserted into them later may show too). A key present in two
/// segments shows once. The iterator owns its segments (`Arc`s): it may outlive a flush.
///
/// Costs: `next` follows one link per segment cursor it moves and compares the segments' keys
/// (one to three segments usually); `seek` and `seek_for_prev` search each segment
/// (O(log n)); `prev` is a search too (skiplists link forward only). [`current`](Iter::current)
/// borrows the cell from its arena chunk: no copy, no atomic operation.
pub struct Iter {
    /// Newest segment first: on equal keys the first wins.
    children: Vec<Cursor>,
    current: Option<usize>,
    backward: bool,
}

impl Iter {
    /// An unpositioned iterator over `segments` (newest first).
    pub(crate) fn new<'a>(
        segments: impl IntoIterator<Item = &'a Arc<Segment>>,
        read_point: u64,
    ) -> Iter {
        Iter {
            children: segments
                .into_iter()
                .map(|s| Cursor::new(Arc::clone(s), read_point))
                .collect(),
            current: None,
            backward: false,
        }
    }

    /// True when it reads no segment.
    pub(crate) fn has_no_segments(&self) -> bool {
        self.children.is_empty()
    }

    /// True when positioned on a cell.
    #[inline]
    pub fn valid(&self) -> bool {
        self.current.is_some()
    }

    /// The current cell, borrowed from its arena chunk.
    ///
    /// # Panics
    /// When not [`valid`](Iter::valid).
    #[inline]
    pub fn current(&self) -> CellRef<'_> {
        match self.current.and_then(|c| self.children.get(c)?.current()) {
            Some(cell) => cell,
            None => panic!("memtable::Iter::current on an unpositioned iterator"),
        }
    }

    /// The current cell, copied out with `family` attached.
    ///
    /// # Panics
    /// When not [`valid`](Iter::valid).
    pub fn current_cell(&self, family: &Bytes) -> Cell {
        self.current().to_cell(family)
    }

    /// Positions on the first cell.
    pub fn seek_to_first(&mut self) -> bool {
        self.children.iter_mut().for_each(Cursor::seek_to_first);
        self.settle(true)
    }

    /// Positions on the last cell.
    pub fn seek_to_last(&mut self) -> bool {
        self.children.iter_mut().for_each(Cursor::seek_to_last);
        self.settle(false)
    }

    /// Positions on the first cell with key ≥ `target`.
    pub fn seek(&mut self, target: &CellKey) -> bool {
        let probe = Probe::of_key(target);
        self.children.iter_mut().for_each(|c| c.seek(&probe));
        self.settle(true)
    }

    /// Positions on the first cell with key ≥ `target`, for a target at or after the
    /// current cell of an iterator moving forward: segments already at or past it stay, the
    /// others move on from where they are (see [`Cursor::seek_forward`]). Otherwise as
    /// [`seek`](Iter::seek).
    pub fn reseek(&mut self, target: &CellKey) -> bool {
        if self.backward || self.current.is_none() {
            return self.seek(target);
        }
        let probe = Probe::of_key(target);
        self.children
            .iter_mut()
            .for_each(|c| c.seek_forward(&probe));
        self.settle(true)
    }

    /// Positions on the last cell with key ≤ `target`.
    pub fn seek_for_prev(&mut self, target: &CellKey) -> bool {
        let probe = Probe::of_key(target);
        self.children
            .iter_mut()
            .for_each(|c| c.seek_for_prev(&probe));
        self.settle(false)
    }

    /// Moves to the next cell.
    #[expect(
        clippy::should_implement_trait,
        reason = "a cursor: cells borrow the iterator, so std's Iterator cannot hand them out"
    )]
    pub fn next(&mut self) -> bool {
        let Some(c) = self.current else {
            return false;
        };
        if self.backward {
            // The others sit at or before the current key: move them after it.
            for i in (0..self.children.len()).filter(|&i| i != c) {
                let (cur, other) = pair(&mut self.children, c, i);
                if let Some(key) = cur.key() {
                    other.seek_after(&key.probe());
                }
            }
        }
        self.children[c].next();
        self.settle(true)
    }

    /// Moves to the previous cell.
    pub fn prev(&mut self) -> bool {
        let Some(c) = self.current else {
            return false;
        };
        if !self.backward {
            // The others sit at or after the current key: move them before it.
            for i in (0..self.children.len()).filter(|&i| i != c) {
                let (cur, other) = pair(&mut self.children, c, i);
                if let Some(key) = cur.key() {
                    other.seek_before(&key.probe());
                }
            }
        }
        self.children[c].prev();
        self.settle(false)
    }

    /// Picks the smallest (forward) or largest (backward) child key, the newest segment on
    /// ties, and moves the other children holding that same key past it.
    fn settle(&mut self, forward: bool) -> bool {
        let wanted = if forward { Less } else { Greater };
        // Children with the best key found so far, one bit each (index < 64), and whether
        // a tie was seen at a higher index: then they are compared again below.
        let (mut best, mut ties, mut wide) = (None::<usize>, 0u64, false);
        {
            let mut best_probe: Option<Probe<'_>> = None;
            for (i, child) in self.children.iter().enumerate() {
                let Some(key) = child.key() else { continue };
                let order = best_probe.as_ref().map(|b| key.cmp_probe(b));
                if order.is_none() || order == Some(wanted) {
                    best = Some(i);
                    best_probe = Some(key.probe());
                    (ties, wide) = (0, false);
                } else if order == Some(Equal) {
                    match 1u64.checked_shl(i as u32) {
                        Some(bit) => ties |= bit,
                        None => wide = true,
                    }
                }
            }
        }
        if let Some(b) = best {
            for i in (0..self.children.len()).filter(|&i| i != b) {
                let same = if wide {
                    let (chosen, other) = pair(&mut self.children, b, i);
                    match (chosen.key(), other.key()) {
                        (Some(c), Some(o)) => o.cmp_probe(&c.probe()) == Equal,
                        _ => false,
                    }
                } else {
                    ties.checked_shr(i as u32).is_some_and(|t| t & 1 != 0)
                };
                if same && forward {
                    self.children[i].next();
                } else if same {
                    self.children[i].prev();
                }
            }
        }
        self.current = best;
        self.backward = !forward;
        best.is_some()
    }
}

/// Child `fixed` to read and child `moving` to move; requires `fixed != moving`.
fn pair(children: &mut [Cursor], fixed: usize, moving: usize) -> (&Cursor, &mut Cursor) {
    if fixed < moving {
        let (a, b) = children.split_at_mut(moving);
        (&a[fixed], &mut b[0])
    } else {
        let (a, b) = children.split_at_mut(fixed);
        (&b[0], &mut a[moving])
    }
}
