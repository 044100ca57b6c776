//! Load-based splitting's part in the region server (RFC 0028): what requests each open region
//! takes, and which row would split its load in two.
//!
//! Every [`HostedRegion`](crate::HostedRegion) carries a [`RegionLoad`]. The data operations
//! note the row each request addresses (a get's row, a scan page's start row, each mutated
//! row): one relaxed atomic add per request counts it; a region the upkeep found hot
//! ([`Decider`]) also samples about [`RECORDS_PER_SEC`] of its requests into a [`Finder`]
//! under a mutex, which keeps a reservoir of candidate rows and, for each, how many requests
//! fell below it and at or above it. Nothing of this runs in the storage engine.
//!
//! The region server's upkeep looks at every open region's count every few seconds: a
//! region whose rate stays at or above [`LoadSplitConfig::qps`] for
//! [`LoadSplitConfig::window`] is proposed for a split at the candidate that balances its
//! sampled requests best, through the same split procedure as a split by size.

mod decider;
mod finder;

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

pub use decider::{Decider, Look};
pub use finder::{Finder, SplitChoice, CANDIDATES, MIN_COUNTED, MOST_IMBALANCE};

/// Requests per second a hot region samples into its finder, about (the rest are only
/// counted): enough for a balanced key within a window, few enough that the finder's mutex
/// is never contended.
pub const RECORDS_PER_SEC: u64 = 500;

/// When a region splits by load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadSplitConfig {
    /// Requests per second (gets, scan pages, mutated rows) at or above which a region is
    /// hot; 0 turns load-based splitting off.
    pub qps: u64,
    /// How long a region stays hot before it splits.
    pub window: Duration,
    /// Regions smaller than this (store files and memtables, all families) never split by
    /// load.
    pub min_bytes: u64,
}

impl LoadSplitConfig {
    /// The default threshold, CockroachDB's `kv.range_split.load_qps_threshold`.
    pub const DEFAULT_QPS: u64 = 2500;
    /// The default window.
    pub const DEFAULT_WINDOW: Duration = Duration::from_secs(10);
    /// The default least size: 64 MiB (a region the size of a few flushes).
    pub const DEFAULT_MIN_BYTES: u64 = 64 << 20;

    /// Off: no region splits by load.
    pub fn off() -> LoadSplitConfig {
        LoadSplitConfig {
            qps: 0,
            ..LoadSplitConfig::default()
        }
    }

    /// Whether regions split by load at all.
    pub fn enabled(&self) -> bool {
        self.qps > 0
    }
}

impl Default for LoadSplitConfig {
    fn default() -> Self {
        LoadSplitConfig {
            qps: Self::DEFAULT_QPS,
            window: Self::DEFAULT_WINDOW,
            min_bytes: Self::DEFAULT_MIN_BYTES,
        }
    }
}

/// The requests of one open region: counted always, reads and writes apart (HBase's
/// per-region read and write request counts), and sampled while the region is hot if load
/// splitting is on.
#[derive(Debug, Default)]
pub struct RegionLoad {
    /// Load splitting is on: requests may be sampled.
    splits: bool,
    reads: AtomicU64,
    writes: AtomicU64,
    /// Sample one request in this many (0: not sampling).
    every: AtomicU32,
    sampling: AtomicBool,
    finder: Mutex<Finder>,
}

impl RegionLoad {
    /// A region's load; `splits` false (load splitting off): requests are counted, never
    /// sampled.
    pub fn new(splits: bool) -> RegionLoad {
        RegionLoad {
            splits,
            ..RegionLoad::default()
        }
    }

    /// Notes one read (a get, or a scanner's opening) of `row`.
    #[inline]
    pub fn note_read(&self, row: &[u8]) {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.sample(row);
    }

    /// Notes one write (a row mutation, a check-and-mutate) of `row`.
    #[inline]
    pub fn note_write(&self, row: &[u8]) {
        self.writes.fetch_add(1, Ordering::Relaxed);
        self.sample(row);
    }

