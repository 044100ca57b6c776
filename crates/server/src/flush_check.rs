//! The periodic flush check: flushes that neither a memtable's size nor the memory budget
//! would ever ask for.
//!
//! - **By age** (HBase's `hbase.regionserver.optionalcacheflushinterval`, default one hour):
//!   a region whose oldest edit still only in memory is older than [`FlushCheck::max_edit_age`]
//!   is flushed. A region written a little and then left alone would otherwise keep its edits
//!   in memory until the server stops, every WAL segment from its first edit on alive, and its
//!   edits to replay after a crash.
//! - **By WAL size** (HBase's `hbase.regionserver.maxlogs`, default 32): when the server's WAL
//!   has more than [`FlushCheck::max_wal_segments`] segment files, the regions whose unflushed
//!   edits keep the oldest of them alive are flushed, so the WAL (and a crash's replay, or a
//!   dead server's WAL split in a cluster) stays bounded whatever the mix of busy and idle
//!   regions.
//!
//! - **Idle memtables** (no HBase setting): every [`FlushCheck::idle_merge_after`], a region
//!   that took no write since the previous look has each memtable merged into one flat
//!   segment (`Region::merge_memtables_if_idle`; an index merge, no cell copied), so the reads
//!   that follow search one index instead of one per segment (RFC 0013, Decision 20). A
//!   region left to readers is merged one to two of these intervals after its last write.
//!
//! A round reads a few atomics per region and the WAL's segment map; flushes go to the
//! background pool as any other requested flush (merged with one already queued); idle merges
//! run on the check's thread, which wakes at the shorter of the two intervals.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use strata_storage::wal::Wal;
use strata_storage::Region;

/// When the server flushes regions on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlushCheck {
    /// Time between rounds; zero turns the check off. Default 10 s (HBase's
    /// `hbase.server.thread.wakefrequency`).
    pub every: Duration,
    /// A region whose oldest unflushed edit is older than this is flushed; zero: never by age.
    /// Default one hour, as HBase.
    pub max_edit_age: Duration,
    /// Past this many WAL segment files, the regions holding the oldest ones are flushed;
    /// zero: never by WAL size. Default 32, as HBase (with 64 MiB segments: 2 GiB of WAL).
    pub max_wal_segments: usize,
    /// Time between looks for idle regions to merge (see the module docs); zero: never.
    /// Default 2 s.
    pub idle_merge_after: Duration,
}

impl FlushCheck {
    /// True when flushes by age or WAL size are checked.
    pub fn flushes(&self) -> bool {
        !self.every.is_zero() && (!self.max_edit_age.is_zero() || self.max_wal_segments > 0)
    }

    /// How often the check's thread wakes: the shorter of the two intervals in use, `None`
    /// when neither is.
    pub fn tick(&self) -> Option<Duration> {
        let flush = self.flushes().then_some(self.every);
        let idle = (!self.idle_merge_after.is_zero()).then_some(self.idle_merge_after);
        match (flush, idle) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

impl Default for FlushCheck {
    fn default() -> FlushCheck {
        FlushCheck {
            every: Duration::from_secs(10),
            max_edit_age: Duration::from_secs(3600),
            max_wal_segments: 32,
            idle_merge_after: Duration::from_secs(2),
        }
    }
}

/// What the checks did since the server started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlushCheckStats {
    /// Rounds run.
    pub rounds: u64,
    /// Flushes requested because a region's oldest edit passed the age limit.
    pub by_age: u64,
    /// Flushes requested because a region held WAL segments past the limit.
    pub by_wal: u64,
    /// Idle regions whose memtables were merged into one flat segment each.
    pub idle_merges: u64,
}

/// The counters behind [`FlushCheckStats`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    rounds: AtomicU64,
    by_age: AtomicU64,
    by_wal: AtomicU64,
    idle_merges: AtomicU64,
}

impl Counters {
    pub(crate) fn stats(&self) -> FlushCheckStats {
        FlushCheckStats {
            rounds: self.rounds.load(Ordering::Relaxed),
            by_age: self.by_age.load(Ordering::Relaxed),
            by_wal: self.by_wal.load(Ordering::Relaxed),
            idle_merges: self.idle_merges.load(Ordering::Relaxed),
        }
    }
}

/// One round over `regions` (the server's open regions) and their `wal`, at `now_ms` on the
/// regions' clock: requests the flushes due and counts them in `counters` (a region due for
/// both reasons is counted once, by age). Returns the regions asked to flush.
pub(crate) fn round(
    check: &FlushCheck,
    regions: &[Region],
    wal: &Wal,
    now_ms: i64,
    counters: &Counters,
) -> Vec<u64> {
    let max_age = i64::try_from(check.max_edit_age.as_millis()).unwrap_or(i64::MAX);
    let mut requested = Vec::new();
    if max_age > 0 {
        for region in regions {
            let due = region
                .oldest_unflushed_edit_ms()
                .is_some_and(|oldest| now_ms.saturating_sub(oldest) >= max_age);
            if due {
                region.request_flush();
                requested.push(region.info().region_id);
            }
        }
    }
    let by_age = requested.len();
    if check.max_wal_segments > 0 {
        let holding = wal.regions_holding_oldest(check.max_wal_segments);
        for region in regions {
            let id = region.info().region_id;
            if holding.binary_search(&id).is_ok() && !requested.contains(&id) {
                region.request_flush();
                requested.push(id);
            }
        }
    }
    let by_wal = requested.len() - by_age;
    if !requested.is_empty() {
        tracing::info!(
            by_age,
            by_wal,
            regions = ?requested,
            "flush check: flushing regions whose edits aged past {:?} or hold WAL segments \
             past {}",
            check.max_edit_age,
            check.max_wal_segments
        );
    }
    counters.by_age.fetch_add(by_age as u64, Ordering::Relaxed);
    counters.by_wal.fetch_add(by_wal as u64, Ordering::Relaxed);
    counters.rounds.fetch_add(1, Ordering::Relaxed);
    requested
}

/// Merges the memtables of the `regions` idle since the previous look, except those in
/// `flushing` (just asked to flush: their write mark may be unchanged, but their memtables
/// are about to go to disk); counts them in `counters`.
pub(crate) fn merge_idle(regions: &[Region], flushing: &[u64], counters: &Counters) {
    let mut merged = 0u64;
    for region in regions {
        if !flushing.contains(&region.info().region_id) && region.merge_memtables_if_idle() {
            merged += 1;
        }
    }
    if merged > 0 {
        tracing::debug!(regions = merged, "flush check: merged idle memtables");
    }
    counters.idle_merges.fetch_add(merged, Ordering::Relaxed);
}
