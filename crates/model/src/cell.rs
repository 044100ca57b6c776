//! Cells and the order in which a store keeps them.
//!
//! Order (ARCHITECTURE.md, "Data model"): row ascending (unsigned bytes), family ascending,
//! qualifier ascending, timestamp descending, type descending by code (so deletes sort before puts
//! at the same timestamp, and a family delete before a column delete), sequence id descending.

use std::cmp::Ordering;

use bytes::Bytes;

/// Milliseconds since the Unix epoch, as HBase uses. Callers may set any value.
pub type Timestamp = i64;

/// The newest possible timestamp; a key with it sorts before every real cell of its column.
pub const LATEST_TIMESTAMP: Timestamp = i64::MAX;

/// What a cell says: a value, or one of the four delete markers.
///
/// The codes are HBase's `KeyValue.Type` codes, and they are what sorts: a larger code comes
/// first at an equal timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CellType {
    /// A value.
    Put = 4,
    /// Masks exactly one version (the same timestamp) of one column.
    Delete = 8,
    /// Masks exactly one timestamp in every column of the family.
    DeleteFamilyVersion = 10,
    /// Masks every version of one column at or before its timestamp.
    DeleteColumn = 12,
    /// Masks every column of the family at or before its timestamp.
    DeleteFamily = 14,
}

impl CellType {
    /// Every type, in sort order (first sorts first).
    pub const ALL: [CellType; 5] = [
        CellType::DeleteFamily,
        CellType::DeleteColumn,
        CellType::DeleteFamilyVersion,
        CellType::Delete,
        CellType::Put,
    ];

    /// The on-disk and on-wire code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The type for a code, or `None` for an unknown code.
    pub fn from_code(code: u8) -> Option<CellType> {
        match code {
            4 => Some(CellType::Put),
            8 => Some(CellType::Delete),
            10 => Some(CellType::DeleteFamilyVersion),
            12 => Some(CellType::DeleteColumn),
            14 => Some(CellType::DeleteFamily),
            _ => None,
        }
    }

    /// True for the four delete markers.
    pub fn is_delete(self) -> bool {
        self != CellType::Put
    }

    /// True for markers that apply to a whole family (their qualifier is ignored).
    pub fn is_family_delete(self) -> bool {
        matches!(self, CellType::DeleteFamily | CellType::DeleteFamilyVersion)
    }

    /// HBase's name for the type.
    pub fn name(self) -> &'static str {
        match self {
            CellType::Put => "Put",
            CellType::Delete => "Delete",
            CellType::DeleteFamilyVersion => "DeleteFamilyVersion",
            CellType::DeleteColumn => "DeleteColumn",
            CellType::DeleteFamily => "DeleteFamily",
        }
    }
}

impl std::fmt::Display for CellType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Compares byte strings as unsigned bytes. Keys are usually short, where an inline loop beats
/// a call to `memcmp` (which `<[u8]>::cmp` always makes): up to 64 bytes are compared eight at
/// a time as big-endian words (whose order is the bytes' order), the rest byte by byte.
#[inline]
pub fn compare_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    if n > 64 {
        return a.cmp(b);
    }
    let (a_head, b_head) = (&a[..n], &b[..n]);
    let (mut wa, mut wb) = (a_head.chunks_exact(8), b_head.chunks_exact(8));
    for (x, y) in (&mut wa).zip(&mut wb) {
        let (x, y) = (word(x), word(y));
        if x != y {
            return x.cmp(&y);
        }
    }
    for (x, y) in wa.remainder().iter().zip(wb.remainder()) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Eight bytes (a `chunks_exact(8)` item) as a big-endian word.
#[inline(always)]
fn word(bytes: &[u8]) -> u64 {
    <[u8; 8]>::try_from(bytes).map_or(0, u64::from_be_bytes)
}

/// Compares two cell keys given as parts, in store order. Family is not part of it: within a
/// store every cell has the same family; [`Cell::cmp`] adds it for multi-family merges.
#[inline]
pub fn compare_keys(
    a: (&[u8], &[u8], Timestamp, CellType, u64),
    b: (&[u8], &[u8], Timestamp, CellType, u64),
) -> Ordering {
    compare_bytes(a.0, b.0)
        .then_with(|| compare_bytes(a.1, b.1))
        .then_with(|| b.2.cmp(&a.2))
        .then_with(|| b.3.code().cmp(&a.3.code()))
        .then_with(|| b.4.cmp(&a.4))
}

