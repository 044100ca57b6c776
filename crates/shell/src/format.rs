//! How the shell prints: HBase shell's two-column tables (and wider ones laid out the same
//! way), cells, timestamps, sizes and the `Took` line.
//!
//! Cell timestamps print as epoch milliseconds (`timestamp=1700000000000`), the form HBase's
//! shell prints with `hbase.shell.timestamp.format.epoch` and operators paste back into
//! commands. `strata shell --timestamps iso` prints them as ISO-8601 dates instead
//! (`2026-11-22T12:00:00.000Z`), in UTC and marked so with a trailing `Z`, since the shell
//! does not know the server's time zone; values outside years 0..=9999 stay milliseconds.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use strata_model::cell::Cell;
use strata_model::ops::escape;

/// Width of the left column (row or column name), as HBase's console formatter pads it.
pub const LEFT_WIDTH: usize = 30;

/// A table header: `ROW   COLUMN+CELL`, flush left.
pub fn header(out: &mut impl Write, left: &str, right: &str) -> io::Result<()> {
    writeln!(out, "{left:<LEFT_WIDTH$} {right}")
}

/// A table row, inset by one space so the right column lines up with the header's.
pub fn row(out: &mut impl Write, left: &str, right: &str) -> io::Result<()> {
    writeln!(out, " {left:<width$} {right}", width = LEFT_WIDTH - 1)
}

/// A table of several columns: the header flush left and each row inset by one space, as
/// [`header`] and [`row`] lay out two; each column is as wide as its widest entry, and the
/// last one is not padded.
pub fn columns(out: &mut impl Write, headers: &[&str], rows: &[Vec<String>]) -> io::Result<()> {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, cell) in r.iter().enumerate().take(widths.len()) {
            // The first column of a row starts one space in.
            let width = cell.chars().count() + usize::from(i == 0);
            widths[i] = widths[i].max(width);
        }
    }
    write_line(out, &widths, "", headers)?;
    for r in rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        write_line(out, &widths, " ", &cells)?;
    }
    Ok(())
}

/// One line of [`columns`]: `inset`, then each cell padded to its column's width (less the
/// inset for the first), the last unpadded.
fn write_line(
    out: &mut impl Write,
    widths: &[usize],
    inset: &str,
    cells: &[&str],
) -> io::Result<()> {
    let mut text = String::from(inset);
    for (i, (cell, &width)) in cells.iter().zip(widths).enumerate() {
        if i + 1 == cells.len() {
            text.push_str(cell);
        } else {
            let width = if i == 0 { width - inset.len() } else { width };
            text.push_str(&format!("{cell:<width$} "));
        }
    }
    writeln!(out, "{}", text.trim_end())
}

/// `cf:q`, escaped.
pub fn column(cell: &Cell) -> String {
    format!("{}:{}", escape(&cell.family), escape(&cell.qualifier))
}

/// How cell timestamps print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TimestampStyle {
    /// Milliseconds since the epoch, as HBase's shell with epoch timestamps.
    #[default]
    Ms,
    /// ISO-8601 dates in UTC.
    Iso,
}

/// The style of the process's shell (set once from `strata shell --timestamps`).
static ISO_TIMESTAMPS: AtomicBool = AtomicBool::new(false);

/// Sets how cell timestamps print from now on.
pub fn set_timestamp_style(style: TimestampStyle) {
    ISO_TIMESTAMPS.store(style == TimestampStyle::Iso, Ordering::Relaxed);
}

/// `ms` in `style`.
pub fn cell_timestamp(ms: i64, style: TimestampStyle) -> String {
    match style {
        TimestampStyle::Ms => ms.to_string(),
        TimestampStyle::Iso => timestamp(ms),
    }
}

/// `timestamp=..., value=...`, escaped, the timestamp in the shell's style; for a delete
/// marker (a raw scan's), `timestamp=..., type=Delete` with HBase's name of its type, as
/// HBase's shell prints it.
pub fn timestamp_and_value(cell: &Cell) -> String {
    let style = if ISO_TIMESTAMPS.load(Ordering::Relaxed) {
        TimestampStyle::Iso
    } else {
        TimestampStyle::Ms
    };
    if cell.cell_type.is_delete() {
        return format!(
            "timestamp={}, type={}",
            cell_timestamp(cell.timestamp, style),
            cell.cell_type.name()
        );
    }
    format!(
        "timestamp={}, value={}",
        cell_timestamp(cell.timestamp, style),
        escape(&cell.value)
    )
}

