//! BASIC's merge of pipeline segments into one flat index, reading as few cells as it can and
//! copying none but a skiplist input's.
//!
//! A flat segment already holds, per key, its dense row key and the end of its column's run
//! (see [`flat`](super::flat)). Reading a key's cell is a cache miss into an arena chunk, and
//! merging the pipeline once read every key's cell several times: to compare keys, then to
//! rebuild dense keys, column runs, sizes and the row filter. Here the inputs' dense keys are
//! compared first (a key's cell is read only when two dense keys are equal), the merged dense
//! keys and column runs are carried over from the inputs (runs are compared only where the
//! merge switches input), and the sizes are the inputs' sums. Only the skiplist segment
//! among the inputs (the newest, small) has its keys read: it is flattened first (its cells
//! copied into chunks of its own). The merged index holds every input's chunks, so its
//! entries are the inputs' with their chunk ids renumbered.
//!
//! Dense keys compare only under one shared row prefix: the merged one, the common prefix of
//! the smallest first row and the largest last row of the inputs. An input whose own prefix
//! is longer (its rows span less) has its dense keys computed again under the merged one.

use std::borrow::Cow;
use std::cmp::Ordering::{self, Equal, Less};

use bytes::Bytes;

use super::chunks::{rebase, MAX_CHUNKS};
use super::flat::{common_prefix, dense, Entry, FlatIndex};
use super::flat_build::{flatten_list, FlatParts};
use super::segment::{Carried, Index, Segment, Sums};

/// One input in the merged index's terms: its index, its dense keys under the merged prefix,
/// and the id its first chunk takes in the merged index.
struct Input<'a> {
    index: &'a FlatIndex,
    dense: Cow<'a, [u64]>,
    base: usize,
}

impl Input<'_> {
    /// (dense, key) of `a` at `i` against `b` at `j`: store order.
    #[inline]
    fn cmp_at(&self, i: usize, other: &Input<'_>, j: usize) -> Ordering {
        self.dense[i]
            .cmp(&other.dense[j])
            .then_with(|| self.index.at(i).cmp_probe(&other.index.at(j).probe()))
    }

    fn len(&self) -> usize {
        self.index.len()
    }
}

/// Merges the indexes of `segments` (newest first) into one flat index: a key in several
/// inputs kept once (the newest input's), figures the inputs' sums less those of the keys
/// kept once. A skiplist input is first copied into `chunk_size`-byte chunks. `None` when
/// `stopped` says so (checked once per stretch of keys taken from one input) or the merged
/// index would need more chunk ids than it has.
pub(crate) fn merge_indexes(
    segments: &[&Segment],
    chunk_size: usize,
    stopped: impl Fn() -> bool,
) -> Option<FlatParts> {
    let shared = merged_prefix(segments);
    let mut flattened: Vec<Option<FlatParts>> = Vec::with_capacity(segments.len());
    for segment in segments {
        flattened.push(match &segment.index {
            Index::List(list) => {
                let cells = usize::try_from(segment.cells()).unwrap_or(0);
                Some(flatten_list(list, shared, chunk_size, cells)?)
            }
            Index::Flat(_) => None,
        });
    }
    if let [Some(_)] = flattened.as_slice() {
        return flattened.pop().flatten();
    }
    let mut inputs: Vec<Input<'_>> = Vec::with_capacity(segments.len());
    let mut sums = Sums::default();
    let mut figures = Carried::default();
    let mut base = 0;
    for (segment, own) in segments.iter().zip(&flattened) {
        let index = match (own, &segment.index) {
            (Some(parts), _) => {
                sums = sums.plus(parts.sums);
                figures = figures.plus(parts.figures);
                &parts.index
            }
            (None, Index::Flat(index)) => {
                sums = sums.plus(segment.flat_sums().unwrap_or_default());
                figures = figures.plus(segment.arena_figures());
                index
            }
            (None, Index::List(_)) => continue,
        };
        if index.len() == 0 {
            continue;
        }
        let dense = if index.shared() == shared {
            Cow::Borrowed(index.dense())
        } else {
            Cow::Owned(index.keys().map(|k| dense(k.row_bytes(), shared)).collect())
        };
        inputs.push(Input { index, dense, base });
        base += index.chunks().len();
    }
    if base > MAX_CHUNKS {
        return None;
    }
    let merged = merge(&inputs, shared, sums, stopped)?;
    Some(FlatParts { figures, ..merged })
}

