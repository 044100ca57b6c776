//! Progress of long operations (benchmark runs, the shell's `count`, `major_compact`,
//! `flush`, `truncate`): on a terminal, one status line redrawn in place (a bar when the total
//! is known); otherwise plain lines at a slower pace, so logs and pipes get a readable
//! record instead of control characters.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const BAR_WIDTH: usize = 30;

/// One operation's progress on stderr.
pub struct Progress {
    label: String,
    total: Option<u64>,
    terminal: bool,
    started: Instant,
    /// Plain mode: at most one line per this period.
    every: Duration,
    last_line: Option<Instant>,
    drawn: bool,
}

impl Progress {
    /// Progress of `label`, out of `total` units if known; plain lines at most every `every`
    /// when stderr is not a terminal.
    pub fn new(label: impl Into<String>, total: Option<u64>, every: Duration) -> Progress {
        Progress::with_terminal(label, total, every, std::io::stderr().is_terminal())
    }

    /// As [`Progress::new`], saying whether stderr is a terminal (for tests).
    pub fn with_terminal(
        label: impl Into<String>,
        total: Option<u64>,
        every: Duration,
        terminal: bool,
    ) -> Progress {
        Progress {
            label: label.into(),
            total,
            terminal,
            started: Instant::now(),
            every,
            last_line: None,
            drawn: false,
        }
    }

    /// Whether the line is redrawn in place (stderr is a terminal).
    pub fn is_terminal(&self) -> bool {
        self.terminal
    }

    /// Changes the total (e.g. to a time limit that now ends the run first).
    pub fn set_total(&mut self, total: u64) {
        self.total = Some(total);
    }

    /// Time since the operation started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The status line for `done` units and a free-form `detail` (no control characters).
    pub fn line(&self, done: u64, detail: &str) -> String {
        let secs = self.started.elapsed().as_secs();
        let mut s = format!("{}: ", self.label);
        if let Some(total) = self.total.filter(|t| *t > 0) {
            let frac = (done as f64 / total as f64).clamp(0.0, 1.0);
            if self.terminal {
                let full = (frac * BAR_WIDTH as f64).round() as usize;
                s.push('[');
                s.push_str(&"#".repeat(full));
                s.push_str(&".".repeat(BAR_WIDTH - full));
                s.push_str("] ");
            }
            s.push_str(&format!("{done}/{total} ({:.0}%)", frac * 100.0));
        } else {
            s.push_str(&done.to_string());
        }
        if !detail.is_empty() {
            s.push_str(", ");
            s.push_str(detail);
        }
        s.push_str(&format!(", {secs} s"));
        s
    }

    /// Shows that the operation still runs (no count known): `label: detail, N s`.
    pub fn tick(&mut self, detail: &str) {
        let line = format!(
            "{}: {detail}, {} s",
            self.label,
            self.started.elapsed().as_secs()
        );
        self.show(line);
    }

    /// Shows `done` units: redraws the line on a terminal, or prints a line if `every` has
    /// passed since the last one.
    pub fn update(&mut self, done: u64, detail: &str) {
        let line = self.line(done, detail);
        self.show(line);
    }

    fn show(&mut self, line: String) {
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r\x1b[K{line}");
            let _ = err.flush();
            self.drawn = true;
        } else {
            let now = Instant::now();
            if self
                .last_line
                .is_none_or(|t| now.duration_since(t) >= self.every)
            {
                let _ = writeln!(err, "{line}");
                self.last_line = Some(now);
            }
        }
    }

    /// Ends the operation: clears the redrawn line (the caller prints the outcome).
    pub fn finish(&mut self) {
        if self.terminal && self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
            self.drawn = false;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_and_without_a_total() {
        let p = Progress::with_terminal("load", Some(200), Duration::from_secs(10), true);
        let l = p.line(50, "1000 ops/s");
        assert!(
            l.starts_with("load: [########......................] 50/200 (25%), 1000 ops/s, "),
            "{l}"
        );
        let p = Progress::with_terminal("load", Some(200), Duration::from_secs(10), false);
        let l = p.line(250, "");
        assert!(l.starts_with("load: 250/200 (100%), "), "{l}");
        let p = Progress::with_terminal("count 't'", None, Duration::from_secs(10), false);
        let l = p.line(12, "rows");
        assert!(l.starts_with("count 't': 12, rows, "), "{l}");
        assert!(!l.contains('\x1b'));
    }
}
