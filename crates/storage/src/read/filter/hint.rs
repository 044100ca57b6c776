//! [`Hint`]: where a filter that answered `SeekNextUsingHint` wants the read to go next
//! (HBase's `getNextCellHint`), relative to the cell it answered about.

use std::cmp::Ordering;

use bytes::Bytes;
use strata_model::cell::{compare_bytes, CellKey, CellType, Timestamp};
use strata_sstable::CellRef;

/// A position after the current cell: a later row, a later column of the current row and
/// family, or an older version of the current column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hint {
    /// The first cell of this row (HBase's `createFirstOnRow`).
    Row(Bytes),
    /// The first cell of this column, in the current row and family
    /// (`createFirstOnRowCol`).
    Column(Bytes),
    /// The newest version of this column at or below this timestamp, in the current row and
    /// family (`createFirstOnRowColTS`).
    Version(Bytes, Timestamp),
}

impl Hint {
    /// Orders hints given about the same cell: rows after columns, columns by qualifier, a
    /// column's first cell before its versions, versions newest first.
    pub fn cmp_hint(&self, other: &Hint) -> Ordering {
        match (self, other) {
            (Hint::Row(a), Hint::Row(b)) => compare_bytes(a, b),
            (Hint::Row(_), _) => Ordering::Greater,
            (_, Hint::Row(_)) => Ordering::Less,
            (Hint::Column(a), Hint::Column(b)) => compare_bytes(a, b),
            (Hint::Column(a), Hint::Version(b, _)) => compare_bytes(a, b).then(Ordering::Less),
            (Hint::Version(a, _), Hint::Column(b)) => compare_bytes(a, b).then(Ordering::Greater),
            (Hint::Version(a, t), Hint::Version(b, u)) => compare_bytes(a, b).then(u.cmp(t)),
        }
    }

    /// True if `cell`, in the row and family the hint was given in, sorts before the hint
    /// (the read must move to reach it).
    pub fn is_after(&self, cell: &CellRef<'_>) -> bool {
        match self {
            Hint::Row(row) => compare_bytes(row, cell.row).is_gt(),
            Hint::Column(q) => compare_bytes(q, cell.qualifier).is_gt(),
            Hint::Version(q, ts) => compare_bytes(q, cell.qualifier)
                .then(cell.timestamp.cmp(ts))
                .is_gt(),
        }
    }

    /// The key to seek to, in `row` (the current row).
    pub fn key(&self, row: &Bytes) -> CellKey {
        match self {
            Hint::Row(r) => CellKey::first_on_row(r.clone()),
            Hint::Column(q) => CellKey::first_on_column(row.clone(), q.clone()),
            Hint::Version(q, ts) => CellKey {
                timestamp: *ts,
                cell_type: CellType::DeleteFamily,
                ..CellKey::first_on_column(row.clone(), q.clone())
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_order_as_the_keys_they_name() {
        let row = Hint::Row(Bytes::from_static(b"r2"));
        let a = Hint::Column(Bytes::from_static(b"a"));
        let a5 = Hint::Version(Bytes::from_static(b"a"), 5);
        let a3 = Hint::Version(Bytes::from_static(b"a"), 3);
        let b = Hint::Column(Bytes::from_static(b"b"));
        let sorted = [&a, &a5, &a3, &b, &row];
        for (i, x) in sorted.iter().enumerate() {
            for (j, y) in sorted.iter().enumerate() {
                assert_eq!(x.cmp_hint(y), i.cmp(&j), "{x:?} vs {y:?}");
            }
        }
        let r1 = Bytes::from_static(b"r1");
        for (i, x) in sorted.iter().enumerate() {
            for y in &sorted[i + 1..] {
                let (kx, ky) = (x.key(&r1), y.key(&r1));
                assert!(
                    strata_model::cell::compare_keys(kx.parts(), ky.parts()).is_lt(),
                    "{x:?} {y:?}"
                );
            }
        }
    }
}
