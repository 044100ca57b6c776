//! Reading half of a parent's store file: a split daughter's reference (HBase's
//! `HalfStoreFileReader`).
//!
//! A daughter's manifest lists [`Reference`](crate::manifest::Reference)s to its parent's
//! files instead of copies. [`HalfCursor`] wraps the parent file's iterator and shows only the
//! rows on the daughter's side of the split row: `Bottom` rows `< split_row`, `Top` rows
//! `≥ split_row`. Every move lands on the nearest cell inside the half or reports the end.

use bytes::Bytes;
use strata_model::cell::{compare_bytes, CellKey};
use strata_sstable::{CellRef, Iter, Result};

use super::store::{FileHandle, SourceCursor};
use crate::manifest::Half;
use crate::read::Cursor;

/// A cursor over one half of a store file.
pub(crate) struct HalfCursor {
    inner: Iter,
    half: Half,
    /// The first key of the split row: the Top half starts here, the Bottom half ends before.
    split: CellKey,
    /// Positioned on a cell inside the half.
    valid: bool,
}

impl HalfCursor {
    pub(crate) fn new(inner: Iter, half: Half, split_row: Bytes) -> HalfCursor {
        HalfCursor {
            inner,
            half,
            split: CellKey::first_on_row(split_row),
            valid: false,
        }
    }

    fn in_half(&self, row: &[u8]) -> bool {
        let below = compare_bytes(row, &self.split.row).is_lt();
        match self.half {
            Half::Bottom => below,
            Half::Top => !below,
        }
    }

    /// Records whether the inner iterator stopped inside the half.
    fn settle(&mut self, positioned: bool) -> bool {
        self.valid = positioned && self.in_half(self.inner.current().row);
        self.valid
    }

    /// The Bottom half's last cell: the last one before the split row.
    fn bottom_last(&mut self) -> Result<bool> {
        let mut ok = self.inner.seek_for_prev(&self.split)?;
        if ok && !self.in_half(self.inner.current().row) {
            // A cell equal to the split row's first key (an all-maximal key) is not ours.
            ok = self.inner.prev()?;
        }
        Ok(self.settle(ok))
    }
}

impl Cursor for HalfCursor {
    fn valid(&self) -> bool {
        self.valid
    }

    fn current(&self) -> CellRef<'_> {
        self.inner.current()
    }

    fn seek(&mut self, target: &CellKey) -> Result<bool> {
        let ok = if self.half == Half::Top && *target < self.split {
            self.inner.seek(&self.split)?
        } else {
            self.inner.seek(target)?
        };
        Ok(self.settle(ok))
    }

    fn seek_to_first(&mut self) -> Result<bool> {
        let ok = match self.half {
            Half::Bottom => self.inner.seek_to_first()?,
            Half::Top => self.inner.seek(&self.split)?,
        };
        Ok(self.settle(ok))
    }

    fn seek_to_last(&mut self) -> Result<bool> {
        match self.half {
            Half::Bottom => self.bottom_last(),
            Half::Top => {
                let ok = self.inner.seek_to_last()?;
                Ok(self.settle(ok))
            }
        }
    }

    fn seek_for_prev(&mut self, target: &CellKey) -> Result<bool> {
        if self.half == Half::Bottom && *target >= self.split {
            return self.bottom_last();
        }
        let ok = self.inner.seek_for_prev(target)?;
        Ok(self.settle(ok))
    }

    fn next(&mut self) -> Result<bool> {
        if !self.valid {
            return Ok(false);
        }
        let ok = self.inner.next()?;
        Ok(self.settle(ok))
    }
}

impl FileHandle {
    /// A cursor over the file's cells: all of them, or for a split daughter's reference, the
    /// daughter's half of the parent file. Without `fill_cache`, cached blocks are used but
    /// data blocks read are not cached: a compaction's reads (the file is deleted once it
    /// lands), and reads that ask for it (HBase's `setCacheBlocks(false)`).
    pub(crate) fn cursor(&self, fill_cache: bool) -> SourceCursor {
        let iter = if fill_cache {
            self.reader.iter()
        } else {
            self.reader.iter_uncached()
        };
        self.cursor_over(iter)
    }

    fn cursor_over(&self, iter: strata_sstable::reader::Iter) -> SourceCursor {
        // A bulk-loaded file's cells carry the load's sequence id (RFC 0027).
        let iter = if self.meta.bulk {
            iter.with_assigned_seq(self.meta.max_seq_id)
        } else {
            iter
        };
        match &self.meta.reference {
            None => SourceCursor::File(iter),
            Some(r) => SourceCursor::Half(HalfCursor::new(iter, r.half, r.split_row.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_model::cell::{Cell, CellType};
    use strata_sstable::{Reader, ReaderOptions, Writer, WriterOptions};

    fn cell(row: u8, q: u8, ts: i64) -> Cell {
        Cell {
            row: Bytes::from(vec![b'r', row]),
            family: Bytes::from_static(b"cf"),
            qualifier: Bytes::from(vec![q]),
            timestamp: ts,
            cell_type: CellType::Put,
            seq: 1,
            value: Bytes::from_static(b"v"),
            ttl: None,
        }
    }

    fn file(cells: &[Cell]) -> Reader {
        let options = WriterOptions {
            block_size: 1024,
            ..WriterOptions::default()
        };
        let mut w = Writer::new(Vec::new(), "half", options).unwrap();
        for c in cells {
            w.add(&CellRef::from_cell(c)).unwrap();
        }
        let (bytes, _) = w.finish().unwrap();
        Reader::from_bytes(Bytes::from(bytes), "half", ReaderOptions::default()).unwrap()
    }

    fn at(c: &HalfCursor, ok: bool) -> Option<CellKey> {
        assert_eq!(ok, c.valid());
        ok.then(|| c.current().to_key())
    }

    proptest! {
        #[test]
        fn shows_exactly_its_half(
            raw in prop::collection::btree_set((0u8..40, 0u8..3, 0i64..3), 0..200),
            split in 0u8..42,
            target in (0u8..42, 0u8..3, 0i64..3),
            top in any::<bool>(),
        ) {
            let cells: Vec<Cell> = {
                let mut v: Vec<Cell> = raw.iter().map(|&(r, q, ts)| cell(r, q, ts)).collect();
                v.sort();
                v
            };
            let reader = file(&cells);
            let half = if top { Half::Top } else { Half::Bottom };
            let split_row = Bytes::from(vec![b'r', split]);
            let mine: Vec<CellKey> = cells
                .iter()
                .filter(|c| (c.row >= split_row) == top)
                .map(Cell::key)
                .collect();
            let mut c = HalfCursor::new(reader.iter(), half, split_row);

            let mut got = Vec::new();
            let mut ok = c.seek_to_first().unwrap();
            while ok {
                got.push(c.current().to_key());
                ok = c.next().unwrap();
            }
            prop_assert_eq!(&got, &mine);

            let ok = c.seek_to_last().unwrap();
            prop_assert_eq!(at(&c, ok), mine.last().cloned());

            let key = cell(target.0, target.1, target.2).key();
            let ok = c.seek(&key).unwrap();
            prop_assert_eq!(at(&c, ok), mine.iter().find(|k| **k >= key).cloned());
            let ok = c.seek_for_prev(&key).unwrap();
            prop_assert_eq!(at(&c, ok), mine.iter().rev().find(|k| **k <= key).cloned());
            let row_start = CellKey::first_on_row(key.row.clone());
            let ok = c.seek_for_prev(&row_start).unwrap();
            prop_assert_eq!(at(&c, ok), mine.iter().rev().find(|k| **k <= row_start).cloned());
        }
    }
}
