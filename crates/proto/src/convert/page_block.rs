//! Scan page blocks: every row of a scan page in one `bytes` field
//! (`ScanResponse.page_block`), each row a cell block behind its byte length
//! (`docs/format/cell-block.md`, "Scan page blocks"):
//!
//! ```text
//! page   := result*
//! result := len (u32, 4 bytes little-endian)  cell block of len bytes (≥ 1 cell)
//! ```
//!
//! A server writes a page with [`PageBlockWriter`] straight from whatever lends it cells (no
//! owned cell per cell, one buffer per page); a client splits it with [`page_rows`] into
//! rows that are slices of the received page.

use std::ops::Range;

use bytes::{BufMut, Bytes};
use strata_model::cell::CellType;

use super::cell_block::type_code;
use super::cell_view::CellBlockIter;
use super::ConvertError;

/// Writes a page block one cell at a time.
#[derive(Debug, Default)]
pub struct PageBlockWriter {
    buf: Vec<u8>,
    /// Where the open result's length is.
    result_at: Option<usize>,
    run: Option<Run>,
}

/// The open run: where its row and family were written, where its count goes (one byte
/// reserved) and how many cells it has.
#[derive(Debug)]
struct Run {
    row: Range<usize>,
    family: Range<usize>,
    count_at: usize,
    count: u64,
}

impl PageBlockWriter {
    /// An empty page.
    pub fn new() -> PageBlockWriter {
        PageBlockWriter::default()
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True if nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Starts a result (a row, or a piece of one), dropping an open one that was neither
    /// ended nor discarded.
    pub fn begin_result(&mut self) {
        self.discard_result();
        self.result_at = Some(self.buf.len());
        self.buf.put_u32_le(0);
    }

    /// Appends a cell to the open result (one is started if none is open).
    pub fn cell(
        &mut self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        cell_type: CellType,
        value: &[u8],
    ) {
        if self.result_at.is_none() {
            self.begin_result();
        }
        let same_run = self.run.as_ref().is_some_and(|r| {
            &self.buf[r.row.clone()] == row && &self.buf[r.family.clone()] == family
        });
        if !same_run {
            self.close_run();
            let row_at = put_bytes(&mut self.buf, row);
            let family_at = put_bytes(&mut self.buf, family);
            self.run = Some(Run {
                row: row_at,
                family: family_at,
                count_at: self.buf.len(),
                count: 0,
            });
            self.buf.push(0);
        }
        put_bytes(&mut self.buf, qualifier);
        self.buf.put_i64_le(timestamp);
        self.buf.push(type_code(cell_type));
        put_bytes(&mut self.buf, value);
        if let Some(run) = &mut self.run {
            run.count += 1;
        }
    }

    /// Ends the open result; a result without cells is dropped.
    ///
    /// # Errors
    /// A result of 4 GiB or more (the length field's limit), which is then dropped.
    pub fn end_result(&mut self) -> Result<(), ConvertError> {
        self.close_run();
        let Some(at) = self.result_at.take() else {
            return Ok(());
        };
        let len = self.buf.len() - at - 4;
        if len == 0 {
            self.buf.truncate(at);
            return Ok(());
        }
        let Ok(len32) = u32::try_from(len) else {
            self.buf.truncate(at);
            return Err(ConvertError::new(format!(
                "page block: a result of {len} bytes exceeds the format's 4 GiB"
            )));
        };
        self.buf[at..at + 4].copy_from_slice(&len32.to_le_bytes());
        Ok(())
    }

    /// Drops the open result and its cells.
    pub fn discard_result(&mut self) {
        self.run = None;
        if let Some(at) = self.result_at.take() {
            self.buf.truncate(at);
        }
    }

    /// The page (an open result is dropped).
    pub fn finish(mut self) -> Bytes {
        self.discard_result();
        Bytes::from(self.buf)
    }

    /// Writes the open run's count into its reserved byte, moving the run's cells when the
    /// count needs more than one byte.
    fn close_run(&mut self) {
        let Some(run) = self.run.take() else { return };
        if run.count < 0x80 {
            self.buf[run.count_at] = run.count as u8;
        } else {
            let mut count = Vec::with_capacity(10);
            prost::encoding::encode_varint(run.count, &mut count);
            self.buf.splice(run.count_at..=run.count_at, count);
        }
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) -> Range<usize> {
    prost::encoding::encode_varint(b.len() as u64, out);
    let at = out.len();
    out.extend_from_slice(b);
    at..out.len()
}

/// One row (or piece of one) of a page: its cell block, a slice of the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageRow {
    /// The row's cell block (validated).
    pub block: Bytes,
    /// The row key of its first cell.
    pub row: Bytes,
    /// How many cells the block holds (≥ 1).
    pub cells: usize,
}

impl PageRow {
    /// A row from one cell block, checked as [`page_rows`] checks each of a page's; `None`
    /// for a block without cells.
    ///
    /// # Errors
    /// A malformed block, named with its byte offset.
    pub fn from_block(block: Bytes) -> Result<Option<PageRow>, ConvertError> {
        let mut cells = 0;
        let mut row = 0..0;
        for cell in CellBlockIter::new(&block) {
            let cell = cell?;
            if cells == 0 {
                let at = cell.row.as_ptr() as usize - block.as_ptr() as usize;
                row = at..at + cell.row.len();
            }
            cells += 1;
        }
        if cells == 0 {
            return Ok(None);
        }
        Ok(Some(PageRow {
            row: block.slice(row),
            block,
            cells,
        }))
    }
}

/// Splits a page block into its rows, checking every cell block.
///
/// # Errors
/// A truncated length, a result that runs past the page or holds no cells, or a malformed
/// cell block, each named with its byte offset in the page.
pub fn page_rows(page: &Bytes) -> Result<Vec<PageRow>, ConvertError> {
    let mut rows = Vec::new();
    let mut pos = 0;
    while pos < page.len() {
        let at = pos;
        let len = page
            .get(pos..pos + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| {
                ConvertError::new(format!("page block: truncated result length at byte {at}"))
            })? as usize;
        pos += 4;
        let end = pos
            .checked_add(len)
            .filter(|&end| end <= page.len())
            .ok_or_else(|| {
                ConvertError::new(format!(
                    "page block: result of {len} bytes at byte {at} runs past the page"
                ))
            })?;
        let row = PageRow::from_block(page.slice(pos..end))
            .map_err(|e| ConvertError::new(format!("page block: result at byte {at}: {e}")))?
            .ok_or_else(|| {
                ConvertError::new(format!("page block: result at byte {at} has no cells"))
            })?;
        rows.push(row);
        pos = end;
    }
    Ok(rows)
}
