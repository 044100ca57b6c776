//! `NONE`: every cell written whole. This is also the layout of a decoded block in the cache.
//!
//! Cell layout:
//! ```text
//! row_len varint | qual_len varint | value_len varint | row | qualifier
//! | timestamp i64 LE (8) | flags u8 | [seq varint if flags & SEQ] | value
//! ```
//! `flags` = type code (bits 0–3; codes are 4..=14) | `SEQ` (bit 4) when the sequence id is
//! non-zero. Files written by compactions that no longer need sequence ids spend no byte on them.

use bytes::Bytes;
use strata_model::cell::CellType;
use strata_model::limits::{MAX_QUALIFIER_LEN, MAX_ROW_LEN, MAX_VALUE_LEN};

use super::{DecodeError, Decoder, Encoder};
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
    if cell.seq == 0 {
        out.push(cell.cell_type.code());
    } else {
        out.push(cell.cell_type.code() | FLAG_SEQ);
        varint::put_u64(out, cell.seq);
    }
    out.extend_from_slice(cell.value);
}

/// Parses a type-and-flags byte.
#[inline]
pub(crate) fn parse_flags(flags: u8, at: usize) -> Result<(CellType, bool), DecodeError> {
    if flags & !(TYPE_MASK | FLAG_SEQ) != 0 {
        return Err(DecodeError::new(at, "unknown cell flag bits"));
    }
    let cell_type =
        CellType::from_code(flags & TYPE_MASK).ok_or(DecodeError::new(at, "unknown cell type"))?;
    Ok((cell_type, flags & FLAG_SEQ != 0))
}

/// Reads the cell at `pos` of `buf`, returning it and the offset just past it.
///
/// # Errors
/// The bytes at `pos` are not a whole, valid cell.
#[inline]
pub(crate) fn read_cell(buf: &[u8], pos: usize) -> Result<(CellRef<'_>, usize), DecodeError> {
    let err = |reason| DecodeError::new(pos, reason);
    let mut p = pos;
    let row_len = varint::get_len(buf, &mut p, MAX_ROW_LEN).ok_or(err("bad row length"))?;
    let qual_len =
        varint::get_len(buf, &mut p, MAX_QUALIFIER_LEN).ok_or(err("bad qualifier length"))?;
    let value_len = varint::get_len(buf, &mut p, MAX_VALUE_LEN).ok_or(err("bad value length"))?;
    let row = buf.get(p..p + row_len).ok_or(err("row past block end"))?;
    p += row_len;
    let qualifier = buf
        .get(p..p + qual_len)
        .ok_or(err("qualifier past block end"))?;
    p += qual_len;
    let ts_bytes: [u8; 8] = buf
        .get(p..p + 8)
        .and_then(|s| s.try_into().ok())
        .ok_or(err("timestamp past block end"))?;
    p += 8;
    let flags = *buf.get(p).ok_or(err("flags past block end"))?;
    let (cell_type, has_seq) = parse_flags(flags, p)?;
    p += 1;
    let seq = if has_seq {
        varint::get_u64(buf, &mut p).ok_or(err("bad sequence id"))?
    } else {
        0
    };
    let value = buf
        .get(p..p + value_len)
        .ok_or(err("value past block end"))?;
    p += value_len;
    Ok((
        CellRef {
            row,
            qualifier,
            timestamp: i64::from_le_bytes(ts_bytes),
            cell_type,
            seq,
            value,
        },
        p,
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
    /// Offset of the current cell, and of the next one.
    cur: usize,
    next: usize,
    started: bool,
}

impl NoneDecoder {
    pub(crate) fn new(block: Bytes) -> NoneDecoder {
        NoneDecoder {
            block,
            cur: 0,
            next: 0,
            started: false,
        }
    }
}

impl Decoder for NoneDecoder {
    fn advance(&mut self) -> Result<bool, DecodeError> {
        if self.next >= self.block.len() {
            self.started = false;
            self.cur = self.block.len();
            return Ok(false);
        }
        let (_, end) = read_cell(&self.block, self.next)?;
        self.cur = self.next;
        self.next = end;
        self.started = true;
        Ok(true)
    }

    fn current(&self) -> CellRef<'_> {
        debug_assert!(self.started);
        // Validated by `advance`.
        match read_cell(&self.block, self.cur) {
            Ok((cell, _)) => cell,
            Err(_) => unreachable!("current() on a cell advance() validated"),
        }
    }

    fn reset(&mut self) {
        self.cur = 0;
        self.next = 0;
        self.started = false;
    }
}
