//! A decoded data block: cells in the NONE layout plus the offset of each cell, so a cursor
//! can binary-search and walk both ways. This is the "decoded" cached form.

use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::{compare_keys, CellKey};
use strata_model::schema::DataBlockEncoding;

use crate::cell_ref::CellRef;
use crate::encoding::{self, none, DecodeError};

/// Cells of one block, each addressable by index.
#[derive(Debug)]
pub struct DecodedBlock {
    /// Cells in the NONE layout.
    data: Bytes,
    /// Start of each cell in `data`.
    offsets: Vec<u32>,
    /// The bytes every row of the block starts with (the common prefix of its first and last
    /// rows), when `row_keys` is built.
    prefix: Bytes,
    /// Per cell, the 8 bytes of its row after `prefix`, zero-padded, as a big-endian number:
    /// ordered as the rows are (never decreasing), and dense, so a seek narrows its search to
    /// the cells of one row reading these instead of a cell per step (each step into cells of
    /// hundreds of bytes is a cache miss). Empty for blocks of small cells (see
    /// [`ROW_KEYS_MIN_CELL`]), which are searched cell by cell.
    row_keys: Vec<u64>,
}

/// The average cell size (bytes) from which a decoded block builds its `row_keys`: 8 bytes per
/// cell then cost at most 1/8 more memory, and each binary-search step over the cells would
/// touch a new cache line.
const ROW_KEYS_MIN_CELL: usize = 64;

/// The 8 bytes of `rest` from its start, zero-padded, big-endian.
#[inline]
fn row_key(rest: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = rest.len().min(8);
    b[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(b)
}

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
        // Already in our layout: only index it (and validate every cell on the way).
        let mut offsets = Vec::new();
        let mut pos = 0;
        while pos < block.len() {
            offsets.push(pos as u32);
            pos = none::read_cell(&block, pos)?.1;
        }
        Ok(DecodedBlock::with_row_keys(block, offsets))
    }

    /// The block over `data` with cells at `offsets`, its `row_keys` built if its cells are
    /// large enough.
    ///
    /// Requires: every cell at `offsets` was validated.
    fn with_row_keys(data: Bytes, offsets: Vec<u32>) -> Self {
        let mut block = DecodedBlock {
            data,
            offsets,
            prefix: Bytes::new(),
            row_keys: Vec::new(),
        };
        let n = block.offsets.len();
        if n < 2 || block.data.len() / n < ROW_KEYS_MIN_CELL {
            return block;
        }
        let (first, last) = (block.cell(0).row, block.cell(n - 1).row);
        let common = first.iter().zip(last).take_while(|(a, b)| a == b).count();
        let row_keys = (0..n)
            .map(|i| row_key(&block.cell(i).row[common..]))
            .collect();
        let start = first.as_ptr() as usize - block.data.as_ptr() as usize;
        block.prefix = block.data.slice(start..start + common);
        block.row_keys = row_keys;
        block
    }

    /// The cells `lo..hi` that may hold `row` (every cell before `lo` has a smaller row, every
    /// cell from `hi` on a larger one), from `row_keys`; all cells when they are not built.
    #[inline]
    fn row_span(&self, row: &[u8]) -> (usize, usize) {
        let n = self.len();
        if self.row_keys.is_empty() {
            return (0, n);
        }
        let p = self.prefix.len();
        if !row.starts_with(&self.prefix) {
            // Every row here starts with the prefix, so `row` sorts as it does against it.
            return if row < &self.prefix[..] {
                (0, 0)
            } else {
                (n, n)
            };
        }
        let t = row_key(&row[p..]);
        let lo = self.row_keys.partition_point(|&k| k < t);
        let hi = lo + self.row_keys[lo..].partition_point(|&k| k == t);
        (lo, hi)
    }

    /// Decodes a delta-encoded block into a fresh buffer.
    fn decode_copy(encoding: DataBlockEncoding, block: Bytes) -> Result<Self, DecodeError> {
        let mut decoder = encoding::decoder(encoding, block.clone())?;
        let mut data = Vec::with_capacity(block.len() * 2);
        let mut offsets = Vec::new();
        while decoder.advance()? {
            offsets.push(data.len() as u32);
            none::write_cell(&mut data, &decoder.current());
        }
        Ok(DecodedBlock::with_row_keys(Bytes::from(data), offsets))
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
            + self.row_keys.len() * 8
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
        let (mut lo, mut hi) = self.row_span(&target.row);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if compare_keys(self.cell(mid).key_parts(), target.parts()).is_lt() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Index of the first cell with key > `target` (`len()` if none).
    pub fn upper_bound(&self, target: &CellKey) -> usize {
        let (mut lo, mut hi) = self.row_span(&target.row);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if compare_keys(self.cell(mid).key_parts(), target.parts()).is_le() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
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

    /// A NONE-layout block of `rows` (sorted, deduplicated by the caller's strategy), two
    /// columns each, values of `value_len` bytes.
    fn block(rows: &[Vec<u8>], value_len: usize) -> DecodedBlock {
        let value = vec![7u8; value_len];
        let mut data = Vec::new();
        for row in rows {
            for q in [&b"a"[..], b"b"] {
                let cell = CellRef {
                    row,
                    qualifier: q,
                    timestamp: 5,
                    cell_type: CellType::Put,
                    seq: 0,
                    value: &value,
                };
                none::write_cell(&mut data, &cell);
            }
        }
        DecodedBlock::decode(DataBlockEncoding::None, Bytes::from(data)).expect("valid block")
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
        ) {
            let b = block(&rows, value_len);
            prop_assert_eq!(b.row_keys.is_empty(), value_len < ROW_KEYS_MIN_CELL);
            let mut targets = vec![CellKey::first_on_row(Bytes::from(probe))];
            for r in &rows {
                targets.push(CellKey::first_on_row(Bytes::from(r.clone())));
                targets.push(CellKey::first_on_column(
                    Bytes::from(r.clone()),
                    Bytes::from_static(qualifier),
                ));
            }
            for t in &targets {
                prop_assert_eq!(b.lower_bound(t), linear(&b, t, false), "lower {:?}", t);
                prop_assert_eq!(b.upper_bound(t), linear(&b, t, true), "upper {:?}", t);
            }
        }
    }
}
