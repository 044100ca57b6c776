//! Sequence ids and the MVCC read point.
//!
//! Every row mutation takes the next sequence id before it is logged, and completes after its
//! cells are in the memtable. The read point is the largest id below which every mutation has
//! completed; a reader that takes it sees each row mutation whole or not at all.
//!
//! Thread safety: all methods take `&self`; one short mutex guards the in-flight set.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

/// Sequence ids and read point of one region.
#[derive(Debug)]
pub struct Mvcc {
    /// Ids handed out and not yet completed, and the last id handed out.
    state: Mutex<(BTreeSet<u64>, u64)>,
    read_point: AtomicU64,
}

impl Mvcc {
    /// Starts after `last_seq` (the largest id already used, e.g. recovered from the WAL).
    pub fn new(last_seq: u64) -> Mvcc {
        Mvcc {
            state: Mutex::new((BTreeSet::new(), last_seq)),
            read_point: AtomicU64::new(last_seq),
        }
    }

    /// Takes the next sequence id; the caller must [`complete`](Mvcc::complete) it.
    pub fn begin(&self) -> u64 {
        let mut s = self.state.lock();
        s.1 += 1;
        let seq = s.1;
        s.0.insert(seq);
        seq
    }

    /// Marks `seq` done (applied, or abandoned) and advances the read point.
    pub fn complete(&self, seq: u64) {
        let mut s = self.state.lock();
        s.0.remove(&seq);
        let point = match s.0.first() {
            Some(oldest) => oldest - 1,
            None => s.1,
        };
        self.read_point.fetch_max(point, Ordering::SeqCst);
    }

    /// Waits until the read point reaches `seq`: a writer calls it after completing, so that
    /// once its write is acknowledged every later read sees it (read-your-writes; HBase's
    /// `completeAndWait`). Ids complete in microseconds, so a yielding spin suffices.
    pub fn wait_for(&self, seq: u64) {
        while self.read_point() < seq {
            std::thread::yield_now();
        }
    }

    /// What a reader starting now may see.
    pub fn read_point(&self) -> u64 {
        self.read_point.load(Ordering::SeqCst)
    }

    /// The last id handed out.
    pub fn last_seq(&self) -> u64 {
        self.state.lock().1
    }

    /// Waits (spinning politely) until every id handed out so far is complete.
    pub fn wait_for_all(&self) {
        let target = self.last_seq();
        while self.read_point() < target {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_point_waits_for_the_oldest_in_flight() {
        let m = Mvcc::new(10);
        let a = m.begin();
        let b = m.begin();
        assert_eq!((a, b), (11, 12));
        m.complete(b);
        assert_eq!(m.read_point(), 10);
        m.complete(a);
        assert_eq!(m.read_point(), 12);
        m.wait_for(12);
        m.wait_for_all();
    }
}
