//! A table's key-access heatmap (on its `/table?name=T` page): reads and writes by key range
//! over time, as an inline SVG grid (Bigtable's Key Visualizer): one row per key range, one column per time slot, the
//! darker the more accesses (log scale, a sequential scale whose lightness falls steadily,
//! with a legend), so hot spots stand out.

use std::fmt::Write as _;

use strata_server::observe::HeatmapView;

use super::layout::key;
use crate::page_error::PageError;

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

/// ColorBrewer's sequential YlOrRd scale (9 classes): lightness falls steadily from pale
/// yellow to dark red, so a hotter cell is always darker, on the white page and in grey.
const SCALE: [(u8, u8, u8); 9] = [
    (0xff, 0xff, 0xcc),
    (0xff, 0xed, 0xa0),
    (0xfe, 0xd9, 0x76),
    (0xfe, 0xb2, 0x4c),
    (0xfd, 0x8d, 0x3c),
    (0xfc, 0x4e, 0x2a),
    (0xe3, 0x1a, 0x1c),
    (0xbd, 0x00, 0x26),
    (0x80, 0x00, 0x26),
];

/// The colour of `level` (0: fewest accesses, 1: most), interpolated along [`SCALE`].
fn colour(level: f64) -> String {
    let (r, g, b) = rgb(level);
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn rgb(level: f64) -> (u8, u8, u8) {
    let at = level.clamp(0.0, 1.0) * (SCALE.len() - 1) as f64;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "an index in 0..SCALE.len()"
    )]
    let i = (at.floor() as usize).min(SCALE.len() - 2);
    let t = at - i as f64;
    let (lo, hi) = (SCALE[i], SCALE[i + 1]);
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "channel values in 0..=255"
    )]
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    (mix(lo.0, hi.0), mix(lo.1, hi.1), mix(lo.2, hi.2))
}

/// The colour scale's legend: a strip from 1 access to `max`, log scale.
fn legend(max: u64, x: usize, y: usize) -> String {
    const STEPS: usize = 24;
    const STEP_W: usize = 8;
    let mut out = format!(
        "<text x=\"{x}\" y=\"{}\">accesses per cell (log scale):</text>",
        y + 11
    );
    let strip_x = x + 230;
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">1</text>",
        strip_x - 4,
        y + 11
    );
    for i in 0..STEPS {
        #[expect(clippy::cast_precision_loss, reason = "a colour level")]
        let level = i as f64 / (STEPS - 1) as f64;
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{y}\" width=\"{STEP_W}\" height=\"14\" fill=\"{}\"/>",
            strip_x + i * STEP_W,
            colour(level)
        );
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\">{max}</text><rect x=\"{}\" y=\"{y}\" width=\"{STEP_W}\" \
         height=\"14\" fill=\"{EMPTY}\" stroke=\"#ccc\"/><text x=\"{}\" y=\"{}\">none</text>",
        strip_x + STEPS * STEP_W + 4,
        y + 11,
        strip_x + STEPS * STEP_W + 60,
        strip_x + STEPS * STEP_W + 60 + STEP_W + 4,
        y + 11
    );
    out
}

/// The fill of a cell without accesses.
const EMPTY: &str = "#f3f5f8";

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
    let width = (LABEL_W + cols * CELL_W + 10).max(LABEL_W + 560);
    let height = bands * CELL_H + 56;
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
                EMPTY.to_owned()
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
         <text x=\"{}\" y=\"{axis_y}\" text-anchor=\"end\">now</text>{}</svg>\
         <p class=\"muted\">Darkest: {max} accesses in one cell (log scale). Rows are \
         key ranges starting at the key shown.</p>",
        LABEL_W + cols * CELL_W,
        legend(max, 6, axis_y + 10)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative luminance (WCAG) of a colour.
    fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.040_45 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    #[test]
    fn hotter_is_always_darker() {
        let levels: Vec<f64> = (0..=100).map(|i| f64::from(i) / 100.0).collect();
        for pair in levels.windows(2) {
            let (a, b) = (luminance(rgb(pair[0])), luminance(rgb(pair[1])));
            assert!(b < a, "level {} is not darker than {}", pair[1], pair[0]);
        }
        // The hottest cell stands out on the white page far more than the coldest.
        assert!(luminance(rgb(1.0)) < 0.1 && luminance(rgb(0.0)) > 0.9);
        assert_eq!(colour(0.0), "#ffffcc");
        assert_eq!(colour(1.0), "#800026");
    }

    #[test]
    fn the_picture_has_a_legend() {
        let view = HeatmapView {
            slot: std::time::Duration::from_secs(1),
            band_starts: vec![b"a".to_vec(), b"m".to_vec()],
            reads: vec![vec![0, 5], vec![40, 0]],
            writes: vec![vec![0, 0], vec![0, 0]],
        };
        let svg = svg(&view, Kind::Reads);
        assert!(svg.contains("accesses per cell (log scale)"), "{svg}");
        assert!(svg.contains(">40</text>"), "{svg}");
        assert!(
            svg.contains("#800026"),
            "the hottest cell is the darkest colour: {svg}"
        );
    }
}
