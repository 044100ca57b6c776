//! Dense row keys: the 8 bytes of a row after a prefix every row of a block shares, as one
//! `u64`. Blocks keep one per row (data blocks) or entry (index blocks) so a search narrows to
//! the rows tying on those 8 bytes reading a few cache lines, and compares full keys only there.

use std::cmp::Ordering;

/// The 8 bytes of `rest` from its start, zero-padded, big-endian. Monotone: `a ≤ b` implies
/// `key(a) ≤ key(b)`, so a smaller key means a smaller row (equal keys decide nothing).
#[inline]
pub(crate) fn key(rest: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = rest.len().min(8);
    b[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(b)
}

/// Length of the common prefix of `first` and `last`: in a sorted run of rows from `first`
/// to `last`, every row starts with it.
pub(crate) fn common_prefix(first: &[u8], last: &[u8]) -> usize {
    first.iter().zip(last).take_while(|(a, b)| a == b).count()
}

/// The range `lo..hi` of `keys` (dense keys of rows sharing `prefix`, in row order) that may
/// hold `row`: every row before `lo` is smaller than `row`, every row from `hi` on larger.
#[inline]
pub(crate) fn span(keys: &[u64], prefix: &[u8], row: &[u8]) -> (usize, usize) {
    let n = keys.len();
    let Some(rest) = row.strip_prefix(prefix) else {
        // Every row here starts with the prefix, so `row` sorts as it does against it.
        return match row.cmp(prefix) {
            Ordering::Less => (0, 0),
            _ => (n, n),
        };
    };
    let t = key(rest);
    let lo = keys.partition_point(|&k| k < t);
    let hi = lo + keys[lo..].partition_point(|&k| k == t);
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn span_brackets_the_row(
            rows in prop::collection::btree_set(prop::collection::vec(0u8..3, 0..12), 1..30),
            probe in prop::collection::vec(0u8..4, 0..12),
        ) {
            let rows: Vec<Vec<u8>> = rows.into_iter().collect();
            let p = common_prefix(&rows[0], &rows[rows.len() - 1]);
            let prefix = &rows[0][..p];
            let keys: Vec<u64> = rows.iter().map(|r| key(&r[p..])).collect();
            let (lo, hi) = span(&keys, prefix, &probe);
            prop_assert!(lo <= hi && hi <= rows.len());
            prop_assert!(rows[..lo].iter().all(|r| r < &probe));
            prop_assert!(rows[hi..].iter().all(|r| r > &probe));
        }
    }
}
