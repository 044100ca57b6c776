//! A decoded data block: cells in the NONE layout plus the offset of each cell, so a cursor
//! can binary-search and walk both ways. This is the "decoded" cached form.

use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::{compare_keys, CellKey};
use strata_model::schema::DataBlockEncoding;

use crate::cell_ref::CellRef;
use crate::dense_key;
use crate::encoding::{self, none, DecodeError};

/// Cells [`DecodedBlock::lower_bound_from`] compares one by one before it searches.
const STEPS_BEFORE_SEARCH: usize = 4;

/// Cells of one block, each addressable by index.
#[derive(Debug)]
pub struct DecodedBlock {
    /// Cells in the NONE layout.
    data: Bytes,
    /// Start of each cell in `data`.
    offsets: Vec<u32>,
    /// The bytes every row of the block starts with (the common prefix of its first and last
    /// rows), when the row table is built.
    prefix: Bytes,
    /// The row table, built once when the block is decoded (empty for blocks of small rows,
    /// see [`ROW_TABLE_MIN_ROW`], which are searched cell by cell). Per row of the block, in
    /// order: the index of its first cell, and the 8 bytes of the row after `prefix`,
    /// zero-padded, as a big-endian number (never decreasing from row to row, so a seek
    /// narrows its search to one row reading a few cache lines instead of a cell per step).
    rows: RowTable,
}

/// Per row: first cell and dense key (see [`DecodedBlock::rows`]).
#[derive(Debug, Default)]
struct RowTable {
    /// Index of each row's first cell, strictly increasing, the first one 0.
    starts: Vec<u32>,
    /// Each row's 8 bytes after the block's prefix.
    keys: Vec<u64>,
}

impl RowTable {
    fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// The average row size (bytes) from which a decoded block builds its row table: 12 bytes per
/// row then cost at most 1/8 more memory.
const ROW_TABLE_MIN_ROW: usize = 96;

/// Bytes per cell assumed when sizing a block's offsets before decoding it (a guess: the
/// vector grows if cells are smaller).
const EXPECTED_CELL_BYTES: usize = 64;

impl DecodedBlock {
    /// Decodes a whole block of `encoding`.
    ///
    /// # Errors
    /// The block is malformed.
    pub(crate) fn decode(encoding: DataBlockEncoding, block: Bytes) -> Result<Self, DecodeError> {
        let block = match encoding {
            DataBlockEncoding::None => block,
            // NONE-layout cells followed by the row index: index the cells in place.
            DataBlockEncoding::RowIndex => {
                let len = block.len();
                let n = block
                    .get(len.wrapping_sub(4)..)
                    .and_then(|b| b.try_into().ok())
                    .map(u32::from_le_bytes)
                    .ok_or(DecodeError::new(0, "row-index block too short"))?;
                let footer = (n as usize)
                    .checked_mul(4)
                    .and_then(|f| f.checked_add(4))
                    .filter(|f| *f <= len)
                    .ok_or(DecodeError::new(
                        len.saturating_sub(4),
                        "row count too large",
                    ))?;
                block.slice(..len - footer)
            }
            _ => return Self::decode_copy(encoding, block),
        };
        // Already in our layout: only index it (and validate every cell on the way), noting
        // where each row starts in the same pass.
        let mut offsets = Vec::with_capacity(block.len() / EXPECTED_CELL_BYTES);
        let mut starts = Vec::new();
        let mut prev: Option<&[u8]> = None;
        let mut pos = 0;
        while pos < block.len() {
            let (cell, next) = none::read_cell(&block, pos)?;
            if prev != Some(cell.row) {
                starts.push(offsets.len() as u32);
                prev = Some(cell.row);
            }
            offsets.push(pos as u32);
            pos = next;
        }
        Ok(DecodedBlock::with_row_table(block, offsets, starts))
    }

    /// The block over `data` with cells at `offsets`, its row table built from `starts` (the
    /// index of each row's first cell, found by the decoding pass) if its rows are large
    /// enough.
    ///
    /// Requires: every cell at `offsets` was validated; `starts` are every row's first cell,
    /// in order.
    fn with_row_table(data: Bytes, offsets: Vec<u32>, starts: Vec<u32>) -> Self {
        let mut block = DecodedBlock {
            data,
            offsets,
            prefix: Bytes::new(),
            rows: RowTable::default(),
        };
        let n = block.offsets.len();
        if n < 2 {
            return block;
        }
        if block.data.len() / starts.len() < ROW_TABLE_MIN_ROW {
            return block;
        }
        let (first, last) = (block.cell(0).row, block.cell(n - 1).row);
        let common = dense_key::common_prefix(first, last);
        let keys = starts
            .iter()
            .map(|&i| dense_key::key(&block.cell(i as usize).row[common..]))
            .collect();
        let start = first.as_ptr() as usize - block.data.as_ptr() as usize;
        block.prefix = block.data.slice(start..start + common);
        block.rows = RowTable { starts, keys };
        block
    }

