//! `/history`: the process's latest flushes and compactions, newest first, with failures.

use std::fmt::Write as _;

use strata_storage::events::history::{self, CAPACITY};

use super::layout::{bytes, esc, page, table, time_ms};

/// Renders the page.
pub fn render() -> String {
    let records = history::history();
    let mut body = String::new();
    let _ = write!(
        body,
        "<p>The latest {CAPACITY} flushes and compactions of this server (one row per store), \
         newest first; failures are also logged with their region, family and file.</p>"
    );
    let rows: Vec<Vec<String>> = records
        .iter()
        .rev()
        .map(|r| {
            let kind = match (r.work.name(), r.major) {
                ("compaction", true) => "major compaction".to_owned(),
                (name, _) => name.to_owned(),
            };
            let rate = if r.duration.as_secs_f64() > 0.0 && r.bytes_out > 0 {
                format!(
                    "{}/s",
                    bytes((r.bytes_out as f64 / r.duration.as_secs_f64()) as u64)
                )
            } else {
                "-".to_owned()
            };
            vec![
                time_ms(r.finished_ms),
                kind,
                format!(
                    "<a href=\"/table?name={}\">{}</a>",
                    esc(&r.table),
                    esc(&r.table)
                ),
                format!("<a href=\"/region?id={0}\">{0}</a>", r.region),
                esc(&r.family),
                format!("#{} → {}", r.files_in, r.files_out),
                format!("#{} → {}", bytes(r.bytes_in), bytes(r.bytes_out)),
                format!("#{:.1}", r.duration.as_secs_f64() * 1000.0),
                format!("#{rate}"),
                match &r.error {
                    None => "ok".to_owned(),
                    Some(e) => format!("<span class=\"error\">{}</span>", esc(e)),
                },
            ]
        })
        .collect();
    body.push_str(&table(
        &[
            "Finished (UTC)",
            "Work",
            "Table",
            "Region",
            "Family",
            "Files",
            "Bytes",
            "Milliseconds",
            "Write rate",
            "Outcome",
        ],
        &rows,
    ));
    page("Flush and compaction history", &body)
}
