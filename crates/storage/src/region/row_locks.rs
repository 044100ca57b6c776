//! Row locks: one writer per row at a time, so a row mutation and any read-modify-write
//! (check-and-mutate, increment, append) on the row are atomic.
//!
//! Each row is hashed once (XXH3 with a seed drawn per lock table, so rows chosen by a client
//! cannot be made to collide); the locked set is a hash table of (hash, row), and a batch
//! locks its rows in (hash, row) order. Any order that every batch follows rules out
//! deadlock; this one sorts on integers first and compares bytes only when hashes tie.
//!
//! Thread safety: all methods take `&self`. Batches lock their rows in that order, so two
//! batches never deadlock.

use std::hash::{BuildHasher, RandomState};

use bytes::Bytes;
use hashbrown::HashTable;
use parking_lot::{Condvar, Mutex};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// A row and its hash.
type Held = (u64, Bytes);

/// The set of locked rows of one region.
#[derive(Debug)]
pub struct RowLocks {
    seed: u64,
    locked: Mutex<HashTable<Held>>,
    released: Condvar,
}

/// Holds some rows locked until dropped.
#[must_use]
pub struct RowGuard<'a> {
    locks: &'a RowLocks,
    rows: Vec<Held>,
}

impl Default for RowLocks {
    fn default() -> RowLocks {
        RowLocks {
            seed: RandomState::new().hash_one(0x5354_5241_5441_u64),
            locked: Mutex::new(HashTable::new()),
            released: Condvar::new(),
        }
    }
}

impl RowLocks {
    fn hash(&self, row: &[u8]) -> u64 {
        xxh3_64_with_seed(row, self.seed)
    }

    /// Locks `rows` (deduplicated, in a global order), waiting for other holders.
    pub fn lock(&self, rows: Vec<Bytes>) -> RowGuard<'_> {
        let mut rows: Vec<Held> = rows.into_iter().map(|r| (self.hash(&r), r)).collect();
        rows.sort_unstable();
        rows.dedup();
        let mut locked = self.locked.lock();
        for (hash, row) in &rows {
            while locked.find(*hash, |(_, r)| r == row).is_some() {
                self.released.wait(&mut locked);
            }
            locked.insert_unique(*hash, (*hash, row.clone()), |(h, _)| *h);
        }
        RowGuard { locks: self, rows }
    }

    /// Locks `row` if no one holds it; `None` otherwise (nothing locked).
    pub fn try_lock(&self, row: &Bytes) -> Option<RowGuard<'_>> {
        let hash = self.hash(row);
        let mut locked = self.locked.lock();
        if locked.find(hash, |(_, r)| r == row).is_some() {
            return None;
        }
        locked.insert_unique(hash, (hash, row.clone()), |(h, _)| *h);
        Some(RowGuard {
            locks: self,
            rows: vec![(hash, row.clone())],
        })
    }
}

impl Drop for RowGuard<'_> {
    fn drop(&mut self) {
        let mut locked = self.locks.locked.lock();
        for (hash, row) in &self.rows {
            if let Ok(entry) = locked.find_entry(*hash, |(_, r)| r == row) {
                entry.remove();
            }
        }
        drop(locked);
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
    fn a_batch_locks_each_row_once_and_releases_all() {
        let locks = RowLocks::default();
        let rows: Vec<Bytes> = (0..500u32)
            .map(|i| Bytes::from(format!("row{}", i % 300)))
            .collect();
        let held = locks.lock(rows.clone());
        assert_eq!(held.rows.len(), 300, "duplicates locked once");
        assert_eq!(locks.locked.lock().len(), 300);
        assert!(rows.iter().all(|r| locks.try_lock(r).is_none()));
        drop(held);
        assert!(locks.locked.lock().is_empty());
        assert!(rows.iter().all(|r| locks.try_lock(r).is_some()));
    }

    #[test]
    fn one_holder_per_row() {
        let locks = Arc::new(RowLocks::default());
        let inside = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let (locks, inside) = (locks.clone(), inside.clone());
                std::thread::spawn(move || {
                    for i in 0..200 {
                        // Overlapping batches in different orders: never deadlock.
                        let mut rows: Vec<Bytes> = ["r", "s", "t", "u"]
                            .iter()
                            .map(|r| Bytes::from_static(r.as_bytes()))
                            .collect();
                        rows.rotate_left((t + i) % 4);
                        let _g = locks.lock(rows);
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
