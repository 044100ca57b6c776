//! A region: a row range of one table, with one store per column family (RFC 0005).
//!
//! ```text
//!  mutate ─▶ row lock ─▶ seq (Mvcc) ─▶ Wal::append ─▶ memtables ─▶ complete(seq) ─▶ ack
//!  get/scan ─▶ read point ─▶ per family: memtable + files ─▶ MergeCursor ─▶ Visibility ─▶ filter
//!  flush ─▶ updates lock (brief) ─▶ memtable snapshot ─▶ sstable::Writer ─▶ manifest edit
//!        ─▶ release snapshot ─▶ Wal::mark_flushed
//! ```
//!
//! Files: `open` (create, open, WAL replay), `write` (mutations), `read` (get, scan),
//! `flush`, `compact` (running compaction plans, write throttling), `split` (daughters with
//! references), `half` (reading half of a parent file), `store` (one family's memtable and
//! files), `mvcc`, `row_locks`.
//!
//! # Thread safety
//! `Region` is a cheap handle (`Arc`); every method takes `&self` and may run concurrently.
//! Lock order: row locks → `updates` (read for writers, write only to cut a flush snapshot)
//! → `manifest` → a store's file list. A flush never holds `updates` while writing files.
//!
//! # Invariants
//! 1. A mutation is in the WAL (as its durability asks) before any of its cells is in a
//!    memtable, and is visible to readers only once all its cells are (read point).
//! 2. The manifest's flushed sequence id of a family is ≤ every sequence id still only in
//!    that family's memtable, so WAL replay from it loses nothing.
//! 3. Store files listed by the manifest exist; files not listed are garbage from an
//!    interrupted flush or compaction and are deleted on open.

mod bulk;
mod cached_blocks;
mod compact;
mod flush;
mod half;
mod listing;
mod merge;
mod mini_batch;
mod mvcc;
mod open;
mod point_get;
mod prefetch;
mod read;
mod read_points;
mod row_locks;
mod row_read;
mod scan_visit;
mod segments;
mod split;
mod sst_io;
mod stamps;
mod store;
mod write;
mod write_now;
mod write_rows_now;

pub use bulk::{BulkLoaded, BulkStage, StagedFile};
pub use compact::{CompactionCounters, CompactionOptions, CompactionReport};
pub use listing::FileListing;
pub use mvcc::Mvcc;
pub use open::region_dir_name;
pub use read::{RegionScanner, ScanStep};
pub use row_locks::RowLocks;
pub use scan_visit::{CellSink, VisitStep};
pub use segments::MemtableListing;
pub use store::{family_dir_name, StoreStats};
pub use write::MutationResult;
pub use write_now::WriteNow;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};
use strata_model::schema::TableDescriptor;
use strata_sstable::BlockCache;

use crate::background::{Background, Job, MemoryBudget};
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::manifest::{Manifest, RegionInfo};
use crate::wal::Wal;
use store::Store;

/// What a region needs from its owner.
#[derive(Clone)]
pub struct RegionConfig {
    /// The region's directory (manifest and one sub-directory of store files per family).
    pub dir: PathBuf,
    /// The table's schema.
    pub table: TableDescriptor,
    /// Which region of the table.
    pub info: RegionInfo,
    /// The process's write-ahead log.
    pub wal: Arc<Wal>,
    /// The process's block cache.
    pub cache: Option<Arc<BlockCache>>,
    /// The clock for server-side timestamps and TTL.
    pub clock: Arc<dyn Clock>,
    /// Worker threads for flushes; `None` flushes on the writing thread.
    pub background: Option<Arc<Background>>,
    /// The process's memtable budget, shared by its regions.
    pub budget: Option<Arc<MemoryBudget>>,
    /// The server's volumes, `dir` being under the data directory's (store files go to the
    /// volume their family's storage policy picks). `None`: `dir`'s parent is the only volume.
    pub volumes: Option<Arc<crate::tiers::Volumes>>,
}

/// Counters of one region.
#[derive(Debug, Default)]
pub struct Counters {
    /// Store files a read skipped because their time range missed the read's.
    pub files_skipped_time_range: AtomicU64,
    /// Store files a get skipped because their key range or bloom filter ruled the row or
    /// column out.
    pub files_skipped_bloom: AtomicU64,
    /// Store files a read opened a cursor on.
    pub files_read: AtomicU64,
    /// Flushes completed.
    pub flushes: AtomicU64,
    /// Bytes of store files written by flushes.
    pub flushed_bytes: AtomicU64,
    /// Mutations applied.
    pub mutations: AtomicU64,
    /// Gets and scans started.
    pub reads: AtomicU64,
}

