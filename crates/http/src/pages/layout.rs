//! The page frame (title, navigation, style) and formatting helpers shared by the pages.

use std::fmt::Write as _;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;color:#1d2430}\
header{background:#1d2430;color:#fff;padding:.6em 1.2em;display:flex;gap:1.5em;align-items:baseline}\
header a{color:#cfe3ff;text-decoration:none}header b{font-size:1.2em}\
main{padding:1em 1.2em}table{border-collapse:collapse;margin:.5em 0 1.5em}\
th,td{border-bottom:1px solid #dde3ea;padding:.3em .7em;text-align:left;font-size:.92em}\
th{background:#f3f6f9}td{white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums}\
code{font-size:.9em}.error{color:#a40000}.muted{color:#6b7785}h2{margin-top:1.2em}\
.wide{max-width:100%;overflow-x:auto}td code{white-space:normal;overflow-wrap:anywhere}";

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A row key for display: escaped as the shell prints it, cut at 48 bytes.
pub fn key(k: &[u8]) -> String {
    if k.is_empty() {
        return String::new();
    }
    let mut s = strata_model::ops::escape(&k[..k.len().min(48)]);
    if k.len() > 48 {
        s.push('…');
    }
    esc(&s)
}

/// A byte count with a binary unit.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n;
    let mut unit = 0;
    while v >= 10 * 1024 && unit < UNITS.len() - 1 {
        v /= 1024;
        unit += 1;
    }
    format!("{v} {}", UNITS[unit])
}

/// `n` and the noun for it: `1 flush`, `2 flushes`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Milliseconds since the epoch as a UTC date and time (`-` for none).
pub fn time_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Howard Hinnant's days-to-civil conversion.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A whole page: `title` and the already-escaped `body`.
pub fn page(title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\">\
         <title>{t} · Strata</title><style>{STYLE}</style></head><body>\
         <header><b>Strata</b><a href=\"/\">Server</a><a href=\"/slow\">Slow operations</a>\
         <a href=\"/history\">Flushes and compactions</a>\
         <a href=\"/config\">Configuration</a><a href=\"/metrics\">Metrics</a></header>\
         <main><h1>{t}</h1>{body}</main></body></html>",
        t = esc(title)
    );
    out
}

/// An HTML table: `head` cells (plain text) and rows of already-escaped cells; a cell
/// starting with `#` is right-aligned (a number) without the `#`.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    // In a box of the page's width that scrolls sideways, so a wide table never widens the
    // page.
    let mut out = String::from("<div class=\"wide\"><table><tr>");
    for h in head {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr>");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            match cell.strip_prefix('#') {
                Some(n) => {
                    let _ = write!(out, "<td class=\"n\">{n}</td>");
                }
                None => {
                    let _ = write!(out, "<td>{cell}</td>");
                }
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table></div>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_escape_and_format() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(key(b"r<1>\x00"), "r&lt;1&gt;\\x00");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(20 * 1024 * 1024), "20 MiB");
        assert_eq!(time_ms(0), "1970-01-01 00:00:00");
        assert_eq!(time_ms(1_700_000_000_000), "2023-11-14 22:13:20");
        assert_eq!(count(1, "flush", "flushes"), "1 flush");
        assert_eq!(count(0, "flush", "flushes"), "0 flushes");
    }

    #[test]
    fn tables_scroll_in_their_box_instead_of_widening_the_page() {
        let t = table(&["a"], &[vec!["#1".to_owned()]]);
        assert!(t.starts_with("<div class=\"wide\"><table>"), "{t}");
        assert!(STYLE.contains(".wide{max-width:100%;overflow-x:auto}"));
    }
}
