//! Many cursors as one.
//!
//! Sources are few (a memtable's segments and a store's files, rarely more than a dozen), so
//! the smallest current cell is found by a linear pass rather than a heap: fewer branches and
//! no re-heapify on every step. Identical keys (the same cell in two sources) come out once per
//! source, the source listed first (the newest) first.

use std::cmp::Ordering;

use strata_model::cell::{compare_keys, CellKey};
use strata_sstable::{CellRef, Result};

use super::Cursor;

/// Cursors merged into store order. List sources newest first.
pub struct MergeCursor<C: Cursor> {
    sources: Vec<C>,
    /// Index of the source holding the smallest current cell.
    current: Option<usize>,
}

impl<C: Cursor> MergeCursor<C> {
    /// Merges `sources` (newest first).
    pub fn new(sources: Vec<C>) -> MergeCursor<C> {
        MergeCursor {
            sources,
            current: None,
        }
    }

    /// Merges `sources` (newest first) that are already positioned where the merge starts:
    /// the cursor is then on the smallest of their current cells, without seeking again.
    pub fn positioned(sources: Vec<C>) -> MergeCursor<C> {
        let mut merged = MergeCursor::new(sources);
        merged.pick();
        merged
    }

    fn pick(&mut self) -> bool {
        let mut best: Option<usize> = None;
        for (i, s) in self.sources.iter().enumerate() {
            if !s.valid() {
                continue;
            }
            best = match best {
                None => Some(i),
                Some(b) => {
                    let order = compare_keys(
                        s.current().key_parts(),
                        self.sources[b].current().key_parts(),
                    );
                    if order == Ordering::Less {
                        Some(i)
                    } else {
                        Some(b)
                    }
                }
            };
        }
        self.current = best;
        best.is_some()
    }
}

impl<C: Cursor> Cursor for MergeCursor<C> {
    fn valid(&self) -> bool {
        self.current.is_some()
    }

    fn current(&self) -> CellRef<'_> {
        match self.current {
            Some(i) => self.sources[i].current(),
            None => panic!("MergeCursor::current on an unpositioned cursor"),
        }
    }

    fn seek(&mut self, target: &CellKey) -> Result<bool> {
        for s in &mut self.sources {
            s.seek(target)?;
        }
        Ok(self.pick())
    }

    /// Moves only the sources below `target` (an invalid source is past its end and stays).
    /// Falls back to `seek` when the cursor is not positioned.
    fn reseek(&mut self, target: &CellKey) -> Result<bool> {
        if self.current.is_none() {
            return self.seek(target);
        }
        for s in &mut self.sources {
            if s.valid() && compare_keys(s.current().key_parts(), target.parts()) == Ordering::Less
            {
                s.reseek(target)?;
            }
        }
        Ok(self.pick())
    }

    fn seek_to_first(&mut self) -> Result<bool> {
        for s in &mut self.sources {
            s.seek_to_first()?;
        }
        Ok(self.pick())
    }

    /// Positions every source on its last cell and returns the largest (see `seek_for_prev`).
    fn seek_to_last(&mut self) -> Result<bool> {
        for s in &mut self.sources {
            s.seek_to_last()?;
        }
        Ok(self.pick_last())
    }

    /// Positions every source on its last cell ≤ `target` and returns the largest of those:
    /// the last cell ≤ `target` over all sources. The cursor is then unpositioned for forward
    /// moves; seek before calling `next`. (Reversed scans find each previous row this way and
    /// read it forward.)
    fn seek_for_prev(&mut self, target: &CellKey) -> Result<bool> {
        for s in &mut self.sources {
            s.seek_for_prev(target)?;
        }
        Ok(self.pick_last())
    }

    fn next(&mut self) -> Result<bool> {
        if let Some(i) = self.current {
            self.sources[i].next()?;
        }
        Ok(self.pick())
    }
}

