//! Borrowed cells of a cell block (`docs/format/cell-block.md`): [`CellBlockIter`] walks a
//! block and lends each cell's row, family, qualifier and value as slices of it, so a reader
//! that only looks at cells neither copies nor reference-counts them.

use strata_model::cell::CellType;

use super::cell_block::{cell_type, Reader};
use super::ConvertError;

/// One cell of a cell block, borrowed from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellView<'a> {
    /// Row key.
    pub row: &'a [u8],
    /// Column family.
    pub family: &'a [u8],
    /// Column qualifier.
    pub qualifier: &'a [u8],
    /// Version timestamp.
    pub timestamp: i64,
    /// Value or delete marker.
    pub cell_type: CellType,
    /// The value (empty for delete markers).
    pub value: &'a [u8],
}

/// The cells of a block in order; the first malformed field ends the walk with an error
/// naming its byte offset (the messages of [`super::decode_cell_block`]).
pub struct CellBlockIter<'a> {
    reader: Reader<'a>,
    len: usize,
    row: &'a [u8],
    family: &'a [u8],
    /// Cells left in the current run.
    left: u64,
    failed: bool,
}

impl<'a> CellBlockIter<'a> {
    /// Walks `block`.
    pub fn new(block: &'a [u8]) -> CellBlockIter<'a> {
        CellBlockIter {
            reader: Reader::new(block),
            len: block.len(),
            row: &[],
            family: &[],
            left: 0,
            failed: false,
        }
    }

    fn step(&mut self) -> Result<Option<CellView<'a>>, ConvertError> {
        let r = &mut self.reader;
        if self.left == 0 {
            if r.pos >= self.len {
                return Ok(None);
            }
            let row = r.span("row")?;
            let family = r.span("family")?;
            let at = r.pos;
            let count = r.varint("cell count")?;
            if count == 0 {
                return Err(r.error(at, "a run of zero cells"));
            }
            if count > ((self.len - r.pos) / 11) as u64 {
                return Err(r.error(at, format!("{count} cells cannot fit in the block")));
            }
            self.row = r.slice(row);
            self.family = r.slice(family);
            self.left = count;
        }
        let qualifier = r.span("qualifier")?;
        let timestamp = i64::from_le_bytes(r.fixed::<8>("timestamp")?);
        let at = r.pos;
        let [code] = r.fixed::<1>("cell type")?;
        let cell_type =
            cell_type(code).ok_or_else(|| r.error(at, format!("unknown cell type {code}")))?;
        let value = r.span("value")?;
        self.left -= 1;
        Ok(Some(CellView {
            row: self.row,
            family: self.family,
            qualifier: r.slice(qualifier),
            timestamp,
            cell_type,
            value: r.slice(value),
        }))
    }
}

impl<'a> Iterator for CellBlockIter<'a> {
    type Item = Result<CellView<'a>, ConvertError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let step = self.step();
        self.failed = step.is_err();
        step.transpose()
    }
}
