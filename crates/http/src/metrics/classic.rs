//! Content negotiation for `/metrics`, and the Prometheus text format 0.0.4 that scrapers and
//! tools without OpenMetrics support read.
//!
//! The figures are encoded once, as OpenMetrics; [`to_classic`] rewrites that text into the
//! 0.0.4 format: a counter's family takes its samples' name (`x_total`, where OpenMetrics
//! names the family `x`), `# UNIT` lines and the closing `# EOF` go, `unknown` becomes
//! `untyped`, and an empty label set `{}` is dropped. Without the renaming a classic parser
//! finds `x_total` samples under no declared family and loses every counter's type.

use std::collections::HashSet;

/// The content type of the OpenMetrics text format.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The content type of the Prometheus text format 0.0.4.
pub const CLASSIC: &str = "text/plain; version=0.0.4; charset=utf-8";

/// True when an `Accept` header prefers OpenMetrics to the classic text format: it names
/// `application/openmetrics-text` with a quality above zero and at least that of any
/// `text/plain` (Prometheus sends both, OpenMetrics first). Without the header, or for any
/// other, the classic format is served.
pub fn wants_openmetrics(accept: Option<&str>) -> bool {
    let Some(accept) = accept else {
        return false;
    };
    let mut openmetrics: Option<f32> = None;
    let mut plain: Option<f32> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or("").to_ascii_lowercase();
        let quality = parts
            .filter_map(|p| p.strip_prefix("q="))
            .find_map(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        let slot = match media.as_str() {
            "application/openmetrics-text" => &mut openmetrics,
            "text/plain" => &mut plain,
            _ => continue,
        };
        *slot = Some(slot.map_or(quality, |q| q.max(quality)));
    }
    match openmetrics {
        Some(om) if om > 0.0 => plain.is_none_or(|p| om >= p),
        _ => false,
    }
}

/// The OpenMetrics text `openmetrics` in the Prometheus text format 0.0.4.
pub fn to_classic(openmetrics: &str) -> String {
    let counters: HashSet<&str> = openmetrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        if let Some((keyword, rest)) = comment(line) {
            let (name, text) = rest.split_once(' ').unwrap_or((rest, ""));
            let name = if counters.contains(name) {
                format!("{name}_total")
            } else {
                name.to_owned()
            };
            let text = match (keyword, text) {
                ("TYPE", "unknown") => "untyped",
                ("TYPE", "info" | "stateset" | "gaugehistogram") => "gauge",
                _ => text,
            };
            out.push_str(&format!("# {keyword} {name} {text}\n"));
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        // Exemplars (` # {...}`) are OpenMetrics only.
        let sample = line.split_once(" # ").map_or(line, |(s, _)| s);
        if counters
            .iter()
            .any(|c| sample.starts_with(c) && sample[c.len()..].starts_with("_created"))
        {
            continue;
        }
        match sample.split_once("{} ") {
            Some((name, value)) if !name.contains('{') => {
                out.push_str(&format!("{name} {value}\n"));
            }
            _ => {
                out.push_str(sample);
                out.push('\n');
            }
        }
    }
    out
}

/// `# HELP` and `# TYPE` lines: their keyword and the rest.
fn comment(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("# ")?;
    let (keyword, rest) = rest.split_once(' ')?;
    matches!(keyword, "HELP" | "TYPE").then_some((keyword, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prometheus_and_browsers_get_what_they_ask_for() {
        let prometheus = "application/openmetrics-text;version=1.0.0,\
            application/openmetrics-text;version=0.0.1;q=0.75,\
            text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert!(wants_openmetrics(Some(prometheus)));
        assert!(wants_openmetrics(Some("application/openmetrics-text")));
        assert!(!wants_openmetrics(None));
        assert!(!wants_openmetrics(Some("*/*")));
        assert!(!wants_openmetrics(Some("text/plain;version=0.0.4")));
        assert!(!wants_openmetrics(Some(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        )));
        assert!(!wants_openmetrics(Some(
            "application/openmetrics-text;q=0.2,text/plain;q=0.9"
        )));
        assert!(!wants_openmetrics(Some("application/openmetrics-text;q=0")));
    }

    #[test]
    fn counters_take_their_samples_name_and_openmetrics_only_lines_go() {
        let om = "# HELP a_bytes Bytes.\n# TYPE a_bytes counter\n# UNIT a_bytes bytes\n\
                  a_bytes_total{x=\"1\"} 2\na_bytes_created{x=\"1\"} 1.5\n\
                  # HELP g A gauge.\n# TYPE g gauge\ng{} 3\n\
                  # HELP u Unknown.\n# TYPE u unknown\nu 4 # {id=\"e\"} 1\n# EOF\n";
        assert_eq!(
            to_classic(om),
            "# HELP a_bytes_total Bytes.\n# TYPE a_bytes_total counter\n\
             a_bytes_total{x=\"1\"} 2\n\
             # HELP g A gauge.\n# TYPE g gauge\ng 3\n\
             # HELP u Unknown.\n# TYPE u untyped\nu 4\n"
        );
    }
}
