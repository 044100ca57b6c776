//! The recent flushes and compactions of the process (successes and failures), newest
//! last, for the web UI's history page: a bounded ring, so memory stays flat however long
//! the server runs.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Work;

/// Entries kept.
pub const CAPACITY: usize = 256;

/// One flush or compaction of one store (or a failed attempt).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkRecord {
    /// When it finished, ms since the Unix epoch.
    pub finished_ms: i64,
    /// Flush or compaction (or another kind, for failures).
    pub work: Work,
    /// The region's table.
    pub table: String,
    /// The region.
    pub region: u64,
    /// The family; empty when the failure concerned the whole region.
    pub family: String,
    /// A major compaction.
    pub major: bool,
    /// Files read (compactions) and written.
    pub files_in: usize,
    /// Files written.
    pub files_out: usize,
    /// Bytes read (compactions: the inputs; flushes: 0).
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
    /// How long it took (0 when unknown).
    pub duration: Duration,
    /// The error, for a failure.
    pub error: Option<String>,
}

static HISTORY: Mutex<VecDeque<WorkRecord>> = Mutex::new(VecDeque::new());

/// Wall-clock now, ms since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Adds a record, dropping the oldest beyond [`CAPACITY`]. A success is also logged at debug
/// level (failures are logged where they happen, see [`super::failed`]).
pub fn record(r: WorkRecord) {
    if r.error.is_none() {
        tracing::debug!(
            table = %r.table,
            region = r.region,
            family = %r.family,
            major = r.major,
            files_in = r.files_in,
            files_out = r.files_out,
            bytes_in = r.bytes_in,
            bytes_out = r.bytes_out,
            ms = r.duration.as_millis() as u64,
            "{} done",
            r.work.name()
        );
    }
    let mut h = HISTORY.lock().unwrap_or_else(|e| e.into_inner());
    if h.len() == CAPACITY {
        h.pop_front();
    }
    h.push_back(r);
}

/// The records kept, oldest first.
pub fn history() -> Vec<WorkRecord> {
    let h = HISTORY.lock().unwrap_or_else(|e| e.into_inner());
    h.iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_capacity_records() {
        let base = history().len();
        for i in 0..CAPACITY + 5 {
            record(WorkRecord {
                finished_ms: i as i64,
                work: Work::Flush,
                table: "history_test".into(),
                region: i as u64,
                family: "f".into(),
                major: false,
                files_in: 0,
                files_out: 1,
                bytes_in: 0,
                bytes_out: 10,
                duration: Duration::ZERO,
                error: None,
            });
        }
        let h = history();
        assert_eq!(h.len(), CAPACITY);
        assert!(base <= CAPACITY);
        // Oldest first; other tests of the process may record too, so look at this test's.
        let mine: Vec<u64> = h
            .iter()
            .filter(|r| r.table == "history_test")
            .map(|r| r.region)
            .collect();
        assert!(mine.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(mine.last(), Some(&((CAPACITY + 4) as u64)));
        assert!(!mine.contains(&0), "the oldest records were dropped");
    }
}