/// A TTL in seconds as HBase's `describe` shows it (its `PrettyPrinter` for time intervals):
/// `FOREVER`, `59 SECONDS`, `86400 SECONDS (1 DAY)`, `90061 SECONDS (1 DAY 1 HOUR 1 MINUTE
/// 1 SECOND)`. As HBase's, the last unit's plural follows the minutes (`3601 SECONDS (1 HOUR
/// 1 SECONDS)`), so the text matches HBase's exactly.
pub fn ttl(seconds: u64) -> String {
    if seconds >= u64::from(i32::MAX as u32) {
        return "FOREVER".to_owned();
    }
    let s = |n: u64| if n == 1 { "" } else { "S" };
    if seconds < 60 {
        return format!("{seconds} SECOND{}", s(seconds));
    }
    let (days, hours) = (seconds / 86_400, seconds % 86_400 / 3600);
    let (minutes, secs) = (seconds % 3600 / 60, seconds % 60);
    let mut parts = Vec::new();
    if days > 0 {
        parts.push(format!("{days} DAY{}", s(days)));
    }
    if hours > 0 {
        parts.push(format!("{hours} HOUR{}", s(hours)));
    }
    if minutes > 0 {
        parts.push(format!("{minutes} MINUTE{}", s(minutes)));
    }
    if secs > 0 {
        parts.push(format!("{secs} SECOND{}", s(minutes)));
    }
    format!("{seconds} SECONDS ({})", parts.join(" "))
}

/// A cell timestamp in milliseconds since the epoch, as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
pub fn timestamp(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return ms.to_string();
    }
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// A time in milliseconds since the epoch as Ruby's `Time#to_s` prints it in UTC, whole
/// seconds: `2026-12-05 07:30:22 +0000` (HBase's shell prints snapshot times so).
pub fn ruby_time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let in_day = secs.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} +0000",
        in_day / 3600,
        in_day / 60 % 60,
        in_day % 60
    )
}

/// (year, month, day) of a day count since 1970-01-01, in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `Took 0.0123 seconds`, HBase's closing line of every command.
pub fn took(out: &mut impl Write, elapsed: Duration) -> io::Result<()> {
    writeln!(out, "Took {:.4} seconds", elapsed.as_secs_f64())
}

/// `N row(s)`.
pub fn rows(out: &mut impl Write, n: u64) -> io::Result<()> {
    writeln!(out, "{n} row(s)")
}

/// A byte count with a binary unit: `512 B`, `1.5 KB`, `128.0 MB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    // Precision loss is harmless: a displayed size keeps one decimal.
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_print_as_utc_iso() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(timestamp(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(timestamp(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(timestamp(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(timestamp(i64::MAX), i64::MAX.to_string());
    }

    #[test]
    fn cell_timestamps_are_milliseconds_unless_iso_is_asked() {
        assert_eq!(
            cell_timestamp(1_700_000_000_123, TimestampStyle::default()),
            "1700000000123"
        );
        assert_eq!(
            cell_timestamp(1_700_000_000_123, TimestampStyle::Iso),
            "2023-11-14T22:13:20.123Z"
        );
    }

    #[test]
    fn ttls_read_as_hbase_describes_them() {
        assert_eq!(ttl(u64::from(i32::MAX as u32)), "FOREVER");
        assert_eq!(ttl(1), "1 SECOND");
        assert_eq!(ttl(59), "59 SECONDS");
        assert_eq!(ttl(60), "60 SECONDS (1 MINUTE)");
        assert_eq!(ttl(3600), "3600 SECONDS (1 HOUR)");
        assert_eq!(ttl(86_400), "86400 SECONDS (1 DAY)");
        assert_eq!(ttl(172_800), "172800 SECONDS (2 DAYS)");
        assert_eq!(
            ttl(90_061),
            "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)"
        );
        assert_eq!(ttl(3601), "3601 SECONDS (1 HOUR 1 SECONDS)");
    }

    #[test]
    fn rows_line_up_under_the_header() {
        let mut out = Vec::new();
        header(&mut out, "ROW", "COLUMN+CELL").unwrap();
        row(&mut out, "r1", "column=cf:q").unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0].find("COLUMN"), lines[1].find("column"));
    }

    #[test]
    fn columns_line_up_under_their_headers() {
        let mut out = Vec::new();
        let rows = vec![
            vec!["'a-long-row'".to_string(), "f".into(), "last".into()],
            vec![String::new(), "family".into(), "x".into()],
        ];
        columns(&mut out, &["REGION", "FAMILY", "END"], &rows).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "REGION        FAMILY END\n 'a-long-row' f      last\n              family x\n"
        );
    }

    #[test]
    fn sizes_use_binary_units() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(1536), "1.5 KB");
        assert_eq!(size(128 << 20), "128.0 MB");
    }
}
