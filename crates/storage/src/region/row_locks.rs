//! Row locks: one writer per row at a time, so a row mutation and any read-modify-write
//! (check-and-mutate, increment, append) on the row are atomic.
//!
//! Thread safety: all methods take `&self`. Batches lock their rows in sorted order, so two
//! batches never deadlock.

use std::collections::HashSet;

use bytes::Bytes;
use parking_lot::{Condvar, Mutex};

/// The set of locked rows of one region.
#[derive(Debug, Default)]
pub struct RowLocks {
    locked: Mutex<HashSet<Bytes>>,
    released: Condvar,
}

/// Holds some rows locked until dropped.
#[must_use]
pub struct RowGuard<'a> {
    locks: &'a RowLocks,
    rows: Vec<Bytes>,
}

impl RowLocks {
    /// Locks `rows` (deduplicated, in sorted order), waiting for other holders.
    pub fn lock(&self, mut rows: Vec<Bytes>) -> RowGuard<'_> {
        rows.sort();
        rows.dedup();
        let mut locked = self.locked.lock();
        for row in &rows {
            while locked.contains(row) {
                self.released.wait(&mut locked);
            }
            locked.insert(row.clone());
        }
        RowGuard { locks: self, rows }
    }
}

impl Drop for RowGuard<'_> {
    fn drop(&mut self) {
        let mut locked = self.locks.locked.lock();
        for row in &self.rows {
            locked.remove(row);
        }
        self.locks.released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    #[test]
    fn one_holder_per_row() {
        let locks = Arc::new(RowLocks::default());
        let inside = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (locks, inside) = (locks.clone(), inside.clone());
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        let _g =
                            locks.lock(vec![Bytes::from_static(b"r"), Bytes::from_static(b"s")]);
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
}