/// True when a cell of `timestamp` with its own time to live `ttl` (ms) has expired at `now`:
/// `timestamp + ttl < now`, as HBase's `ScanQueryMatcher.isCellTTLExpired` decides (the sum
/// saturates instead of wrapping). A cell without one never expires here; the family's TTL
/// applies to every cell on top of this.
#[inline]
pub fn ttl_expired(timestamp: Timestamp, ttl: Option<u64>, now: Timestamp) -> bool {
    match ttl {
        Some(ttl) => timestamp.saturating_add(ttl.min(i64::MAX as u64) as i64) < now,
        None => false,
    }
}

/// The key of a cell within one store: everything but the family and the value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CellKey {
    /// Row key.
    pub row: Bytes,
    /// Column qualifier (empty for family delete markers).
    pub qualifier: Bytes,
    /// Version timestamp.
    pub timestamp: Timestamp,
    /// Value or delete marker.
    pub cell_type: CellType,
    /// Sequence id assigned by the server; orders identical keys (newer first).
    pub seq: u64,
}

impl CellKey {
    /// The smallest key of a row: sorts before every cell of `row`.
    pub fn first_on_row(row: impl Into<Bytes>) -> CellKey {
        CellKey {
            row: row.into(),
            qualifier: Bytes::new(),
            timestamp: LATEST_TIMESTAMP,
            cell_type: CellType::DeleteFamily,
            seq: u64::MAX,
        }
    }

    /// The smallest key of a column: sorts before every cell of (`row`, `qualifier`).
    pub fn first_on_column(row: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> CellKey {
        CellKey {
            row: row.into(),
            qualifier: qualifier.into(),
            timestamp: LATEST_TIMESTAMP,
            cell_type: CellType::DeleteFamily,
            seq: u64::MAX,
        }
    }

    /// The key as a tuple of parts, for [`compare_keys`].
    #[inline]
    pub fn parts(&self) -> (&[u8], &[u8], Timestamp, CellType, u64) {
        (
            &self.row,
            &self.qualifier,
            self.timestamp,
            self.cell_type,
            self.seq,
        )
    }
}

impl Ord for CellKey {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(self.parts(), other.parts())
    }
}

impl PartialOrd for CellKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One cell: (row, family, qualifier, timestamp, type) → value, with its sequence id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// Row key.
    pub row: Bytes,
    /// Column family.
    pub family: Bytes,
    /// Column qualifier.
    pub qualifier: Bytes,
    /// Version timestamp.
    pub timestamp: Timestamp,
    /// Value or delete marker.
    pub cell_type: CellType,
    /// Sequence id assigned by the server (0 when no longer needed to order versions).
    pub seq: u64,
    /// The value (empty for delete markers).
    pub value: Bytes,
    /// The cell's own time to live in milliseconds, counted from its timestamp (HBase's TTL
    /// tag, set by `Mutation.setTTL`); `None` for none. Only puts carry one. It can only
    /// shorten the family's TTL, never extend it: see [`ttl_expired`].
    pub ttl: Option<u64>,
}

impl Cell {
    /// A put cell with sequence id 0.
    pub fn put(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: Timestamp,
        value: impl Into<Bytes>,
    ) -> Cell {
        Cell {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
            cell_type: CellType::Put,
            seq: 0,
            value: value.into(),
            ttl: None,
        }
    }

    /// A delete marker of `cell_type` with sequence id 0 and an empty value.
    pub fn delete(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: Timestamp,
        cell_type: CellType,
    ) -> Cell {
        Cell {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
            cell_type,
            seq: 0,
            value: Bytes::new(),
            ttl: None,
        }
    }

    /// The key parts within a store, for [`compare_keys`].
    #[inline]
    pub fn key_parts(&self) -> (&[u8], &[u8], Timestamp, CellType, u64) {
        (
            &self.row,
            &self.qualifier,
            self.timestamp,
            self.cell_type,
            self.seq,
        )
    }

    /// The store key of this cell.
    pub fn key(&self) -> CellKey {
        CellKey {
            row: self.row.clone(),
            qualifier: self.qualifier.clone(),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            seq: self.seq,
        }
    }

    /// True when the cell's own TTL has expired at `now` (see [`ttl_expired`]).
    #[inline]
    pub fn ttl_expired(&self, now: Timestamp) -> bool {
        ttl_expired(self.timestamp, self.ttl, now)
    }

