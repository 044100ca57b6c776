//! A segment's row filter: a blocked Bloom filter of the rows it holds, so a get skips the
//! segments that cannot hold its row without searching them (RocksDB's memtable
//! `whole_key_filtering` does the same for its memtables).
//!
//! Each row sets [`PROBES`] bits in one 64-bit word chosen by its hash (one cache line a look-up);
//! with at least 16 bits a row the false-positive rate stays under about 1%. The words are
//! atomics: any number of inserting threads and readers share a filter without a lock.
//!
//! # Ordering
//! An insert sets its row's bits (`Relaxed`) before it publishes the cell. A reader only shows
//! cells at or below its read point, and the read point covers a write only after the write
//! returned and the region published it with a `Release` store that the reader's `Acquire`
//! load of the read point synchronises with, so the bits of every cell the reader may show are
//! visible to it: the filter never hides a visible row.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use xxhash_rust::xxh3::xxh3_64;

/// Bits set per row, all in one word.
const PROBES: u32 = 4;
/// The smallest filter: 64 words (512 bytes).
const MIN_WORDS: usize = 64;
/// The largest filter: 2¹⁷ words (1 MiB).
const MAX_WORDS: usize = 1 << 17;

/// The filter.
pub(crate) struct RowFilter {
    words: Box<[AtomicU64]>,
}

impl RowFilter {
    /// A filter of about `bits` bits (a power of two words, between 512 bytes and 1 MiB).
    pub(crate) fn with_bits(bits: usize) -> RowFilter {
        let words = (bits / 64).clamp(MIN_WORDS, MAX_WORDS).next_power_of_two();
        RowFilter {
            words: (0..words).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// A filter sized for `rows` rows at 16 bits a row.
    pub(crate) fn for_rows(rows: usize) -> RowFilter {
        RowFilter::with_bits(rows.saturating_mul(16))
    }

    /// Adds `row`.
    #[inline]
    pub(crate) fn insert(&self, row: &[u8]) {
        let (word, mask) = self.locate(row);
        // The cells of one row usually arrive together: skip the write once its bits are set.
        if word.load(Relaxed) & mask != mask {
            word.fetch_or(mask, Relaxed);
        }
    }

    /// False only when `row` was never added.
    #[inline]
    pub(crate) fn may_contain(&self, row: &[u8]) -> bool {
        let (word, mask) = self.locate(row);
        word.load(Relaxed) & mask == mask
    }

    /// Adds a dense row key (a flat segment's filter holds those rather than rows).
    #[inline]
    pub(crate) fn insert_dense(&self, dense: u64) {
        self.insert(&dense.to_be_bytes());
    }

    /// False only when `dense` was never added with [`insert_dense`](RowFilter::insert_dense).
    #[inline]
    pub(crate) fn may_contain_dense(&self, dense: u64) -> bool {
        self.may_contain(&dense.to_be_bytes())
    }

    /// Bytes the filter takes.
    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * size_of::<AtomicU64>()
    }

    /// The row's word and the bits it sets there.
    #[inline]
    fn locate(&self, row: &[u8]) -> (&AtomicU64, u64) {
        let h = xxh3_64(row);
        // `words.len()` is a power of two.
        let word = &self.words[(h as usize) & (self.words.len() - 1)];
        let mut mask = 0u64;
        let mut bits = h >> 32;
        for _ in 0..PROBES {
            mask |= 1 << (bits & 63);
            bits >>= 6;
        }
        (word, mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_rows_are_always_found_and_few_others_are() {
        let filter = RowFilter::for_rows(10_000);
        for i in 0..10_000u32 {
            filter.insert(format!("user{i:010}").as_bytes());
        }
        for i in 0..10_000u32 {
            assert!(filter.may_contain(format!("user{i:010}").as_bytes()));
        }
        let false_positives = (10_000..110_000u32)
            .filter(|i| filter.may_contain(format!("user{i:010}").as_bytes()))
            .count();
        // 16 bits a row, 4 probes in one word: about 0.5% expected.
        assert!(false_positives < 2_000, "{false_positives} of 100000");
    }

    #[test]
    fn sizes_are_powers_of_two_within_bounds() {
        assert_eq!(RowFilter::with_bits(0).bytes(), 512);
        assert_eq!(RowFilter::for_rows(1_000).bytes(), 2048);
        assert_eq!(RowFilter::with_bits(usize::MAX).bytes(), 1 << 20);
        assert!(!RowFilter::for_rows(1).may_contain(b""));
    }

    #[test]
    fn concurrent_inserts_are_all_found() {
        let filter = std::sync::Arc::new(RowFilter::for_rows(4_000));
        let threads: Vec<_> = (0..4u32)
            .map(|t| {
                let f = std::sync::Arc::clone(&filter);
                std::thread::spawn(move || {
                    for i in 0..1_000u32 {
                        f.insert(&(t * 1_000 + i).to_be_bytes());
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("inserter");
        }
        assert!((0..4_000u32).all(|i| filter.may_contain(&i.to_be_bytes())));
    }
}
