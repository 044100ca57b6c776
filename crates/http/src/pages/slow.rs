//! `/slow`: the latest requests slower than the server's threshold.

use std::fmt::Write as _;

use super::layout::{esc, page, table, time_ms};
use strata_server::RegionServer;

/// Renders the page.
pub fn render(host: &RegionServer) -> String {
    let observer = host.observer();
    let mut body = String::new();
    let _ = write!(
        body,
        "<p>Requests that took {} ms or more, newest first (each is also logged as a \
         warning).</p>",
        observer.slow_threshold().as_millis()
    );
    let rows: Vec<Vec<String>> = observer
        .slow_ops()
        .iter()
        .map(|op| {
            let at = op
                .at
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
            vec![
                time_ms(at),
                op.op.name().to_owned(),
                esc(&op.table),
                format!("<code>{}</code>", esc(&op.row)),
                format!("#{}", op.request_bytes),
                format!("#{:.1}", op.elapsed.as_secs_f64() * 1000.0),
                if op.ok { "ok" } else { "failed" }.to_owned(),
            ]
        })
        .collect();
    body.push_str(&table(
        &[
            "Finished (UTC)",
            "Operation",
            "Table",
            "Row",
            "Request bytes",
            "Milliseconds",
            "Outcome",
        ],
        &rows,
    ));
    page("Slow operations", &body)
}
