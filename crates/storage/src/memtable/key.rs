//! A cell as a segment keeps it: its bytes in an arena chunk, its order fields in the node.
//!
//! Chunk layout of one cell: `timestamp varint(row_len) row varint(qualifier_len × 2 | TTL)
//! qualifier [varint(ttl)] value` (timestamp as 8 big-endian bytes; LEB128 lengths). The low
//! bit of the qualifier's length word says a put's own TTL (ms) follows the qualifier. The
//! value length is what remains. Rows come right after the timestamp so that comparing two
//! rows decodes one length.
//!
//! The node keeps 7 bytes of the row as a big-endian integer (its *prefix*, zero-padded)
//! where the timestamp would otherwise be: a search step compares prefixes without touching
//! the chunk, and loads the chunk's bytes only when they tie (rarely, short of the key
//! searched for). Which 7 bytes: the top byte of the prefix names a [`RowRule`], the row
//! bytes every row of the segment is expected to start with, and the 7 bytes are those right
//! after them; rule 0 (*plain*) is the empty rule, the row's first 7 bytes. Rows that share a
//! long prefix (20-digit zero-padded numbers, `user` + digits, a tenant or metric id) would
//! otherwise tie on every prefix and load the chunk at every step. A key whose row does not
//! start with its segment's rule takes the plain prefix.
//!
//! Prefixes of one rule order as their rows do wherever they differ: both rows start with the
//! rule's bytes, and the first byte at which two padded prefixes differ is a byte both rows
//! have and differ in, or a byte past the end of the shorter row, which sorts first either
//! way. A key and a probe compare prefixes only under the same rule (the plain one always
//! exists for a probe); otherwise they compare rows. Rule ids are never reused within a
//! memtable, so one id is one byte string. The timestamp is compared only after the column,
//! which loaded the chunk already.
//!
//! The type code and the sequence id share one `u64` *tag*, `code << 56 | seq` (RocksDB packs
//! its internal keys the same way): store order wants type descending then sequence id
//! descending, which is exactly the tag descending. So sequence ids are limited to 56 bits.

use std::cmp::Ordering;

use bytes::{BufMut, Bytes, BytesMut};
use strata_model::cell::{compare_bytes, CellKey, CellType, Timestamp};
use strata_sstable::CellRef;

/// The largest sequence id a memtable stores (2⁵⁶ − 2): the tag's top byte is the type code.
pub const MAX_SEQ: u64 = SEQ_MASK - 1;

/// The 56 sequence-id bits of a tag. A probe's sequence id is clamped to it, one above any
/// stored id, so the clamp never changes how a probe compares with a stored key.
pub(crate) const SEQ_MASK: u64 = (1 << 56) - 1;

/// Packs a type and a sequence id into a tag (sequence ids above 56 bits are clamped).
#[inline]
pub(crate) fn tag(cell_type: CellType, seq: u64) -> u64 {
    (u64::from(cell_type.code()) << 56) | seq.min(SEQ_MASK)
}

/// The type of a tag. Stored tags are made by [`tag`] from a real [`CellType`].
#[inline]
fn tag_type(tag: u64) -> CellType {
    // The top byte always fits; an unknown code cannot be stored, Put is a placeholder.
    CellType::from_code((tag >> 56) as u8).unwrap_or(CellType::Put)
}

/// The key of a skiplist node: the cell's bytes (shared with an arena chunk), timestamp and tag.
#[derive(Clone, Debug)]
pub(crate) struct Key {
    data: Bytes,
    tag: u64,
    prefix: u64,
}

/// A search key: a cell key's parts, borrowed, with the type and sequence id as a tag.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe<'a> {
    row: &'a [u8],
    qualifier: &'a [u8],
    timestamp: Timestamp,
    tag: u64,
    /// The row's plain prefix (rule 0).
    plain: u64,
    /// The row's prefix under the rule of the segment searched, or `plain`.
    ruled: u64,
}

/// Row bytes every row of a skiplist segment is expected to start with, and the id its keys'
/// prefixes carry (see the module docs). The memtable picks it when it seals a segment: the
/// common prefix of every row it has held so far (`Memtable`'s `next_rule`).
#[derive(Debug)]
pub(crate) struct RowRule {
    id: u8,
    shared: Box<[u8]>,
}

