//! `/table?name=T`: a table's families and regions with key ranges, sizes and accesses.

use std::fmt::Write as _;
use std::time::Instant;

use super::layout::{bytes, esc, key, page, table};
use crate::query::encode;
use crate::router::{PageError, State};

/// Renders the page.
///
/// # Errors
/// No such table.
pub fn render(s: &State, name: &str) -> Result<String, PageError> {
    let catalog = s.master.catalog();
    let entry = catalog
        .tables
        .get(name)
        .ok_or_else(|| PageError::NotFound(format!("no table '{name}'")))?;
    let host = s.master.host();
    let activity = host.observer().find(name);
    let view = activity.as_ref().and_then(|a| a.heatmap(Instant::now()));
    let mut body = String::new();
    let _ = write!(
        body,
        "<p>{}. <a href=\"/heatmap?table={}\">Key-access heatmap</a>.</p><h2>Families</h2>",
        if entry.enabled { "Enabled" } else { "Disabled" },
        encode(name)
    );
    let rows: Vec<Vec<String>> = entry
        .descriptor
        .families
        .iter()
        .map(|f| {
            vec![
                esc(&f.name),
                format!("#{}", f.versions),
                esc(&format!("{:?}", f.ttl)),
                esc(&format!("{:?}", f.compression)),
                esc(&format!("{:?}", f.in_memory_compaction)),
                esc(&format!("{:?}", f.compaction_policy)),
                esc(&format!("{:?}", f.storage_policy)),
            ]
        })
        .collect();
    body.push_str(&table(
        &[
            "Family",
            "Versions",
            "TTL",
            "Compression",
            "In-memory compaction",
            "Compaction",
            "Storage policy",
        ],
        &rows,
    ));

    body.push_str("<h2>Regions</h2>");
    let mut rows = Vec::new();
    for r in catalog.serving_regions(name) {
        let id = r.info.region_id;
        let (files, store_bytes, mem, mutations) = match host.hosted(id) {
            Ok(h) => {
                let stats = h.region.store_stats();
                (
                    stats.iter().map(|s| s.files as u64).sum::<u64>(),
                    stats.iter().map(|s| s.file_bytes).sum::<u64>(),
                    stats.iter().map(|s| s.memtable_bytes).sum::<u64>(),
                    h.region
                        .counters()
                        .mutations
                        .load(std::sync::atomic::Ordering::Relaxed),
                )
            }
            Err(_) => (0, 0, 0, 0),
        };
        // Accesses in the heatmap's window whose key prefix falls in the region's range.
        let accesses: u64 = view.as_ref().map_or(0, |v| {
            v.band_starts
                .iter()
                .enumerate()
                .filter(|(_, start)| {
                    start.as_slice() >= r.info.start_row.as_ref()
                        && (r.info.end_row.is_empty() || start.as_slice() < r.info.end_row.as_ref())
                })
                .map(|(i, _)| v.reads[i].iter().sum::<u64>() + v.writes[i].iter().sum::<u64>())
                .sum()
        });
        rows.push(vec![
            format!("<a href=\"/region?id={id}\">{id}</a>"),
            format!("<code>{}</code>", key(&r.info.start_row)),
            format!("<code>{}</code>", key(&r.info.end_row)),
            format!("<code>{}</code>", esc(&r.server)),
            format!("#{files}"),
            format!("#{}", bytes(store_bytes)),
            format!("#{}", bytes(mem)),
            format!("#{mutations}"),
            format!("#{accesses}"),
        ]);
    }
    body.push_str(&table(
        &[
            "Region",
            "Start row",
            "End row",
            "Server",
            "Store files",
            "File bytes",
            "Memtable",
            "Mutations",
            "Recent accesses",
        ],
        &rows,
    ));
    body.push_str(
        "<p class=\"muted\">Recent accesses: reads and writes counted by the key-access \
         heatmap over its window, by key prefix.</p>",
    );
    Ok(page(&format!("Table {name}"), &body))
}
