//! `FAST_DIFF`: DIFF packed tighter, for the common case of many small cells. One flags byte
//! carries a short key-suffix length, and "same as the previous cell" bits for the key length,
//! the timestamp, the type (with a zero sequence id and an unchanged row length) and the value
//! length or the whole value, so a cell of the same row and timestamp as the previous one costs
//! one byte plus its new key bytes plus its value.
//!
//! The key is `row | qualifier` (no family: a store file holds one family) with the row length
//! kept as state, as in DIFF. Unlike HBase's FAST_DIFF, the timestamp is a zigzag varint delta
//! (one byte for timestamps up to 63 ms apart) rather than its differing big-endian bytes.
//!
//! Cell layout (no block header or footer; cells run to the end of the block):
//! ```text
//! flags       u8      bits 0–2: SUFFIX_LEN, the key suffix length if 0..=6; 7 = a varint follows
//!                     bit 3:    SAME_KEY_LEN  key length = previous: no shared
//!                     bit 4:    SAME_TS       timestamp = previous: no ts_delta
//!                     bit 5:    EXT           an ext byte follows
//!                     bits 6–7: VALUE  0: value_len varint and value follow
//!                                      1: value length = previous; the value follows
//!                                      2: same value as the previous cell: no value bytes
//!                                      3: invalid
//! ext         u8      if EXT. bits 0–3: type code; bit 4: SEQ, a sequence-id varint follows;
//!                     bit 5: ROW_LEN, a row-length varint follows; bits 6–7: zero.
//!                     Without EXT the type is the previous cell's, the sequence id is 0 and
//!                     the row length is the previous cell's. Type code 6 is a put with its own
//!                     TTL (format version 2): always written with EXT; "the previous cell's
//!                     type" after it is Put, without a TTL.
//! suffix_len  varint  if SUFFIX_LEN = 7
//! shared      varint  unless SAME_KEY_LEN (then shared = previous key length − suffix_len)
//! row_len     varint  if ROW_LEN
//! ts_delta    varint  unless SAME_TS: zigzag(ts − previous ts), wrapping i64 arithmetic
//! seq         varint  if SEQ
//! ttl         varint  if the ext type code is 6: the put's own TTL in ms
//! value_len   varint  if VALUE = 0
//! suffix      suffix_len bytes: key [shared..shared + suffix_len)
//! value       value_len bytes, if VALUE is 0 or 1
//! ```
//! The key is `row | qualifier`; the row is its first `row_len` bytes. "Previous" for the first
//! cell of a block is: empty key, row length 0, timestamp 0, type Put, empty value.

use std::ops::Range;

use bytes::Bytes;
use strata_model::cell::{CellKey, CellType};
use strata_model::limits::{MAX_QUALIFIER_LEN, MAX_ROW_LEN, MAX_VALUE_LEN};

use super::diff::{unzigzag, zigzag, PrevCell, MAX_KEY_LEN};
use super::prefix::seek_forward;
use super::{disk_code, read_ttl, type_of_disk_code, DecodeError, Decoder, Encoder, PUT_TTL_CODE};
use crate::cell_ref::CellRef;
use crate::varint;

const SUFFIX_LEN_MASK: u8 = 0x07;
/// SUFFIX_LEN value meaning "a suffix_len varint follows".
const SUFFIX_LEN_VARINT: u8 = 0x07;
const FLAG_SAME_KEY_LEN: u8 = 0x08;
const FLAG_SAME_TS: u8 = 0x10;
const FLAG_EXT: u8 = 0x20;
const VALUE_SHIFT: u32 = 6;
const VALUE_EXPLICIT: u8 = 0;
const VALUE_SAME_LEN: u8 = 1;
const VALUE_SAME: u8 = 2;

const EXT_TYPE_MASK: u8 = 0x0f;
const EXT_SEQ: u8 = 0x10;
const EXT_ROW_LEN: u8 = 0x20;
const EXT_RESERVED: u8 = 0xc0;

/// Writes cells as tightly packed deltas against the previous cell.
pub(crate) struct FastDiffEncoder {
    buf: Vec<u8>,
    count: usize,
    prev: PrevCell,
    prev_type: CellType,
    /// Where the previous cell's value is in `buf`, for VALUE = 2.
    prev_value: Range<usize>,
}

impl Default for FastDiffEncoder {
    fn default() -> Self {
        FastDiffEncoder {
            buf: Vec::new(),
            count: 0,
            prev: PrevCell::default(),
            prev_type: CellType::Put,
            prev_value: 0..0,
        }
    }
}