impl RowRule {
    /// Longest rule kept: more shared bytes than this still compare at the chunk.
    pub(crate) const MAX_BYTES: usize = 64;

    /// The rule `shared` under `id` (1..=255); `None` for id 0 or empty bytes.
    pub(crate) fn new(id: u8, shared: &[u8]) -> Option<RowRule> {
        (id != 0 && !shared.is_empty()).then(|| RowRule {
            id,
            shared: shared[..shared.len().min(Self::MAX_BYTES)].into(),
        })
    }

    /// The bytes every row under this rule starts with.
    pub(crate) fn shared(&self) -> &[u8] {
        &self.shared
    }
}

/// The prefix of `row` under `rule`: the rule's id and the 7 bytes after its shared bytes
/// when `row` starts with them, else the plain prefix.
#[inline]
fn ruled_prefix(row: &[u8], rule: Option<&RowRule>) -> u64 {
    match rule {
        Some(rule) if row.starts_with(&rule.shared) => {
            (u64::from(rule.id) << 56) | seven_bytes(&row[rule.shared.len()..])
        }
        _ => seven_bytes(row),
    }
}

/// The rule id a prefix carries (0: plain).
#[inline]
fn rule_of(prefix: u64) -> u64 {
    prefix >> 56
}

impl<'a> Probe<'a> {
    /// The row searched for.
    #[inline]
    pub(crate) fn row(&self) -> &'a [u8] {
        self.row
    }

    /// The probe for a cell key.
    pub(crate) fn of_key(key: &'a CellKey) -> Probe<'a> {
        Probe {
            row: &key.row,
            qualifier: &key.qualifier,
            timestamp: key.timestamp,
            tag: tag(key.cell_type, key.seq),
            plain: seven_bytes(&key.row),
            ruled: seven_bytes(&key.row),
        }
    }

    /// The probe for a borrowed cell.
    pub(crate) fn of_cell(cell: &CellRef<'a>) -> Probe<'a> {
        Probe {
            row: cell.row,
            qualifier: cell.qualifier,
            timestamp: cell.timestamp,
            tag: tag(cell.cell_type, cell.seq),
            plain: seven_bytes(cell.row),
            ruled: seven_bytes(cell.row),
        }
    }

    /// This probe for searching keys made under `rule` (a skiplist segment's).
    #[inline]
    pub(crate) fn under(mut self, rule: Option<&RowRule>) -> Probe<'a> {
        self.ruled = ruled_prefix(self.row, rule);
        self
    }
}

/// The first 7 bytes of `bytes` as a big-endian integer, zero-padded (see the module docs):
/// a flat index's dense key without its last byte.
#[inline]
fn seven_bytes(bytes: &[u8]) -> u64 {
    super::flat::dense(bytes, 0) >> 8
}

/// Bytes of the timestamp at the start of a cell's chunk layout.
const TIMESTAMP_BYTES: usize = 8;

impl Key {
    /// Bytes the chunk layout takes for `cell` (timestamp and lengths header included).
    pub(crate) fn encoded_len(cell: &CellRef<'_>) -> usize {
        TIMESTAMP_BYTES
            + varint_len(cell.row.len())
            + varint_len(cell.qualifier.len() << 1)
            + cell.row.len()
            + cell.qualifier.len()
            + cell.ttl.map_or(0, varint_len_u64)
            + cell.value.len()
    }

    /// Appends `cell`'s chunk layout to `out`.
    pub(crate) fn encode(cell: &CellRef<'_>, out: &mut BytesMut) {
        out.put_i64(cell.timestamp);
        put_varint(out, cell.row.len());
        out.put_slice(cell.row);
        put_varint(
            out,
            cell.qualifier.len() << 1 | usize::from(cell.ttl.is_some()),
        );
        out.put_slice(cell.qualifier);
        if let Some(ttl) = cell.ttl {
            put_varint_u64(out, ttl);
        }
        out.put_slice(cell.value);
    }

    /// The key of `cell`, whose chunk layout is `data`, with the plain prefix.
    #[cfg(test)]
    pub(crate) fn new(data: Bytes, cell: &CellRef<'_>) -> Key {
        Key::under(data, cell, None)
    }