/// An open region.
#[derive(Clone)]
pub struct Region {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) config: RegionConfig,
    /// The store the region's directory and files are in.
    pub(crate) files: Arc<dyn crate::vfs::FileStore>,
    pub(crate) mvcc: Mvcc,
    pub(crate) row_locks: RowLocks,
    /// Read points of readers in flight (oldest bounds what compactions may drop).
    pub(crate) read_points: read_points::ReadPoints,
    /// Writers hold it shared from sequence id to memtable insert; a flush takes it exclusive
    /// for the instant it cuts the memtable snapshots.
    pub(crate) updates: RwLock<()>,
    pub(crate) stores: BTreeMap<Bytes, Store>,
    pub(crate) manifest: Mutex<Manifest>,
    /// One flush at a time.
    pub(crate) flush_lock: Mutex<()>,
    pub(crate) closed: AtomicBool,
    pub(crate) counters: Counters,
    /// A flush was asked for and not yet started.
    pub(crate) flush_requested: AtomicBool,
    /// A compaction check was asked for and not yet started.
    pub(crate) compaction_requested: AtomicBool,
    /// Compactions are stopped (a space quota's `NO_WRITES_COMPACTIONS` in violation).
    pub(crate) compactions_stopped: AtomicBool,
    /// Tier moves were asked for and have not finished.
    pub(crate) tier_moves_requested: AtomicBool,
    /// Memtable bytes last reported to the budget.
    pub(crate) accounted: AtomicU64,
    /// When (clock ms) the oldest edit the memtables hold outside store files arrived; 0 when
    /// they hold none. Set by the first write after a flush cut, under `updates` shared;
    /// cleared by the cut, under `updates` exclusive (see [`Region::oldest_unflushed_edit_ms`]).
    pub(crate) oldest_edit_ms: std::sync::atomic::AtomicI64,
    /// The newest timestamp the region gave a write or opened with: the floor of the next
    /// write's stamp (see `stamps`).
    pub(crate) newest_stamp: std::sync::atomic::AtomicI64,
    /// The read point at the last [`Region::merge_memtables_if_idle`] (`u64::MAX` before it).
    pub(crate) idle_mark: AtomicU64,
    /// Compactions, write throttling, and their exclusion of splits (region/compact.rs).
    pub(crate) compactions: compact::CompactionState,
    /// The nonces (with the times they were logged) of the entries the open replayed, until
    /// the server takes them ([`Region::take_replayed_nonces`]).
    pub(crate) replayed_nonces: Mutex<Vec<(crate::wal::Nonce, i64)>>,
}

impl Region {
    /// The region's identity and range.
    pub fn info(&self) -> &RegionInfo {
        &self.inner.config.info
    }

    /// The nonces of the client operations whose WAL entries the open replayed, with the
    /// times they were logged; empty after the first call. The server hosting the region
    /// records them as done, so a client sending one of them again is not applied twice
    /// (HBase's `reportOperationFromWal`, RFC 0032).
    pub fn take_replayed_nonces(&self) -> Vec<(crate::wal::Nonce, i64)> {
        std::mem::take(&mut *self.inner.replayed_nonces.lock())
    }

    /// The table's schema.
    pub fn table(&self) -> &TableDescriptor {
        &self.inner.config.table
    }

    /// Counters since open.
    pub fn counters(&self) -> &Counters {
        &self.inner.counters
    }

    /// The region's row locks. Every write takes its rows' locks; holding one keeps the row's
    /// writes out (they wait, or [decline](Region::try_mutate_row_now)).
    pub fn row_locks(&self) -> &RowLocks {
        &self.inner.row_locks
    }

    /// The MVCC read point: what a reader starting now sees.
    pub fn read_point(&self) -> u64 {
        self.inner.mvcc.read_point()
    }

    /// The oldest read point a reader in flight may use: compactions keep every version
    /// visible at it.
    pub fn smallest_read_point(&self) -> u64 {
        self.inner.read_points.smallest(&self.inner.mvcc)
    }

