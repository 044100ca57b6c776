//! The row cache (Hypertable's query cache): results of gets of hot rows, shared by every
//! region of the server, bounded in bytes, enabled per family by `ROW_CACHE`.
//!
//! The block cache keeps store-file blocks, so a get that hits it still seeks a merge of the
//! memtable and every file, decodes cells and applies visibility; the row cache keeps the
//! finished answer, so a hit costs one hash lookup. See `docs/rfcs/0009-row-cache.md`.
//!
//! ```text
//!  get ─▶ shape cacheable? ─▶ stripe state s (no writer in flight) ─▶ entry.tag == s, not
//!        expired ─▶ hit        else ─▶ Region::get ─▶ insert tagged with s (read before the get)
//!  write ─▶ stripe: writers += 1 ─▶ Region write ─▶ generation += 1, writers −= 1 ─▶ ack
//! ```
//!
//! # Thread safety
//! Every method takes `&self`. The entries live in a sharded `quick_cache`; the per-row
//! state lives in a fixed array of atomic stripes. No lock is held across a region call.
//!
//! # Invariants
//! 1. A stripe's state packs (generation << 16 | writers in flight); a write adds 1 before it
//!    touches the region and adds `GENERATION - 1` after (one atomic step: generation + 1,
//!    writers − 1), whatever the write's outcome.
//! 2. An entry is served only if its tag equals the stripe's current state and that state has
//!    no writer in flight. The tag is the state read *before* the region read that produced
//!    the entry, so any write acknowledged before the lookup is in the entry (the RFC's proof).
//! 3. Entries are keyed by the epoch of a region's opening: once a region is closed, split,
//!    merged, truncated or reopened with a new schema, its old entries can never be found.

mod hosted;
mod region;
mod shape;

pub use region::RegionCache;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use quick_cache::sync::Cache;
use quick_cache::{DefaultHashBuilder, Lifecycle, Weighter};
use strata_model::cell::Cell;
use strata_model::schema::TableDescriptor;
use strata_storage::clock::Clock;

use shape::Shape;

/// Stripes of per-row state; rows hash onto them (a collision only costs extra misses).
const STRIPES: usize = 4096;
/// One generation step in a stripe's state; the low bits count writers in flight.
const GENERATION: u64 = 1 << 16;
/// Bytes charged per entry and per cell beyond their payload (key, `Arc`, vectors).
const ENTRY_OVERHEAD: u64 = 96;
const CELL_OVERHEAD: u64 = 48;

/// Counters and sizes of the row cache, for `status` and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowCacheStats {
    /// Gets answered from the cache.
    pub hits: u64,
    /// Cacheable gets that read the region (absent, stale, expired, or a write in flight).
    pub misses: u64,
    /// Entries evicted to stay within the capacity.
    pub evictions: u64,
    /// Row writes and region closings that invalidated cached results.
    pub invalidations: u64,
    /// Bytes held (as charged: cells plus per-entry overhead).
    pub bytes: u64,
    /// Entries held (stale ones included until evicted or replaced).
    pub entries: u64,
    /// Capacity in bytes.
    pub capacity: u64,
}

/// The server-wide row cache.
pub struct RowCache {
    entries: Cache<Key, Arc<Entry>, EntryWeight, DefaultHashBuilder, CountEvictions>,
    stripes: Box<[AtomicU64]>,
    hasher: DefaultHashBuilder,
    clock: Arc<dyn Clock>,
    next_epoch: AtomicU64,
    /// The capacity asked for (the shards round it up a little).
    capacity: AtomicU64,
    /// The largest result cached, a 64th of the capacity (it follows resizes).
    max_entry_bytes: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    invalidations: AtomicU64,
    evictions: Arc<AtomicU64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    epoch: u64,
    row: Bytes,
    shape: Shape,
}

/// A cached get result.
struct Entry {
    /// The stripe state read before the region read that produced `cells`.
    tag: u64,
    /// Last millisecond at which every cell is still within its family's TTL.
    valid_until: i64,
    cells: Box<[Cell]>,
    bytes: u64,
}

#[derive(Clone)]
struct EntryWeight;

impl Weighter<Key, Arc<Entry>> for EntryWeight {
    fn weight(&self, _key: &Key, entry: &Arc<Entry>) -> u64 {
        entry.bytes
    }
}

#[derive(Clone)]
struct CountEvictions(Arc<AtomicU64>);