    /// The key of `cell`, whose chunk layout is `data`, its prefix under `rule` (a skiplist
    /// segment's).
    pub(crate) fn under(data: Bytes, cell: &CellRef<'_>, rule: Option<&RowRule>) -> Key {
        Key {
            data,
            tag: tag(cell.cell_type, cell.seq),
            prefix: ruled_prefix(cell.row, rule),
        }
    }

    /// This key as a borrowed view (what cursors and comparisons use).
    #[inline]
    pub(crate) fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            data: &self.data,
            tag: self.tag,
            prefix: Some(self.prefix),
        }
    }

    /// The row's bytes.
    #[inline]
    pub(crate) fn row_bytes(&self) -> &[u8] {
        self.as_ref().row_bytes()
    }

    /// Row and qualifier.
    #[inline]
    pub(crate) fn column(&self) -> (&[u8], &[u8]) {
        self.as_ref().column()
    }

    /// The cell's timestamp.
    #[inline]
    pub(crate) fn timestamp(&self) -> Timestamp {
        self.as_ref().timestamp()
    }

    /// The sequence id.
    #[inline]
    pub(crate) fn seq(&self) -> u64 {
        self.tag & SEQ_MASK
    }

    /// This key as a probe, to search for it or its neighbours.
    #[inline]
    pub(crate) fn probe(&self) -> Probe<'_> {
        self.as_ref().probe()
    }

    /// The cell, borrowed from the chunk.
    #[cfg(test)]
    pub(crate) fn cell(&self) -> CellRef<'_> {
        self.as_ref().cell()
    }

    /// Compares this key's column (row, then qualifier) with the probe's.
    #[inline]
    pub(crate) fn cmp_column(&self, probe: &Probe<'_>) -> Ordering {
        self.as_ref().cmp_column(probe)
    }

    /// Compares this key with `probe` in store order.
    #[inline]
    pub(crate) fn cmp_probe(&self, probe: &Probe<'_>) -> Ordering {
        self.as_ref().cmp_probe(probe)
    }
}

/// A key borrowed from where its cell is stored: a skiplist node's [`Key`], or a flat index's
/// entry (chunk, offset, length and tag) over the segment's chunks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyRef<'a> {
    data: &'a [u8],
    tag: u64,
    /// The row prefix a skiplist key keeps (see the module docs); `None` for a flat entry,
    /// which keeps none: its comparisons read the row.
    prefix: Option<u64>,
}

impl<'a> KeyRef<'a> {
    /// The key of a cell whose chunk layout is `data` and tag `tag` (a flat entry's).
    #[inline]
    pub(crate) fn flat(data: &'a [u8], tag: u64) -> KeyRef<'a> {
        KeyRef {
            data,
            tag,
            prefix: None,
        }
    }

    /// The cell's chunk layout.
    #[inline]
    pub(crate) fn data(self) -> &'a [u8] {
        self.data
    }

    /// The tag: type code and sequence id.
    #[inline]
    pub(crate) fn tag(self) -> u64 {
        self.tag
    }

