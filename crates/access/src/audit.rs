//! The audit log: one JSON line per decision worth keeping, to the log target
//! `strata::audit` and, when configured, appended to a file of its own.
//!
//! Denials are rate-limited per user and call (at most [`DENIALS_PER_SECOND`] lines a second;
//! the next line kept says how many were left out), as bad input is, so a client looping on
//! a refused call cannot fill the disk.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;

/// Most denial lines kept per user and call in one second.
pub const DENIALS_PER_SECOND: u32 = 10;

/// One decision.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// The user (`unknown` when none was proved).
    pub user: &'a str,
    /// The client's address.
    pub client: Option<std::net::SocketAddr>,
    /// The call (`put`, `create_table`, `grant`…).
    pub call: &'a str,
    /// The object: a scope as HBase prints it, or a name.
    pub scope: &'a str,
    /// `allowed` or `denied`.
    pub result: &'a str,
    /// Why, for a denial; what changed, for a grant.
    pub detail: &'a str,
}

/// Where audit lines go.
#[derive(Default, Debug)]
pub struct Audit {
    file: Option<Mutex<File>>,
    limits: Mutex<HashMap<(String, String), Window>>,
}

#[derive(Debug)]
struct Window {
    start: Instant,
    kept: u32,
    left_out: u64,
}

impl Audit {
    /// Lines to the log target only.
    pub fn to_log() -> Audit {
        Audit::default()
    }

    /// Lines to the log target and appended to `path`.
    ///
    /// # Errors
    /// The file cannot be opened for appending.
    pub fn to_file(path: &Path) -> std::io::Result<Audit> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Audit {
            file: Some(Mutex::new(file)),
            limits: Mutex::default(),
        })
    }

    /// Records an allowed decision (admin calls, permission changes).
    pub fn allowed(&self, entry: &Entry<'_>) {
        self.write(entry, 0);
    }

    /// Records a denial, unless this user's denials of this call passed the rate limit.
    pub fn denied(&self, entry: &Entry<'_>) {
        let left_out = {
            let mut limits = self.limits.lock();
            if limits.len() > 10_000 {
                limits.retain(|_, w| w.start.elapsed().as_secs() < 1);
            }
            let w = limits
                .entry((entry.user.to_owned(), entry.call.to_owned()))
                .or_insert(Window {
                    start: Instant::now(),
                    kept: 0,
                    left_out: 0,
                });
            if w.start.elapsed().as_secs() >= 1 {
                w.start = Instant::now();
                w.kept = 0;
            }
            if w.kept >= DENIALS_PER_SECOND {
                w.left_out += 1;
                return;
            }
            w.kept += 1;
            std::mem::take(&mut w.left_out)
        };
        self.write(entry, left_out);
    }

    fn write(&self, entry: &Entry<'_>, left_out: u64) {
        let line = line(entry, left_out);
        tracing::info!(target: "strata::audit", "{line}");
        if let Some(file) = &self.file {
            let mut file = file.lock();
            if let Err(e) = writeln!(file, "{line}") {
                tracing::error!("cannot append to the audit log: {e}");
            }
        }
    }
}

/// The JSON line of `entry`.
pub fn line(entry: &Entry<'_>, left_out: u64) -> String {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let client = entry.client.map(|c| c.to_string()).unwrap_or_default();
    let mut out = format!(
        "{{\"time_ms\":{ms},\"user\":{},\"client\":{},\"call\":{},\"scope\":{},\"result\":{}",
        json(entry.user),
        json(&client),
        json(entry.call),
        json(entry.scope),
        json(entry.result)
    );
    if !entry.detail.is_empty() {
        out.push_str(&format!(",\"detail\":{}", json(entry.detail)));
    }
    if left_out > 0 {
        out.push_str(&format!(",\"left_out_before\":{left_out}"));
    }
    out.push('}');
    out
}

/// `s` as a JSON string.
fn json(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
