//! A flat segment's index: its keys in store order, searched through a dense array of row
//! prefixes first.
//!
//! A binary search over the keys alone touches two cache lines a step: the key, then the
//! cell's bytes in an arena chunk (to compare rows). With a million cells that is about forty
//! misses a seek, most of a memtable read's cost. Every row of a flat segment starts with the
//! first and last rows' common prefix, so the index keeps, per key, the eight row bytes after
//! that prefix as a big-endian `u64` (zero-padded): a *dense key*, as store-file blocks keep
//! for their rows (RFC 0013, Decision 7). A seek searches the dense array (8 bytes a key, its
//! upper levels stay cached) and compares whole keys only among those whose dense key equals
//! the probe's — usually the cells of one row.
//!
//! A hot column updated many times keeps every version in the memtable until a flush, and a
//! read that wants one version skips the rest. So that skip costs one step rather than a
//! search, the index also keeps, per key, how far its column's run of keys goes on
//! (`run_len`: the distance to the first key of the next column, at most `u16::MAX`; a
//! longer run is hopped over in several steps).
//!
//! The entries name cells by location in chunks the index holds (see [`chunks`](super::chunks)):
//! 8 bytes of chunk id, offset and length and the 8-byte tag, where a skiplist key holds a
//! 32-byte `Bytes` handle and a row prefix beside the tag.
//!
//! Order argument: for rows `a`, `b` sharing the prefix, `a ≤ b` implies `dense(a) ≤
//! dense(b)` (truncating and zero-padding keep lexicographic `≤`), so `dense(a) < dense(b)`
//! implies `a < b`, and rows compare first in store order. Keys whose dense key is below the
//! probe's are below the probe; keys whose dense key is above it are above it.

use std::cmp::Ordering;

use bytes::Bytes;

use super::chunks::cell_at;
use super::key::{KeyRef, Probe};

/// One flat entry: where its cell is ([`chunks`](super::chunks)'s location word) and its
/// tag (type code and sequence id, compared last and checked against read points).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) loc: u64,
    pub(crate) tag: u64,
}

/// Index bytes one flat entry takes: the entry, its dense key and the rest of its column's run.
pub(crate) const FLAT_ENTRY_BYTES: usize = size_of::<Entry>() + size_of::<u64>() + size_of::<u16>();

/// Column runs a forward seek hops over before it searches the whole index instead.
const HOPS: usize = 4;

/// Dense keys a block of the upper level covers (two cache lines of the lower one).
const BLOCK: usize = 16;

/// Keys in store order (unique) with their dense row keys.
pub(crate) struct FlatIndex {
    /// The chunks the entries' cells are in, by id.
    chunks: Box<[Bytes]>,
    entries: Box<[Entry]>,
    /// Length of the row prefix every key shares.
    shared: usize,
    /// Per key, the eight row bytes after `shared`, big-endian, zero-padded.
    dense: Box<[u64]>,
    /// Every `BLOCK`th dense key: searched first, so a seek reads two cache lines of `dense`
    /// instead of a cache miss at each of its last halvings.
    upper: Box<[u64]>,
    /// Per key, the distance to the first key of another column (row and qualifier) after it
    /// (or to the end), capped at `u16::MAX`: always at least 1, and more than 1 exactly when
    /// the next key is of the same column.
    run_len: Box<[u16]>,
}

impl FlatIndex {
    /// An index of no keys.
    pub(crate) fn empty() -> FlatIndex {
        FlatIndex::from_parts(Vec::new(), Vec::new(), 0, Vec::new(), Vec::new())
    }

    /// The index of `entries` (in store order) over `chunks`, whose dense keys the caller
    /// computed with [`dense`] over `shared` bytes (every row starts with the first row's
    /// first `shared` bytes) and column runs with [`Runs`].
    pub(crate) fn from_parts(
        chunks: Vec<Bytes>,
        entries: Vec<Entry>,
        shared: usize,
        dense: Vec<u64>,
        run_end: Vec<u32>,
    ) -> FlatIndex {
        debug_assert_eq!(entries.len(), dense.len());
        debug_assert_eq!(entries.len(), run_end.len());
        let upper = dense.iter().step_by(BLOCK).copied().collect();
        let run_len = run_end
            .iter()
            .enumerate()
            .map(|(i, &end)| {
                let len = (end as usize).saturating_sub(i).max(1);
                u16::try_from(len).unwrap_or(u16::MAX)
            })
            .collect();
        FlatIndex {
            chunks: chunks.into_boxed_slice(),
            entries: entries.into_boxed_slice(),
            shared,
            dense: dense.into_boxed_slice(),
            upper,
            run_len,
        }
    }

