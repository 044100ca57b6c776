//! `/region?id=N`: one region's families, memtable segments and store files (size, cells,
//! time range, date-tiered window, tier, path).

use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use super::layout::{bytes, count, esc, key, page, table, time_ms};
use crate::query::encode;
use strata_server::RegionServer;

use crate::page_error::PageError;

/// Renders the page.
///
/// # Errors
/// The region is not open on this server.
pub fn render(host: &RegionServer, id: u64) -> Result<String, PageError> {
    let hosted = host
        .hosted(id)
        .map_err(|_| PageError::NotFound(format!("region {id} is not open on this server")))?;
    let region = &hosted.region;
    let info = region.info();
    let mut body = String::new();
    let c = region.counters();
    let k = region.compaction_counters();
    let _ = write!(
        body,
        "<p>Table <a href=\"/table?name={}\">{}</a>, rows <code>[{}, {})</code>. \
         {}, {} ({}), {} ({}) since open.</p>",
        encode(&info.table),
        esc(&info.table),
        key(&info.start_row),
        key(&info.end_row),
        count(c.mutations.load(Ordering::Relaxed), "mutation", "mutations"),
        count(c.flushes.load(Ordering::Relaxed), "flush", "flushes"),
        bytes(c.flushed_bytes.load(Ordering::Relaxed)),
        count(
            k.compactions.load(Ordering::Relaxed),
            "compaction",
            "compactions"
        ),
        bytes(k.bytes_written.load(Ordering::Relaxed)),
    );

    body.push_str("<h2>Memtables</h2>");
    let rows: Vec<Vec<String>> = region
        .memtable_listing()
        .iter()
        .map(|m| {
            vec![
                esc(&m.family),
                format!("#{}", m.stats.segments),
                format!("#{}", m.stats.flat_segments),
                format!("#{}", m.stats.cells),
                format!("#{}", bytes(m.stats.data_bytes)),
                format!("#{}", bytes(m.stats.index_bytes)),
                format!("#{}", bytes(m.stats.reserved_bytes)),
            ]
        })
        .collect();
    body.push_str(&table(
        &[
            "Family",
            "Segments",
            "Flat segments",
            "Cells",
            "Data",
            "Index",
            "Reserved",
        ],
        &rows,
    ));

    body.push_str("<h2>Store files</h2>");
    let mut files = region.file_listing();
    files.sort_by(|a, b| a.family.cmp(&b.family));
    let rows: Vec<Vec<String>> = files
        .iter()
        .map(|f| {
            let range = f.time_range.map_or_else(
                || "-".to_owned(),
                |(lo, hi)| format!("{} – {}", time_ms(lo), time_ms(hi)),
            );
            let window = f.window.map_or_else(
                || "-".to_owned(),
                |(lo, hi)| format!("{} – {}", time_ms(lo), time_ms(hi)),
            );
            let mut kind = Vec::new();
            if f.major {
                kind.push("major");
            }
            if f.reference {
                kind.push("reference");
            }
            vec![
                esc(&f.family),
                format!("<code>{}</code>", esc(&f.name)),
                format!("#{}", bytes(f.size)),
                format!("#{}", f.cells),
                range,
                window,
                esc(&f.tier),
                kind.join(", "),
                format!("<code>{}</code>", esc(&f.path)),
            ]
        })
        .collect();
    body.push_str(&table(
        &[
            "Family",
            "File",
            "Size",
            "Cells",
            "Time range",
            "Window",
            "Tier",
            "Kind",
            "Path",
        ],
        &rows,
    ));
    Ok(page(&format!("Region {id}"), &body))
}
