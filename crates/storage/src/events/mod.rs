//! Failures of background work (flush, compaction, tier move, WAL roll, split, region open
//! and close), logged once where they happen with their region, family and file, and counted
//! per kind for `/metrics`.
//!
//! Callers log at the place that knows the family; the error then travels up unchanged and
//! is not logged again (the background pool only counts it).
//!
//! Thread safety: the counters are process-wide atomics, so every region server of a process
//! adds to the same figures (one server per process in deployment).

mod histogram;
pub mod history;

use std::sync::atomic::{AtomicU64, Ordering};

pub use histogram::{Histogram, Snapshot, BOUNDS_SECONDS};

use crate::error::{Error, ErrorKind};

/// Latency of the WAL's `fdatasync` calls (group commits, rolls, new segments),
/// process-wide.
pub static WAL_SYNC_SECONDS: Histogram = Histogram::new();

/// Runs one WAL sync and records its latency in [`WAL_SYNC_SECONDS`].
pub(crate) fn timed_wal_sync<T>(sync: impl FnOnce() -> T) -> T {
    let started = std::time::Instant::now();
    let result = sync();
    WAL_SYNC_SECONDS.record(started.elapsed());
    result
}

/// The kinds of background work whose failures are logged and counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Writing memtables to store files.
    Flush,
    /// Rewriting store files (minor or major).
    Compaction,
    /// Moving a store file to another volume.
    TierMove,
    /// Appending, syncing or rolling the write-ahead log, or deleting its old segments.
    Wal,
    /// Splitting or merging regions.
    Split,
    /// Opening a region (including WAL replay).
    RegionOpen,
    /// Closing a region (its final flush).
    RegionClose,
}

impl Work {
    /// Every kind, in the order of [`Work::index`].
    pub const ALL: [Work; 7] = [
        Work::Flush,
        Work::Compaction,
        Work::TierMove,
        Work::Wal,
        Work::Split,
        Work::RegionOpen,
        Work::RegionClose,
    ];

    /// The label used in logs and metrics.
    pub fn name(self) -> &'static str {
        match self {
            Work::Flush => "flush",
            Work::Compaction => "compaction",
            Work::TierMove => "tier_move",
            Work::Wal => "wal",
            Work::Split => "split",
            Work::RegionOpen => "region_open",
            Work::RegionClose => "region_close",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

static FAILURES: [AtomicU64; 7] = [const { AtomicU64::new(0) }; 7];
static CORRUPTIONS: AtomicU64 = AtomicU64::new(0);

/// Failures of `work` since the process started.
pub fn failures(work: Work) -> u64 {
    FAILURES[work.index()].load(Ordering::Relaxed)
}

/// Damaged files (store files, WAL segments, manifests) found since the process started.
pub fn corruptions() -> u64 {
    CORRUPTIONS.load(Ordering::Relaxed)
}

/// Where a failure happened: the table, region and family (any may be unknown).
#[derive(Clone, Copy, Debug, Default)]
pub struct Place<'a> {
    /// The table.
    pub table: &'a str,
    /// The region id (0: none, e.g. the WAL).
    pub region: u64,
    /// The column family, if the work was one family's.
    pub family: Option<&'a [u8]>,
}

/// Logs and counts a failure of `work` at `place`; a damaged file is also logged as found
/// corruption.
pub fn failed(work: Work, place: Place<'_>, error: &Error) {
    FAILURES[work.index()].fetch_add(1, Ordering::Relaxed);
    let family = place.family.map(String::from_utf8_lossy);
    let family = family.as_deref().unwrap_or("");
    let file = file_of(error).unwrap_or("");
    history::record(history::WorkRecord {
        finished_ms: history::now_ms(),
        work,
        table: place.table.to_string(),
        region: place.region,
        family: family.to_string(),
        major: false,
        files_in: 0,
        files_out: 0,
        bytes_in: 0,
        bytes_out: 0,
        duration: std::time::Duration::ZERO,
        error: Some(if file.is_empty() {
            error.to_string()
        } else {
            format!("{error} ({file})")
        }),
    });
    if error.kind() == ErrorKind::Data {
        CORRUPTIONS.fetch_add(1, Ordering::Relaxed);
        tracing::error!(
            work = work.name(),
            table = place.table,
            region = place.region,
            family,
            file,
            %error,
            "corruption found"
        );
    } else {
        tracing::error!(
            work = work.name(),
            table = place.table,
            region = place.region,
            family,
            file,
            %error,
            "{} failed",
            work.name()
        );
    }
}

/// Logs and counts a WAL failure (no region: the log is the server's).
pub fn wal_failed(error: &crate::wal::Error) {
    FAILURES[Work::Wal.index()].fetch_add(1, Ordering::Relaxed);
    let file = wal_file(error).unwrap_or("");
    tracing::error!(work = "wal", file, %error, "wal failed");
}

/// The file an error names, if any.
pub fn file_of(error: &Error) -> Option<&str> {
    match error {
        Error::Io { path, .. } => Some(path),
        Error::Sstable(
            strata_sstable::Error::Io { file, .. } | strata_sstable::Error::Corruption { file, .. },
        ) => Some(file),
        Error::Wal(e) => wal_file(e),
        Error::Manifest(
            crate::manifest::Error::Io { file, .. }
            | crate::manifest::Error::Corruption { file, .. }
            | crate::manifest::Error::UnsupportedVersion { file, .. }
            | crate::manifest::Error::AlreadyExists { file },
        ) => Some(file),
        _ => None,
    }
}

fn wal_file(error: &crate::wal::Error) -> Option<&str> {
    match error {
        crate::wal::Error::Io { file, .. } | crate::wal::Error::Corruption { file, .. } => {
            Some(file)
        }
        _ => None,
    }
}

impl crate::region::Region {
    /// Logs and counts a failure of `work` on this region (and `family`, if one family's).
    pub(crate) fn log_failure(&self, work: Work, family: Option<&[u8]>, error: &Error) {
        let info = self.info();
        failed(
            work,
            Place {
                table: &info.table,
                region: info.region_id,
                family,
            },
            error,
        );
    }
}