/// The common prefix of the smallest first row and the largest last row of `segments`.
fn merged_prefix(segments: &[&Segment]) -> usize {
    let bounds: Vec<(&[u8], &[u8])> = segments
        .iter()
        .filter_map(|s| s.first_and_last_rows())
        .collect();
    let firsts = bounds.iter().map(|b| b.0);
    let lasts = bounds.iter().map(|b| b.1);
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
    mut sums: Sums,
    stopped: impl Fn() -> bool,
) -> Option<FlatParts> {
    let total = inputs.iter().map(Input::len).sum();
    let chunks: Vec<Bytes> = inputs
        .iter()
        .flat_map(|i| i.index.chunks().iter().cloned())
        .collect();
    let mut entries: Vec<Entry> = Vec::with_capacity(total);
    let mut dense_keys: Vec<u64> = Vec::with_capacity(total);
    // Per merged key: true when it is in the same column as the key before it.
    let mut same: Vec<bool> = Vec::with_capacity(total);
    // The input and position of the last key taken.
    let mut last: Option<(usize, usize)> = None;
    let mut pos = vec![0usize; inputs.len()];
    let head = |pos: &[usize], a: usize, b: usize| inputs[a].cmp_at(pos[a], &inputs[b], pos[b]);
    // Store order of two inputs' next keys, the newer input first when they are equal.
    let before = |pos: &[usize], a: usize, b: usize| head(pos, a, b).then(a.cmp(&b)) == Less;
    let mut order: Vec<usize> = (0..inputs.len()).filter(|&i| inputs[i].len() > 0).collect();
    order.sort_by(|&a, &b| head(&pos, a, b).then(a.cmp(&b)));
    while let Some(&min) = order.first() {
        if order.len() > 1 && stopped() {
            return None;
        }
        // The same key in other inputs (they follow the first): kept once, the newest
        // input's. Each moves on to its next key, which sorts after this one.
        while order.len() > 1 && head(&pos, order[1], min) == Equal {
            let dup = order.remove(1);
            sums.remove_key(inputs[dup].index.at(pos[dup]));
            pos[dup] += 1;
            if pos[dup] < inputs[dup].len() {
                let at = 1 + order[1..].partition_point(|&o| before(&pos, o, dup));
                order.insert(at, dup);
            }
        }
        let input = &inputs[min];
        let start = pos[min];
        // The next key of the others bounds the stretch taken from `min`.
        let n = match order.get(1) {
            None => input.len() - start,
            Some(&b) => 1 + below(input, start + 1, &inputs[b], pos[b]),
        };
        // The stretch's first key against the key before it; inside the stretch the input's
        // own runs say.
        let joins = match last {
            Some((i, p)) => {
                dense_keys.last() == Some(&input.dense[start])
                    && inputs[i].index.at(p).column() == input.index.at(start).column()
            }
            None => false,
        };
        same.push(joins);
        same.extend((start + 1..start + n).map(|p| input.index.continues(p - 1)));
        entries.extend(
            input.index.entries()[start..start + n]
                .iter()
                .map(|e| Entry {
                    loc: rebase(e.loc, input.base),
                    tag: e.tag,
                }),
        );
        dense_keys.extend_from_slice(&input.dense[start..start + n]);
        pos[min] += n;
        last = Some((min, start + n - 1));
        if pos[min] == input.len() {
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
    let mut run_end = vec![0u32; entries.len()];
    let mut end = entries.len();
    for i in (0..entries.len()).rev() {
        run_end[i] = u32::try_from(end).unwrap_or(u32::MAX);
        if !same[i] {
            end = i;
        }
    }
    Some(FlatParts {
        index: FlatIndex::from_parts(chunks, entries, shared, dense_keys, run_end),
        sums,
        figures: Carried::default(),
    })
}

/// How many keys of `input` from `from` on sort below `bound`'s key at `at`: a gallop, then
/// a binary search between the last key found below and the first found not below.
fn below(input: &Input<'_>, from: usize, bound: &Input<'_>, at: usize) -> usize {
    let len = input.len() - from;
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
