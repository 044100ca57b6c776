//! What clients ask of this server, for `/metrics` and the web UI: request counts, errors and
//! latency histograms per operation and table, the slow-operation log (HBase's
//! `responseTooSlow`), and each table's key-access heatmap (Bigtable's Key Visualizer).
//!
//! The data service starts a [`Call`] per request and finishes it with the outcome: one
//! read-locked map lookup (no allocation) at the start, then relaxed atomic adds and one
//! short mutex hold for the heatmap at the end.
//!
//! Cardinality stays bounded: at most [`MAX_TABLES`] tables get their own figures, later ones
//! share the table label [`OTHER_TABLES`]; rows never become labels.
//!
//! Thread safety: all methods take `&self`. Lock order: `tables` before a table's heatmap
//! (never both held while recording: the map lock is released before the heatmap's is taken).

mod heatmap;
mod slow;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};
use strata_storage::events::{Histogram, Snapshot};

pub use heatmap::{Heatmap, HeatmapView};
pub use slow::{SlowOp, SlowOps};

/// Most tables with figures of their own.
pub const MAX_TABLES: usize = 256;

/// The table label shared by tables beyond [`MAX_TABLES`].
pub const OTHER_TABLES: &str = "_other";

/// Most tables with a key-access heatmap (the first ones to receive requests): a heatmap
/// holds at most `COLUMNS × KEYS_PER_COLUMN` (60 × 128) counted prefixes, about 0.7 MB.
pub const MAX_HEATMAPS: usize = 32;

/// A data-service operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A single-row get.
    Get,
    /// Gets of several rows.
    MultiGet,
    /// A single-row mutation.
    Mutate,
    /// Mutations of several rows.
    Batch,
    /// A conditional mutation.
    CheckAndMutate,
    /// A page of a scan.
    Scan,
}

impl Op {
    /// Every operation, in label order.
    pub const ALL: [Op; 6] = [
        Op::Get,
        Op::MultiGet,
        Op::Mutate,
        Op::Batch,
        Op::CheckAndMutate,
        Op::Scan,
    ];

    /// The metric label.
    pub fn name(self) -> &'static str {
        match self {
            Op::Get => "get",
            Op::MultiGet => "multi_get",
            Op::Mutate => "mutate",
            Op::Batch => "batch",
            Op::CheckAndMutate => "check_and_mutate",
            Op::Scan => "scan",
        }
    }

    /// True for operations that write.
    pub fn writes(self) -> bool {
        matches!(self, Op::Mutate | Op::Batch | Op::CheckAndMutate)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One operation's figures on one table.
#[derive(Debug, Default)]
pub struct OpStats {
    /// Latency of every request, failed ones included.
    pub latency: Histogram,
    /// Requests that failed.
    pub errors: AtomicU64,
}

/// One table's request figures.
#[derive(Debug)]
pub struct TableActivity {
    name: String,
    ops: [OpStats; 6],
    /// `None` beyond [`MAX_HEATMAPS`].
    heatmap: Option<Mutex<Heatmap>>,
}

impl TableActivity {
    /// The table's name (or [`OTHER_TABLES`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The figures of `op`.
    pub fn op(&self, op: Op) -> &OpStats {
        &self.ops[op.index()]
    }

    /// Requests of every operation so far.
    pub fn requests(&self) -> u64 {
        self.ops.iter().map(|o| o.latency.snapshot().count).sum()
    }

    /// The key-access heatmap's figures now (`None`: the table has no heatmap, being beyond
    /// [`MAX_HEATMAPS`]).
    pub fn heatmap(&self, now: Instant) -> Option<HeatmapView> {
        self.heatmap.as_ref().map(|h| h.lock().view(now))
    }

    /// Counts an access to each of `rows` now (for requests that touch several rows), under
    /// one lock of the heatmap; a request of many rows counts a sample of them standing for
    /// all ([`Heatmap::touch_rows`]).
    pub fn touch<'a>(&self, rows: impl IntoIterator<Item = &'a [u8]>, write: bool, now: Instant) {
        if let Some(h) = &self.heatmap {
            h.lock().touch_rows(rows.into_iter(), write, now);
        }
    }
}

/// Requests in flight to the data service, finished with [`Observer::finish`].
#[derive(Debug)]
#[must_use = "finish the call to record it"]
pub struct Call {
    op: Op,
    table: Arc<TableActivity>,
    row: Bytes,
    request_bytes: usize,
    started: Instant,
}

impl Call {
    /// The activity of the call's table.
    pub fn table(&self) -> &TableActivity {
        &self.table
    }