impl<C: Cursor> MergeCursor<C> {
    /// Marks the source with the largest current cell as current.
    fn pick_last(&mut self) -> bool {
        let mut best: Option<usize> = None;
        for (i, s) in self.sources.iter().enumerate() {
            if !s.valid() {
                continue;
            }
            best = match best {
                Some(b)
                    if compare_keys(
                        s.current().key_parts(),
                        self.sources[b].current().key_parts(),
                    ) != Ordering::Greater =>
                {
                    Some(b)
                }
                _ => Some(i),
            };
        }
        self.current = best;
        best.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use proptest::prelude::*;
    use strata_model::cell::{Cell, CellType};

    /// A cursor over a sorted vector.
    struct VecCursor {
        cells: Vec<Cell>,
        pos: usize,
    }

    impl Cursor for VecCursor {
        fn valid(&self) -> bool {
            self.pos < self.cells.len()
        }
        fn current(&self) -> CellRef<'_> {
            CellRef::from_cell(&self.cells[self.pos])
        }
        fn seek(&mut self, target: &CellKey) -> Result<bool> {
            self.pos = self.cells.partition_point(|c| c.key() < *target);
            Ok(self.valid())
        }
        fn seek_to_first(&mut self) -> Result<bool> {
            self.pos = 0;
            Ok(self.valid())
        }
        fn seek_to_last(&mut self) -> Result<bool> {
            self.pos = self.cells.len().checked_sub(1).unwrap_or(usize::MAX);
            Ok(self.valid())
        }
        fn seek_for_prev(&mut self, target: &CellKey) -> Result<bool> {
            let n = self.cells.partition_point(|c| c.key() <= *target);
            self.pos = if n == 0 { usize::MAX } else { n - 1 };
            Ok(self.valid())
        }
        fn next(&mut self) -> Result<bool> {
            self.pos = self.pos.saturating_add(1);
            Ok(self.valid())
        }
    }

    fn cell(row: u8, ts: i64, seq: u64) -> Cell {
        Cell {
            row: Bytes::from(vec![row]),
            family: Bytes::from_static(b"f"),
            qualifier: Bytes::from_static(b"q"),
            timestamp: ts,
            cell_type: CellType::Put,
            seq,
            value: Bytes::new(),
            ttl: None,
        }
    }

    proptest! {
        #[test]
        fn merges_into_store_order(
            sources in prop::collection::vec(
                prop::collection::vec((0u8..8, 0i64..4, 0u64..100), 0..20), 0..5),
            target in (0u8..9, 0i64..4),
        ) {
            let mut all = Vec::new();
            let cursors: Vec<VecCursor> = sources
                .into_iter()
                .map(|s| {
                    let mut cells: Vec<Cell> = s.into_iter().map(|(r, ts, seq)| cell(r, ts, seq)).collect();
                    cells.sort();
                    cells.dedup();
                    all.extend(cells.iter().cloned());
                    VecCursor { cells, pos: 0 }
                })
                .collect();
            all.sort();
            let mut m = MergeCursor::new(cursors);
            let mut got = Vec::new();
            let mut ok = m.seek_to_first().unwrap();
            while ok {
                got.push(m.current().to_cell(&Bytes::from_static(b"f")));
                ok = m.next().unwrap();
            }
            prop_assert_eq!(&got, &all);

            let key = cell(target.0, target.1, 50).key();
            let want = all.iter().find(|c| c.key() >= key).cloned();
            let got = if m.seek(&key).unwrap() {
                Some(m.current().to_cell(&Bytes::from_static(b"f")))
            } else {
                None
            };
            prop_assert_eq!(got, want);
        }

        #[test]
        fn forward_seeks_match_fresh_seeks(
            sources in prop::collection::vec(
                prop::collection::vec((0u8..8, 0i64..4, 0u64..100), 0..20), 1..5),
            mut targets in prop::collection::vec((0u8..9, 0i64..4), 1..10),
        ) {
            let cursors = |sources: &Vec<Vec<(u8, i64, u64)>>| -> Vec<VecCursor> {
                sources
                    .iter()
                    .map(|s| {
                        let mut cells: Vec<Cell> =
                            s.iter().map(|&(r, ts, seq)| cell(r, ts, seq)).collect();
                        cells.sort();
                        cells.dedup();
                        VecCursor { cells, pos: 0 }
                    })
                    .collect()
            };
            targets.sort_by_key(|a| cell(a.0, a.1, 50).key());
            let f = Bytes::from_static(b"f");
            let mut m = MergeCursor::new(cursors(&sources));
            m.seek_to_first().unwrap();
            for (row, ts) in targets {
                let key = cell(row, ts, 50).key();
                if m.valid() && m.current().cmp_key(&key).is_gt() {
                    continue;
                }
                let got = m.reseek(&key).unwrap().then(|| m.current().to_cell(&f));
                let mut fresh = MergeCursor::new(cursors(&sources));
                let want = fresh.seek(&key).unwrap().then(|| fresh.current().to_cell(&f));
                prop_assert_eq!(got, want);
            }
        }
    }
}
