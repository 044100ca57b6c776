//! `PREFIX`: each cell stores only the part of its key that differs from the previous cell's.
//!
//! As in HBase, the key is compared as a *flat key*
//! `row_len u16 BE | row | qualifier` (no family: a store file holds one family), so a cell of
//! the same row as the previous one stores only its qualifier's new tail. Unlike HBase, the
//! timestamp is prefix-compressed on its own (HBase shares timestamp bytes only when the whole
//! qualifier is shared, which never happens between two columns), and the type and the
//! sequence-id flag share one byte with the timestamp's prefix length.
//!
//! Cell layout (no block header or footer; cells run to the end of the block):
//! ```text
//! shared      varint   leading bytes of the previous cell's flat key that this key repeats
//! suffix_len  varint   flat-key bytes that follow them
//! value_len   varint
//! meta        u8       bits 0–3: ts_shared (0..=8), leading bytes of the timestamp (i64 BE)
//!                                equal to the previous cell's
//!                      bit 4:    SEQ, a sequence-id varint follows
//!                      bits 5–7: type code >> 1 (every code is even: 4..=14 → 2..=7;
//!                                3 is a put with its own TTL, code 6)
//! suffix      suffix_len bytes: flat key [shared..shared + suffix_len)
//! ts_tail     8 − ts_shared bytes: the timestamp's big-endian bytes [ts_shared..8)
//! seq         varint, only if SEQ (a zero sequence id takes no byte)
//! ttl         varint, only for code 6: the put's own TTL in ms (format version 2)
//! value       value_len bytes
//! ```
//! "Previous" for the first cell of a block is an empty flat key and timestamp 0.
//!
//! Rows of equal length share their common prefix; rows of different lengths share nothing
//! (their `row_len` bytes differ), as in HBase. DIFF and FAST_DIFF avoid that.

use std::ops::Range;

use bytes::Bytes;
use strata_model::cell::{CellKey, CellType};
use strata_model::limits::{MAX_QUALIFIER_LEN, MAX_ROW_LEN, MAX_VALUE_LEN};

use super::{disk_code, read_ttl, type_of_disk_code, DecodeError, Decoder, Encoder, PUT_TTL_CODE};
use crate::cell_ref::CellRef;
use crate::varint;

const TS_SHARED_MASK: u8 = 0x0f;
const FLAG_SEQ: u8 = 0x10;
const TYPE_SHIFT: u32 = 5;
/// Longest flat key: the row length, the longest row and the longest qualifier.
const MAX_FLAT_KEY_LEN: usize = 2 + MAX_ROW_LEN + MAX_QUALIFIER_LEN;

/// Length of the longest common prefix of `a` and `b`.
#[inline]
pub(super) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The type whose code is `bits << 1` (3-bit fields hold code >> 1), if any, and whether a
/// TTL varint follows (the code is [`PUT_TTL_CODE`]).
#[inline]
pub(super) fn type_from_half_code(bits: u8) -> Option<(CellType, bool)> {
    type_of_disk_code((bits & 0x07) << 1)
}