    /// The activity of the call's table, to count what the call read after it finished (a
    /// scan page's rows).
    pub fn activity(&self) -> Arc<TableActivity> {
        self.table.clone()
    }
}

/// Request figures of a server.
#[derive(Debug)]
pub struct Observer {
    /// Off: requests are not recorded at all (to measure what recording costs).
    enabled: AtomicBool,
    /// The table every call of a disabled observer carries (never read).
    unrecorded: Arc<TableActivity>,
    tables: RwLock<HashMap<String, Arc<TableActivity>>>,
    slow: SlowOps,
    slow_threshold: Duration,
    heatmap_slot: Duration,
}

impl Observer {
    /// Figures that log requests slower than `slow_threshold` and keep heatmap columns of
    /// `heatmap_slot` each.
    pub fn new(slow_threshold: Duration, heatmap_slot: Duration) -> Observer {
        Observer {
            enabled: AtomicBool::new(true),
            unrecorded: Arc::new(TableActivity {
                name: String::new(),
                ops: Default::default(),
                heatmap: None,
            }),
            tables: RwLock::new(HashMap::new()),
            slow: SlowOps::new(slow::KEPT),
            slow_threshold,
            heatmap_slot: heatmap_slot.max(Duration::from_millis(10)),
        }
    }

    /// Turns recording of requests on or off (on by default). Off, `start` and `finish` do
    /// no more than read this flag and take the time: no latency, heatmap or slow-operation
    /// figures are kept (`strata standalone --no-request-metrics`, for measuring their cost).
    pub fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Ordering::Relaxed);
    }

    /// Whether requests are recorded.
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// The slow-operation threshold.
    pub fn slow_threshold(&self) -> Duration {
        self.slow_threshold
    }

    /// The width of a heatmap column.
    pub fn heatmap_slot(&self) -> Duration {
        self.heatmap_slot
    }

    /// Starts timing a request of `op` on `table` for `row` (the first row of a multi-row
    /// request; the start row of a scan) of `request_bytes` encoded bytes.
    pub fn start(&self, op: Op, table: &str, row: &Bytes, request_bytes: usize) -> Call {
        let table = if self.is_enabled() {
            self.table(table)
        } else {
            self.unrecorded.clone()
        };
        Call {
            op,
            table,
            row: row.clone(),
            request_bytes,
            started: Instant::now(),
        }
    }

    /// Records a finished request: its latency, its outcome, its row in the heatmap (not for
    /// a scan: see [`Call::activity`]), and a
    /// slow-operation entry (and log line) when it took longer than the threshold.
    pub fn finish(&self, call: Call, ok: bool) {
        if !self.is_enabled() {
            return;
        }
        let now = Instant::now();
        let elapsed = now.saturating_duration_since(call.started);
        let stats = call.table.op(call.op);
        stats.latency.record(elapsed);
        if !ok {
            stats.errors.fetch_add(1, Ordering::Relaxed);
        }
        // A scan page is credited to the rows it read, by its caller (`touch` after the
        // page): its first row alone would put a whole table's scan at the first keys.
        if call.op != Op::Scan {
            call.table.touch([&call.row[..]], call.op.writes(), now);
        }
        if elapsed >= self.slow_threshold {
            self.slow.push(SlowOp::new(
                call.op,
                call.table.name(),
                &call.row,
                call.request_bytes,
                elapsed,
                ok,
            ));
        }
    }

    /// Logs and keeps a request timed elsewhere (a front end that records only its slow
    /// calls, as the HBase RPC does) if it took at least the slow threshold; true if it did.
    /// The caller finds `table` and `row` only for such calls, after [`Observer::is_slow`].
    pub fn record_slow(
        &self,
        op: Op,
        table: &str,
        row: &[u8],
        request_bytes: usize,
        elapsed: Duration,
        ok: bool,
    ) -> bool {
        if !self.is_slow(elapsed) {
            return false;
        }
        self.slow
            .push(SlowOp::new(op, table, row, request_bytes, elapsed, ok));
        true
    }

    /// Whether a request that took `elapsed` is a slow one to record (recording on, at or
    /// past the threshold).
    pub fn is_slow(&self, elapsed: Duration) -> bool {
        self.is_enabled() && elapsed >= self.slow_threshold
    }

    /// The activity of `table` (created on first use; [`OTHER_TABLES`]'s beyond the cap).
    pub fn table(&self, table: &str) -> Arc<TableActivity> {
        if let Some(t) = self.tables.read().get(table) {
            return t.clone();
        }
        let mut tables = self.tables.write();
        let name = if tables.len() >= MAX_TABLES && !tables.contains_key(table) {
            OTHER_TABLES
        } else {
            table
        };
        let with_heatmap = tables.len() < MAX_HEATMAPS;
        tables
            .entry(name.to_owned())
            .or_insert_with(|| {
                Arc::new(TableActivity {
                    name: name.to_owned(),
                    ops: Default::default(),
                    heatmap: with_heatmap.then(|| Mutex::new(Heatmap::new(self.heatmap_slot))),
                })
            })
            .clone()
    }

    /// Every table with figures, by name.
    pub fn tables(&self) -> Vec<Arc<TableActivity>> {
        let mut v: Vec<_> = self.tables.read().values().cloned().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    /// The activity of `table` if it has figures.
    pub fn find(&self, table: &str) -> Option<Arc<TableActivity>> {
        self.tables.read().get(table).cloned()
    }

    /// The slow operations kept, newest first.
    pub fn slow_ops(&self) -> Vec<SlowOp> {
        self.slow.list()
    }

    /// Latency of `op` over every table.
    pub fn total(&self, op: Op) -> Snapshot {
        let mut total = Snapshot::default();
        for t in self.tables.read().values() {
            let s = t.op(op).latency.snapshot();
            if total.buckets.is_empty() {
                total.buckets = s.buckets.iter().map(|&(b, _)| (b, 0)).collect();
            }
            for (acc, (_, n)) in total.buckets.iter_mut().zip(&s.buckets) {
                acc.1 += n;
            }
            total.count += s.count;
            total.sum_seconds += s.sum_seconds;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disabled_observer_records_nothing() {
        let o = Observer::new(Duration::ZERO, Duration::from_secs(1));
        o.set_enabled(false);
        let row = Bytes::from_static(b"r");
        o.finish(o.start(Op::Get, "t1", &row, 10), false);
        assert!(o.tables().is_empty());
        assert!(o.slow_ops().is_empty());
        o.set_enabled(true);
        o.finish(o.start(Op::Get, "t1", &row, 10), true);
        assert_eq!(o.find("t1").map(|t| t.requests()), Some(1));
    }

    #[test]
    fn a_request_timed_elsewhere_is_kept_only_if_slow_and_recording_is_on() {
        let o = Observer::new(Duration::from_millis(50), Duration::from_secs(1));
        let fast = Duration::from_millis(49);
        let slow = Duration::from_millis(50);
        assert!(!o.record_slow(Op::Batch, "t", b"r", 10, fast, true));
        assert!(o.record_slow(Op::Batch, "t", b"r", 10, slow, false));
        o.set_enabled(false);
        assert!(!o.record_slow(Op::Get, "t", b"r", 10, slow, true));
        let kept = o.slow_ops();
        assert_eq!(kept.len(), 1);
        assert_eq!(
            (kept[0].op, kept[0].elapsed, kept[0].ok),
            (Op::Batch, slow, false)
        );
        // Only slow calls are recorded: no latency or table figures.
        assert!(o.tables().is_empty());
    }

    #[test]
    fn requests_are_counted_per_table_and_op_and_slow_ones_kept() {
        let o = Observer::new(Duration::ZERO, Duration::from_secs(1));
        let row = Bytes::from_static(b"row\x01");
        o.finish(o.start(Op::Get, "t1", &row, 10), true);
        o.finish(o.start(Op::Mutate, "t1", &row, 20), false);
        let t = o.find("t1").expect("t1 has figures");
        assert_eq!(t.op(Op::Get).latency.snapshot().count, 1);
        assert_eq!(t.op(Op::Mutate).errors.load(Ordering::Relaxed), 1);
        assert_eq!(t.requests(), 2);
        let slow = o.slow_ops();
        assert_eq!(slow.len(), 2);
        assert_eq!(slow[0].op, Op::Mutate);
        assert_eq!(slow[0].row, "row\\x01");
        assert!(!slow[0].ok);
    }

    #[test]
    fn tables_beyond_the_cap_share_one_label() {
        let o = Observer::new(Duration::from_secs(10), Duration::from_secs(1));
        let row = Bytes::new();
        for i in 0..MAX_TABLES + 5 {
            o.finish(o.start(Op::Get, &format!("t{i}"), &row, 0), true);
        }
        let tables = o.tables();
        assert_eq!(tables.len(), MAX_TABLES + 1);
        let other = o.find(OTHER_TABLES).expect("the shared label exists");
        assert_eq!(other.requests(), 5);
        let heatmaps = tables
            .iter()
            .filter(|t| t.heatmap(std::time::Instant::now()).is_some())
            .count();
        assert_eq!(heatmaps, MAX_HEATMAPS);
    }
}
