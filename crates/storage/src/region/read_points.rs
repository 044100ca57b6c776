//! The read points of readers in flight (HBase's `scannerReadPoints`), so compactions (on
//! disk and in memory) never drop a version some reader may still need.
//!
//! # Invariant
//! A reader registers and takes its read point in one critical section, and releases it when
//! done. [`ReadPoints::smallest`] reads the MVCC read point and the registered minimum in the
//! same critical section. So a compaction that starts with smallest point `S` only competes
//! with readers at `R ≥ S`: a reader registered before it has `R ≥ S` by the minimum, one
//! registered after it has `R ≥` the read point at that instant `≥ S`.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::{Inner, Mvcc};

/// Registered read points and how many readers hold each.
#[derive(Debug, Default)]
pub(crate) struct ReadPoints {
    active: Mutex<BTreeMap<u64, usize>>,
}

impl ReadPoints {
    /// Registers a reader at the current read point, returned.
    pub(crate) fn register(&self, mvcc: &Mvcc) -> u64 {
        let mut active = self.active.lock();
        let read_point = mvcc.read_point();
        *active.entry(read_point).or_insert(0) += 1;
        read_point
    }

    /// Releases a reader registered at `read_point`.
    pub(crate) fn release(&self, read_point: u64) {
        let mut active = self.active.lock();
        if let Some(n) = active.get_mut(&read_point) {
            *n -= 1;
            if *n == 0 {
                active.remove(&read_point);
            }
        }
    }

    /// The oldest read point any reader may use: the smallest registered one, or the MVCC
    /// read point when none is older.
    pub(crate) fn smallest(&self, mvcc: &Mvcc) -> u64 {
        let active = self.active.lock();
        let now = mvcc.read_point();
        active.keys().next().map_or(now, |&oldest| oldest.min(now))
    }
}

/// A registered reader; releases its read point when dropped.
pub(crate) struct ReadGuard {
    inner: Arc<Inner>,
    read_point: u64,
}

impl ReadGuard {
    pub(crate) fn new(inner: &Arc<Inner>) -> ReadGuard {
        ReadGuard {
            read_point: inner.read_points.register(&inner.mvcc),
            inner: inner.clone(),
        }
    }

    /// The reader's read point.
    pub(crate) fn read_point(&self) -> u64 {
        self.read_point
    }
}

impl Drop for ReadGuard {
    fn drop(&mut self) {
        self.inner.read_points.release(self.read_point);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_is_the_oldest_registered_or_now() {
        let mvcc = Mvcc::new(10);
        let points = ReadPoints::default();
        assert_eq!(points.smallest(&mvcc), 10);
        let a = points.register(&mvcc);
        let seq = mvcc.begin();
        mvcc.complete(seq);
        let b = points.register(&mvcc);
        assert_eq!((a, b), (10, 11));
        assert_eq!(points.smallest(&mvcc), 10);
        points.release(a);
        assert_eq!(points.smallest(&mvcc), 11);
        points.release(b);
        let seq = mvcc.begin();
        mvcc.complete(seq);
        assert_eq!(points.smallest(&mvcc), 12);
    }
}