    /// Index bytes beyond [`FLAT_ENTRY_BYTES`] a key: the upper level of dense keys and the
    /// chunks' handles.
    pub(crate) fn extra_bytes(&self) -> usize {
        self.upper.len() * size_of::<u64>() + self.chunks.len() * size_of::<Bytes>()
    }

    /// The number of keys.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The chunks, by id.
    pub(crate) fn chunks(&self) -> &[Bytes] {
        &self.chunks
    }

    /// The entries, in store order.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The length of the row prefix every key shares.
    pub(crate) fn shared(&self) -> usize {
        self.shared
    }

    /// Per key, its dense row key.
    pub(crate) fn dense(&self) -> &[u64] {
        &self.dense
    }

    /// Per key, where its column's run ends, or where a long run's hop from it lands (a key
    /// of the same column, at most `u16::MAX` on).
    #[cfg(test)]
    pub(crate) fn run_ends(&self) -> Vec<u32> {
        (0..self.len()).map(|i| self.hop(i) as u32).collect()
    }

    /// True when the key after `pos` is of the same column.
    #[inline]
    pub(crate) fn continues(&self, pos: usize) -> bool {
        self.run_len.get(pos).is_some_and(|&len| len > 1)
    }

    /// Where a hop from `pos` over its column's run lands: the first key of the next column,
    /// or for a run longer than `u16::MAX`, a key of the same column that far on.
    #[inline]
    fn hop(&self, pos: usize) -> usize {
        pos + self.run_len.get(pos).map_or(1, |&len| usize::from(len))
    }

    /// The dense key `row` would have here.
    #[inline]
    pub(crate) fn dense_of(&self, row: &[u8]) -> u64 {
        dense(row, self.shared)
    }

