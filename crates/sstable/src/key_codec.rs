//! The serialized form of a full cell key, used by index entries and file info:
//! `row_len varint | row | qual_len varint | qualifier | timestamp i64 LE | type u8 | seq varint`.

use bytes::Bytes;
use strata_model::cell::{CellKey, CellType};
use strata_model::limits::{MAX_QUALIFIER_LEN, MAX_ROW_LEN};

use crate::varint;

/// Appends `key`.
pub(crate) fn put_key(out: &mut Vec<u8>, key: &CellKey) {
    varint::put_u64(out, key.row.len() as u64);
    out.extend_from_slice(&key.row);
    varint::put_u64(out, key.qualifier.len() as u64);
    out.extend_from_slice(&key.qualifier);
    out.extend_from_slice(&key.timestamp.to_le_bytes());
    out.push(key.cell_type.code());
    varint::put_u64(out, key.seq);
}

/// A key parsed in place: row and qualifier borrow the buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyView<'a> {
    pub row: &'a [u8],
    pub qualifier: &'a [u8],
    pub timestamp: i64,
    pub cell_type: CellType,
    pub seq: u64,
}

impl<'a> KeyView<'a> {
    /// The key parts, for `compare_keys`.
    #[inline]
    pub fn parts(&self) -> (&'a [u8], &'a [u8], i64, CellType, u64) {
        (
            self.row,
            self.qualifier,
            self.timestamp,
            self.cell_type,
            self.seq,
        )
    }

    /// An owned copy.
    pub fn to_key(self) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(self.row),
            qualifier: Bytes::copy_from_slice(self.qualifier),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            seq: self.seq,
        }
    }
}

/// Reads a key at `*pos`; `None` when malformed.
pub(crate) fn get_key<'a>(buf: &'a [u8], pos: &mut usize) -> Option<KeyView<'a>> {
    let row_len = varint::get_len(buf, pos, MAX_ROW_LEN)?;
    let row = buf.get(*pos..pos.checked_add(row_len)?)?;
    *pos += row_len;
    let qual_len = varint::get_len(buf, pos, MAX_QUALIFIER_LEN)?;
    let qualifier = buf.get(*pos..pos.checked_add(qual_len)?)?;
    *pos += qual_len;
    let ts: [u8; 8] = buf.get(*pos..*pos + 8)?.try_into().ok()?;
    *pos += 8;
    let cell_type = CellType::from_code(*buf.get(*pos)?)?;
    *pos += 1;
    let seq = varint::get_u64(buf, pos)?;
    Some(KeyView {
        row,
        qualifier,
        timestamp: i64::from_le_bytes(ts),
        cell_type,
        seq,
    })
}

/// Reads an owned key.
pub(crate) fn get_owned_key(buf: &[u8], pos: &mut usize) -> Option<CellKey> {
    get_key(buf, pos).map(KeyView::to_key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let key = CellKey {
            row: Bytes::from_static(b"row"),
            qualifier: Bytes::from_static(b"q"),
            timestamp: -5,
            cell_type: CellType::DeleteColumn,
            seq: 300,
        };
        let mut out = Vec::new();
        put_key(&mut out, &key);
        let mut pos = 0;
        assert_eq!(get_owned_key(&out, &mut pos), Some(key));
        assert_eq!(pos, out.len());
        for cut in 0..out.len() {
            let mut pos = 0;
            assert!(get_key(&out[..cut], &mut pos).is_none());
        }
    }
}
