//! `/metrics`: the process's figures in the Prometheus text format 0.0.4, or in the
//! OpenMetrics text format when the scraper asks for it (see `classic`), read at scrape time
//! from the engine's and the server's own counters and from `/proc` (`process_*`).
//!
//! Names follow Prometheus conventions: `strata_` prefix, `_total` on counters (added by the
//! encoder), base units in the name (`_seconds`, `_bytes`). Labels are bounded: `op` (six
//! operations), `table` (at most `observe::MAX_TABLES`), `region` and `family` only on
//! per-region gauges (as HBase's per-region metrics), `tier` (storage types), `work` (kinds of
//! background work). No label ever holds a row key.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use std::sync::Arc;
use strata_server::observe::Op;
use strata_server::RegionServer;
use strata_storage::events::{self, Snapshot, Work};

mod classic;
mod process;
mod stores;

pub use classic::wants_openmetrics;

/// The body of a `/metrics` response to a request whose `Accept` header is `accept`, and its
/// content type: `openmetrics` (what [`render`] and [`render_node`] return) as it is when the
/// header asks for OpenMetrics, else in the classic text format.
pub fn negotiate(accept: Option<&str>, openmetrics: String) -> (&'static str, String) {
    if wants_openmetrics(accept) {
        (classic::OPENMETRICS, openmetrics)
    } else {
        (classic::CLASSIC, classic::to_classic(&openmetrics))
    }
}

/// The figures of a process with `server` (a region server, if it has one) and `extra`
/// figures of its own (a cluster process's coordination), as OpenMetrics text.
pub fn render_node(server: Option<&Arc<RegionServer>>, extra: &[Figure]) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Figures {
        server: server.cloned(),
        extra: extra.to_vec(),
    }));
    let mut out = String::new();
    // Writing to a String cannot fail; a collector error would be a bug in this file.
    if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &registry) {
        tracing::error!(error = %e, "encoding /metrics failed");
    }
    out
}

/// Whether a [`Figure`] only goes up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FigureKind {
    /// A total since the process started (`_total` is appended).
    Counter,
    /// A value now.
    Gauge,
}

/// One metric family a process adds to the engine's: its name (with the `strata_` prefix,
/// without `_total`), help text, kind, and one value per label set.
#[derive(Clone, Debug)]
pub struct Figure {
    /// The metric's name.
    pub name: &'static str,
    /// What it counts.
    pub help: &'static str,
    /// Counter or gauge.
    pub kind: FigureKind,
    /// Values by labels (bounded label values only, never row keys).
    pub rows: Vec<(Labels, i64)>,
}

impl Figure {
    /// A figure without labels.
    pub fn single(name: &'static str, help: &'static str, kind: FigureKind, value: i64) -> Self {
        Figure {
            name,
            help,
            kind,
            rows: vec![(Vec::new(), value)],
        }
    }
}

struct Figures {
    server: Option<Arc<RegionServer>>,
    extra: Vec<Figure>,
}

impl std::fmt::Debug for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Figures")
    }
}

