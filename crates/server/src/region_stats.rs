//! What a region server counts: the sizes of one region ([`RegionStats`], for split
//! decisions, `status` and HBase's region metrics), the whole server's request and split
//! counters ([`ServerCounters`]) and the flush, compaction and read work summed over regions
//! ([`WorkDone`]).

use std::sync::atomic::{AtomicU64, Ordering};

use strata_storage::Region;

use crate::host::HostedRegion;

/// Sizes of one region, for split decisions and `status`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegionStats {
    /// Bytes of store files, all families.
    pub store_bytes: u64,
    /// Bytes of the largest family's store files (what the split size is compared with).
    pub largest_store_bytes: u64,
    /// Memtable bytes.
    pub memtable_bytes: u64,
    /// Store files.
    pub store_files: u32,
    /// Some store still reads a split parent's file.
    pub has_references: bool,
    /// When the oldest file a major compaction wrote was written, ms since the epoch (0:
    /// none): HBase's last major compaction time of a region (`getOldestHfileTs(true)`).
    pub last_major_compaction_ms: u64,
}

impl RegionStats {
    /// The sizes of `hosted`, from its stores.
    pub fn of(hosted: &HostedRegion) -> RegionStats {
        let stores = hosted.region.store_stats();
        RegionStats {
            store_bytes: stores.iter().map(|s| s.file_bytes).sum(),
            largest_store_bytes: stores.iter().map(|s| s.file_bytes).max().unwrap_or(0),
            memtable_bytes: stores.iter().map(|s| s.memtable_bytes).sum(),
            store_files: stores.iter().map(|s| s.files as u32).sum(),
            has_references: hosted.region.has_references(),
            last_major_compaction_ms: stores
                .iter()
                .filter_map(|s| s.oldest_major_ms)
                .min()
                .map_or(0, |ms| u64::try_from(ms).unwrap_or(0)),
        }
    }
}

/// What HBase's `RegionLoad` reports of one region: its sizes, and the requests it served
/// since it opened on this server (the hosted region's counts, row-cache hits included: RFC
/// 0028). Published for the cluster with each load report (RFC 0017) and answered through
/// HBase RPC's `GetRegionLoad` and `GetClusterStatus` (RFC 0014).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionFigures {
    /// Stores (column families).
    pub stores: u32,
    /// Store files, all stores.
    pub store_files: u32,
    /// Bytes of store files.
    pub store_bytes: u64,
    /// Bytes in memtables.
    pub memtable_bytes: u64,
    /// Reads since the region opened on its server.
    pub reads: u64,
    /// Writes since the region opened on its server.
    pub writes: u64,
    /// When its oldest major-compacted file was written, ms since the epoch (0: none).
    pub last_major_compaction_ms: u64,
}

impl RegionFigures {
    /// The figures of `hosted` now.
    pub fn of(hosted: &HostedRegion) -> RegionFigures {
        let stats = RegionStats::of(hosted);
        RegionFigures {
            stores: u32::try_from(hosted.table.families.len()).unwrap_or(u32::MAX),
            store_files: stats.store_files,
            store_bytes: stats.store_bytes,
            memtable_bytes: stats.memtable_bytes,
            reads: hosted.load.reads(),
            writes: hosted.load.writes(),
            last_major_compaction_ms: stats.last_major_compaction_ms,
        }
    }
}

/// Counters of the whole server.
#[derive(Debug, Default)]
pub struct ServerCounters {
    /// Requests served (data service).
    pub requests: AtomicU64,
    /// Splits completed.
    pub splits: AtomicU64,
    /// Splits the upkeep requested because of a region's load, completed.
    pub load_splits: AtomicU64,
    /// Single-row writes applied in place on a request thread (`Region::try_mutate_row_now`).
    pub writes_in_place: AtomicU64,
    /// Single-row writes that went through a region's write queue instead.
    pub writes_queued: AtomicU64,
    /// Work of regions no longer open here (open regions count their own).
    pub retired: parking_lot::Mutex<WorkDone>,
}

/// Flush, compaction and read work, summed over regions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkDone {
    /// Flushes completed.
    pub flushes: u64,
    /// Compactions completed.
    pub compactions: u64,
    /// Bytes of store files written by flushes.
    pub flushed_bytes: u64,
    /// Bytes of store files written by compactions.
    pub compacted_bytes: u64,
    /// Store files reads opened.
    pub files_read: u64,
    /// Store files reads skipped because their time range missed the read's.
    pub files_skipped_time_range: u64,
    /// Store files gets skipped because their bloom filter ruled the row or column out.
    pub files_skipped_bloom: u64,
}

impl WorkDone {
    pub(crate) fn of(region: &Region) -> WorkDone {
        let c = region.counters();
        let k = region.compaction_counters();
        WorkDone {
            flushes: c.flushes.load(Ordering::Relaxed),
            compactions: k.compactions.load(Ordering::Relaxed),
            flushed_bytes: c.flushed_bytes.load(Ordering::Relaxed),
            compacted_bytes: k.bytes_written.load(Ordering::Relaxed),
            files_read: c.files_read.load(Ordering::Relaxed),
            files_skipped_time_range: c.files_skipped_time_range.load(Ordering::Relaxed),
            files_skipped_bloom: c.files_skipped_bloom.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn add(&mut self, other: WorkDone) {
        self.flushes += other.flushes;
        self.compactions += other.compactions;
        self.flushed_bytes += other.flushed_bytes;
        self.compacted_bytes += other.compacted_bytes;
        self.files_read += other.files_read;
        self.files_skipped_time_range += other.files_skipped_time_range;
        self.files_skipped_bloom += other.files_skipped_bloom;
    }
}
