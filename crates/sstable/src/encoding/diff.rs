//! `DIFF`: PREFIX's shared key prefix plus field-wise deltas against the previous cell: flags
//! say when the key length, value length or timestamp repeat, and a changed timestamp is stored
//! as a small signed difference.
//!
//! The key is `row | qualifier` (no family: a store file holds one family) with the row length
//! kept as state: it is written only when it changes. Unlike HBase's flat key (which starts with
//! the row length), rows of different lengths still share their common prefix.
//!
//! Cell layout (no block header or footer; cells run to the end of the block):
//! ```text
//! flags       u8      bits 0–2: type code >> 1 (every code is even: 4..=14 → 2..=7; 3 is a
//!                               put with its own TTL, code 6)
//!                     bit 3: SEQ             a sequence-id varint follows
//!                     bit 4: ROW_LEN         the row length changed: a varint follows
//!                     bit 5: SAME_KEY_LEN    key length = previous: no suffix_len
//!                     bit 6: SAME_VALUE_LEN  value length = previous: no value_len
//!                     bit 7: SAME_TS         timestamp = previous: no ts_delta
//! row_len     varint  if ROW_LEN
//! shared      varint  leading bytes of the previous key that this key repeats
//! suffix_len  varint  unless SAME_KEY_LEN (then suffix_len = previous key length − shared)
//! ts_delta    varint  unless SAME_TS: zigzag(ts − previous ts), wrapping i64 arithmetic
//! seq         varint  if SEQ (a zero sequence id takes no byte)
//! ttl         varint  only for code 6: the put's own TTL in ms (format version 2)
//! value_len   varint  unless SAME_VALUE_LEN
//! suffix      suffix_len bytes: key [shared..shared + suffix_len)
//! value       value_len bytes
//! ```
//! The key is `row | qualifier`; the row is its first `row_len` bytes. "Previous" for the first
//! cell of a block is: empty key, row length 0, timestamp 0, value length 0.

use std::ops::Range;

use bytes::Bytes;
use strata_model::cell::{CellKey, CellType};
use strata_model::limits::{MAX_QUALIFIER_LEN, MAX_ROW_LEN, MAX_VALUE_LEN};

use super::prefix::{common_prefix, seek_forward, type_from_half_code};
use super::{disk_code, read_ttl, DecodeError, Decoder, Encoder, PUT_TTL_CODE};
use crate::cell_ref::CellRef;
use crate::varint;

const TYPE_MASK: u8 = 0x07;
const FLAG_SEQ: u8 = 0x08;
const FLAG_ROW_LEN: u8 = 0x10;
const FLAG_SAME_KEY_LEN: u8 = 0x20;
const FLAG_SAME_VALUE_LEN: u8 = 0x40;
const FLAG_SAME_TS: u8 = 0x80;

/// Longest key (`row | qualifier`).
pub(super) const MAX_KEY_LEN: usize = MAX_ROW_LEN + MAX_QUALIFIER_LEN;

/// Maps a signed delta to an unsigned one with small magnitudes near zero.
#[inline]
pub(super) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub(super) fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// Encoder state both DIFF and FAST_DIFF keep about the previous cell.
#[derive(Default)]
pub(super) struct PrevCell {
    /// `row | qualifier` of the previous cell.
    pub(super) key: Vec<u8>,
    pub(super) row_len: usize,
    pub(super) ts: i64,
    pub(super) value_len: usize,
}

impl PrevCell {
    /// Length of the prefix `cell`'s key shares with the previous key.
    pub(super) fn shared_with(&self, cell: &CellRef<'_>) -> usize {
        let row_shared = common_prefix(&self.key, cell.row);
        if row_shared < cell.row.len() {
            return row_shared;
        }
        let rest = self.key.get(cell.row.len()..).unwrap_or_default();
        cell.row.len() + common_prefix(rest, cell.qualifier)
    }

    /// Remembers `cell` as the previous cell.
    pub(super) fn set(&mut self, cell: &CellRef<'_>) {
        self.key.clear();
        self.key.extend_from_slice(cell.row);
        self.key.extend_from_slice(cell.qualifier);
        self.row_len = cell.row.len();
        self.ts = cell.timestamp;
        self.value_len = cell.value.len();
    }

    /// Back to the state before a block's first cell.
    pub(super) fn clear(&mut self) {
        self.key.clear();
        self.row_len = 0;
        self.ts = 0;
        self.value_len = 0;
    }
}