impl Lifecycle<Key, Arc<Entry>> for CountEvictions {
    type RequestState = ();

    fn begin_request(&self) -> Self::RequestState {}

    fn on_evict(&self, _state: &mut (), _key: Key, _entry: Arc<Entry>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

impl RowCache {
    /// A cache of `capacity_bytes`, reading time (for TTL) from `clock`, the clock the
    /// regions use.
    pub fn new(capacity_bytes: u64, clock: Arc<dyn Clock>) -> RowCache {
        let evictions = Arc::new(AtomicU64::new(0));
        // Estimate ~1.5 KB per entry (a 1 KB row); the table grows if entries are smaller.
        let items = (capacity_bytes / 1536).clamp(64, 1 << 24) as usize;
        let hasher = DefaultHashBuilder::default();
        RowCache {
            entries: Cache::with(
                items,
                capacity_bytes.max(1),
                EntryWeight,
                hasher.clone(),
                CountEvictions(evictions.clone()),
            ),
            stripes: (0..STRIPES).map(|_| AtomicU64::new(0)).collect(),
            hasher,
            clock,
            next_epoch: AtomicU64::new(1),
            // A single result may take at most 1/64 of the cache (and at most 4 MiB).
            capacity: AtomicU64::new(capacity_bytes),
            max_entry_bytes: AtomicU64::new(Self::max_entry_for(capacity_bytes)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            invalidations: AtomicU64::new(0),
            evictions,
        }
    }

    /// A single result may take at most 1/64 of the cache (and at most 4 MiB).
    fn max_entry_for(capacity_bytes: u64) -> u64 {
        (capacity_bytes / 64).min(4 << 20)
    }

    /// Changes the capacity (the server's memory tuner). Shrinking evicts entries until the
    /// cache fits; safe while gets and writes use it (coherence rests on the stripes, which a
    /// resize does not touch).
    pub fn set_capacity(&self, capacity_bytes: u64) {
        self.capacity.store(capacity_bytes, Ordering::Relaxed);
        self.max_entry_bytes
            .store(Self::max_entry_for(capacity_bytes), Ordering::Relaxed);
        self.entries.set_capacity(capacity_bytes.max(1));
    }

    /// The handle a newly opened region of `table` uses; a disabled handle when no family of
    /// the table sets `ROW_CACHE`.
    pub fn region(self: &Arc<Self>, table: &TableDescriptor) -> RegionCache {
        let epoch = self.next_epoch.fetch_add(1, Ordering::Relaxed);
        RegionCache::new(self.clone(), epoch, table)
    }

    /// Current counters and sizes.
    pub fn stats(&self) -> RowCacheStats {
        RowCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            invalidations: self.invalidations.load(Ordering::Relaxed),
            bytes: self.entries.weight(),
            entries: self.entries.len() as u64,
            capacity: self.capacity.load(Ordering::Relaxed),
        }
    }

    fn stripe(&self, epoch: u64, row: &[u8]) -> &AtomicU64 {
        let h = self.hasher.hash_one((epoch, row)) as usize;
        &self.stripes[h % STRIPES]
    }

    /// The cached cells for `key` if valid under stripe state `state` at this instant.
    fn lookup(&self, key: &Key, state: u64) -> Option<Vec<Cell>> {
        let entry = self.entries.get(key)?;
        (entry.tag == state && self.clock.now_ms() <= entry.valid_until)
            .then(|| entry.cells.to_vec())
    }

    /// Stores a result read after observing stripe state `tag`, unless it is too large or
    /// already expired.
    fn insert(&self, key: Key, tag: u64, cells: &[Cell], valid_until: i64) -> bool {
        let payload: u64 = cells
            .iter()
            .map(|c| c.raw_size() as u64 + CELL_OVERHEAD)
            .sum();
        let bytes = payload + ENTRY_OVERHEAD + key.row.len() as u64 + key.shape.len() as u64;
        if bytes > self.max_entry_bytes.load(Ordering::Relaxed) || valid_until < self.clock.now_ms()
        {
            return false;
        }
        let entry = Entry {
            tag,
            valid_until,
            cells: cells.into(),
            bytes,
        };
        self.entries.insert(key, Arc::new(entry));
        true
    }

    /// Drops every entry of a region epoch (eagerly frees memory; correctness does not need
    /// it, as no lookup uses a retired epoch).
    fn purge(&self, epoch: u64) {
        self.entries.retain(|k, _| k.epoch != epoch);
        self.invalidations.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests;
