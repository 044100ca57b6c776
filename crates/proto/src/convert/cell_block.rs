//! Cell blocks: the cells of a result in one `bytes` field, with the row and the family
//! written once per run of cells that share them instead of once per cell (a get of a
//! ten-column row sends its row key once, not ten times), and no per-cell message framing.
//! The byte format is in `docs/format/cell-block.md`:
//!
//! ```text
//! block := run*
//! run   := varint(row_len) row  varint(family_len) family  varint(count ≥ 1)  cell{count}
//! cell  := varint(qualifier_len) qualifier  timestamp (i64, 8 bytes little-endian)
//!          type (1 byte: the CellType number)  varint(value_len) value
//! ```
//!
//! Varints are protobuf's (LEB128, at most 10 bytes). Decoded cells are slices of the block:
//! no copy of keys or values.

use std::ops::Range;

use bytes::{BufMut, Bytes};
use strata_model::cell::{Cell, CellType};

use super::ConvertError;

/// Encodes `cells` (in result order).
pub fn encode_cell_block(cells: &[Cell]) -> Bytes {
    let size: usize = cells
        .iter()
        .map(|c| c.qualifier.len() + c.value.len() + 24)
        .sum();
    let mut out = Vec::with_capacity(size + cells.first().map_or(0, |c| c.row.len() + 16));
    let mut i = 0;
    while i < cells.len() {
        let (row, family) = (&cells[i].row, &cells[i].family);
        let run = cells[i..]
            .iter()
            .take_while(|c| c.row == *row && c.family == *family)
            .count();
        put_bytes(&mut out, row);
        put_bytes(&mut out, family);
        prost::encoding::encode_varint(run as u64, &mut out);
        for c in &cells[i..i + run] {
            put_bytes(&mut out, &c.qualifier);
            out.put_i64_le(c.timestamp);
            out.put_u8(type_code(c.cell_type));
            put_bytes(&mut out, &c.value);
        }
        i += run;
    }
    Bytes::from(out)
}

/// Decodes a block written by [`encode_cell_block`]; the cells' sequence ids are 0.
///
/// # Errors
/// A truncated or overlong field, a run of no cells, an unknown cell type, or bytes past the
/// last run, each named with its byte offset.
pub fn decode_cell_block(block: &Bytes) -> Result<Vec<Cell>, ConvertError> {
    let mut r = Reader::new(block);
    let mut cells = Vec::new();
    while r.pos < block.len() {
        let row = block.slice(r.span("row")?);
        let family = block.slice(r.span("family")?);
        let at = r.pos;
        let count = r.varint("cell count")?;
        if count == 0 {
            return Err(r.error(at, "a run of zero cells"));
        }
        // Every cell takes at least 11 bytes: bound the count before reserving for it.
        if count > ((block.len() - r.pos) / 11) as u64 {
            return Err(r.error(at, format!("{count} cells cannot fit in the block")));
        }
        cells.reserve(count as usize);
        for _ in 0..count {
            let qualifier = block.slice(r.span("qualifier")?);
            let timestamp = i64::from_le_bytes(r.fixed::<8>("timestamp")?);
            let at = r.pos;
            let [code] = r.fixed::<1>("cell type")?;
            let cell_type =
                cell_type(code).ok_or_else(|| r.error(at, format!("unknown cell type {code}")))?;
            let value = block.slice(r.span("value")?);
            cells.push(Cell {
                row: row.clone(),
                family: family.clone(),
                qualifier,
                timestamp,
                cell_type,
                seq: 0,
                value,
                ttl: None,
            });
        }
    }
    Ok(cells)
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    prost::encoding::encode_varint(b.len() as u64, out);
    out.extend_from_slice(b);
}

pub(super) fn type_code(t: CellType) -> u8 {
    match t {
        CellType::Put => 0,
        CellType::Delete => 1,
        CellType::DeleteColumn => 2,
        CellType::DeleteFamily => 3,
        CellType::DeleteFamilyVersion => 4,
    }
}

pub(super) fn cell_type(code: u8) -> Option<CellType> {
    Some(match code {
        0 => CellType::Put,
        1 => CellType::Delete,
        2 => CellType::DeleteColumn,
        3 => CellType::DeleteFamily,
        4 => CellType::DeleteFamilyVersion,
        _ => return None,
    })
}

/// Reads the fields of a block, naming the offset of what is wrong.
pub(super) struct Reader<'b> {
    block: &'b [u8],
    pub(super) pos: usize,
}

impl<'b> Reader<'b> {
    pub(super) fn new(block: &'b [u8]) -> Reader<'b> {
        Reader { block, pos: 0 }
    }

    /// The bytes of a span returned by [`Reader::span`].
    #[inline]
    pub(super) fn slice(&self, span: Range<usize>) -> &'b [u8] {
        &self.block[span]
    }

    #[cold]
    pub(super) fn error(&self, at: usize, what: impl std::fmt::Display) -> ConvertError {
        ConvertError::new(format!("cell block: {what} at byte {at}"))
    }

    #[inline]
    pub(super) fn varint(&mut self, what: &str) -> Result<u64, ConvertError> {
        // Most lengths fit in one byte.
        if let Some(&b) = self.block.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        self.varint_long(what)
    }

    #[cold]
    fn varint_long(&mut self, what: &str) -> Result<u64, ConvertError> {
        let start = self.pos;
        let mut v: u64 = 0;
        for shift in (0..70).step_by(7) {
            let Some(&b) = self.block.get(self.pos) else {
                return Err(self.error(start, format!("truncated {what} length")));
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                break;
            }
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.error(start, format!("{what} length overflows 64 bits")))
    }

    /// A length-prefixed field: where its bytes are in the block.
    #[inline]
    pub(super) fn span(&mut self, what: &str) -> Result<Range<usize>, ConvertError> {
        let at = self.pos;
        let len = self.varint(what)?;
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| self.pos.checked_add(l))
            .filter(|&end| end <= self.block.len())
            .ok_or_else(|| self.error(at, format!("{what} of {len} bytes runs past the block")))?;
        let span = self.pos..end;
        self.pos = end;
        Ok(span)
    }

    #[inline]
    pub(super) fn fixed<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ConvertError> {
        let bytes = self
            .block
            .get(self.pos..self.pos + N)
            .and_then(|s| <[u8; N]>::try_from(s).ok())
            .ok_or_else(|| self.error(self.pos, format!("truncated {what}")))?;
        self.pos += N;
        Ok(bytes)
    }
}
