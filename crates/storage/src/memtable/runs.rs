//! Merging sorted runs of keys (the indexes of pipeline segments) into one, a stretch at a
//! time.
//!
//! BASIC merges the whole pipeline once it holds more than its limit of segments, so the
//! merged segment is merged again with each newer one: one long run beside a few short ones.
//! A cursor merge compares heads for every key (about two comparisons per key and run, each
//! reading two cells in arena chunks). Here the run with the smallest head hands over the
//! whole stretch of keys below the other runs' smallest head, found by a gallop (exponential,
//! then binary search): a long run costs a few comparisons per stretch, not per key.

use std::cmp::Ordering::{Equal, Less};

use super::key::Key;

/// Merges `runs` (each in store order, keys unique) into one run in store order; a key in
/// several runs is kept once. `None` when `stopped` says so (checked once per stretch).
pub(crate) fn merge_runs(mut runs: Vec<&[Key]>, stopped: impl Fn() -> bool) -> Option<Vec<Key>> {
    runs.retain(|r| !r.is_empty());
    let total = runs.iter().map(|r| r.len()).sum();
    let mut out: Vec<Key> = Vec::with_capacity(total);
    while runs.len() > 1 {
        if stopped() {
            return None;
        }
        let mut min = 0;
        for i in 1..runs.len() {
            if runs[i][0].cmp_probe(&runs[min][0].probe()) == Less {
                min = i;
            }
        }
        // The same key in another run: kept once.
        for i in 0..runs.len() {
            if i != min && runs[i][0].cmp_probe(&runs[min][0].probe()) == Equal {
                runs[i] = &runs[i][1..];
            }
        }
        let bound = (0..runs.len())
            .filter(|&i| i != min && !runs[i].is_empty())
            .map(|i| &runs[i][0])
            .min_by(|a, b| a.cmp_probe(&b.probe()));
        let n = match bound {
            None => runs[min].len(),
            Some(bound) => 1 + below(&runs[min][1..], bound),
        };
        out.extend_from_slice(&runs[min][..n]);
        runs[min] = &runs[min][n..];
        runs.retain(|r| !r.is_empty());
    }
    if let Some(last) = runs.first() {
        out.extend_from_slice(last);
    }
    Some(out)
}

/// How many leading keys of `run` (in store order) sort below `bound`: a gallop.
fn below(run: &[Key], bound: &Key) -> usize {
    let probe = bound.probe();
    let is_below = |k: &Key| k.cmp_probe(&probe) == Less;
    let mut hi = 1;
    while hi <= run.len() && is_below(&run[hi - 1]) {
        hi *= 2;
    }
    // Every key before `hi / 2` was seen below (the last one checked was `run[hi / 2 - 1]`).
    let lo = hi / 2;
    lo + run[lo..hi.min(run.len())].partition_point(is_below)
}

#[cfg(test)]
mod tests {
    use bytes::BytesMut;
    use proptest::prelude::*;
    use strata_model::cell::CellType;
    use strata_sstable::CellRef;

    use super::*;

    fn key(row: u32, seq: u64) -> Key {
        let row = row.to_be_bytes();
        let cell = CellRef {
            row: &row,
            qualifier: b"q",
            timestamp: 1,
            cell_type: CellType::Put,
            seq,
            value: b"v",
            ttl: None,
        };
        let mut out = BytesMut::new();
        Key::encode(&cell, &mut out);
        Key::new(out.freeze(), &cell)
    }

    fn ids(keys: &[Key]) -> Vec<(Vec<u8>, u64)> {
        keys.iter()
            .map(|k| (k.row_bytes().to_vec(), k.seq()))
            .collect()
    }

    proptest! {
        #[test]
        fn merging_runs_is_sorting_their_union(
            runs in prop::collection::vec(prop::collection::btree_set((0u32..500, 1u64..4), 0..200), 0..5)
        ) {
            let runs: Vec<Vec<Key>> = runs
                .iter()
                .map(|set| {
                    let mut keys: Vec<Key> = set.iter().map(|&(r, s)| key(r, s)).collect();
                    keys.sort_by(|a, b| a.cmp_probe(&b.probe()));
                    keys
                })
                .collect();
            let merged = merge_runs(runs.iter().map(Vec::as_slice).collect(), || false).unwrap();
            let mut expect: Vec<Key> = runs.iter().flatten().cloned().collect();
            expect.sort_by(|a, b| a.cmp_probe(&b.probe()));
            expect.dedup_by(|a, b| a.cmp_probe(&b.probe()) == Equal);
            prop_assert_eq!(ids(&merged), ids(&expect));
        }
    }

    #[test]
    fn a_long_run_beside_short_ones_and_a_stop() {
        let long: Vec<Key> = (0..10_000).map(|r| key(r * 2, 1)).collect();
        let short: Vec<Key> = (0..10).map(|r| key(r * 1994 + 1, 1)).collect();
        let merged = merge_runs(vec![&long, &short], || false).unwrap();
        assert_eq!(merged.len(), 10_010);
        assert!(merged
            .windows(2)
            .all(|w| w[0].cmp_probe(&w[1].probe()) == Less));
        assert!(merge_runs(vec![&long, &short], || true).is_none());
        assert_eq!(merge_runs(vec![&long], || true).unwrap().len(), 10_000);
    }
}
