//! The block cache shared by every reader of a process.
//!
//! Two partitions of one byte budget: *meta* (index and bloom blocks, at most a quarter of the
//! budget, like HBase's in-memory priority) and *data*. Meta blocks are small and touched by
//! every lookup; giving them their own partition means a large scan can never evict them.
//! The meta partition reserves only what its blocks take, rounded up to a step of 1/64 of the
//! budget (its *reserve*); the data partition gets the rest. Meta blocks are often a percent of
//! the data, so a fixed quarter left most of that quarter unused while data blocks were
//! evicted (HBase's shares are soft too: a bucket under its share leaves room to the others).
//!
//! Data blocks are cached in the form each family chooses (`CachedForm`):
//! - decoded: cells in the NONE layout with an offsets array (fastest access, largest);
//! - encoded: decompressed but still encoded (decoded on access; equal to decoded for NONE);
//! - compressed: the bytes as on disk (smallest; decompressed and decoded on every access).
//!
//! Eviction is quick_cache's CLOCK-Pro-like policy, which resists scan pollution better than LRU.
//!
//! The budget may change while readers run ([`BlockCache::set_capacity`], the region server's
//! memory tuner): shrinking evicts down to the new size, each partition keeping its share.
//!
//! Thread safety: all methods take `&self`; the cache is sharded internally.

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use quick_cache::sync::Cache;
use quick_cache::{DefaultHashBuilder, Lifecycle, Weighter};

use crate::block::RawBlock;
use crate::bloom::BloomChunk;
use crate::decoded::DecodedBlock;
use crate::index::IndexBlock;

/// A block's identity: the reader's file id and the block's offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    pub file: u64,
    pub offset: u64,
}

/// What the cache holds for one block.
#[derive(Clone)]
pub(crate) enum CachedBlock {
    Decoded(Arc<DecodedBlock>),
    Encoded(Bytes),
    Compressed(Arc<RawBlock>),
    Index(Arc<IndexBlock>),
    Bloom(Arc<BloomChunk>),
}

/// Fixed per-entry overhead charged on top of the block's bytes.
const ENTRY_OVERHEAD: u64 = 64;

impl CachedBlock {
    fn weight(&self) -> u64 {
        ENTRY_OVERHEAD
            + match self {
                CachedBlock::Decoded(b) => b.memory_size() as u64,
                CachedBlock::Encoded(b) => b.len() as u64,
                CachedBlock::Compressed(b) => b.payload.len() as u64,
                CachedBlock::Index(b) => b.memory_size() as u64,
                CachedBlock::Bloom(b) => b.memory_size() as u64,
            }
    }
}

#[derive(Clone)]
struct ByteWeighter;

impl Weighter<CacheKey, CachedBlock> for ByteWeighter {
    fn weight(&self, _key: &CacheKey, val: &CachedBlock) -> u64 {
        val.weight()
    }
}

#[derive(Default)]
struct Counters {
    data_hits: AtomicU64,
    data_misses: AtomicU64,
    meta_hits: AtomicU64,
    meta_misses: AtomicU64,
    evictions: AtomicU64,
    inserts: AtomicU64,
}

#[derive(Clone)]
struct CountEvictions(Arc<Counters>);

impl Lifecycle<CacheKey, CachedBlock> for CountEvictions {
    type RequestState = ();

    fn begin_request(&self) -> Self::RequestState {}

    fn on_evict(&self, _state: &mut (), _key: CacheKey, _val: CachedBlock) {
        self.0.evictions.fetch_add(1, Ordering::Relaxed);
    }
}

type Partition = Cache<CacheKey, CachedBlock, ByteWeighter, DefaultHashBuilder, CountEvictions>;

/// A byte-bounded cache of blocks, shared by all readers.
pub struct BlockCache {
    data: Partition,
    meta: Partition,
    counters: Arc<Counters>,
    capacity: AtomicU64,
    /// The bytes held back from the data partition for meta blocks ([`meta_reserve`]).
    /// Changed under `resizing`, with the partitions' capacities.
    reserve: AtomicU64,
    resizing: std::sync::Mutex<()>,
}