    /// Notes one write of each of `rows` (a batch: every row is a request).
    pub fn note_rows<'a>(&self, rows: impl Iterator<Item = &'a [u8]>) {
        let mut n = 0;
        for row in rows {
            n += 1;
            self.sample(row);
        }
        self.writes.fetch_add(n, Ordering::Relaxed);
    }

    #[inline]
    fn sample(&self, row: &[u8]) {
        if !self.splits {
            return;
        }
        let every = self.every.load(Ordering::Relaxed);
        if every == 0 || (every > 1 && !next_random().is_multiple_of(u64::from(every))) {
            return;
        }
        self.finder.lock().record(row, next_random());
    }

    /// Requests noted since the region opened here, reads and writes.
    pub fn requests(&self) -> u64 {
        self.reads() + self.writes()
    }

    /// Reads noted since the region opened here.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// Writes noted since the region opened here.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }

    /// Starts (or keeps) sampling about [`RECORDS_PER_SEC`] of `rate` requests per second;
    /// a region that was not sampling starts with an empty finder.
    pub fn sample_at(&self, rate: u64) {
        let every = u32::try_from((rate / RECORDS_PER_SEC).max(1)).unwrap_or(u32::MAX);
        if !self.sampling.swap(true, Ordering::Relaxed) {
            *self.finder.lock() = Finder::default();
        }
        self.every.store(every, Ordering::Relaxed);
    }

    /// Stops sampling and forgets the samples.
    pub fn stop_sampling(&self) {
        self.every.store(0, Ordering::Relaxed);
        if self.sampling.swap(false, Ordering::Relaxed) {
            *self.finder.lock() = Finder::default();
        }
    }

    /// Empties the finder, keeping on sampling (candidates that found no balance make room
    /// for the requests to come).
    pub fn restart_sampling(&self) {
        *self.finder.lock() = Finder::default();
    }

    /// Whether the region samples its requests.
    pub fn is_sampling(&self) -> bool {
        self.sampling.load(Ordering::Relaxed)
    }

    /// The row that splits the sampled requests best, above `start` (see [`Finder::choose`]).
    pub fn split_choice(&self, start: &[u8]) -> Option<SplitChoice> {
        self.finder.lock().choose(start)
    }

    /// Why [`RegionLoad::split_choice`] finds no row, for the log.
    pub fn why_none(&self, start: &[u8]) -> String {
        self.finder.lock().why_none(start)
    }

    /// Requests sampled since sampling (re)started.
    pub fn sampled(&self) -> u64 {
        self.finder.lock().recorded()
    }
}

thread_local! {
    static RANDOM: Cell<u64> = const { Cell::new(0) };
}

/// A per-thread xorshift generator: sampling needs no quality, only no shared state.
fn next_random() -> u64 {
    RANDOM.with(|state| {
        let mut x = state.get();
        if x == 0 {
            // Seeded once per thread from the address of its state and the clock.
            let clock = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.subsec_nanos());
            x = ((std::ptr::from_ref(state) as u64) ^ (u64::from(clock) << 17)) | 1;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        x
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_counts_and_never_samples() {
        let load = RegionLoad::new(false);
        load.sample_at(RECORDS_PER_SEC);
        load.note_read(b"a");
        load.note_write(b"a");
        load.note_rows([&b"a"[..], b"b"].into_iter());
        assert_eq!((load.reads(), load.writes()), (1, 3));
        assert_eq!(load.sampled(), 0);
    }

    #[test]
    fn counts_every_request_and_samples_only_while_hot() {
        let load = RegionLoad::new(true);
        load.note_read(b"a");
        load.note_rows([&b"b"[..], b"c"].into_iter());
        assert_eq!(load.requests(), 3);
        assert_eq!((load.reads(), load.writes()), (1, 2));
        assert_eq!(load.sampled(), 0, "not hot: nothing sampled");
        load.sample_at(RECORDS_PER_SEC); // one in one
        for i in 0..50u32 {
            load.note_read(format!("r{i:03}").as_bytes());
        }
        assert_eq!(load.sampled(), 50);
        load.sample_at(RECORDS_PER_SEC * 10); // about one in ten
        for i in 0..10_000u32 {
            load.note_write(format!("r{i:05}").as_bytes());
        }
        let sampled = load.sampled() - 50;
        assert!((500..1500).contains(&sampled), "{sampled}");
        load.stop_sampling();
        assert_eq!(load.sampled(), 0);
        load.note_read(b"z");
        assert_eq!(load.sampled(), 0);
        assert_eq!(load.requests(), 3 + 50 + 10_000 + 1);
        assert_eq!((load.reads(), load.writes()), (1 + 50 + 1, 2 + 10_000));
    }
}