    /// Figures of every store.
    pub fn store_stats(&self) -> Vec<StoreStats> {
        self.inner.stores.values().map(Store::stats).collect()
    }

    /// When (ms on the region's clock) the oldest edit its memtables hold arrived, `None`
    /// when every edit is in store files. A server flushes regions whose edits grew older than
    /// its limit (HBase's `hbase.regionserver.optionalcacheflushinterval`), so an idle region
    /// neither keeps WAL segments alive nor leaves its edits to a long replay after a crash.
    /// Edits replayed from the WAL on open count from the open. After a flush that left cells
    /// in memory (`flush.oldest`, or a failed write), they count from the flush.
    pub fn oldest_unflushed_edit_ms(&self) -> Option<i64> {
        match self.inner.oldest_edit_ms.load(Ordering::Acquire) {
            0 => None,
            ms => Some(ms),
        }
    }

    /// Records that the memtables hold an edit from now, unless they already hold an older
    /// one. Requires: `updates` held (shared by a writer, exclusive by a flush cut).
    pub(crate) fn stamp_edit(&self) {
        let stamp = &self.inner.oldest_edit_ms;
        if stamp.load(Ordering::Relaxed) == 0 {
            let now = self.inner.config.clock.now_ms().max(1);
            let _ = stamp.compare_exchange(0, now, Ordering::AcqRel, Ordering::Relaxed);
        }
    }

    /// Merges each memtable into one flat segment (`Memtable::merge_idle`) when the region
    /// took no write since the previous call: a server's periodic check calls this, so a
    /// region left to readers has its memtables in the form a get searches fastest (one index
    /// instead of one per segment). The first call only takes the mark. True when a memtable
    /// was merged.
    pub fn merge_memtables_if_idle(&self) -> bool {
        if self.inner.closed.load(Ordering::SeqCst) {
            return false;
        }
        let now = self.read_point();
        if self.inner.idle_mark.swap(now, Ordering::AcqRel) != now {
            return false;
        }
        let mut merged = false;
        for store in self.inner.stores.values() {
            merged |= store.memtable.merge_idle().swapped;
        }
        if merged {
            self.account_memory();
        }
        merged
    }

    /// Identifies this opening of the region among every opening of any region in the
    /// process while it lives (its shared state's address).
    pub(crate) fn instance(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }

    /// Bytes held by all memtables.
    pub fn memtable_bytes(&self) -> u64 {
        self.inner
            .stores
            .values()
            .map(|s| s.memtable.size_bytes())
            .sum()
    }

    /// Flushes and closes: later calls fail with [`Error::Closed`].
    ///
    /// # Errors
    /// The final flush failed (the region stays open then).
    pub fn close(&self) -> Result<()> {
        // Refuse new writes first, so none lands after the final flush's snapshot.
        self.inner.closed.store(true, Ordering::SeqCst);
        if let Err(e) = self.flush() {
            self.inner.closed.store(false, Ordering::SeqCst);
            return Err(e);
        }
        self.account_memory();
        if let Some(budget) = &self.inner.config.budget {
            budget.unregister(self);
        }
        Ok(())
    }

    /// Closes without flushing, for a region opened but never served: later calls fail with
    /// [`Error::Closed`], and what its memtables hold stays in the WAL it was replayed from.
    pub fn abandon(&self) {
        self.inner.closed.store(true, Ordering::SeqCst);
        if let Some(budget) = &self.inner.config.budget {
            budget.unregister(self);
        }
    }

    /// Asks for a flush: queued on the background pool, or run now without one. Repeated
    /// requests before the flush starts are merged.
    pub fn request_flush(&self) {
        if self.inner.flush_requested.swap(true, Ordering::SeqCst) {
            return;
        }
        match &self.inner.config.background {
            Some(bg) => bg.submit(Job::Flush(self.clone())),
            None => {
                // Errors leave the data in the memtable; the next request retries.
                let _ = self.run_requested_flush();
            }
        }
    }

    /// Runs a requested flush (the background pool calls this).
    ///
    /// # Errors
    /// As [`Region::flush`].
    pub fn run_requested_flush(&self) -> Result<u64> {
        self.inner.flush_requested.store(false, Ordering::SeqCst);
        if self.inner.closed.load(Ordering::SeqCst) {
            return Ok(0);
        }
        let r = self.flush();
        if r.is_ok() {
            self.request_compaction();
        }
        r
    }

