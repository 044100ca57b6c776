//! `NONE`: every cell written whole. This is also the layout of a decoded block in the cache.
//!
//! Cell layout:
//! ```text
//! row_len varint | qual_len varint | value_len varint | row | qualifier
//! | timestamp i64 LE (8) | flags u8 | [seq varint if flags & SEQ] | value
//! ```
//! `flags` = type code (bits 0–3; codes are 4..=14) | `SEQ` (bit 4) when the sequence id is
//! non-zero. Files written by compactions that no longer need sequence ids spend no byte on them.
//! A put with its own TTL has code 6 ([`PUT_TTL_CODE`](super::PUT_TTL_CODE)) and a TTL varint
//! after the sequence id's place: `... | flags | [seq] | ttl varint | value`.

use bytes::Bytes;
use strata_model::cell::CellType;
use strata_model::limits::{MAX_QUALIFIER_LEN, MAX_ROW_LEN, MAX_VALUE_LEN};

use super::{disk_code, read_ttl, type_of_disk_code, DecodeError, Decoder, Encoder};
use crate::cell_ref::CellRef;
use crate::varint;

/// Flag bit: a sequence-id varint follows the flags byte.
pub(crate) const FLAG_SEQ: u8 = 0x10;
const TYPE_MASK: u8 = 0x0f;

/// Appends `cell` in the NONE layout.
#[inline]
pub(crate) fn write_cell(out: &mut Vec<u8>, cell: &CellRef<'_>) {
    varint::put_u64(out, cell.row.len() as u64);
    varint::put_u64(out, cell.qualifier.len() as u64);
    varint::put_u64(out, cell.value.len() as u64);
    out.extend_from_slice(cell.row);
    out.extend_from_slice(cell.qualifier);
    out.extend_from_slice(&cell.timestamp.to_le_bytes());
    let code = disk_code(cell);
    if cell.seq == 0 {
        out.push(code);
    } else {
        out.push(code | FLAG_SEQ);
        varint::put_u64(out, cell.seq);
    }
    if let (super::PUT_TTL_CODE, Some(ttl)) = (code, cell.ttl) {
        varint::put_u64(out, ttl);
    }
    out.extend_from_slice(cell.value);
}

/// Parses a type code (without the SEQ bit): the type and whether a TTL varint follows.
#[inline]
pub(crate) fn parse_code(code: u8, at: usize) -> Result<(CellType, bool), DecodeError> {
    if code & !TYPE_MASK != 0 {
        return Err(DecodeError::new(at, "unknown cell flag bits"));
    }
    type_of_disk_code(code).ok_or(DecodeError::new(at, "unknown cell type"))
}

/// Reads the cell at `pos` of `buf`, returning it and the offset just past it.
///
/// # Errors
/// The bytes at `pos` are not a whole, valid cell.
#[inline]
pub(crate) fn read_cell(buf: &[u8], pos: usize) -> Result<(CellRef<'_>, usize), DecodeError> {
    // Fast path: all three lengths fit in one varint byte each (small cells, the common case).
    if let Some(&[r, q, v]) = buf.get(pos..pos + 3) {
        if (r | q | v) < 0x80 {
            return read_body(buf, pos, pos + 3, r as usize, q as usize, v as usize);
        }
    }
    let err = |reason| DecodeError::new(pos, reason);
    let mut p = pos;
    let row_len = varint::get_len(buf, &mut p, MAX_ROW_LEN).ok_or(err("bad row length"))?;
    let qual_len =
        varint::get_len(buf, &mut p, MAX_QUALIFIER_LEN).ok_or(err("bad qualifier length"))?;
    let value_len = varint::get_len(buf, &mut p, MAX_VALUE_LEN).ok_or(err("bad value length"))?;
    read_body(buf, pos, p, row_len, qual_len, value_len)
}