/// The meta partition's largest share of the budget.
fn meta_limit(capacity: u64) -> u64 {
    capacity / 4
}

/// The bytes reserved for meta blocks that take `meta_used` bytes of a `capacity` budget: the
/// next step (1/64 of the budget) above what they take, at most [`meta_limit`]. Rounding up to
/// a step leaves room for the next blocks, so the data partition is resized only when meta
/// blocks cross a step, not at each insert.
fn meta_reserve(capacity: u64, meta_used: u64) -> u64 {
    let step = (capacity / 64).max(1);
    (meta_used / step + 1)
        .saturating_mul(step)
        .min(meta_limit(capacity))
}

/// What [`BlockCache::evict_files`] dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Evicted {
    /// Blocks (data, index and bloom).
    pub blocks: u64,
    /// Their bytes, as the cache weighs them (with its per-entry overhead).
    pub bytes: u64,
}

impl std::ops::AddAssign for Evicted {
    fn add_assign(&mut self, other: Evicted) {
        self.blocks += other.blocks;
        self.bytes += other.bytes;
    }
}

/// A snapshot of cache counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Budget in bytes.
    pub capacity: u64,
    /// Bytes held now.
    pub used: u64,
    /// Entries held now.
    pub entries: u64,
    /// Data-block lookups that hit.
    pub data_hits: u64,
    /// Data-block lookups that missed.
    pub data_misses: u64,
    /// Index and bloom lookups that hit.
    pub meta_hits: u64,
    /// Index and bloom lookups that missed.
    pub meta_misses: u64,
    /// Entries evicted to make room.
    pub evictions: u64,
    /// Entries inserted.
    pub inserts: u64,
}

impl CacheStats {
    /// Hits over lookups, data and meta together (0 when there were none).
    pub fn hit_ratio(&self) -> f64 {
        let hits = self.data_hits + self.meta_hits;
        let total = hits + self.data_misses + self.meta_misses;
        if total == 0 {
            0.0
        } else {
            hits as f64 / total as f64
        }
    }
}

fn partition(capacity: u64, counters: &Arc<Counters>) -> Partition {
    // Assume ~16 KiB per entry for sizing the hash table; it grows as needed.
    let items = (capacity / (16 * 1024)).max(16) as usize;
    Cache::with(
        items,
        capacity.max(1),
        ByteWeighter,
        DefaultHashBuilder::default(),
        CountEvictions(counters.clone()),
    )
}

impl BlockCache {
    /// A cache holding at most `capacity` bytes.
    pub fn new(capacity: u64) -> BlockCache {
        let counters = Arc::new(Counters::default());
        let reserve = meta_reserve(capacity, 0);
        BlockCache {
            data: partition(capacity - reserve, &counters),
            meta: partition(meta_limit(capacity), &counters),
            counters,
            capacity: AtomicU64::new(capacity),
            reserve: AtomicU64::new(reserve),
            resizing: std::sync::Mutex::new(()),
        }
    }

    /// Changes the budget to `capacity` bytes: meta blocks keep at most a quarter, data blocks
    /// what meta blocks do not take. Shrinking evicts blocks (counted as evictions) until each
    /// partition fits; readers holding an evicted block keep it. Safe while readers and
    /// writers use the cache.
    pub fn set_capacity(&self, capacity: u64) {
        let _resizing = self.resizing.lock().unwrap_or_else(|e| e.into_inner());
        self.capacity.store(capacity, Ordering::Relaxed);
        self.meta.set_capacity(meta_limit(capacity).max(1));
        let reserve = meta_reserve(capacity, self.meta.weight());
        self.reserve.store(reserve, Ordering::Relaxed);
        self.data.set_capacity((capacity - reserve).max(1));
    }