    /// Asks for a compaction check of every store: queued on the background pool (merged
    /// with a pending request), or skipped without a pool (writers over the blocking file
    /// count compact inline).
    pub fn request_compaction(&self) {
        if self.inner.compaction_requested.swap(true, Ordering::SeqCst) {
            return;
        }
        match &self.inner.config.background {
            Some(bg) => bg.submit(Job::Compact(self.clone())),
            None => self
                .inner
                .compaction_requested
                .store(false, Ordering::SeqCst),
        }
    }

    /// Runs a requested compaction check (the background pool calls this): minor compactions
    /// the policy selects, periodic majors when due, then moves of files whose volume no
    /// longer matches their placement (windows that aged, a changed storage policy).
    ///
    /// # Errors
    /// As [`Region::compact`] and [`Region::move_tiers`].
    pub fn run_requested_compaction(&self) -> Result<()> {
        self.inner
            .compaction_requested
            .store(false, Ordering::SeqCst);
        if self.inner.closed.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.compact(crate::compaction::exploring::MajorRequest::None)?;
        self.move_tiers().map(|_| ())
    }

    /// Asks for the tier moves [`Region::tier_moves_due`] finds, if any: queued on the
    /// background pool, or run now without one. Returns whether this call asked: not when
    /// none is due, nor while an earlier request is queued or running (its run moves what is
    /// due; a later check asks again for what it left). When none is due, nothing is queued
    /// and no store is touched, so a periodic check of idle regions costs a walk of their file
    /// lists ([`crate::tier_check::TierChecker`]).
    pub fn request_tier_moves(&self) -> bool {
        if !self.tier_moves_due() {
            return false;
        }
        if self.inner.tier_moves_requested.swap(true, Ordering::SeqCst) {
            return false;
        }
        match &self.inner.config.background {
            Some(bg) => bg.submit(Job::MoveTiers(self.clone())),
            None => {
                // A failure is logged by the mover; the next check asks again.
                let _ = self.run_requested_tier_moves();
            }
        }
        true
    }

    /// Runs requested tier moves (the background pool calls this); returns how many files
    /// moved.
    ///
    /// # Errors
    /// As [`Region::move_tiers`].
    pub fn run_requested_tier_moves(&self) -> Result<usize> {
        // The request stands until its run ends (also by an error or a panic), so checks
        // meanwhile queue no second run of the same moves.
        struct Done<'a>(&'a AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::SeqCst);
            }
        }
        let _done = Done(&self.inner.tier_moves_requested);
        if self.inner.closed.load(Ordering::SeqCst) {
            return Ok(0);
        }
        self.move_tiers()
    }

    /// Runs the in-memory compaction a seal of `family`'s active segment asked for (the
    /// background pool calls this), then reports the memtable's new size to the budget.
    pub fn compact_in_memory(&self, family: &[u8]) {
        if self.inner.closed.load(Ordering::SeqCst) {
            return;
        }
        if let Some(store) = self.inner.stores.get(family) {
            store.memtable.compact_after_seal();
            self.account_memory();
        }
    }

    /// Reports the memtables' size change to the budget.
    pub(crate) fn account_memory(&self) {
        let Some(budget) = &self.inner.config.budget else {
            return;
        };
        let now = if self.inner.closed.load(Ordering::SeqCst) {
            0
        } else {
            self.memtable_bytes()
        };
        let before = self.inner.accounted.swap(now, Ordering::SeqCst);
        if now > before {
            if budget.add(now - before) {
                budget.relieve();
            }
        } else {
            budget.release(before - now);
        }
    }

    /// After a write: flush when the memtables passed the flush size.
    pub(crate) fn after_write(&self) {
        self.account_memory();
        if self.needs_flush() {
            self.request_flush();
        }
    }

    /// Before a write: while the process is over its memtable budget, wait (bounded) for
    /// flushes to free memory.
    pub(crate) fn throttle(&self) {
        if let Some(budget) = &self.inner.config.budget {
            if budget.used() > budget.limit() {
                budget.relieve();
                budget.wait_below_limit(std::time::Duration::from_secs(10));
            }
        }
    }

    fn check_open(&self) -> Result<()> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(Error::Closed(self.inner.config.info.region_id));
        }
        Ok(())
    }
}