    /// Index of row `r`'s first cell; `len()` for `r` = the number of rows.
    ///
    /// Requires: the row table is built and `r ≤` its length.
    #[inline]
    fn row_start(&self, r: usize) -> usize {
        self.rows
            .starts
            .get(r)
            .map_or(self.offsets.len(), |&i| i as usize)
    }

    /// The first cell index for which `before(cell)` is false, given that the cells for
    /// which it holds come first (`len()` if none). Through the row table: the dense keys
    /// find the target's row, then only that row's cells are compared.
    #[inline]
    fn search(&self, target: &CellKey, before: impl Fn(CellRef<'_>) -> bool) -> usize {
        if self.rows.is_empty() {
            return self.search_cells(0, self.len(), before);
        }
        // The first row ≥ the target's row among those whose dense keys tie with it.
        let (mut lo, mut hi) = dense_key::span(&self.rows.keys, &self.prefix, &target.row);
        let end = hi;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.cell(self.row_start(mid)).row < &target.row[..] {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let start = self.row_start(lo);
        if lo == end || self.cell(start).row != &target.row[..] {
            // Rows before `start` are smaller than the target's, rows from it larger.
            return start;
        }
        self.search_cells(start, self.row_start(lo + 1), before)
    }

    /// The first index in `lo..hi` for which `before(cell)` is false (`hi` if none).
    #[inline]
    fn search_cells(
        &self,
        mut lo: usize,
        mut hi: usize,
        before: impl Fn(CellRef<'_>) -> bool,
    ) -> usize {
        // Seeks to a row's first cell are the common case: test it before halving.
        if lo < hi && !before(self.cell(lo)) {
            return lo;
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if before(self.cell(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Decodes a delta-encoded block into a fresh buffer.
    fn decode_copy(encoding: DataBlockEncoding, block: Bytes) -> Result<Self, DecodeError> {
        let mut decoder = encoding::decoder(encoding, block.clone())?;
        let mut data = Vec::with_capacity(block.len() * 2);
        let mut offsets = Vec::new();
        let mut starts = Vec::new();
        let mut prev_row = Vec::new();
        while decoder.advance()? {
            let cell = decoder.current();
            if offsets.is_empty() || cell.row != &prev_row[..] {
                starts.push(offsets.len() as u32);
                prev_row.clear();
                prev_row.extend_from_slice(cell.row);
            }
            offsets.push(data.len() as u32);
            none::write_cell(&mut data, &cell);
        }
        Ok(DecodedBlock::with_row_table(
            Bytes::from(data),
            offsets,
            starts,
        ))
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// True when the block has no cells.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Bytes held in memory (for cache weighting).
    pub fn memory_size(&self) -> usize {
        self.data.len()
            + self.offsets.len() * 4
            + self.rows.starts.len() * 4
            + self.rows.keys.len() * 8
            + std::mem::size_of::<Self>()
    }

    /// The cell at `index`.
    ///
    /// Requires: `index < self.len()`. Every cell was validated when the block was decoded.
    #[inline]
    pub fn cell(&self, index: usize) -> CellRef<'_> {
        match none::read_cell(&self.data, self.offsets[index] as usize) {
            Ok((cell, _)) => cell,
            Err(_) => unreachable!("cells of a decoded block were validated"),
        }
    }

    /// Index of the first cell with key ≥ `target` (`len()` if none).
    pub fn lower_bound(&self, target: &CellKey) -> usize {
        let t = target.parts();
        self.search(target, |c| compare_keys(c.key_parts(), t).is_lt())
    }

    /// As [`lower_bound`](DecodedBlock::lower_bound), given that every cell before `from`
    /// is below `target`: a reader skipping a column's older versions seeks to the next
    /// column, usually one or two cells on, so the cells from `from` are tried first, then
    /// the block is searched.
    pub fn lower_bound_from(&self, from: usize, target: &CellKey) -> usize {
        let t = target.parts();
        let end = self.len().min(from.saturating_add(STEPS_BEFORE_SEARCH));
        for i in from..end {
            if compare_keys(self.cell(i).key_parts(), t).is_ge() {
                return i;
            }
        }
        if end == self.len() {
            return end;
        }
        self.lower_bound(target)
    }

    /// Index of the first cell with key > `target` (`len()` if none).
    pub fn upper_bound(&self, target: &CellKey) -> usize {
        let t = target.parts();
        self.search(target, |c| compare_keys(c.key_parts(), t).is_le())
    }
}

/// A cursor over a shared decoded block.
#[derive(Clone)]
pub(crate) struct DecodedCursor {
    block: Arc<DecodedBlock>,
    /// Current cell; `len()` or `usize::MAX` when off either end.
    index: usize,
}

impl DecodedCursor {
    pub(crate) fn new(block: Arc<DecodedBlock>) -> Self {
        DecodedCursor { block, index: 0 }
    }

    #[inline]
    pub(crate) fn valid(&self) -> bool {
        self.index < self.block.len()
    }

    #[inline]
    pub(crate) fn current(&self) -> CellRef<'_> {
        self.block.cell(self.index)
    }

    /// Index of the current cell (`len()` or `usize::MAX` off either end).
    #[inline]
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    pub(crate) fn set_index(&mut self, index: usize) {
        self.index = index;
    }

    pub(crate) fn block(&self) -> &Arc<DecodedBlock> {
        &self.block
    }

    /// Steps forward; false when past the end.
    #[inline]
    pub(crate) fn next(&mut self) -> bool {
        if self.index < self.block.len() {
            self.index += 1;
        }
        self.valid()
    }

    /// Steps back; false when before the start.
    pub(crate) fn prev(&mut self) -> bool {
        if self.index == 0 || self.index == usize::MAX {
            self.index = usize::MAX;
            return false;
        }
        self.index -= 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_model::cell::CellType;

    /// A block of `encoding` over `rows` (sorted, deduplicated by the caller's strategy), two
    /// columns of two versions each, values of `value_len` bytes, decoded.
    fn block(rows: &[Vec<u8>], value_len: usize, encoding: DataBlockEncoding) -> DecodedBlock {
        let value = vec![7u8; value_len];
        let mut encoder = encoding::encoder(encoding);
        for row in rows {
            for q in [&b"a"[..], b"b"] {
                for timestamp in [5, 3] {
                    let cell = CellRef {
                        row,
                        qualifier: q,
                        timestamp,
                        cell_type: CellType::Put,
                        seq: 0,
                        value: &value,
                        ttl: None,
                    };
                    encoder.add(&cell);
                }
            }
        }
        let mut data = Vec::new();
        encoder.finish_into(&mut data);
        DecodedBlock::decode(encoding, Bytes::from(data)).expect("valid block")
    }

    fn linear(block: &DecodedBlock, target: &CellKey, upper: bool) -> usize {
        (0..block.len())
            .find(|&i| {
                let o = compare_keys(block.cell(i).key_parts(), target.parts());
                if upper {
                    o.is_gt()
                } else {
                    o.is_ge()
                }
            })
            .unwrap_or(block.len())
    }

    fn rows() -> impl Strategy<Value = Vec<Vec<u8>>> {
        // Rows over a tiny alphabet with a long shared prefix often, so prefixes, padding and
        // ties on the 8-byte keys all occur.
        let row = (0usize..12, prop::collection::vec(0u8..3, 0..12)).prop_map(|(p, tail)| {
            let mut r = vec![b'0'; p];
            r.extend(tail);
            r
        });
        prop::collection::btree_set(row, 1..40).prop_map(|s| s.into_iter().collect())
    }

    proptest! {
        #[test]
        fn bounds_match_a_linear_search(
            rows in rows(),
            probe in prop::collection::vec(prop::sample::select(vec![0u8, 1, 2, b'0', 0xff]), 0..16),
            value_len in prop::sample::select(vec![1usize, 200]),
            qualifier in prop::sample::select(vec![&b""[..], b"a", b"ab", b"b", b"c"]),
            encoding in prop::sample::select(vec![
                DataBlockEncoding::None,
                DataBlockEncoding::RowIndex,
                DataBlockEncoding::Prefix,
                DataBlockEncoding::Diff,
                DataBlockEncoding::FastDiff,
            ]),
        ) {
            let b = block(&rows, value_len, encoding);
            prop_assert_eq!(b.rows.is_empty(), b.data.len() / rows.len() < ROW_TABLE_MIN_ROW);
            if !b.rows.is_empty() {
                // The row table found in the decoding pass: every row's first cell, in order.
                prop_assert_eq!(b.rows.starts.len(), rows.len());
                for (r, &start) in rows.iter().zip(&b.rows.starts) {
                    prop_assert_eq!(b.cell(start as usize).row, &r[..]);
                }
            }
            let mut targets = vec![CellKey::first_on_row(Bytes::from(probe))];
            for r in &rows {
                targets.push(CellKey::first_on_row(Bytes::from(r.clone())));
                targets.push(CellKey::first_on_column(
                    Bytes::from(r.clone()),
                    Bytes::from_static(qualifier),
                ));
            }
            // Every cell's own key: targets inside a row, between its versions.
            targets.extend((0..b.len()).map(|i| b.cell(i).to_key()));
            for t in &targets {
                prop_assert_eq!(b.lower_bound(t), linear(&b, t, false), "lower {:?}", t);
                prop_assert_eq!(b.upper_bound(t), linear(&b, t, true), "upper {:?}", t);
                // From every index whose cells before it are all below the target.
                let expected = linear(&b, t, false);
                for from in 0..=expected {
                    prop_assert_eq!(b.lower_bound_from(from, t), expected, "from {} {:?}", from, t);
                }
            }
        }
    }
}
