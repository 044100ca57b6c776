//! Shortened separator keys (LevelDB's `FindShortestSeparator`, HBase's HBASE-7845 "fake keys").
//!
//! Between the last key of one block and the first key of the next, the index stores the
//! shortest key `s` with `last < s <= first`. When the rows differ, `s` is a short row that sorts
//! between them, with an empty qualifier and the newest timestamp and type, so it sorts before
//! every cell of its row. Short separators keep index blocks small and shallow.

use bytes::Bytes;
use strata_model::cell::CellKey;

use crate::cell_ref::CellRef;

/// A key `s` with `last < s <= first`.
///
/// Requires: `last < first` in store order.
pub(crate) fn separator(last: &CellRef<'_>, first: &CellRef<'_>) -> CellKey {
    if last.row != first.row {
        // `first_on_row(row)` sorts before every cell of `row`; with last.row < row <= first.row
        // it is > last and <= first.
        let row = short_row_between(last.row, first.row).unwrap_or_else(|| first.row.to_vec());
        return CellKey::first_on_row(Bytes::from(row));
    }
    first.to_key()
}

/// The shortest byte string `r` with `a < r <= b`, if one shorter than `b` exists.
fn short_row_between(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if common >= b.len() {
        return None;
    }
    if common >= a.len() {
        // `a` is a prefix of `b`: a + b[common] is > a and <= b.
        let r = b[..=common].to_vec();
        return (r.len() < b.len()).then_some(r);
    }
    // a[common] < b[common]. If a[common] + 1 < b[common], the prefix a[..common] + (a[common]+1)
    // is strictly between; otherwise b[..=common] is > a and <= b.
    let (x, y) = (a[common], b[common]);
    let r = if x.checked_add(1).is_some_and(|x1| x1 < y) {
        let mut r = a[..common].to_vec();
        r.push(x + 1);
        r
    } else {
        b[..=common].to_vec()
    };
    (r.len() < b.len()).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn short_row_is_between(a: Vec<u8>, b: Vec<u8>) {
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            prop_assume!(a < b);
            if let Some(r) = short_row_between(&a, &b) {
                prop_assert!(a < r && r <= b && r.len() < b.len());
            }
        }
    }

    #[test]
    fn shortens_distinct_rows() {
        assert_eq!(short_row_between(b"abc", b"abzzz"), Some(b"abd".to_vec()));
        assert_eq!(short_row_between(b"ab", b"abzzz"), Some(b"abz".to_vec()));
        assert_eq!(short_row_between(b"abc", b"abd"), None);
        assert_eq!(short_row_between(b"a", b"b"), None);
        assert_eq!(
            short_row_between(b"row0001", b"row0002xyz"),
            Some(b"row0002".to_vec())
        );
    }
}
