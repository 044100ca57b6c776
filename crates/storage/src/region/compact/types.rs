//! The compactor's settings, reports and counters.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use bytes::Bytes;

use crate::compaction::exploring::ExploringConfig;
use crate::read::DroppedCells;

/// How a region compacts and throttles. Settings, not components: plain data with defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompactionOptions {
    /// The exploring policy's settings: the policy of EXPLORING families and the per-window
    /// policy of DATE_TIERED ones (whose incoming window uses the family's own minimum). Its
    /// `blocking_file_count` also throttles writers, and its `major.ttl_ms` is replaced by
    /// each family's TTL.
    pub exploring: ExploringConfig,
    /// HBase's `hbase.hstore.blockingWaitTime`: how long a write waits for compactions while
    /// a store has more than `blocking_file_count` files, before going ahead anyway. Default
    /// 90 s.
    pub blocking_wait: Duration,
    /// The pressure-aware limit on compaction write rate.
    pub throughput: crate::compaction::throughput::ThroughputConfig,
    /// Date-tiered: the most a region delays compacting a just-ended incoming window, as a
    /// fraction of the base window (each region its own delay; see
    /// `compaction::date_tiered::promotion_delay`). Default 0.05.
    pub window_promotion_jitter: f64,
}

impl Default for CompactionOptions {
    fn default() -> Self {
        CompactionOptions {
            exploring: ExploringConfig::default(),
            blocking_wait: Duration::from_secs(90),
            throughput: Default::default(),
            window_promotion_jitter: 0.05,
        }
    }
}

/// What one compaction of one store did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactionReport {
    /// The family.
    pub family: Bytes,
    /// A major compaction: all files, delete markers dropped (unless KEEP_DELETED_CELLS).
    pub major: bool,
    /// The inputs included split references, now rewritten into a real file.
    pub after_split: bool,
    /// Input file names, oldest first.
    pub inputs: Vec<String>,
    /// The first output file, or `None` when nothing was left to keep (or the inputs were
    /// dropped whole).
    pub output: Option<String>,
    /// Every output file, oldest window first: one per date-tiered window that received
    /// cells, otherwise at most one.
    pub outputs: Vec<String>,
    /// The inputs were wholly past the TTL and were removed without being read.
    pub dropped_expired: bool,
    /// Bytes of the inputs (a reference counts its parent file's bytes).
    pub bytes_in: u64,
    /// Bytes of the outputs.
    pub bytes_out: u64,
    /// Cells read.
    pub cells_in: u64,
    /// Cells written.
    pub cells_out: u64,
    /// Cells left out, by reason.
    pub dropped: DroppedCells,
}

/// Counters of a region's compactions and write throttling.
#[derive(Debug, Default)]
pub struct CompactionCounters {
    /// Compactions completed.
    pub compactions: AtomicU64,
    /// Of which major.
    pub majors: AtomicU64,
    /// Bytes of store files written by compactions.
    pub bytes_written: AtomicU64,
    /// Milliseconds compactions paused to stay under the throughput limit.
    pub throttled_ms: AtomicU64,
    /// Writes that waited because a store had too many files.
    pub writes_delayed: AtomicU64,
    /// Of which went ahead after `blocking_wait` with the store still over the limit.
    pub writes_delay_timeouts: AtomicU64,
    /// Store files moved to another volume without a rewrite ([`crate::Region::move_tiers`]).
    pub files_moved: AtomicU64,
}