    /// Moves the boundary between the partitions when the meta blocks' bytes crossed a step
    /// of their reserve (after meta blocks were added or dropped).
    fn fit_reserve(&self) {
        let capacity = self.capacity();
        if meta_reserve(capacity, self.meta.weight()) == self.reserve.load(Ordering::Relaxed) {
            return;
        }
        let _resizing = self.resizing.lock().unwrap_or_else(|e| e.into_inner());
        let capacity = self.capacity();
        let reserve = meta_reserve(capacity, self.meta.weight());
        if reserve != self.reserve.load(Ordering::Relaxed) {
            self.reserve.store(reserve, Ordering::Relaxed);
            self.data.set_capacity((capacity - reserve).max(1));
        }
    }

    /// The bytes the data partition may hold now (the budget less the meta blocks' reserve).
    pub fn data_capacity(&self) -> u64 {
        self.capacity() - self.reserve.load(Ordering::Relaxed)
    }

    /// The budget in bytes now.
    pub fn capacity(&self) -> u64 {
        self.capacity.load(Ordering::Relaxed)
    }

    fn is_meta(block: &CachedBlock) -> bool {
        matches!(block, CachedBlock::Index(_) | CachedBlock::Bloom(_))
    }

    pub(crate) fn get(&self, key: &CacheKey, meta: bool) -> Option<CachedBlock> {
        let (part, hits, misses) = if meta {
            (
                &self.meta,
                &self.counters.meta_hits,
                &self.counters.meta_misses,
            )
        } else {
            (
                &self.data,
                &self.counters.data_hits,
                &self.counters.data_misses,
            )
        };
        let found = part.get(key);
        if found.is_some() { hits } else { misses }.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Whether the block of `key` is cached; counts no hit or miss and marks nothing used.
    pub(crate) fn contains(&self, key: &CacheKey) -> bool {
        self.data.contains_key(key) || self.meta.contains_key(key)
    }

    pub(crate) fn insert(&self, key: CacheKey, block: CachedBlock) {
        self.counters.inserts.fetch_add(1, Ordering::Relaxed);
        if Self::is_meta(&block) {
            self.meta.insert(key, block);
            self.fit_reserve();
        } else {
            self.data.insert(key, block);
        }
    }

    /// Drops every block of `file` (call when a file is deleted).
    pub fn evict_file(&self, file: u64) {
        self.data.retain(|k, _| k.file != file);
        self.meta.retain(|k, _| k.file != file);
        self.fit_reserve();
    }

    /// Drops every block of the files in `files` (a table's, for HBase's `clearBlockCache`):
    /// how many blocks and bytes (as the cache weighs them) left. Blocks of these files read
    /// meanwhile may be cached again.
    pub fn evict_files(&self, files: &HashSet<u64>) -> Evicted {
        let blocks = Cell::new(0u64);
        let bytes = Cell::new(0u64);
        let keep = |k: &CacheKey, v: &CachedBlock| {
            if files.contains(&k.file) {
                blocks.set(blocks.get() + 1);
                bytes.set(bytes.get() + v.weight());
                false
            } else {
                true
            }
        };
        self.data.retain(keep);
        self.meta.retain(keep);
        self.fit_reserve();
        Evicted {
            blocks: blocks.get(),
            bytes: bytes.get(),
        }
    }

    /// Current counters.
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        CacheStats {
            capacity: self.capacity(),
            used: self.data.weight() + self.meta.weight(),
            entries: (self.data.len() + self.meta.len()) as u64,
            data_hits: c.data_hits.load(Ordering::Relaxed),
            data_misses: c.data_misses.load(Ordering::Relaxed),
            meta_hits: c.meta_hits.load(Ordering::Relaxed),
            meta_misses: c.meta_misses.load(Ordering::Relaxed),
            evictions: c.evictions.load(Ordering::Relaxed),
            inserts: c.inserts.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod reserve_tests;
#[cfg(test)]
mod resize_tests;
