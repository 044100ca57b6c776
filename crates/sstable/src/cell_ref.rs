//! A borrowed view of one cell, as iterators and decoders hand them out.

use bytes::Bytes;
use std::cmp::Ordering;
use strata_model::cell::{compare_keys, Cell, CellKey, CellType, Timestamp};

/// One cell borrowed from a block (or a decoder's key buffer). The family is the file's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellRef<'a> {
    /// Row key.
    pub row: &'a [u8],
    /// Column qualifier.
    pub qualifier: &'a [u8],
    /// Version timestamp.
    pub timestamp: Timestamp,
    /// Value or delete marker.
    pub cell_type: CellType,
    /// Sequence id (0 when not kept).
    pub seq: u64,
    /// Value bytes.
    pub value: &'a [u8],
    /// The cell's own time to live in ms from its timestamp (puts only); `None` for none.
    pub ttl: Option<u64>,
}

impl<'a> CellRef<'a> {
    /// Borrows an owned cell.
    pub fn from_cell(cell: &'a Cell) -> CellRef<'a> {
        CellRef {
            row: &cell.row,
            qualifier: &cell.qualifier,
            timestamp: cell.timestamp,
            cell_type: cell.cell_type,
            seq: cell.seq,
            value: &cell.value,
            ttl: cell.ttl,
        }
    }

    /// The key parts, for [`compare_keys`].
    #[inline]
    pub fn key_parts(&self) -> (&'a [u8], &'a [u8], Timestamp, CellType, u64) {
        (
            self.row,
            self.qualifier,
            self.timestamp,
            self.cell_type,
            self.seq,
        )
    }

    /// Compares this cell's key with `key` in store order.
    #[inline]
    pub fn cmp_key(&self, key: &CellKey) -> Ordering {
        compare_keys(self.key_parts(), key.parts())
    }

    /// Copies the cell out, with `family` attached.
    pub fn to_cell(&self, family: &Bytes) -> Cell {
        Cell {
            row: Bytes::copy_from_slice(self.row),
            family: family.clone(),
            qualifier: Bytes::copy_from_slice(self.qualifier),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            seq: self.seq,
            value: Bytes::copy_from_slice(self.value),
            ttl: self.ttl,
        }
    }

    /// Copies the cell out, with `family` attached, sharing `row` (the cell's row, held by
    /// the caller) instead of copying it: the cells of one row then share one row buffer.
    ///
    /// Requires: `row == self.row`.
    pub fn to_cell_in_row(&self, row: &Bytes, family: &Bytes) -> Cell {
        debug_assert_eq!(&row[..], self.row);
        Cell {
            row: row.clone(),
            family: family.clone(),
            qualifier: Bytes::copy_from_slice(self.qualifier),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            seq: self.seq,
            value: Bytes::copy_from_slice(self.value),
            ttl: self.ttl,
        }
    }

    /// Copies the key out.
    pub fn to_key(&self) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(self.row),
            qualifier: Bytes::copy_from_slice(self.qualifier),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            seq: self.seq,
        }
    }
}

/// A key held in buffers reused from cell to cell: remembering "the previous cell" without an
/// allocation per cell (writers, compactions, dedup).
#[derive(Clone, Debug, Default)]
pub struct KeyBuf {
    row: Vec<u8>,
    qualifier: Vec<u8>,
    timestamp: Timestamp,
    cell_type: Option<CellType>,
    seq: u64,
}

impl KeyBuf {
    /// Remembers `cell`'s key.
    pub fn set(&mut self, cell: &CellRef<'_>) {
        self.row.clear();
        self.row.extend_from_slice(cell.row);
        self.qualifier.clear();
        self.qualifier.extend_from_slice(cell.qualifier);
        self.timestamp = cell.timestamp;
        self.cell_type = Some(cell.cell_type);
        self.seq = cell.seq;
    }

    /// The key as a cell view (no value); `None` before the first `set`.
    pub fn as_cell(&self) -> Option<CellRef<'_>> {
        Some(CellRef {
            row: &self.row,
            qualifier: &self.qualifier,
            timestamp: self.timestamp,
            cell_type: self.cell_type?,
            seq: self.seq,
            value: &[],
            ttl: None,
        })
    }

    /// True when `cell` has exactly the remembered key.
    pub fn same(&self, cell: &CellRef<'_>) -> bool {
        self.as_cell()
            .is_some_and(|k| compare_keys(k.key_parts(), cell.key_parts()).is_eq())
    }
}
