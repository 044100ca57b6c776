//! The engine's figures on a region server's page: request counts and latencies, caches,
//! WAL and background work.

use std::sync::atomic::Ordering;

use strata_server::observe::Op;
use strata_server::RegionServer;
use strata_storage::events::{self, Work};

use super::layout::{bytes, table};

/// The sections, as HTML.
pub fn render(host: &RegionServer) -> String {
    let mut body = String::new();
    body.push_str("<h2>Requests</h2>");
    let observer = host.observer();
    let rows: Vec<Vec<String>> = Op::ALL
        .iter()
        .map(|&op| {
            let s = observer.total(op);
            let errors: u64 = observer
                .tables()
                .iter()
                .map(|t| t.op(op).errors.load(Ordering::Relaxed))
                .sum();
            let bound = |q| {
                s.quantile_bound(q)
                    .map_or_else(|| "-".to_owned(), |b| format!("≤ {} ms", ms(b)))
            };
            vec![
                op.name().to_owned(),
                format!("#{}", s.count),
                format!("#{errors}"),
                format!("#{}", bound(0.5)),
                format!("#{}", bound(0.99)),
            ]
        })
        .collect();
    body.push_str(&table(
        &["Operation", "Requests", "Errors", "p50", "p99"],
        &rows,
    ));

    body.push_str("<h2>Caches</h2>");
    let b = host.block_cache().map(|c| c.stats()).unwrap_or_default();
    let r = host.row_cache_stats();
    let ratio = |hits: u64, misses: u64| {
        if hits + misses == 0 {
            "-".to_owned()
        } else {
            #[expect(clippy::cast_precision_loss, reason = "a ratio for display")]
            let p = hits as f64 * 100.0 / (hits + misses) as f64;
            format!("{p:.1} %")
        }
    };
    let rows = vec![
        vec![
            "block cache".to_owned(),
            format!("#{}", bytes(b.used)),
            format!("#{}", bytes(b.capacity)),
            format!("#{}", b.data_hits + b.meta_hits),
            format!("#{}", b.data_misses + b.meta_misses),
            format!(
                "#{}",
                ratio(b.data_hits + b.meta_hits, b.data_misses + b.meta_misses)
            ),
            format!("#{}", b.evictions),
        ],
        vec![
            "row cache".to_owned(),
            format!("#{}", bytes(r.bytes)),
            format!("#{}", bytes(r.capacity)),
            format!("#{}", r.hits),
            format!("#{}", r.misses),
            format!("#{}", ratio(r.hits, r.misses)),
            format!("#{}", r.evictions),
        ],
    ];
    body.push_str(&table(
        &[
            "Cache",
            "Used",
            "Capacity",
            "Hits",
            "Misses",
            "Hit ratio",
            "Evictions",
        ],
        &rows,
    ));

    body.push_str("<h2>WAL and background work</h2>");
    let w = host.wal().stats();
    let done = host.work_done();
    let bg = host.background();
    let mut rows = vec![
        vec![
            "WAL segments".to_owned(),
            format!("#{} ({})", w.segments, bytes(w.bytes)),
        ],
        vec![
            "WAL appends / syncs".to_owned(),
            format!("#{} / {}", w.appends, w.syncs),
        ],
        vec![
            "Flushes (bytes)".to_owned(),
            format!("#{} ({})", done.flushes, bytes(done.flushed_bytes)),
        ],
        vec![
            "Compactions (bytes)".to_owned(),
            format!("#{} ({})", done.compactions, bytes(done.compacted_bytes)),
        ],
        vec![
            "Queued flushes / compactions".to_owned(),
            format!(
                "#{} / {}",
                bg.queued_flushes.load(Ordering::Relaxed),
                bg.queued_compactions.load(Ordering::Relaxed)
            ),
        ],
        vec![
            "Corrupt files found".to_owned(),
            format!("#{}", events::corruptions()),
        ],
    ];
    for w in Work::ALL {
        rows.push(vec![
            format!("Failed {}", w.name().replace('_', " ")),
            format!("#{}", events::failures(w)),
        ]);
    }
    body.push_str(&table(&["", ""], &rows));
    body
}

/// Seconds as milliseconds, without float noise (`0.025` → `25`).
fn ms(seconds: f64) -> String {
    let micros = (seconds * 1e6).round();
    format!("{}", micros / 1000.0)
}
