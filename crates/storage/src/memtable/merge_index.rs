//! BASIC's merge of pipeline segments into one flat index, reading as few cells as it can.
//!
//! A flat segment already holds, per key, its dense row key and the end of its column's run
//! (see [`flat`](super::flat)). Reading a key's cell is a cache miss into an arena chunk, and
//! merging the pipeline once read every key's cell several times: to compare keys, then to
//! rebuild dense keys, column runs, sizes and the row filter. Here the inputs' dense keys are
//! compared first (a key's cell is read only when two dense keys are equal), the merged dense
//! keys and column runs are carried over from the inputs (runs are compared only where the
//! merge switches input), and the sizes are the inputs' sums. Only the skiplist segment
//! among the inputs (the newest, small) has its keys read to get the same figures.
//!
//! Dense keys compare only under one shared row prefix: the merged one, the common prefix of
//! the smallest first row and the largest last row of the inputs. An input whose own prefix
//! is longer (its rows span less) has its dense keys computed again under the merged one.

use std::borrow::Cow;
use std::cmp::Ordering::{self, Equal, Less};

use super::flat::{common_prefix, dense, Runs};
use super::key::Key;
use super::segment::{Index, Segment, Sums};

/// One input in the merged index's terms: keys in store order, their dense keys under the
/// merged prefix, and the ends of their column runs (positions in this input).
struct Input<'a> {
    keys: Cow<'a, [Key]>,
    dense: Cow<'a, [u64]>,
    run_end: Cow<'a, [u32]>,
}

impl Input<'_> {
    /// (dense, key) of `a` at `i` against `b` at `j`: store order.
    #[inline]
    fn cmp_at(&self, i: usize, other: &Input<'_>, j: usize) -> Ordering {
        self.dense[i]
            .cmp(&other.dense[j])
            .then_with(|| self.keys[i].cmp_probe(&other.keys[j].probe()))
    }
}

/// The merged index: keys in store order (a key in several inputs kept once), their dense
/// keys under `shared`, and the ends of their column runs.
pub(crate) struct MergedIndex {
    pub(crate) keys: Vec<Key>,
    pub(crate) dense: Vec<u64>,
    pub(crate) run_end: Vec<u32>,
    pub(crate) shared: usize,
    /// Keys found in more than one input, kept once: their figures count once.
    pub(crate) duplicates: Vec<Key>,
    /// The inputs' figures summed (duplicates counted in each input they are in).
    pub(crate) sums: Sums,
}

/// Merges the indexes of `segments` (newest first). `None` when `stopped` says so (checked
/// once per stretch of keys taken from one input).
pub(crate) fn merge_indexes(
    segments: &[&Segment],
    stopped: impl Fn() -> bool,
) -> Option<MergedIndex> {
    let keys: Vec<Cow<'_, [Key]>> = segments.iter().map(|s| s.keys_in_order()).collect();
    let shared = merged_prefix(&keys);
    let mut inputs: Vec<Input<'_>> = Vec::with_capacity(keys.len());
    let mut sums = Sums::default();
    for (segment, keys) in segments.iter().zip(keys) {
        if keys.is_empty() {
            continue;
        }
        let flat_sums = segment.flat_sums();
        if let Some(flat_sums) = flat_sums {
            sums = sums.plus(flat_sums);
        }
        inputs.push(match &segment.index {
            Index::Flat(index) if index.shared() == shared => Input {
                keys,
                dense: Cow::Borrowed(index.dense()),
                run_end: Cow::Borrowed(index.run_ends()),
            },
            _ => {
                let mut dense_keys = Vec::with_capacity(keys.len());
                let mut runs = Runs::with_capacity(keys.len());
                for key in keys.iter() {
                    let cell = key.cell();
                    runs.push(cell.row, cell.qualifier);
                    dense_keys.push(dense(cell.row, shared));
                    if flat_sums.is_none() {
                        sums.add_cell(&cell, key.stored_len());
                    }
                }
                let run_end = runs.finish();
                Input {
                    keys,
                    dense: Cow::Owned(dense_keys),
                    run_end: Cow::Owned(run_end),
                }
            }
        });
    }
    merge(&inputs, shared, sums, stopped)
}

