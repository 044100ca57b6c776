//! `ROW_INDEX`: cells written whole, as in NONE, followed by the offset of each row's first
//! cell, so a seek binary-searches rows instead of walking the block (HBase's ROW_INDEX_V1).
//!
//! Block layout:
//! ```text
//! cells        every cell in the NONE layout (see `none.rs`), back to back
//! row_starts   u32 LE × n_rows: offset (from the block start) of the first cell of each row,
//!              strictly increasing, the first one 0
//! n_rows       u32 LE
//! ```
//! An empty block is the four bytes of `n_rows = 0`. A block must be smaller than 4 GiB.
//!
//! A seek binary-searches `row_starts` for the first row ≥ the target's row, reading only that
//! row's first cell at each probe, then walks forward cell by cell within that row (and at most
//! onto the first cell of the next).

use std::ops::Range;

use bytes::Bytes;
use strata_model::cell::{CellKey, CellType};

use super::none::{read_cell, write_cell};
use super::{DecodeError, Decoder, Encoder};
use crate::cell_ref::CellRef;

/// Writes cells whole and indexes where each row starts.
#[derive(Default)]
pub(crate) struct RowIndexEncoder {
    buf: Vec<u8>,
    count: usize,
    row_starts: Vec<u32>,
    /// Row of the previous cell.
    prev_row: Vec<u8>,
}

impl Encoder for RowIndexEncoder {
    fn add(&mut self, cell: &CellRef<'_>) {
        if self.count == 0 || cell.row != self.prev_row.as_slice() {
            // Requires: the block stays below 4 GiB (blocks are far smaller).
            let offset = u32::try_from(self.buf.len()).unwrap_or(u32::MAX);
            debug_assert!(offset < u32::MAX, "a data block must be smaller than 4 GiB");
            self.row_starts.push(offset);
            self.prev_row.clear();
            self.prev_row.extend_from_slice(cell.row);
        }
        write_cell(&mut self.buf, cell);
        self.count += 1;
    }

    fn encoded_len(&self) -> usize {
        self.buf.len() + 4 * self.row_starts.len() + 4
    }

    fn cell_count(&self) -> usize {
        self.count
    }

    fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.reserve(self.encoded_len());
        out.extend_from_slice(&self.buf);
        for offset in &self.row_starts {
            out.extend_from_slice(&offset.to_le_bytes());
        }
        out.extend_from_slice(&(self.row_starts.len() as u32).to_le_bytes());
        self.buf.clear();
        self.count = 0;
        self.row_starts.clear();
        self.prev_row.clear();
    }
}

/// Walks a ROW_INDEX block cell by cell; seeks through the row index.
pub(crate) struct RowIndexDecoder {
    block: Bytes,
    /// End of the cells (start of `row_starts`).
    data_end: usize,
    n_rows: usize,
    /// Offset of the next cell.
    next: usize,
    /// The current cell, as parsed by `advance`.
    cur: Parsed,
    /// The last `advance` or `seek` returned `Ok(true)`.
    positioned: bool,
}

/// Where a validated cell's parts are in the block, so `current` needs no parsing.
struct Parsed {
    row: Range<usize>,
    qualifier: Range<usize>,
    timestamp: i64,
    cell_type: CellType,
    seq: u64,
    value: Range<usize>,
    ttl: Option<u64>,
}

/// The little-endian u32 at offset `at` of `buf`, if in bounds.
#[inline]
fn u32_at(buf: &[u8], at: usize) -> Option<u32> {
    let bytes: [u8; 4] = buf.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(bytes))
}

impl RowIndexDecoder {
    /// A decoder over `block`.
    ///
    /// # Errors
    /// The footer is malformed: too short, or row offsets out of range or not increasing.
    pub(crate) fn new(block: Bytes) -> Result<RowIndexDecoder, DecodeError> {
        let len = block.len();
        let count_at = len
            .checked_sub(4)
            .ok_or(DecodeError::new(0, "block shorter than its row count"))?;
        let n_rows = u32_at(&block, count_at)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(DecodeError::new(count_at, "bad row count"))?;
        let data_end = n_rows
            .checked_mul(4)
            .and_then(|index_len| count_at.checked_sub(index_len))
            .ok_or(DecodeError::new(
                count_at,
                "row index longer than the block",
            ))?;
        if (n_rows == 0) != (data_end == 0) {
            return Err(DecodeError::new(
                count_at,
                "row count disagrees with the cells",
            ));
        }
        let mut prev: Option<usize> = None;
        for i in 0..n_rows {
            let at = data_end + 4 * i;
            let offset = u32_at(&block, at)
                .and_then(|o| usize::try_from(o).ok())
                .ok_or(DecodeError::new(at, "row offset past block end"))?;
            let ok = match prev {
                None => offset == 0,
                Some(prev) => prev < offset && offset < data_end,
            };
            if !ok {
                return Err(DecodeError::new(at, "row offsets out of order"));
            }
            prev = Some(offset);
        }
        Ok(RowIndexDecoder {
            block,
            data_end,
            n_rows,
            next: 0,
            cur: Parsed {
                row: 0..0,
                qualifier: 0..0,
                timestamp: 0,
                cell_type: CellType::Put,
                seq: 0,
                value: 0..0,
                ttl: None,
            },
            positioned: false,
        })
    }

