//! Counters for metrics. Mean group size is `batched_entries / writes`.

use std::sync::atomic::{AtomicU64, Ordering};

/// A snapshot of a [`Wal`](super::Wal)'s counters since it was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalStats {
    /// Live segment files, the active one included.
    pub segments: u64,
    /// Bytes in live segment files.
    pub bytes: u64,
    /// Entries accepted for logging (`SKIP_WAL` entries are not counted).
    pub appends: u64,
    /// Entries refused the log by `SKIP_WAL`.
    pub skipped_appends: u64,
    /// Batches written with one `write` each (group commits).
    pub writes: u64,
    /// `fdatasync` calls, segment rolls included.
    pub syncs: u64,
    /// Entries written by successful batches; `batched_entries / writes` is the mean group.
    pub batched_entries: u64,
    /// Entries in the largest batch.
    pub max_batch_entries: u64,
    /// Batches whose write or sync failed; every appender waiting on one got the error.
    pub failed_batches: u64,
    /// Entries in failed batches (`ASYNC_WAL` ones among them are lost).
    pub failed_entries: u64,
    /// New segments started (not counting the one started on open).
    pub rolls: u64,
    /// Obsolete segment files deleted.
    pub deleted_segments: u64,
    /// Bad stretches skipped on open under `skip_corrupt`.
    pub corrupt_skipped: u64,
    /// Bytes of torn tail cut off on open.
    pub truncated_bytes: u64,
}

/// The live counters behind [`WalStats`]; relaxed atomics, as they order nothing.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub appends: AtomicU64,
    pub skipped_appends: AtomicU64,
    pub writes: AtomicU64,
    pub syncs: AtomicU64,
    pub batched_entries: AtomicU64,
    pub max_batch_entries: AtomicU64,
    pub failed_batches: AtomicU64,
    pub failed_entries: AtomicU64,
    pub rolls: AtomicU64,
    pub deleted_segments: AtomicU64,
    pub corrupt_skipped: AtomicU64,
    pub truncated_bytes: AtomicU64,
}

impl Counters {
    /// Adds `n` to `counter`.
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts a successful batch of `entries`.
    pub fn batch_written(&self, entries: u64) {
        Self::add(&self.writes, 1);
        Self::add(&self.batched_entries, entries);
        self.max_batch_entries.fetch_max(entries, Ordering::Relaxed);
    }

    /// A snapshot, with the segment figures filled in by the caller.
    pub fn snapshot(&self, segments: u64, bytes: u64) -> WalStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        WalStats {
            segments,
            bytes,
            appends: get(&self.appends),
            skipped_appends: get(&self.skipped_appends),
            writes: get(&self.writes),
            syncs: get(&self.syncs),
            batched_entries: get(&self.batched_entries),
            max_batch_entries: get(&self.max_batch_entries),
            failed_batches: get(&self.failed_batches),
            failed_entries: get(&self.failed_entries),
            rolls: get(&self.rolls),
            deleted_segments: get(&self.deleted_segments),
            corrupt_skipped: get(&self.corrupt_skipped),
            truncated_bytes: get(&self.truncated_bytes),
        }
    }
}