/// The common prefix of the smallest first row and the largest last row of `inputs`.
fn merged_prefix(inputs: &[Cow<'_, [Key]>]) -> usize {
    let firsts = inputs.iter().filter_map(|k| k.first()).map(Key::row_bytes);
    let lasts = inputs.iter().filter_map(|k| k.last()).map(Key::row_bytes);
    match (firsts.min(), lasts.max()) {
        (Some(lo), Some(hi)) => common_prefix(lo, hi),
        _ => 0,
    }
}

/// Merges `inputs` under the row prefix `shared`; `sums` are their figures together.
///
/// The live inputs are kept ordered by their next key (the newest input first on equal
/// keys): the first one is the smallest, the second bounds the stretch taken from it (a
/// gallop), and after the stretch the first moves back into place. A step costs the gallop
/// and a few comparisons of dense keys however many inputs there are, where scanning every
/// input for the smallest and the bound cost three per input.
fn merge(
    inputs: &[Input<'_>],
    shared: usize,
    sums: Sums,
    stopped: impl Fn() -> bool,
) -> Option<MergedIndex> {
    let total = inputs.iter().map(|i| i.keys.len()).sum();
    let mut keys: Vec<Key> = Vec::with_capacity(total);
    let mut dense_keys: Vec<u64> = Vec::with_capacity(total);
    // Per merged key: true when it is in the same column as the key before it.
    let mut same: Vec<bool> = Vec::with_capacity(total);
    let mut duplicates = Vec::new();
    let mut pos = vec![0usize; inputs.len()];
    let head = |pos: &[usize], a: usize, b: usize| inputs[a].cmp_at(pos[a], &inputs[b], pos[b]);
    // Store order of two inputs' next keys, the newer input first when they are equal.
    let before = |pos: &[usize], a: usize, b: usize| head(pos, a, b).then(a.cmp(&b)) == Less;
    let mut order: Vec<usize> = (0..inputs.len())
        .filter(|&i| !inputs[i].keys.is_empty())
        .collect();
    order.sort_by(|&a, &b| head(&pos, a, b).then(a.cmp(&b)));
    while let Some(&min) = order.first() {
        if order.len() > 1 && stopped() {
            return None;
        }
        // The same key in other inputs (they follow the first): kept once, the newest
        // input's. Each moves on to its next key, which sorts after this one.
        while order.len() > 1 && head(&pos, order[1], min) == Equal {
            let dup = order.remove(1);
            duplicates.push(inputs[dup].keys[pos[dup]].clone());
            pos[dup] += 1;
            if pos[dup] < inputs[dup].keys.len() {
                let at = 1 + order[1..].partition_point(|&o| before(&pos, o, dup));
                order.insert(at, dup);
            }
        }
        let input = &inputs[min];
        let start = pos[min];
        // The next key of the others bounds the stretch taken from `min`.
        let n = match order.get(1) {
            None => input.keys.len() - start,
            Some(&b) => 1 + below(input, start + 1, &inputs[b], pos[b]),
        };
        // The stretch's first key against the key before it; inside the stretch the input's
        // own runs say.
        let joins = match keys.last() {
            Some(prev) => {
                dense_keys.last() == Some(&input.dense[start])
                    && prev.column() == input.keys[start].column()
            }
            None => false,
        };
        same.push(joins);
        same.extend((start + 1..start + n).map(|p| input.run_end[p - 1] as usize > p));
        keys.extend_from_slice(&input.keys[start..start + n]);
        dense_keys.extend_from_slice(&input.dense[start..start + n]);
        pos[min] += n;
        if pos[min] == input.keys.len() {
            order.remove(0);
            continue;
        }
        // Back into place: its next key sorts at or after the bound's.
        let mut i = 0;
        while i + 1 < order.len() && before(&pos, order[i + 1], min) {
            order.swap(i, i + 1);
            i += 1;
        }
    }
    let mut run_end = vec![0u32; keys.len()];
    let mut end = keys.len();
    for i in (0..keys.len()).rev() {
        run_end[i] = u32::try_from(end).unwrap_or(u32::MAX);
        if !same[i] {
            end = i;
        }
    }
    Some(MergedIndex {
        keys,
        dense: dense_keys,
        run_end,
        shared,
        duplicates,
        sums,
    })
}

/// How many keys of `input` from `from` on sort below `bound`'s key at `at`: a gallop, then
/// a binary search between the last key found below and the first found not below.
fn below(input: &Input<'_>, from: usize, bound: &Input<'_>, at: usize) -> usize {
    let len = input.keys.len() - from;
    let is_below = |k: usize| input.cmp_at(from + k, bound, at) == Less;
    let mut hi = 1;
    while hi <= len && is_below(hi - 1) {
        hi *= 2;
    }
    // Every key before `hi / 2` was seen below (the last one checked before `hi - 1` was
    // `hi / 2 - 1`); key `hi - 1`, when there is one, was seen not below.
    let (mut a, mut b) = (hi / 2, (hi - 1).min(len));
    while a < b {
        let mid = a + (b - a) / 2;
        if is_below(mid) {
            a = mid + 1;
        } else {
            b = mid;
        }
    }
    a
}

#[cfg(test)]
#[path = "merge_index_test.rs"]
mod tests;
