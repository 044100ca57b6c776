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

    /// Locks `row` if no one holds it; `None` otherwise (nothing locked).
    pub fn try_lock(&self, row: &Bytes) -> Option<RowGuard<'_>> {
        let mut locked = self.locked.lock();
        if !locked.insert(row.clone()) {
            return None;
        }
        Some(RowGuard {
            locks: self,
            rows: vec![row.clone()],
        })
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
    fn try_lock_refuses_a_held_row_and_takes_a_free_one() {
        let locks = RowLocks::default();
        let (r, s) = (Bytes::from_static(b"r"), Bytes::from_static(b"s"));
        let held = locks.lock(vec![r.clone()]);
        assert!(locks.try_lock(&r).is_none(), "r is held");
        let other = locks.try_lock(&s).expect("s is free");
        assert!(locks.try_lock(&s).is_none(), "s is now held");
        drop(held);
        drop(other);
        assert!(locks.try_lock(&r).is_some() && locks.try_lock(&s).is_some());
    }

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