    /// The row's bytes.
    #[inline]
    pub(crate) fn row_bytes(self) -> &'a [u8] {
        self.row().0
    }

    /// Row and qualifier.
    #[inline]
    pub(crate) fn column(self) -> (&'a [u8], &'a [u8]) {
        let (row, rest) = self.row();
        (row, take_qualifier(rest).0)
    }

    /// Row, and the bytes after it.
    #[inline]
    fn row(self) -> (&'a [u8], &'a [u8]) {
        take_prefixed(self.data.get(TIMESTAMP_BYTES..).unwrap_or_default())
    }

    /// Row, qualifier, value and the put's own TTL.
    #[inline]
    fn split(self) -> (&'a [u8], &'a [u8], &'a [u8], Option<u64>) {
        let (row, rest) = self.row();
        let (qualifier, ttl, value) = take_qualifier(rest);
        (row, qualifier, value, ttl)
    }

    /// Bytes the cell takes in its chunk (timestamp and lengths header included).
    #[inline]
    pub(crate) fn stored_len(self) -> usize {
        self.data.len()
    }

    /// The cell's timestamp.
    #[inline]
    pub(crate) fn timestamp(self) -> Timestamp {
        self.data
            .first_chunk::<TIMESTAMP_BYTES>()
            .map_or(0, |b| Timestamp::from_be_bytes(*b))
    }

    /// The sequence id.
    #[inline]
    pub(crate) fn seq(self) -> u64 {
        self.tag & SEQ_MASK
    }

    /// This key as a probe, to search for it or its neighbours.
    #[inline]
    pub(crate) fn probe(self) -> Probe<'a> {
        let (row, qualifier, _, _) = self.split();
        let plain = seven_bytes(row);
        Probe {
            row,
            qualifier,
            timestamp: self.timestamp(),
            tag: self.tag,
            plain,
            ruled: self.prefix.unwrap_or(plain),
        }
    }

    /// The cell, borrowed from the chunk.
    #[inline]
    pub(crate) fn cell(self) -> CellRef<'a> {
        let (row, qualifier, value, ttl) = self.split();
        CellRef {
            row,
            qualifier,
            timestamp: self.timestamp(),
            cell_type: tag_type(self.tag),
            seq: self.seq(),
            value,
            ttl,
        }
    }

    /// Compares this key's column (row, then qualifier) with the probe's.
    #[inline]
    pub(crate) fn cmp_column(self, probe: &Probe<'_>) -> Ordering {
        if let Some(prefix) = self.prefix {
            let theirs = match rule_of(prefix) {
                0 => Some(probe.plain),
                rule if rule == rule_of(probe.ruled) => Some(probe.ruled),
                _ => None,
            };
            if let Some(theirs) = theirs {
                if prefix != theirs {
                    return prefix.cmp(&theirs);
                }
            }
        }
        let (row, rest) = self.row();
        compare_bytes(row, probe.row)
            .then_with(|| compare_bytes(take_qualifier(rest).0, probe.qualifier))
    }

    /// True when this key's column sorts before the probe's: every version of the column is
    /// then below the probe.
    #[inline]
    pub(crate) fn column_below(self, probe: &Probe<'_>) -> bool {
        self.cmp_column(probe).is_lt()
    }

    /// Compares this key with `probe` in store order.
    #[inline]
    pub(crate) fn cmp_probe(self, probe: &Probe<'_>) -> Ordering {
        self.cmp_column(probe)
            .then_with(|| probe.timestamp.cmp(&self.timestamp()))
            .then_with(|| probe.tag.cmp(&self.tag))
    }
}

fn varint_len(v: usize) -> usize {
    varint_len_u64(v as u64)
}

fn put_varint(out: &mut BytesMut, v: usize) {
    put_varint_u64(out, v as u64);
}

fn varint_len_u64(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn put_varint_u64(out: &mut BytesMut, mut v: u64) {
    while v >= 0x80 {
        out.put_u8((v as u8) | 0x80);
        v >>= 7;
    }
    out.put_u8(v as u8);
}

/// Splits the bytes after the row into the qualifier, the put's own TTL and the value.
#[inline]
fn take_qualifier(data: &[u8]) -> (&[u8], Option<u64>, &[u8]) {
    let (word, skip) = get_varint(data);
    let rest = data.get(skip..).unwrap_or_default();
    let (qualifier, rest) = rest.split_at((word >> 1).min(rest.len()));
    if word & 1 == 0 {
        return (qualifier, None, rest);
    }
    let mut ttl = 0u64;
    for (i, &b) in rest.iter().enumerate().take(10) {
        ttl |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return (qualifier, Some(ttl), &rest[i + 1..]);
        }
    }
    (qualifier, Some(ttl), &[])
}

/// Splits `data` into a length-prefixed part and the rest.
#[inline]
fn take_prefixed(data: &[u8]) -> (&[u8], &[u8]) {
    let (len, skip) = get_varint(data);
    let rest = data.get(skip..).unwrap_or_default();
    rest.split_at(len.min(rest.len()))
}

/// Decodes a varint written by [`put_varint`]: (value, bytes read).
#[inline]
fn get_varint(data: &[u8]) -> (usize, usize) {
    match data.first() {
        Some(&b) if b < 0x80 => (usize::from(b), 1),
        _ => {
            let mut v = 0usize;
            for (i, &b) in data.iter().enumerate().take(10) {
                v |= usize::from(b & 0x7f) << (7 * i);
                if b < 0x80 {
                    return (v, i + 1);
                }
            }
            (v, data.len())
        }
    }
}

#[cfg(test)]
#[path = "key_test.rs"]
mod tests;
