//! `/heatmap?table=T`: reads and writes of a table by key range over time, as an inline SVG
//! grid (Bigtable's Key Visualizer): one row per key range, one column per time slot, the
//! brighter the more accesses (log scale), so hot spots stand out.

use std::fmt::Write as _;
use std::time::Instant;

use strata_server::observe::HeatmapView;

use super::layout::{esc, key, page};
use crate::query::encode;
use crate::router::{PageError, State};

/// Which accesses to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Reads and writes.
    All,
    /// Reads only.
    Reads,
    /// Writes only.
    Writes,
}

const CELL_W: usize = 14;
const CELL_H: usize = 18;
const LABEL_W: usize = 220;

/// Renders the page.
///
/// # Errors
/// No such table.
pub fn render(s: &State, table: &str, kind: Kind) -> Result<String, PageError> {
    if !s.master.catalog().tables.contains_key(table) {
        return Err(PageError::NotFound(format!("no table '{table}'")));
    }
    let activity = s.master.host().observer().find(table);
    let tracked = activity
        .as_ref()
        .is_none_or(|a| a.heatmap(Instant::now()).is_some());
    let view = activity
        .and_then(|a| a.heatmap(Instant::now()))
        .unwrap_or_default();
    let mut body = format!(
        "<p><a href=\"/table?name={}\">Table {}</a>.</p>",
        encode(table),
        esc(table)
    );
    if !tracked {
        let _ = write!(
            body,
            "<p class=\"muted\">Only the first {} tables to receive requests have a \
             heatmap.</p>",
            strata_server::observe::MAX_HEATMAPS
        );
    } else {
        let base = format!("/heatmap?table={}", encode(table));
        body.push_str(&block(&view, kind, &base));
    }
    Ok(page(&format!("Key access: {table}"), &body))
}

/// A heatmap with its reads/writes switch (links to `base&kind=…`) and time scale, or a line
/// saying there were no accesses yet.
pub fn block(view: &HeatmapView, kind: Kind, base: &str) -> String {
    let link = |k: &str, label: &str, on: bool| {
        if on {
            format!("<b>{label}</b>")
        } else {
            format!("<a href=\"{base}&amp;kind={k}\">{label}</a>")
        }
    };
    let mut body = format!(
        "<p>Show: {} · {} · {}. Each column is {} s; the rightmost is now.</p>",
        link("all", "reads and writes", kind == Kind::All),
        link("reads", "reads", kind == Kind::Reads),
        link("writes", "writes", kind == Kind::Writes),
        view.slot.as_secs_f64()
    );
    if view
        .reads
        .iter()
        .chain(&view.writes)
        .flatten()
        .all(|n| *n == 0)
    {
        body.push_str("<p class=\"muted\">No accesses yet.</p>");
        return body;
    }
    body.push_str(&svg(view, kind));
    body
}

/// The `kind` query parameter.
///
/// # Errors
/// Not `all`, `reads` or `writes`.
pub fn parse_kind(kind: Option<&str>) -> Result<Kind, PageError> {
    match kind {
        None | Some("all") => Ok(Kind::All),
        Some("reads") => Ok(Kind::Reads),
        Some("writes") => Ok(Kind::Writes),
        Some(_) => Err(PageError::BadRequest(
            "parameter 'kind' must be reads, writes or all".to_owned(),
        )),
    }
}

fn counts(view: &HeatmapView, kind: Kind, band: usize, col: usize) -> u64 {
    match kind {
        Kind::All => view.reads[band][col] + view.writes[band][col],
        Kind::Reads => view.reads[band][col],
        Kind::Writes => view.writes[band][col],
    }
}

/// A colour from dark blue (few) through red to yellow (most).
fn colour(level: f64) -> String {
    let l = level.clamp(0.0, 1.0);
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "channel values in 0..=255"
    )]
    let (r, g, b) = (
        (40.0 + 215.0 * l.min(0.6) / 0.6) as u8,
        (30.0 + 225.0 * ((l - 0.5) / 0.5).max(0.0)) as u8,
        (90.0 * (1.0 - l)) as u8,
    );
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The heatmap as an inline SVG grid.
pub fn svg(view: &HeatmapView, kind: Kind) -> String {
    let bands = view.band_starts.len();
    let cols = view.reads.first().map_or(0, Vec::len);
    let max = (0..bands)
        .flat_map(|b| (0..cols).map(move |c| (b, c)))
        .map(|(b, c)| counts(view, kind, b, c))
        .max()
        .unwrap_or(0);
    #[expect(clippy::cast_precision_loss, reason = "a log scale for display")]
    let scale = ((max + 1) as f64).ln();
    let width = LABEL_W + cols * CELL_W + 10;
    let height = bands * CELL_H + 30;
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         role=\"img\" aria-label=\"key-access heatmap\" font-size=\"11\" \
         font-family=\"monospace\"><rect width=\"{width}\" height=\"{height}\" fill=\"#fff\"/>"
    );
    for (b, start) in view.band_starts.iter().enumerate() {
        let y = b * CELL_H;
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            LABEL_W - 6,
            y + CELL_H - 5,
            key(start)
        );
        for c in 0..cols {
            let n = counts(view, kind, b, c);
            #[expect(clippy::cast_precision_loss, reason = "a log scale for display")]
            let level = if n == 0 || scale == 0.0 {
                0.0
            } else {
                ((n + 1) as f64).ln() / scale
            };
            let fill = if n == 0 {
                "#f3f5f8".to_owned()
            } else {
                colour(level)
            };
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{fill}\">\
                 <title>{n}</title></rect>",
                LABEL_W + c * CELL_W,
                CELL_W - 1,
                CELL_H - 1
            );
        }
    }
    let axis_y = bands * CELL_H + 16;
    #[expect(clippy::cast_precision_loss, reason = "an axis label")]
    let span = view.slot.as_secs_f64() * cols as f64;
    let _ = write!(
        out,
        "<text x=\"{LABEL_W}\" y=\"{axis_y}\">-{span:.0} s</text>\
         <text x=\"{}\" y=\"{axis_y}\" text-anchor=\"end\">now</text></svg>\
         <p class=\"muted\">Brightest: {max} accesses in one cell (log scale). Rows are \
         key ranges starting at the key shown.</p>",
        LABEL_W + cols * CELL_W
    );
    out
}