    /// The key at `pos`.
    #[inline]
    pub(crate) fn key(&self, pos: usize) -> Option<KeyRef<'_>> {
        let e = self.entries.get(pos)?;
        Some(KeyRef::flat(cell_at(&self.chunks, e.loc), e.tag))
    }

    /// The key at `pos`. Requires: `pos < len()`.
    #[inline]
    pub(crate) fn at(&self, pos: usize) -> KeyRef<'_> {
        let e = self.entries[pos];
        KeyRef::flat(cell_at(&self.chunks, e.loc), e.tag)
    }

    /// The keys in store order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = KeyRef<'_>> + '_ {
        self.entries
            .iter()
            .map(|e| KeyRef::flat(cell_at(&self.chunks, e.loc), e.tag))
    }

    /// The sequence id of the key at `pos` (no cell read). Requires: `pos < len()`.
    #[inline]
    pub(crate) fn seq_at(&self, pos: usize) -> Option<u64> {
        self.entries.get(pos).map(|e| e.tag & super::key::SEQ_MASK)
    }

    /// `lo` plus the number of keys in `lo..hi` for which `before` holds (a prefix of them).
    fn partition_range(
        &self,
        mut lo: usize,
        mut hi: usize,
        before: impl Fn(KeyRef<'_>) -> bool,
    ) -> usize {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if before(self.at(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The number of keys for which `before` (a prefix predicate) holds.
    #[cfg(test)]
    pub(crate) fn partition_point(&self, before: impl Fn(KeyRef<'_>) -> bool) -> usize {
        self.partition_range(0, self.len(), before)
    }

    /// The number of keys below `probe` (`inclusive`: at or below it), which is the position of
    /// the first key above it.
    pub(crate) fn partition(&self, probe: &Probe<'_>, inclusive: bool) -> usize {
        let before = |k: KeyRef<'_>| match k.cmp_probe(probe) {
            Ordering::Less => true,
            Ordering::Equal => inclusive,
            Ordering::Greater => false,
        };
        let Some(first) = self.key(0) else {
            return 0;
        };
        let prefix = &first.row_bytes()[..self.shared];
        let row = probe.row();
        if !row.starts_with(prefix) {
            // Every row starts with `prefix`: the probe's row is below or above them all.
            return if row < prefix { 0 } else { self.len() };
        }
        let d = dense(row, self.shared);
        let lo = self.dense_partition(|x| x < d);
        let hi = self.dense_partition(|x| x <= d);
        // A get's probe, the first key of its row, is usually at or below the first key of
        // its dense run: one comparison instead of a search.
        if lo < hi && !before(self.at(lo)) {
            return lo;
        }
        self.partition_range(lo, hi, before)
    }

    /// As [`partition`](FlatIndex::partition)`(probe, false)` for a probe above the key at
    /// `pos`: from `pos`, hops over whole column runs (one step past a hot column's versions)
    /// while they stay below the probe, and searches within the run that reaches it; after
    /// [`HOPS`] runs, searches the whole index instead.
    pub(crate) fn partition_from(&self, mut pos: usize, probe: &Probe<'_>) -> usize {
        let below = |k: KeyRef<'_>| k.cmp_probe(probe) == Ordering::Less;
        let len = self.len();
        for _ in 0..HOPS {
            if pos >= len {
                return len;
            }
            let end = self.hop(pos).min(len);
            // keys[pos] is below the probe; if the run's last key is not, the first key at or
            // above it is within the run. When the probe is past keys[pos]'s column (a
            // reader skipping to the next one), the run is below it without reading its last
            // key (a cache miss in a chunk; keys[pos] was just read). A run capped at
            // `u16::MAX` keys is a part of its column's: the same holds for it.
            if !self.at(pos).column_below(probe) && !below(self.at(end - 1)) {
                return self.partition_range(pos + 1, end, below);
            }
            match self.key(end) {
                Some(k) if below(k) => pos = end,
                _ => return end,
            }
        }
        self.partition(probe, false)
    }

    /// As [`partition`](FlatIndex::partition) with only one dense key per [`BLOCK`] keys (the
    /// upper level): what a seek would cost were the per-key dense keys dropped (a
    /// measurement in the tests; RFC 0003, "Flat segments").
    #[cfg(test)]
    pub(crate) fn partition_sparse(&self, probe: &Probe<'_>, inclusive: bool) -> usize {
        let before = |k: KeyRef<'_>| match k.cmp_probe(probe) {
            Ordering::Less => true,
            Ordering::Equal => inclusive,
            Ordering::Greater => false,
        };
        let Some(first) = self.key(0) else {
            return 0;
        };
        let prefix = &first.row_bytes()[..self.shared];
        let row = probe.row();
        if !row.starts_with(prefix) {
            return if row < prefix { 0 } else { self.len() };
        }
        let d = dense(row, self.shared);
        // Blocks before the last one starting below `d` hold only keys below it; blocks
        // starting above it only keys above.
        let lo = self.upper.partition_point(|&x| x < d).saturating_sub(1) * BLOCK;
        let hi = (self.upper.partition_point(|&x| x <= d) * BLOCK).min(self.len());
        self.partition_range(lo, hi, before)
    }

    /// `dense.partition_point(below)` through the upper level: the blocks whose first key is
    /// below, then within the last of them.
    #[inline]
    fn dense_partition(&self, below: impl Fn(u64) -> bool) -> usize {
        let blocks = self.upper.partition_point(|&x| below(x));
        let Some(last) = blocks.checked_sub(1) else {
            return 0;
        };
        let start = last * BLOCK;
        let end = (start + BLOCK).min(self.dense.len());
        start + self.dense[start..end].partition_point(|&x| below(x))
    }
}

/// Builds [`FlatIndex`]'s `run_end` from the keys' columns in store order.
pub(crate) struct Runs<'a> {
    run_end: Vec<u32>,
    /// Where the current run started, and its column.
    start: usize,
    column: Option<(&'a [u8], &'a [u8])>,
}

impl<'a> Runs<'a> {
    /// Runs for about `keys` keys.
    pub(crate) fn with_capacity(keys: usize) -> Runs<'a> {
        Runs {
            run_end: Vec::with_capacity(keys),
            start: 0,
            column: None,
        }
    }

    /// The next key's column.
    #[inline]
    pub(crate) fn push(&mut self, row: &'a [u8], qualifier: &'a [u8]) {
        let at = self.run_end.len();
        if self.column != Some((row, qualifier)) {
            self.close(at);
            self.start = at;
            self.column = Some((row, qualifier));
        }
        self.run_end.push(0);
    }

    fn close(&mut self, at: usize) {
        let end = u32::try_from(at).unwrap_or(u32::MAX);
        self.run_end[self.start..at].fill(end);
    }

    /// Per key, the end of its column's run.
    pub(crate) fn finish(mut self) -> Vec<u32> {
        self.close(self.run_end.len());
        self.run_end
    }
}

/// The length of the prefix `a` and `b` share.
pub(crate) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The eight bytes of `row` after its first `shared`, big-endian, zero-padded.
#[inline]
pub(crate) fn dense(row: &[u8], shared: usize) -> u64 {
    let rest = row.get(shared..).unwrap_or_default();
    let mut buf = [0u8; 8];
    let n = rest.len().min(8);
    buf[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(buf)
}

#[cfg(test)]
#[path = "flat_test.rs"]
mod tests;