/// Reads a cell's body at `p` given its lengths; `pos` is the cell start, for errors.
#[inline(always)]
fn read_body(
    buf: &[u8],
    pos: usize,
    p: usize,
    row_len: usize,
    qual_len: usize,
    value_len: usize,
) -> Result<(CellRef<'_>, usize), DecodeError> {
    let err = |reason| DecodeError::new(pos, reason);
    // Row, qualifier, timestamp and flags in one bounds check.
    let fixed_end = p + row_len + qual_len + 9;
    let head = buf.get(p..fixed_end).ok_or(err("cell past block end"))?;
    let (row, rest) = head.split_at(row_len);
    let (qualifier, rest) = rest.split_at(qual_len);
    let mut ts = [0u8; 8];
    ts.copy_from_slice(&rest[..8]);
    let flags = rest[8];
    let mut p = fixed_end;
    let seq = if flags & FLAG_SEQ != 0 {
        varint::get_u64(buf, &mut p).ok_or(err("bad sequence id"))?
    } else {
        0
    };
    let (cell_type, has_ttl) = match flags & !FLAG_SEQ {
        4 => (CellType::Put, false),
        code => parse_code(code, fixed_end - 1)?,
    };
    let ttl = read_ttl(has_ttl, buf, &mut p, pos)?;
    let value = buf
        .get(p..p + value_len)
        .ok_or(err("value past block end"))?;
    Ok((
        CellRef {
            row,
            qualifier,
            timestamp: i64::from_le_bytes(ts),
            cell_type,
            seq,
            value,
            ttl,
        },
        p + value_len,
    ))
}

/// Writes cells whole.
#[derive(Default)]
pub(crate) struct NoneEncoder {
    buf: Vec<u8>,
    count: usize,
}

impl Encoder for NoneEncoder {
    fn add(&mut self, cell: &CellRef<'_>) {
        write_cell(&mut self.buf, cell);
        self.count += 1;
    }

    fn encoded_len(&self) -> usize {
        self.buf.len()
    }

    fn cell_count(&self) -> usize {
        self.count
    }

    fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.buf);
        self.buf.clear();
        self.count = 0;
    }
}

/// Walks a NONE block cell by cell.
pub(crate) struct NoneDecoder {
    block: Bytes,
    /// The current cell, parsed once by `advance`.
    cur: Parsed,
    /// Offset of the next cell.
    next: usize,
}

/// A parsed cell as ranges into the block.
#[derive(Default, Clone, Copy)]
struct Parsed {
    row: (usize, usize),
    qualifier: (usize, usize),
    value: (usize, usize),
    timestamp: i64,
    code: u8,
    seq: u64,
    ttl: Option<u64>,
}

impl NoneDecoder {
    pub(crate) fn new(block: Bytes) -> NoneDecoder {
        NoneDecoder {
            block,
            cur: Parsed::default(),
            next: 0,
        }
    }
}

impl Decoder for NoneDecoder {
    #[inline]
    fn advance(&mut self) -> Result<bool, DecodeError> {
        if self.next >= self.block.len() {
            self.next = usize::MAX;
            return Ok(false);
        }
        let base = self.block.as_ptr() as usize;
        let (cell, end) = read_cell(&self.block, self.next)?;
        let range = |s: &[u8]| {
            let start = s.as_ptr() as usize - base;
            (start, start + s.len())
        };
        self.cur = Parsed {
            row: range(cell.row),
            qualifier: range(cell.qualifier),
            value: range(cell.value),
            timestamp: cell.timestamp,
            code: cell.cell_type.code(),
            seq: cell.seq,
            ttl: cell.ttl,
        };
        self.next = end;
        Ok(true)
    }

    #[inline]
    fn current(&self) -> CellRef<'_> {
        let c = &self.cur;
        CellRef {
            row: &self.block[c.row.0..c.row.1],
            qualifier: &self.block[c.qualifier.0..c.qualifier.1],
            timestamp: c.timestamp,
            // The code came from a valid CellType in `advance`.
            cell_type: CellType::from_code(c.code).unwrap_or(CellType::Put),
            seq: c.seq,
            value: &self.block[c.value.0..c.value.1],
            ttl: c.ttl,
        }
    }

    fn reset(&mut self) {
        self.cur = Parsed::default();
        self.next = 0;
    }
}
