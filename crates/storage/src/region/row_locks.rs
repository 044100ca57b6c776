//! Row locks: one writer per row at a time, so a row mutation and any read-modify-write
//! (check-and-mutate, increment, append) on the row are atomic.
//!
//! Each row is hashed once (XXH3 with a seed drawn per lock table, so rows chosen by a client
//! cannot be made to collide); the locked set is a hash table of (hash, row), and a batch
//! locks its rows in (hash, row) order. Any order that every batch follows rules out
//! deadlock; this one sorts on integers first and compares bytes only when hashes tie.
//!
//! The table owns each locked row (moved in, not copied) with its holder's token; a guard
//! keeps only the hashes it locked and removes the entries with its token. Two different
//! rows with one hash held by one guard are two entries with that hash and token, so
//! removing one matching entry per hash held removes each exactly once.
//!
//! Thread safety: all methods take `&self`. Batches lock their rows in that order, so two
//! batches never deadlock.

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use hashbrown::HashTable;
use parking_lot::{Condvar, Mutex};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// A locked row: its hash, its bytes and its holder's token.
type Held = (u64, Bytes, u64);

/// The set of locked rows of one region.
#[derive(Debug)]
pub struct RowLocks {
    seed: u64,
    locked: Mutex<HashTable<Held>>,
    released: Condvar,
    next_token: AtomicU64,
}

/// Holds some rows locked until dropped.
#[must_use]
pub struct RowGuard<'a> {
    locks: &'a RowLocks,
    token: u64,
    /// The hashes of the rows held, one per row.
    hashes: Vec<u64>,
}

impl Default for RowLocks {
    fn default() -> RowLocks {
        RowLocks {
            seed: RandomState::new().hash_one(0x5354_5241_5441_u64),
            locked: Mutex::new(HashTable::new()),
            released: Condvar::new(),
            next_token: AtomicU64::new(0),
        }
    }
}

impl RowLocks {
    /// The hash this table files `row` under ([`RowLocks::lock_hashed`] takes it).
    pub fn hash(&self, row: &[u8]) -> u64 {
        xxh3_64_with_seed(row, self.seed)
    }

    /// Locks `rows` (deduplicated, in a global order), waiting for other holders.
    pub fn lock(&self, rows: Vec<Bytes>) -> RowGuard<'_> {
        self.lock_hashed(rows.into_iter().map(|r| (self.hash(&r), r)).collect())
    }

    /// [`lock`](RowLocks::lock) of rows already paired with their [`hash`](RowLocks::hash).
    pub fn lock_hashed(&self, mut rows: Vec<(u64, Bytes)>) -> RowGuard<'_> {
        rows.sort_unstable();
        rows.dedup();
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        let hashes = rows.iter().map(|(h, _)| *h).collect();
        let mut locked = self.locked.lock();
        for (hash, row) in rows {
            while locked.find(hash, |(_, r, _)| *r == row).is_some() {
                self.released.wait(&mut locked);
            }
            locked.insert_unique(hash, (hash, row, token), |(h, _, _)| *h);
        }
        RowGuard {
            locks: self,
            token,
            hashes,
        }
    }

    /// Locks `row` if no one holds it; `None` otherwise (nothing locked).
    pub fn try_lock(&self, row: &Bytes) -> Option<RowGuard<'_>> {
        let hash = self.hash(row);
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        let mut locked = self.locked.lock();
        if locked.find(hash, |(_, r, _)| r == row).is_some() {
            return None;
        }
        locked.insert_unique(hash, (hash, row.clone(), token), |(h, _, _)| *h);
        Some(RowGuard {
            locks: self,
            token,
            hashes: vec![hash],
        })
    }
}

impl Drop for RowGuard<'_> {
    fn drop(&mut self) {
        let mut locked = self.locks.locked.lock();
        for &hash in &self.hashes {
            if let Ok(entry) = locked.find_entry(hash, |(_, _, t)| *t == self.token) {
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
        assert_eq!(held.hashes.len(), 300, "duplicates locked once");
        assert_eq!(locks.locked.lock().len(), 300);
        assert!(rows.iter().all(|r| locks.try_lock(r).is_none()));
        drop(held);
        assert!(locks.locked.lock().is_empty());
        assert!(rows.iter().all(|r| locks.try_lock(r).is_some()));
    }

    #[test]
    fn rows_sharing_a_hash_are_held_and_released_by_their_own_guards() {
        let locks = RowLocks::default();
        let row = |r: &'static str| Bytes::from_static(r.as_bytes());
        let first = locks.lock_hashed(vec![(7, row("a")), (7, row("b")), (7, row("a"))]);
        let second = locks.lock_hashed(vec![(7, row("c"))]);
        assert_eq!(locks.locked.lock().len(), 3, "a and b once each, and c");
        drop(first);
        let left: Vec<Bytes> = locks
            .locked
            .lock()
            .iter()
            .map(|(_, r, _)| r.clone())
            .collect();
        assert_eq!(left, vec![row("c")], "the other guard's row stays");
        drop(second);
        assert!(locks.locked.lock().is_empty());
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
