//! [`RegionCache`]: one open region's view of the row cache — its epoch, which of its
//! families are cached, and the read and write protocols of the module header.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::Get;
use strata_model::schema::TableDescriptor;
use strata_storage::{Region, Result};

use super::shape::Shape;
use super::{Key, RowCache, GENERATION};

/// One open region's handle on the row cache; a disabled handle reads and writes straight
/// through. Cloning is cheap.
#[derive(Clone, Default)]
pub struct RegionCache {
    pub(super) slot: Option<Arc<Slot>>,
}

pub(super) struct Slot {
    pub(super) cache: Arc<RowCache>,
    /// Unique per opening of a region: part of every key.
    pub(super) epoch: u64,
    /// False once the region stopped being served here: no lookup, no lasting insert.
    live: AtomicBool,
    /// Families with `ROW_CACHE`, with their TTL in ms (`None`: forever).
    families: BTreeMap<Bytes, Option<i64>>,
    /// Every family of the table is cached (so a get of all columns is cacheable).
    all: bool,
}

impl RegionCache {
    /// A handle that never caches.
    pub fn disabled() -> RegionCache {
        RegionCache::default()
    }

    pub(super) fn new(cache: Arc<RowCache>, epoch: u64, table: &TableDescriptor) -> RegionCache {
        let families: BTreeMap<Bytes, Option<i64>> = table
            .families
            .iter()
            .filter(|f| f.row_cache)
            .map(|f| (Bytes::from(f.name.clone().into_bytes()), f.ttl.millis()))
            .collect();
        if families.is_empty() {
            return RegionCache::disabled();
        }
        RegionCache {
            slot: Some(Arc::new(Slot {
                all: families.len() == table.families.len(),
                families,
                cache,
                epoch,
                live: AtomicBool::new(true),
            })),
        }
    }

    /// True if some family of the region is cached.
    pub fn is_enabled(&self) -> bool {
        self.slot.is_some()
    }

    /// `region.get(get)`, answered from the cache when it holds a valid result.
    ///
    /// # Errors
    /// As [`Region::get`].
    pub fn get(&self, region: &Region, get: &Get) -> Result<Vec<Cell>> {
        let Some(slot) = self.slot.as_deref().filter(|s| s.cacheable(get)) else {
            return region.get(get);
        };
        let cache = &slot.cache;
        // Read the stripe state before anything else (invariant 2 of the module header).
        let state = cache.stripe(slot.epoch, &get.row).load(Ordering::SeqCst);
        let quiet = state % GENERATION == 0;
        let key = Key {
            epoch: slot.epoch,
            row: get.row.clone(),
            shape: Shape::of(get),
        };
        if quiet && slot.live.load(Ordering::SeqCst) {
            if let Some(cells) = cache.lookup(&key, state) {
                cache.hits.fetch_add(1, Ordering::Relaxed);
                return Ok(cells);
            }
        }
        cache.misses.fetch_add(1, Ordering::Relaxed);
        let cells = region.get(get)?;
        if quiet && get.cache_blocks {
            let valid_until = slot.valid_until(&cells);
            let stored = cache.insert(key.clone(), state, &cells, valid_until);
            // Retired meanwhile: its purge may have run before this insert.
            if stored && !slot.live.load(Ordering::SeqCst) {
                cache.entries.remove(&key);
            }
        }
        Ok(cells)
    }

    /// Runs `write`, a write to `row` of this region, so that no result read before it
    /// completes is served after it (invariant 1 of the module header). Every write path
    /// (put, delete, increment, append, row mutations, check-and-mutate) goes through here.
    pub fn write<T>(&self, row: &[u8], write: impl FnOnce() -> T) -> T {
        let Some(slot) = self.slot.as_deref() else {
            return write();
        };
        let stripe = slot.cache.stripe(slot.epoch, row);
        stripe.fetch_add(1, Ordering::SeqCst);
        let _done = WriteDone {
            stripe,
            invalidations: &slot.cache.invalidations,
        };
        write()
    }

