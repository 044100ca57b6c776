//! A region server's own figures for the admin service's `status` (the shell's `status`):
//! read live from the engine, as HBase's `ServerMetrics` are.

use std::sync::atomic::Ordering;

use strata_proto::pb;
use strata_server::RegionServer;

/// The figures of `host`, which holds `regions` open regions by the records.
pub fn live(host: &RegionServer, regions: u32) -> pb::ServerStatus {
    let cache = host.block_cache().map(|c| c.stats()).unwrap_or_default();
    let work = host.work_done();
    let rows = host.row_cache_stats();
    pb::ServerStatus {
        address: host.config().advertised_address.clone(),
        regions,
        requests: host.counters().requests.load(Ordering::Relaxed),
        memtable_bytes: host.budget().used(),
        memtable_limit: host.budget().limit(),
        block_cache_bytes: cache.used,
        block_cache_hits: cache.data_hits + cache.meta_hits,
        block_cache_misses: cache.data_misses + cache.meta_misses,
        wal_bytes: host.wal().stats().bytes,
        uptime_ms: u64::try_from(host.uptime().as_millis()).unwrap_or(u64::MAX),
        flushes: work.flushes,
        compactions: work.compactions,
        flushed_bytes: work.flushed_bytes,
        compacted_bytes: work.compacted_bytes,
        files_read: work.files_read,
        files_skipped_time_range: work.files_skipped_time_range,
        files_skipped_bloom: work.files_skipped_bloom,
        splits: 0,
        row_cache_hits: rows.hits,
        row_cache_misses: rows.misses,
        row_cache_evictions: rows.evictions,
        row_cache_invalidations: rows.invalidations,
        row_cache_bytes: rows.bytes,
        row_cache_entries: rows.entries,
    }
}