impl Encoder for FastDiffEncoder {
    fn add(&mut self, cell: &CellRef<'_>) {
        let key_len = cell.row.len() + cell.qualifier.len();
        let shared = self.prev.shared_with(cell);
        let suffix_len = key_len - shared;

        let mut flags = (suffix_len.min(usize::from(SUFFIX_LEN_VARINT))) as u8;
        if key_len == self.prev.key.len() {
            flags |= FLAG_SAME_KEY_LEN;
        }
        if cell.timestamp == self.prev.ts {
            flags |= FLAG_SAME_TS;
        }
        let row_len_changed = cell.row.len() != self.prev.row_len;
        let code = disk_code(cell);
        let ext = if cell.cell_type != self.prev_type
            || code == PUT_TTL_CODE
            || cell.seq != 0
            || row_len_changed
        {
            flags |= FLAG_EXT;
            let mut ext = code;
            if cell.seq != 0 {
                ext |= EXT_SEQ;
            }
            if row_len_changed {
                ext |= EXT_ROW_LEN;
            }
            Some(ext)
        } else {
            None
        };
        let value_mode = if self.buf.get(self.prev_value.clone()) == Some(cell.value) {
            VALUE_SAME
        } else if cell.value.len() == self.prev.value_len {
            VALUE_SAME_LEN
        } else {
            VALUE_EXPLICIT
        };
        flags |= value_mode << VALUE_SHIFT;

        let out = &mut self.buf;
        out.push(flags);
        if let Some(ext) = ext {
            out.push(ext);
        }
        if suffix_len >= usize::from(SUFFIX_LEN_VARINT) {
            varint::put_u64(out, suffix_len as u64);
        }
        if flags & FLAG_SAME_KEY_LEN == 0 {
            varint::put_u64(out, shared as u64);
        }
        if row_len_changed {
            varint::put_u64(out, cell.row.len() as u64);
        }
        if flags & FLAG_SAME_TS == 0 {
            varint::put_u64(out, zigzag(cell.timestamp.wrapping_sub(self.prev.ts)));
        }
        if cell.seq != 0 {
            varint::put_u64(out, cell.seq);
        }
        if let (PUT_TTL_CODE, Some(ttl)) = (code, cell.ttl) {
            varint::put_u64(out, ttl);
        }
        if value_mode == VALUE_EXPLICIT {
            varint::put_u64(out, cell.value.len() as u64);
        }
        if shared < cell.row.len() {
            out.extend_from_slice(&cell.row[shared..]);
            out.extend_from_slice(cell.qualifier);
        } else {
            out.extend_from_slice(&cell.qualifier[shared - cell.row.len()..]);
        }
        if value_mode != VALUE_SAME {
            self.prev_value = out.len()..out.len() + cell.value.len();
            out.extend_from_slice(cell.value);
        }

        self.prev.set(cell);
        self.prev_type = cell.cell_type;
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
        self.prev.clear();
        self.prev_type = CellType::Put;
        self.prev_value = 0..0;
    }
}

/// Walks a FAST_DIFF block, rebuilding each key in a reused buffer.
pub(crate) struct FastDiffDecoder {
    block: Bytes,
    /// Offset of the next cell.
    next: usize,
    /// `row | qualifier` of the current cell.
    key: Vec<u8>,
    row_len: usize,
    ts: i64,
    cell_type: CellType,
    seq: u64,
    ttl: Option<u64>,
    /// Where the current value is in the block (possibly inside an earlier cell, for VALUE = 2).
    value: Range<usize>,
    /// The last `advance` or `seek` returned `Ok(true)`.
    positioned: bool,
}

impl FastDiffDecoder {
    /// A decoder over `block`. FAST_DIFF has no header, so this never fails.
    pub(crate) fn new(block: Bytes) -> Result<FastDiffDecoder, DecodeError> {
        Ok(FastDiffDecoder {
            block,
            next: 0,
            key: Vec::with_capacity(64),
            row_len: 0,
            ts: 0,
            cell_type: CellType::Put,
            seq: 0,
            ttl: None,
            value: 0..0,
            positioned: false,
        })
    }

