//! `/`: the server (and, in standalone mode, the cluster it is): tables, regions per server,
//! request rates and latencies, caches, WAL and background work.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use strata_server::observe::Op;
use strata_storage::events::{self, Work};

use super::layout::{bytes, esc, page, table};
use crate::query::encode;
use crate::router::State;

/// What the regions of one table open here hold.
#[derive(Clone, Copy, Default)]
struct TableSizes {
    files: u64,
    file_bytes: u64,
    memtable_bytes: u64,
    open: u32,
}

/// Renders the page.
pub fn render(s: &State) -> String {
    let master = &s.master;
    let host = master.host();
    let catalog = master.catalog();
    let rates = s.rates.per_table();
    let mut body = String::new();

    let total_rate = rates.values().fold(0.0, |a, b| a + b);
    let budget = host.budget();
    let _ = write!(
        body,
        "<p>Server <code>{}</code>, up {} s. Memtables {} of {}. {:.1} requests/s.</p>",
        esc(&host.config().advertised_address),
        host.uptime().as_secs(),
        bytes(budget.used()),
        bytes(budget.limit()),
        total_rate
    );

    // Per table: sizes summed over the regions open here.
    let mut sizes: BTreeMap<String, TableSizes> = BTreeMap::new();
    for h in host.hosted_regions() {
        let info = h.region.info();
        let e = sizes.entry(info.table.clone()).or_default();
        for st in h.region.store_stats() {
            e.files += st.files as u64;
            e.file_bytes += st.file_bytes;
            e.memtable_bytes += st.memtable_bytes;
        }
        e.open += 1;
    }
    body.push_str("<h2>Tables</h2>");
    let rows: Vec<Vec<String>> = catalog
        .tables
        .values()
        .map(|t| {
            let name = t.descriptor.name.to_string();
            let TableSizes {
                files,
                file_bytes,
                memtable_bytes,
                open,
            } = sizes.get(&name).copied().unwrap_or_default();
            vec![
                format!(
                    "<a href=\"/table?name={}\">{}</a>",
                    encode(&name),
                    esc(&name)
                ),
                if t.enabled { "enabled" } else { "disabled" }.to_owned(),
                format!("#{}", catalog.serving_regions(&name).len()),
                format!("#{open}"),
                format!("#{files}"),
                format!("#{}", bytes(file_bytes)),
                format!("#{}", bytes(memtable_bytes)),
                format!("#{:.1}", rates.get(&name).copied().unwrap_or(0.0)),
                format!("<a href=\"/heatmap?table={}\">heatmap</a>", encode(&name)),
            ]
        })
        .collect();
    body.push_str(&table(
        &[
            "Table",
            "State",
            "Regions",
            "Open here",
            "Store files",
            "File bytes",
            "Memtables",
            "Requests/s",
            "Key access",
        ],
        &rows,
    ));

    body.push_str("<h2>Servers</h2>");
    let mut per_server: BTreeMap<&str, usize> = BTreeMap::new();
    for r in catalog.regions.values().filter(|r| r.is_serving()) {
        *per_server.entry(r.server.as_str()).or_default() += 1;
    }
    let rows: Vec<Vec<String>> = per_server
        .iter()
        .map(|(server, n)| vec![format!("<code>{}</code>", esc(server)), format!("#{n}")])
        .collect();
    body.push_str(&table(&["Server", "Regions"], &rows));

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
    page("Server", &body)
}

/// Seconds as milliseconds, without float noise (`0.025` → `25`).
fn ms(seconds: f64) -> String {
    let micros = (seconds * 1e6).round();
    format!("{}", micros / 1000.0)
}