    /// [`write`](Self::write) for a write to several rows at once (a batch).
    pub fn write_rows<'r, T>(
        &self,
        rows: impl Iterator<Item = &'r [u8]>,
        write: impl FnOnce() -> T,
    ) -> T {
        let Some(slot) = self.slot.as_deref() else {
            return write();
        };
        let _done: Vec<WriteDone<'_>> = rows
            .map(|row| {
                let stripe = slot.cache.stripe(slot.epoch, row);
                stripe.fetch_add(1, Ordering::SeqCst);
                WriteDone {
                    stripe,
                    invalidations: &slot.cache.invalidations,
                }
            })
            .collect();
        write()
    }

    /// [`write`](Self::write) for a write to rows that are not listed (a bulk load adds files
    /// holding any number of rows): every stripe counts a writer in flight, so no entry is
    /// served or stored while it runs, and every entry tagged before it is stale after it.
    /// Costs a pass over the stripes, and misses for every region sharing them.
    pub fn write_region<T>(&self, write: impl FnOnce() -> T) -> T {
        let Some(slot) = self.slot.as_deref() else {
            return write();
        };
        let _done: Vec<WriteDone<'_>> = slot
            .cache
            .stripes
            .iter()
            .map(|stripe| {
                stripe.fetch_add(1, Ordering::SeqCst);
                WriteDone {
                    stripe,
                    invalidations: &slot.cache.invalidations,
                }
            })
            .collect();
        write()
    }

    /// The region stops being served here (closed, split, merged, truncated, or about to be
    /// reopened with a new schema): its entries are dropped and none is served again.
    pub fn retire(&self) {
        if let Some(slot) = &self.slot {
            slot.live.store(false, Ordering::SeqCst);
            slot.cache.purge(slot.epoch);
        }
    }
}

impl Slot {
    /// A get is cached when it has no filter nor per-family limit or offset and reads only
    /// cached families. A filter may decide on cells it does not return, and a limit or offset
    /// leaves out cells that an expiring returned cell would let in, so the entry's TTL bound
    /// (taken from returned cells) would not cover them.
    fn cacheable(&self, get: &Get) -> bool {
        get.filter.is_none()
            && get.max_results_per_family.is_none()
            && get.offset_per_family == 0
            && if get.columns.is_all() {
                self.all
            } else {
                get.columns
                    .families
                    .keys()
                    .all(|f| self.families.contains_key(f))
            }
    }

    /// The last millisecond at which every cell of `cells` is still within its family's TTL
    /// and its own (a cell of timestamp `ts` is visible while `now <= ts + ttl`). Time alone
    /// changes a result only when one of its cells expires: a visible cell left out is an
    /// older version of a returned column (it expires first under the family's TTL), and the
    /// older version a cell's own TTL reveals appears only once a returned cell has expired.
    fn valid_until(&self, cells: &[Cell]) -> i64 {
        cells
            .iter()
            .map(|c| {
                let own = c.ttl.map_or(i64::MAX, |ttl| {
                    c.timestamp
                        .saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX))
                });
                let family = match self.families.get(&c.family) {
                    Some(Some(ttl)) => c.timestamp.saturating_add(*ttl),
                    Some(None) => i64::MAX,
                    None => i64::MIN,
                };
                own.min(family)
            })
            .min()
            .unwrap_or(i64::MAX)
    }
}

/// Ends a write on its stripe: generation + 1 and writers − 1 in one atomic step, also when
/// the write failed or panicked.
struct WriteDone<'a> {
    stripe: &'a AtomicU64,
    invalidations: &'a AtomicU64,
}

impl Drop for WriteDone<'_> {
    fn drop(&mut self) {
        self.stripe.fetch_add(GENERATION - 1, Ordering::SeqCst);
        self.invalidations.fetch_add(1, Ordering::Relaxed);
    }
}