    fn decode_next(&mut self) -> Result<bool, DecodeError> {
        let buf: &[u8] = &self.block;
        let start = self.next;
        let Some(&flags) = buf.get(start) else {
            return Ok(false);
        };
        let err = |reason| DecodeError::new(start, reason);
        let mut p = start + 1;
        let (cell_type, has_ttl, has_seq, has_row_len) = if flags & FLAG_EXT != 0 {
            let ext = *buf.get(p).ok_or(err("ext byte past block end"))?;
            p += 1;
            if ext & EXT_RESERVED != 0 {
                return Err(err("unknown ext flag bits"));
            }
            let (cell_type, has_ttl) =
                type_of_disk_code(ext & EXT_TYPE_MASK).ok_or(err("unknown cell type"))?;
            (
                cell_type,
                has_ttl,
                ext & EXT_SEQ != 0,
                ext & EXT_ROW_LEN != 0,
            )
        } else {
            (self.cell_type, false, false, false)
        };
        let suffix_len = match flags & SUFFIX_LEN_MASK {
            SUFFIX_LEN_VARINT => {
                varint::get_len(buf, &mut p, MAX_KEY_LEN).ok_or(err("bad suffix length"))?
            }
            n => usize::from(n),
        };
        let shared = if flags & FLAG_SAME_KEY_LEN != 0 {
            self.key
                .len()
                .checked_sub(suffix_len)
                .ok_or(err("suffix longer than the previous key"))?
        } else {
            varint::get_len(buf, &mut p, MAX_KEY_LEN).ok_or(err("bad shared length"))?
        };
        let row_len = if has_row_len {
            varint::get_len(buf, &mut p, MAX_ROW_LEN).ok_or(err("bad row length"))?
        } else {
            self.row_len
        };
        let ts = if flags & FLAG_SAME_TS != 0 {
            self.ts
        } else {
            let delta = varint::get_u64(buf, &mut p).ok_or(err("bad timestamp delta"))?;
            self.ts.wrapping_add(unzigzag(delta))
        };
        let seq = if has_seq {
            varint::get_u64(buf, &mut p).ok_or(err("bad sequence id"))?
        } else {
            0
        };
        let ttl = read_ttl(has_ttl, buf, &mut p, start)?;
        let value_mode = flags >> VALUE_SHIFT;
        let value_len = match value_mode {
            VALUE_EXPLICIT => {
                varint::get_len(buf, &mut p, MAX_VALUE_LEN).ok_or(err("bad value length"))?
            }
            VALUE_SAME_LEN | VALUE_SAME => self.value.len(),
            _ => return Err(err("unknown value mode")),
        };

        if shared > self.key.len() {
            return Err(err("shared prefix longer than the previous key"));
        }
        let key_len = shared + suffix_len;
        if key_len > MAX_KEY_LEN {
            return Err(err("key too long"));
        }
        if key_len
            .checked_sub(row_len)
            .is_none_or(|q| q > MAX_QUALIFIER_LEN)
        {
            return Err(err("row or qualifier length out of range"));
        }
        let suffix = buf
            .get(p..p + suffix_len)
            .ok_or(err("key past block end"))?;
        p += suffix_len;
        let value = if value_mode == VALUE_SAME {
            self.value.clone()
        } else {
            if value_len > buf.len() - p {
                return Err(err("value past block end"));
            }
            p..p + value_len
        };
        self.key.truncate(shared);
        self.key.extend_from_slice(suffix);

        self.row_len = row_len;
        self.ts = ts;
        self.cell_type = cell_type;
        self.seq = seq;
        self.ttl = ttl;
        self.next = if value_mode == VALUE_SAME {
            p
        } else {
            value.end
        };
        self.value = value;
        Ok(true)
    }
}

impl Decoder for FastDiffDecoder {
    fn advance(&mut self) -> Result<bool, DecodeError> {
        self.positioned = false;
        self.positioned = self.decode_next()?;
        Ok(self.positioned)
    }

    #[inline]
    fn current(&self) -> CellRef<'_> {
        debug_assert!(self.positioned);
        // `decode_next` checked row_len <= key.len() and the value range.
        let (row, qualifier) = self.key.split_at_checked(self.row_len).unwrap_or_default();
        CellRef {
            row,
            qualifier,
            timestamp: self.ts,
            cell_type: self.cell_type,
            seq: self.seq,
            value: self.block.get(self.value.clone()).unwrap_or_default(),
            ttl: self.ttl,
        }
    }

    fn seek(&mut self, target: &CellKey) -> Result<bool, DecodeError> {
        let positioned = self.positioned;
        seek_forward(self, positioned, target)
    }

    fn reset(&mut self) {
        self.next = 0;
        self.key.clear();
        self.row_len = 0;
        self.ts = 0;
        self.cell_type = CellType::Put;
        self.value = 0..0;
        self.positioned = false;
    }
}