/// Seeks `decoder` to the first cell ≥ `target`, walking forward from the current cell when it
/// is still before `target` instead of restarting the block. Correct because cells are sorted.
pub(super) fn seek_forward<D: Decoder + ?Sized>(
    decoder: &mut D,
    positioned: bool,
    target: &CellKey,
) -> Result<bool, DecodeError> {
    if !(positioned && decoder.current().cmp_key(target).is_lt()) {
        decoder.reset();
    }
    while decoder.advance()? {
        if decoder.current().cmp_key(target).is_ge() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Writes cells with prefix-compressed keys and timestamps.
#[derive(Default)]
pub(crate) struct PrefixEncoder {
    buf: Vec<u8>,
    count: usize,
    /// Flat key of the previous cell.
    prev_key: Vec<u8>,
    /// Scratch for the current cell's flat key (swapped with `prev_key`).
    key: Vec<u8>,
    prev_ts: i64,
}

impl Encoder for PrefixEncoder {
    fn add(&mut self, cell: &CellRef<'_>) {
        debug_assert!(cell.row.len() <= MAX_ROW_LEN);
        self.key.clear();
        self.key
            .extend_from_slice(&(cell.row.len() as u16).to_be_bytes());
        self.key.extend_from_slice(cell.row);
        self.key.extend_from_slice(cell.qualifier);
        let shared = common_prefix(&self.prev_key, &self.key);
        let ts = cell.timestamp.to_be_bytes();
        let ts_shared = common_prefix(&self.prev_ts.to_be_bytes(), &ts);

        varint::put_u64(&mut self.buf, shared as u64);
        varint::put_u64(&mut self.buf, (self.key.len() - shared) as u64);
        varint::put_u64(&mut self.buf, cell.value.len() as u64);
        let seq_flag = if cell.seq == 0 { 0 } else { FLAG_SEQ };
        let code = disk_code(cell);
        self.buf
            .push(ts_shared as u8 | seq_flag | (code >> 1) << TYPE_SHIFT);
        self.buf.extend_from_slice(&self.key[shared..]);
        self.buf.extend_from_slice(&ts[ts_shared..]);
        if cell.seq != 0 {
            varint::put_u64(&mut self.buf, cell.seq);
        }
        if let (PUT_TTL_CODE, Some(ttl)) = (code, cell.ttl) {
            varint::put_u64(&mut self.buf, ttl);
        }
        self.buf.extend_from_slice(cell.value);

        std::mem::swap(&mut self.prev_key, &mut self.key);
        self.prev_ts = cell.timestamp;
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
        self.prev_key.clear();
        self.prev_ts = 0;
    }
}

/// Walks a PREFIX block, rebuilding each flat key in a reused buffer.
pub(crate) struct PrefixDecoder {
    block: Bytes,
    /// Offset of the next cell.
    next: usize,
    /// Flat key of the current cell (`row_len u16 BE | row | qualifier`).
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

impl PrefixDecoder {
    /// A decoder over `block`. PREFIX has no header, so this never fails.
    pub(crate) fn new(block: Bytes) -> Result<PrefixDecoder, DecodeError> {
        Ok(PrefixDecoder {
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
        if start >= buf.len() {
            return Ok(false);
        }
        let err = |at, reason| DecodeError::new(at, reason);
        let mut p = start;
        let shared =
            varint::get_len(buf, &mut p, MAX_FLAT_KEY_LEN).ok_or(err(p, "bad shared length"))?;
        let suffix_len =
            varint::get_len(buf, &mut p, MAX_FLAT_KEY_LEN).ok_or(err(p, "bad suffix length"))?;
        let value_len =
            varint::get_len(buf, &mut p, MAX_VALUE_LEN).ok_or(err(p, "bad value length"))?;
        let meta = *buf.get(p).ok_or(err(p, "flags past block end"))?;
        let ts_shared = usize::from(meta & TS_SHARED_MASK);
        if ts_shared > 8 {
            return Err(err(p, "bad timestamp prefix length"));
        }
        let (cell_type, has_ttl) =
            type_from_half_code(meta >> TYPE_SHIFT).ok_or(err(p, "unknown cell type"))?;
        p += 1;

        if shared > self.key.len() {
            return Err(err(start, "shared prefix longer than the previous key"));
        }
        if shared + suffix_len > MAX_FLAT_KEY_LEN {
            return Err(err(start, "key too long"));
        }
        let suffix = buf
            .get(p..p + suffix_len)
            .ok_or(err(p, "key past block end"))?;
        p += suffix_len;
        self.key.truncate(shared);
        self.key.extend_from_slice(suffix);
        let row_len = match self.key.get(..2) {
            Some(&[hi, lo]) => usize::from(u16::from_be_bytes([hi, lo])),
            _ => return Err(err(start, "key shorter than its row length")),
        };
        if row_len > MAX_ROW_LEN {
            return Err(err(start, "row too long"));
        }
        let qual_len = (self.key.len() - 2)
            .checked_sub(row_len)
            .ok_or(err(start, "row longer than the key"))?;
        if qual_len > MAX_QUALIFIER_LEN {
            return Err(err(start, "qualifier too long"));
        }

        let tail = buf
            .get(p..p + (8 - ts_shared))
            .ok_or(err(p, "timestamp past block end"))?;
        // Keep the previous timestamp's leading `ts_shared` bytes, take the rest from `tail`.
        let kept = (self.ts as u64) & !u64::MAX.checked_shr(8 * ts_shared as u32).unwrap_or(0);
        let ts = kept | tail.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        p += 8 - ts_shared;

        let seq = if meta & FLAG_SEQ != 0 {
            varint::get_u64(buf, &mut p).ok_or(err(p, "bad sequence id"))?
        } else {
            0
        };
        let at = p;
        let ttl = read_ttl(has_ttl, buf, &mut p, at)?;
        if value_len > buf.len() - p {
            return Err(err(p, "value past block end"));
        }

        self.row_len = row_len;
        self.ts = ts as i64;
        self.cell_type = cell_type;
        self.seq = seq;
        self.ttl = ttl;
        self.value = p..p + value_len;
        self.next = p + value_len;
        Ok(true)
    }
}

impl Decoder for PrefixDecoder {
    fn advance(&mut self) -> Result<bool, DecodeError> {
        self.positioned = false;
        self.positioned = self.decode_next()?;
        Ok(self.positioned)
    }

    #[inline]
    fn current(&self) -> CellRef<'_> {
        debug_assert!(self.positioned);
        // `decode_next` checked 2 + row_len <= key.len() and the value range.
        let (row, qualifier) = self
            .key
            .get(2..)
            .and_then(|k| k.split_at_checked(self.row_len))
            .unwrap_or_default();
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
        self.ts = 0;
        self.positioned = false;
    }
}