    /// The cells, without the footer.
    #[inline]
    fn cells(&self) -> &[u8] {
        self.block.get(..self.data_end).unwrap_or_default()
    }

    /// Offset of row `i`'s first cell (validated by `new`).
    #[inline]
    fn row_start(&self, i: usize) -> usize {
        u32_at(&self.block, self.data_end + 4 * i).map_or(self.data_end, |o| o as usize)
    }
}

impl Decoder for RowIndexDecoder {
    fn advance(&mut self) -> Result<bool, DecodeError> {
        self.positioned = false;
        if self.next >= self.data_end {
            return Ok(false);
        }
        let cells = self.cells();
        let (cell, end) = read_cell(cells, self.next)?;
        // `read_cell` hands out subslices of `cells`; keep their positions so `current` is
        // a few slicings rather than a second parse.
        let row_start = cell.row.as_ptr().addr() - cells.as_ptr().addr();
        let qualifier_start = row_start + cell.row.len();
        self.cur = Parsed {
            row: row_start..qualifier_start,
            qualifier: qualifier_start..qualifier_start + cell.qualifier.len(),
            timestamp: cell.timestamp,
            cell_type: cell.cell_type,
            seq: cell.seq,
            value: end - cell.value.len()..end,
            ttl: cell.ttl,
        };
        self.next = end;
        self.positioned = true;
        Ok(true)
    }

    #[inline]
    fn current(&self) -> CellRef<'_> {
        debug_assert!(self.positioned);
        // Ranges validated by `advance`.
        let part = |range: &Range<usize>| self.block.get(range.clone()).unwrap_or_default();
        CellRef {
            row: part(&self.cur.row),
            qualifier: part(&self.cur.qualifier),
            timestamp: self.cur.timestamp,
            cell_type: self.cur.cell_type,
            seq: self.cur.seq,
            value: part(&self.cur.value),
            ttl: self.cur.ttl,
        }
    }

    fn seek(&mut self, target: &CellKey) -> Result<bool, DecodeError> {
        // Rows before `lo` are all < target's row, so all their cells are < target.
        let (mut lo, mut hi) = (0, self.n_rows);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (first, _) = read_cell(self.cells(), self.row_start(mid))?;
            if first.row < &target.row[..] {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.positioned = false;
        self.next = if lo < self.n_rows {
            self.row_start(lo)
        } else {
            self.data_end
        };
        while self.advance()? {
            if self.current().cmp_key(target).is_ge() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn reset(&mut self) {
        self.next = 0;
        self.positioned = false;
    }
}

/// Checks that a block's row index lists exactly the offsets where the row changes (a full
/// walk of the block; `verify` runs it, reads trust the checksum instead).
///
/// # Errors
/// The footer or a cell is malformed, or the row index disagrees with the cells.
pub(crate) fn check_row_starts(block: Bytes) -> Result<(), DecodeError> {
    let decoder = RowIndexDecoder::new(block)?;
    let buf = &decoder.block;
    let mut pos = 0;
    let mut row = 0;
    let mut prev_row: Option<&[u8]> = None;
    while pos < decoder.data_end {
        let (cell, end) = read_cell(&buf[..decoder.data_end], pos)?;
        if prev_row != Some(cell.row) {
            let listed = u32_at(buf, decoder.data_end + 4 * row).map(|o| o as usize);
            if row >= decoder.n_rows || listed != Some(pos) {
                return Err(DecodeError::new(pos, "row index misses a row start"));
            }
            row += 1;
            prev_row = Some(cell.row);
        }
        pos = end;
    }
    if row != decoder.n_rows {
        return Err(DecodeError::new(
            decoder.data_end,
            "row index lists extra rows",
        ));
    }
    Ok(())
}
