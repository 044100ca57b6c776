//! Point lookups: bloom filter, then index, then (usually) one block.

use std::sync::atomic::Ordering;

use strata_model::cell::{Cell, CellKey};
use strata_model::schema::BloomType;

use super::Reader;
use crate::bloom::BloomKey;
use crate::error::Result;

impl Reader {
    fn bloom_says(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
        let inner = &self.inner;
        if inner.info.cell_count == 0 {
            return Ok(false);
        }
        let Some(bloom) = &inner.bloom else {
            return Ok(true);
        };
        let Some(key) = BloomKey::of(bloom.bloom_type, row, qualifier) else {
            return Ok(true);
        };
        inner.counters.bloom_checks.fetch_add(1, Ordering::Relaxed);
        let found = match bloom.chunk_for(&key) {
            Some(entry) => inner.bloom_chunk(entry.handle)?.may_contain(key.hash()),
            None => false,
        };
        if !found {
            inner
                .counters
                .bloom_negatives
                .fetch_add(1, Ordering::Relaxed);
        }
        Ok(found)
    }

    /// False when the file certainly holds no cell of `row`. Only `ROW` and
    /// `ROWPREFIX_FIXED_LENGTH` filters can rule a row out; otherwise this is true.
    ///
    /// # Errors
    /// I/O or corruption of a bloom chunk.
    pub fn may_contain_row(&self, row: &[u8]) -> Result<bool> {
        match self.inner.bloom.as_ref().map(|b| b.bloom_type) {
            Some(BloomType::RowCol) => Ok(self.inner.info.cell_count > 0),
            _ => self.bloom_says(row, &[]),
        }
    }

    /// False when the file certainly holds no cell of column (`row`, `qualifier`) and no
    /// family delete marker of `row` (which could mask that column).
    ///
    /// # Errors
    /// I/O or corruption of a bloom chunk.
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
        if self.bloom_says(row, qualifier)? {
            return Ok(true);
        }
        let rowcol = self.inner.bloom.as_ref().map(|b| b.bloom_type) == Some(BloomType::RowCol);
        if rowcol && self.inner.info.delete_family_count > 0 && !qualifier.is_empty() {
            return self.bloom_says(row, &[]);
        }
        Ok(false)
    }

    /// Every cell of `row`, in store order (bloom → index → block).
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn get_row(&self, row: &[u8]) -> Result<Vec<Cell>> {
        if !self.may_contain_row(row)? {
            return Ok(Vec::new());
        }
        self.collect(
            &CellKey::first_on_row(bytes::Bytes::copy_from_slice(row)),
            |c| c.row == row,
        )
    }

    /// Every cell of column (`row`, `qualifier`), in store order. Family delete markers of the
    /// row are not included; ask [`Reader::get_row`] or iterate for those.
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn get_column(&self, row: &[u8], qualifier: &[u8]) -> Result<Vec<Cell>> {
        if !self.may_contain_column(row, qualifier)? {
            return Ok(Vec::new());
        }
        let start = CellKey::first_on_column(
            bytes::Bytes::copy_from_slice(row),
            bytes::Bytes::copy_from_slice(qualifier),
        );
        self.collect(&start, |c| c.row == row && c.qualifier == qualifier)
    }

    fn collect(
        &self,
        start: &CellKey,
        matches: impl Fn(&crate::CellRef<'_>) -> bool,
    ) -> Result<Vec<Cell>> {
        let mut it = self.iter();
        let mut out = Vec::new();
        let mut ok = it.seek(start)?;
        while ok && matches(&it.current()) {
            out.push(it.current_cell());
            ok = it.next()?;
        }
        Ok(out)
    }
}