/// Label names and values of one row of a figure.
pub type Labels = Vec<(&'static str, String)>;

/// One metric family being written.
struct Family<'a, 'b> {
    encoder: &'a mut DescriptorEncoder<'b>,
}

impl Family<'_, '_> {
    fn counter(
        &mut self,
        name: &str,
        help: &str,
        unit: Option<&Unit>,
        rows: &[(Labels, u64)],
    ) -> std::fmt::Result {
        let mut m = self
            .encoder
            .encode_descriptor(name, help, unit, MetricType::Counter)?;
        for (labels, v) in rows {
            ConstCounter::new(*v).encode(m.encode_family(labels)?)?;
        }
        Ok(())
    }

    fn gauge(
        &mut self,
        name: &str,
        help: &str,
        unit: Option<&Unit>,
        rows: &[(Labels, i64)],
    ) -> std::fmt::Result {
        let mut m = self
            .encoder
            .encode_descriptor(name, help, unit, MetricType::Gauge)?;
        for (labels, v) in rows {
            ConstGauge::new(*v).encode(m.encode_family(labels)?)?;
        }
        Ok(())
    }

    fn ratio(&mut self, name: &str, help: &str, value: f64) -> std::fmt::Result {
        let mut m = self
            .encoder
            .encode_descriptor(name, help, None, MetricType::Gauge)?;
        ConstGauge::new(value).encode(m.encode_family(&Labels::new())?)
    }

    fn histogram(
        &mut self,
        name: &str,
        help: &str,
        rows: &[(Labels, Snapshot)],
    ) -> std::fmt::Result {
        let mut m = self.encoder.encode_descriptor(
            name,
            help,
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?;
        for (labels, s) in rows {
            m.encode_family(labels)?
                .encode_histogram::<prometheus_client::encoding::NoLabelSet>(
                    s.sum_seconds,
                    s.count,
                    &s.buckets,
                    None,
                )?;
        }
        Ok(())
    }
}

fn one<T>(v: T) -> Vec<(Labels, T)> {
    vec![(Vec::new(), v)]
}

fn gauge_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Collector for Figures {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> std::fmt::Result {
        process::encode(&mut encoder)?;
        let mut f = Family {
            encoder: &mut encoder,
        };
        for x in &self.extra {
            match x.kind {
                FigureKind::Counter => {
                    let rows: Vec<(Labels, u64)> = x
                        .rows
                        .iter()
                        .map(|(l, v)| (l.clone(), u64::try_from(*v).unwrap_or(0)))
                        .collect();
                    f.counter(x.name, x.help, None, &rows)?;
                }
                FigureKind::Gauge => f.gauge(x.name, x.help, None, &x.rows)?,
            }
        }
        let Some(host) = &self.server else {
            return Ok(());
        };
        requests(&mut f, host)?;
        regions(&mut f, host)?;
        work(&mut f, host)?;
        wal(&mut f, host)?;
        stores::stores(&mut f, host)?;
        caches(&mut f, host)?;
        memory_tuner(&mut f, host)?;
        f.gauge(
            "strata_nonces",
            "Nonces of increments and appends this server remembers, so that a client's repeat \
             is not applied twice (RFC 0032).",
            None,
            &one(gauge_of(host.nonces().len() as u64)),
        )
    }
}

fn requests(f: &mut Family<'_, '_>, host: &RegionServer) -> std::fmt::Result {
    let tables = host.observer().tables();
    let mut counts = Vec::new();
    let mut errors = Vec::new();
    let mut latency = Vec::new();
    for t in &tables {
        for op in Op::ALL {
            let stats = t.op(op);
            let snap = stats.latency.snapshot();
            if snap.count == 0 {
                continue;
            }
            let labels: Labels = vec![("op", op.name().to_owned()), ("table", t.name().to_owned())];
            counts.push((labels.clone(), snap.count));
            errors.push((labels.clone(), stats.errors.load(Ordering::Relaxed)));
            latency.push((labels, snap));
        }
    }
    f.counter(
        "strata_requests",
        "Data-service requests, by operation and table.",
        None,
        &counts,
    )?;
    f.counter(
        "strata_request_errors",
        "Data-service requests that failed, by operation and table.",
        None,
        &errors,
    )?;
    f.histogram(
        "strata_request_duration",
        "Time from receipt to response of data-service requests, by operation and table.",
        &latency,
    )?;
    let slow = host.observer().slow_ops().len();
    f.gauge(
        "strata_slow_operations_kept",
        "Slow operations listed on the UI's slow-operation page.",
        None,
        &one(gauge_of(slow as u64)),
    )
}

fn regions(f: &mut Family<'_, '_>, host: &RegionServer) -> std::fmt::Result {
    let hosted = host.hosted_regions();
    let mut memtable_bytes = Vec::new();
    let mut segments = Vec::new();
    let mut index_bytes = Vec::new();
    let mut files = Vec::new();
    let mut file_bytes = Vec::new();
    let mut tier_files: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for h in &hosted {
        let info = h.region.info();
        let region = info.region_id.to_string();
        for m in h.region.memtable_listing() {
            let labels: Labels = vec![
                ("table", info.table.clone()),
                ("region", region.clone()),
                ("family", m.family.clone()),
            ];
            memtable_bytes.push((labels.clone(), gauge_of(m.stats.size_bytes())));
            index_bytes.push((labels.clone(), gauge_of(m.stats.index_bytes)));
            segments.push((labels, gauge_of(m.stats.segments as u64)));
        }
        let mut per_family: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for s in h.region.store_stats() {
            per_family.entry(s.family).or_default();
        }
        for file in h.region.file_listing() {
            let e = per_family.entry(file.family.clone()).or_default();
            e.0 += 1;
            e.1 += file.size;
            let t = tier_files.entry(file.tier.clone()).or_default();
            t.0 += 1;
            t.1 += file.size;
        }
        for (family, (n, bytes)) in per_family {
            let labels: Labels = vec![
                ("table", info.table.clone()),
                ("region", region.clone()),
                ("family", family),
            ];
            files.push((labels.clone(), gauge_of(n)));
            file_bytes.push((labels, gauge_of(bytes)));
        }
    }
    f.gauge(
        "strata_regions",
        "Regions open on this server.",
        None,
        &one(gauge_of(hosted.len() as u64)),
    )?;
    f.gauge(
        "strata_memtable",
        "Memtable bytes (cells and index) per store.",
        Some(&Unit::Bytes),
        &memtable_bytes,
    )?;
    f.gauge(
        "strata_memtable_index",
        "Memtable index bytes per store.",
        Some(&Unit::Bytes),
        &index_bytes,
    )?;
    f.gauge(
        "strata_memtable_segments",
        "Memtable segments (active, pipeline, pending snapshot) per store.",
        None,
        &segments,
    )?;
    let budget = host.budget();
    f.gauge(
        "strata_memtable_budget_used",
        "Memtable bytes of all regions, as the shared budget accounts them.",
        Some(&Unit::Bytes),
        &one(gauge_of(budget.used())),
    )?;
    f.gauge(
        "strata_memtable_budget_limit",
        "The memtable budget's limit.",
        Some(&Unit::Bytes),
        &one(gauge_of(budget.limit())),
    )?;
    f.gauge("strata_store_files", "Store files per store.", None, &files)?;
    f.gauge(
        "strata_store_file",
        "Store file bytes per store.",
        Some(&Unit::Bytes),
        &file_bytes,
    )?;
    let tiers: Vec<_> = tier_files
        .iter()
        .map(|(t, (n, _))| (vec![("tier", t.clone())], gauge_of(*n)))
        .collect();
    f.gauge(
        "strata_tier_store_files",
        "Store files per storage tier (volume type).",
        None,
        &tiers,
    )?;
    let tier_bytes: Vec<_> = tier_files
        .iter()
        .map(|(t, (_, b))| (vec![("tier", t.clone())], gauge_of(*b)))
        .collect();
    f.gauge(
        "strata_tier_store_file",
        "Store file bytes per storage tier (volume type).",
        Some(&Unit::Bytes),
        &tier_bytes,
    )?;
    // Reads that reached store files (block cache misses and uncached reads), by the tier of
    // the volume the file is on; counted for the whole process.
    let reads = strata_storage::tiers::tier_reads();
    let read_bytes: Vec<_> = reads
        .iter()
        .map(|r| (vec![("tier", r.kind.name().to_owned())], r.bytes))
        .collect();
    f.counter(
        "strata_tier_read",
        "Bytes read from store files per storage tier.",
        Some(&Unit::Bytes),
        &read_bytes,
    )?;
    let read_count: Vec<_> = reads
        .iter()
        .map(|r| (vec![("tier", r.kind.name().to_owned())], r.reads))
        .collect();
    f.counter(
        "strata_tier_reads",
        "Read requests made to store files per storage tier.",
        None,
        &read_count,
    )?;
    // Reads answered on a runtime worker that missed the block cache: read there from the OS
    // page cache, or refused and run again on a blocking thread.
    let inline = strata_sstable::cache_only::cache_only_reads();
    f.counter(
        "strata_inline_block_reads",
        "Block-cache misses of reads tried on a runtime worker: read in place from the page cache or refused (retried on a blocking thread).",
        None,
        &[
            (vec![("outcome", "in_place".to_owned())], inline.in_place),
            (vec![("outcome", "refused".to_owned())], inline.refused),
        ],
    )
}

fn work(f: &mut Family<'_, '_>, host: &RegionServer) -> std::fmt::Result {
    let done = host.work_done();
    f.counter(
        "strata_flushes",
        "Flushes completed.",
        None,
        &one(done.flushes),
    )?;
    f.counter(
        "strata_flushed",
        "Bytes of store files written by flushes.",
        Some(&Unit::Bytes),
        &one(done.flushed_bytes),
    )?;
    f.counter(
        "strata_compactions",
        "Compactions completed.",
        None,
        &one(done.compactions),
    )?;
    f.counter(
        "strata_compacted",
        "Bytes of store files written by compactions.",
        Some(&Unit::Bytes),
        &one(done.compacted_bytes),
    )?;
    f.counter(
        "strata_splits",
        "Region splits completed.",
        None,
        &one(host.counters().splits.load(Ordering::Relaxed)),
    )?;
    f.counter(
        "strata_load_splits",
        "Region splits requested because the region's request rate stayed at or above the \
         load split threshold, completed (also counted in strata_splits).",
        None,
        &one(host.counters().load_splits.load(Ordering::Relaxed)),
    )?;
    f.counter(
        "strata_writes_in_place",
        "Single-row writes applied on the request thread, with no hand-off.",
        None,
        &one(host.counters().writes_in_place.load(Ordering::Relaxed)),
    )?;
    f.counter(
        "strata_writes_queued",
        "Single-row writes applied through a region's write queue on the blocking pool.",
        None,
        &one(host.counters().writes_queued.load(Ordering::Relaxed)),
    )?;
    let bg = host.background();
    f.gauge(
        "strata_flush_queue_length",
        "Flushes queued on the background pool and not started.",
        None,
        &one(gauge_of(bg.queued_flushes.load(Ordering::Relaxed))),
    )?;
    f.gauge(
        "strata_compaction_queue_length",
        "Compactions queued on the background pool and not started.",
        None,
        &one(gauge_of(bg.queued_compactions.load(Ordering::Relaxed))),
    )?;
    let failures: Vec<_> = Work::ALL
        .iter()
        .map(|w| (vec![("work", w.name().to_owned())], events::failures(*w)))
        .collect();
    f.counter(
        "strata_background_failures",
        "Failed background work (flush, compaction, tier move, WAL, split, region open and \
         close), each also logged with its region, family and file.",
        None,
        &failures,
    )?;
    f.counter(
        "strata_corruptions_found",
        "Damaged files (store files, WAL segments, manifests) found.",
        None,
        &one(events::corruptions()),
    )?;
    f.gauge(
        "strata_uptime",
        "Time since the server started.",
        Some(&Unit::Seconds),
        &one(gauge_of(host.uptime().as_secs())),
    )
}

fn wal(f: &mut Family<'_, '_>, host: &RegionServer) -> std::fmt::Result {
    let s = host.wal().stats();
    f.counter(
        "strata_wal_appends",
        "Entries appended to the WAL.",
        None,
        &one(s.appends),
    )?;
    f.counter(
        "strata_wal_writes",
        "Group-commit batches written to the WAL.",
        None,
        &one(s.writes),
    )?;
    f.counter(
        "strata_wal_syncs",
        "WAL fdatasync calls.",
        None,
        &one(s.syncs),
    )?;
    f.counter(
        "strata_wal_rolls",
        "WAL segments started.",
        None,
        &one(s.rolls),
    )?;
    f.counter(
        "strata_wal_failed_batches",
        "WAL batches whose write or sync failed.",
        None,
        &one(s.failed_batches),
    )?;
    f.gauge(
        "strata_wal_segments",
        "Live WAL segment files.",
        None,
        &one(gauge_of(s.segments)),
    )?;
    let checks = host.flush_check_stats();
    f.counter(
        "strata_flush_check_flushes",
        "Flushes the periodic flush check asked for: `age`, a region's oldest unflushed edit \
         passed --max-edit-age-secs; `wal`, the region held WAL segments past \
         --max-wal-segments.",
        None,
        &[
            (vec![("reason", "age".to_owned())], checks.by_age),
            (vec![("reason", "wal".to_owned())], checks.by_wal),
        ],
    )?;
    f.counter(
        "strata_memtable_idle_merges",
        "Regions whose memtables the periodic check merged into one flat segment each after \
         a round without writes.",
        None,
        &one(checks.idle_merges),
    )?;
    f.gauge(
        "strata_wal",
        "Bytes in live WAL segment files.",
        Some(&Unit::Bytes),
        &one(gauge_of(s.bytes)),
    )?;
    f.histogram(
        "strata_wal_sync_duration",
        "Latency of WAL fdatasync calls.",
        &one(events::WAL_SYNC_SECONDS.snapshot()),
    )
}

fn caches(f: &mut Family<'_, '_>, host: &RegionServer) -> std::fmt::Result {
    let b = host.block_cache().map(|c| c.stats()).unwrap_or_default();
    let kinds = |data: u64, meta: u64| -> Vec<(Labels, u64)> {
        vec![
            (vec![("kind", "data".to_owned())], data),
            (vec![("kind", "meta".to_owned())], meta),
        ]
    };
    f.counter(
        "strata_block_cache_hits",
        "Block cache hits, by block kind (data; index and bloom as meta).",
        None,
        &kinds(b.data_hits, b.meta_hits),
    )?;
    f.counter(
        "strata_block_cache_misses",
        "Block cache misses, by block kind.",
        None,
        &kinds(b.data_misses, b.meta_misses),
    )?;
    f.counter(
        "strata_block_cache_evictions",
        "Blocks evicted from the block cache.",
        None,
        &one(b.evictions),
    )?;
    f.gauge(
        "strata_block_cache",
        "Bytes held by the block cache.",
        Some(&Unit::Bytes),
        &one(gauge_of(b.used)),
    )?;
    f.gauge(
        "strata_block_cache_capacity",
        "The block cache's capacity.",
        Some(&Unit::Bytes),
        &one(gauge_of(b.capacity)),
    )?;
    let r = host.row_cache_stats();
    f.counter(
        "strata_row_cache_hits",
        "Gets answered by the row cache.",
        None,
        &one(r.hits),
    )?;
    f.counter(
        "strata_row_cache_misses",
        "Cacheable gets that read the region.",
        None,
        &one(r.misses),
    )?;
    f.counter(
        "strata_row_cache_evictions",
        "Row cache entries evicted.",
        None,
        &one(r.evictions),
    )?;
    f.counter(
        "strata_row_cache_invalidations",
        "Row cache entries invalidated by writes and closes.",
        None,
        &one(r.invalidations),
    )?;
    f.gauge(
        "strata_row_cache",
        "Bytes held by the row cache.",
        Some(&Unit::Bytes),
        &one(gauge_of(r.bytes)),
    )?;
    f.gauge(
        "strata_row_cache_capacity",
        "The row cache's capacity.",
        Some(&Unit::Bytes),
        &one(gauge_of(r.capacity)),
    )
}

/// The memory split (RFC 0031): each part's size now, and the tuner's moves by direction and
/// reason (labels bounded: three parts, four reasons).
fn memory_tuner(f: &mut Family<'_, '_>, host: &RegionServer) -> std::fmt::Result {
    let sizes = host.memory_parts().sizes();
    let parts: Vec<(Labels, i64)> = strata_server::memory_tuner::Part::ALL
        .iter()
        .map(|p| {
            (
                vec![("part", p.name().to_owned())],
                gauge_of(sizes[p.index()]),
            )
        })
        .collect();
    f.gauge(
        "strata_memory_part",
        "Bytes of the memory budget each part (memtables, block_cache, row_cache) has now; \
         the memory tuner moves them.",
        Some(&Unit::Bytes),
        &parts,
    )?;
    let stats = host.memory_tuner_stats();
    let moves: Vec<(Labels, u64)> = stats
        .moves
        .iter()
        .map(|((from, to, reason), n)| {
            (
                vec![
                    ("from", from.name().to_owned()),
                    ("to", to.name().to_owned()),
                    ("reason", reason.name().to_owned()),
                ],
                *n,
            )
        })
        .collect();
    f.counter(
        "strata_memory_tuner_moves",
        "Moves of memory between parts by the memory tuner, by donor, receiver and reason.",
        None,
        &moves,
    )?;
    f.counter(
        "strata_memory_tuner_periods",
        "Periods the memory tuner decided (0 while it is off).",
        None,
        &one(stats.periods),
    )
}