    /// HBase's serialized KeyValue size: the lengths (8), the key (row length 2, row, family
    /// length 1, family, qualifier, timestamp 8, type 1) and the value. Benchmarks count
    /// "raw cell bytes" with it so figures line up with HBase's.
    pub fn raw_size(&self) -> usize {
        8 + 2 + self.row.len() + 1 + self.family.len() + self.qualifier.len() + 9 + self.value.len()
    }
}

impl Ord for Cell {
    fn cmp(&self, other: &Self) -> Ordering {
        self.row
            .cmp(&other.row)
            .then_with(|| self.family.cmp(&other.family))
            .then_with(|| compare_keys(self.key_parts(), other.key_parts()))
    }
}

impl PartialOrd for Cell {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(row: &str, q: &str, ts: i64, t: CellType, seq: u64) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(row.as_bytes()),
            qualifier: Bytes::copy_from_slice(q.as_bytes()),
            timestamp: ts,
            cell_type: t,
            seq,
        }
    }

    #[test]
    fn rows_then_qualifiers_ascend() {
        assert!(key("a", "z", 1, CellType::Put, 0) < key("b", "a", 1, CellType::Put, 0));
        assert!(key("a", "a", 1, CellType::Put, 0) < key("a", "b", 9, CellType::Put, 0));
        // Unsigned byte order: 0xff sorts after 'a'.
        assert!(key("a", "", 1, CellType::Put, 0) < key("\u{7f}", "", 1, CellType::Put, 0));
    }

    #[test]
    fn newer_timestamps_and_deletes_sort_first() {
        assert!(key("r", "q", 9, CellType::Put, 0) < key("r", "q", 1, CellType::Put, 0));
        assert!(key("r", "q", 5, CellType::Delete, 0) < key("r", "q", 5, CellType::Put, 0));
        assert!(key("r", "", 5, CellType::DeleteFamily, 0) < key("r", "", 5, CellType::Delete, 0));
        assert!(key("r", "q", 5, CellType::Put, 7) < key("r", "q", 5, CellType::Put, 3));
    }

    #[test]
    fn first_on_row_precedes_every_cell_of_the_row() {
        let first = CellKey::first_on_row(Bytes::from_static(b"r"));
        for t in CellType::ALL {
            assert!(first <= key("r", "", i64::MAX, t, u64::MAX));
            assert!(first < key("r", "a", i64::MIN, t, 0));
        }
        assert!(key("q", "zz", 0, CellType::Put, 0) < first);
    }

    #[test]
    fn byte_comparison_matches_slices() {
        let samples: [&[u8]; 8] = [
            b"",
            b"a",
            b"ab",
            b"b",
            b"\xff",
            b"abcdefghijklmnopq",
            b"abcdefghijklmnop",
            b"abcdefghijklmnoz",
        ];
        for a in samples {
            for b in samples {
                assert_eq!(compare_bytes(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
        // Every length around the word size and the 64-byte switch to `memcmp`, differing at
        // every position (high bytes included) or not at all.
        for len in 0..80usize {
            let base: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
            for at in 0..len {
                for byte in [0u8, 0x7f, 0x80, 0xff] {
                    let mut other = base.clone();
                    other[at] = byte;
                    assert_eq!(compare_bytes(&base, &other), base.cmp(&other));
                    assert_eq!(compare_bytes(&other, &base), other.cmp(&base));
                }
            }
            for cut in 0..len {
                assert_eq!(compare_bytes(&base[..cut], &base), Ordering::Less);
                assert_eq!(compare_bytes(&base, &base[..cut]), Ordering::Greater);
            }
            assert_eq!(compare_bytes(&base, &base), Ordering::Equal);
        }
    }

    #[test]
    fn cell_ttl_counts_from_the_timestamp_and_saturates() {
        assert!(!ttl_expired(1_000, None, i64::MAX));
        assert!(!ttl_expired(1_000, Some(500), 1_500));
        assert!(ttl_expired(1_000, Some(500), 1_501));
        assert!(!ttl_expired(i64::MAX - 1, Some(u64::MAX), i64::MAX));
        assert!(ttl_expired(1_000, Some(0), 1_001));
    }

    #[test]
    fn type_codes_round_trip() {
        for t in CellType::ALL {
            assert_eq!(CellType::from_code(t.code()), Some(t));
        }
        assert_eq!(CellType::from_code(0), None);
        // ALL is in sort order.
        for w in CellType::ALL.windows(2) {
            assert!(w[0].code() > w[1].code());
        }
    }
}