/// Writes cells as deltas against the previous cell.
#[derive(Default)]
pub(crate) struct DiffEncoder {
    buf: Vec<u8>,
    count: usize,
    prev: PrevCell,
}

impl Encoder for DiffEncoder {
    fn add(&mut self, cell: &CellRef<'_>) {
        let key_len = cell.row.len() + cell.qualifier.len();
        let shared = self.prev.shared_with(cell);
        let code = disk_code(cell);
        let mut flags = code >> 1;
        if cell.seq != 0 {
            flags |= FLAG_SEQ;
        }
        if cell.row.len() != self.prev.row_len {
            flags |= FLAG_ROW_LEN;
        }
        if key_len == self.prev.key.len() {
            flags |= FLAG_SAME_KEY_LEN;
        }
        if cell.value.len() == self.prev.value_len {
            flags |= FLAG_SAME_VALUE_LEN;
        }
        if cell.timestamp == self.prev.ts {
            flags |= FLAG_SAME_TS;
        }

        let out = &mut self.buf;
        out.push(flags);
        if flags & FLAG_ROW_LEN != 0 {
            varint::put_u64(out, cell.row.len() as u64);
        }
        varint::put_u64(out, shared as u64);
        if flags & FLAG_SAME_KEY_LEN == 0 {
            varint::put_u64(out, (key_len - shared) as u64);
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
        if flags & FLAG_SAME_VALUE_LEN == 0 {
            varint::put_u64(out, cell.value.len() as u64);
        }
        if shared < cell.row.len() {
            out.extend_from_slice(&cell.row[shared..]);
            out.extend_from_slice(cell.qualifier);
        } else {
            out.extend_from_slice(&cell.qualifier[shared - cell.row.len()..]);
        }
        out.extend_from_slice(cell.value);

        self.prev.set(cell);
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
    }
}

/// Walks a DIFF block, rebuilding each key in a reused buffer.
pub(crate) struct DiffDecoder {
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
    value: Range<usize>,
    /// The last `advance` or `seek` returned `Ok(true)`.
    positioned: bool,
}

impl DiffDecoder {
    /// A decoder over `block`. DIFF has no header, so this never fails.
    pub(crate) fn new(block: Bytes) -> Result<DiffDecoder, DecodeError> {
        Ok(DiffDecoder {
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
        let (cell_type, has_ttl) =
            type_from_half_code(flags & TYPE_MASK).ok_or(err("unknown cell type"))?;
        let mut p = start + 1;
        let row_len = if flags & FLAG_ROW_LEN != 0 {
            varint::get_len(buf, &mut p, MAX_ROW_LEN).ok_or(err("bad row length"))?
        } else {
            self.row_len
        };
        let shared = varint::get_len(buf, &mut p, MAX_KEY_LEN).ok_or(err("bad shared length"))?;
        let suffix_len = if flags & FLAG_SAME_KEY_LEN != 0 {
            self.key
                .len()
                .checked_sub(shared)
                .ok_or(err("shared prefix longer than the previous key"))?
        } else {
            varint::get_len(buf, &mut p, MAX_KEY_LEN).ok_or(err("bad suffix length"))?
        };
        let ts = if flags & FLAG_SAME_TS != 0 {
            self.ts
        } else {
            let delta = varint::get_u64(buf, &mut p).ok_or(err("bad timestamp delta"))?;
            self.ts.wrapping_add(unzigzag(delta))
        };
        let seq = if flags & FLAG_SEQ != 0 {
            varint::get_u64(buf, &mut p).ok_or(err("bad sequence id"))?
        } else {
            0
        };
        let ttl = read_ttl(has_ttl, buf, &mut p, start)?;
        let value_len = if flags & FLAG_SAME_VALUE_LEN != 0 {
            self.value.len()
        } else {
            varint::get_len(buf, &mut p, MAX_VALUE_LEN).ok_or(err("bad value length"))?
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
        if value_len > buf.len() - p {
            return Err(err("value past block end"));
        }
        self.key.truncate(shared);
        self.key.extend_from_slice(suffix);

        self.row_len = row_len;
        self.ts = ts;
        self.cell_type = cell_type;
        self.seq = seq;
        self.ttl = ttl;
        self.value = p..p + value_len;
        self.next = p + value_len;
        Ok(true)
    }
}

impl Decoder for DiffDecoder {
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
        self.value = 0..0;
        self.positioned = false;
    }
}
