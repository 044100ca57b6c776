//! `/config`: the effective configuration (the process's flags and configuration file, as
//! published to [`crate::process_config`]) and the settings the server runs with, as
//! `key = value` lines.

use super::layout::{bytes, esc, page};
use std::fmt::Write as _;
use std::net::SocketAddr;

use strata_server::RegionServer;

/// Renders the page: the process's effective configuration, then the endpoint's address,
/// `settings` (what the process reports: its listeners, names) and the region server's
/// settings (if the process has one).
pub fn render(
    host: Option<&RegionServer>,
    addr: SocketAddr,
    settings: &[(String, String)],
) -> String {
    let mut body = String::new();
    let effective = crate::process_config::lines();
    if !effective.is_empty() {
        body.push_str(
            "<h2>Effective configuration</h2><p class=\"muted\">Flags over the configuration \
             file over defaults; a configuration file may hold these lines as they are.</p>",
        );
        body.push_str(&pre(effective.iter().map(String::as_str)));
    }
    let mut rows: Vec<(String, String)> = vec![("HTTP endpoint".into(), addr.to_string())];
    rows.extend(settings.iter().cloned());
    rows.extend(crate::process_config::listeners());
    if let Some(host) = host {
        server_rows(host, &mut rows);
    }
    let lines: Vec<String> = rows.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    body.push_str("<h2>In force</h2>");
    body.push_str(&pre(lines.iter().map(String::as_str)));
    page("Configuration", &body)
}

/// Lines in a preformatted block.
fn pre<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::from("<div class=\"wide\"><pre>");
    for line in lines {
        let _ = writeln!(out, "{}", esc(line));
    }
    out.push_str("</pre></div>");
    out
}

fn server_rows(host: &RegionServer, out: &mut Vec<(String, String)>) {
    let c = host.config();
    let mut rows: Vec<(String, String)> = vec![
        ("data directory".into(), c.data_dir.display().to_string()),
        ("data directory type".into(), c.data_dir_type.name().into()),
        ("advertised address".into(), c.advertised_address.clone()),
        ("memtable budget".into(), bytes(c.memtable_budget_bytes)),
        ("block cache".into(), bytes(c.block_cache_bytes)),
        ("row cache".into(), bytes(c.row_cache_bytes)),
        ("memory tuner".into(), memory_tuner(&c.memory_tuner)),
        (
            "background threads".into(),
            c.background_threads.to_string(),
        ),
        (
            "compaction priority (nice steps below the server)".into(),
            c.compaction_nice.to_string(),
        ),
        (
            "compaction throughput".into(),
            throughput(&c.compaction_throughput.get()),
        ),
        ("largest value".into(), bytes(c.max_value_bytes as u64)),
        (
            "scan rows per response".into(),
            c.scan_default_rows.to_string(),
        ),
        (
            "scan bytes per response".into(),
            bytes(c.scan_max_result_bytes),
        ),
        ("WAL segment size".into(), bytes(c.wal.segment_size)),
        (
            "WAL async flush interval".into(),
            format!("{} s", c.wal.async_flush_interval.as_secs_f64()),
        ),
        (
            "WAL async buffer limit".into(),
            bytes(c.wal.async_buffer_limit as u64),
        ),
        (
            "WAL skips corrupt records".into(),
            c.wal.skip_corrupt.to_string(),
        ),
        (
            "WAL storage policy".into(),
            c.wal_storage_policy.name().into(),
        ),
        (
            "tier check interval".into(),
            if c.tier_check_every.is_zero() {
                "off".into()
            } else {
                format!("{} s", c.tier_check_every.as_secs_f64())
            },
        ),
        ("flush check".into(), flush_check(&c.flush_check)),
        (
            "slow-operation threshold".into(),
            format!("{} ms", c.slow_op_threshold.as_millis()),
        ),
        (
            "heatmap column".into(),
            format!("{} s", c.heatmap_slot.as_secs_f64()),
        ),
    ];
    for v in &c.volumes {
        rows.push((
            format!("volume {}", v.kind.name()),
            v.path.display().to_string(),
        ));
    }
    out.extend(rows);
}

/// The compaction throughput limit, as the config page shows it.
fn throughput(t: &strata_storage::compaction::throughput::ThroughputConfig) -> String {
    if t.enabled {
        format!(
            "{}/s to {}/s as pressure rises",
            bytes(t.lower_bytes_per_sec),
            bytes(t.upper_bytes_per_sec)
        )
    } else {
        "unlimited".to_owned()
    }
}

/// The flush check's settings, as the config page shows them.
fn flush_check(f: &strata_server::flush_check::FlushCheck) -> String {
    let flushes = if f.flushes() {
        let age = if f.max_edit_age.is_zero() {
            "never by age".to_owned()
        } else {
            format!("edits older than {} s", f.max_edit_age.as_secs_f64())
        };
        let wal = match f.max_wal_segments {
            0 => "never by WAL size".to_owned(),
            n => format!("WAL past {n} segments"),
        };
        format!("every {} s: {age}; {wal}", f.every.as_secs_f64())
    } else {
        "off".to_owned()
    };
    let idle = if f.idle_merge_after.is_zero() {
        "never".to_owned()
    } else {
        format!("every {} s", f.idle_merge_after.as_secs_f64())
    };
    format!("{flushes}; idle memtable merges {idle}")
}

fn memory_tuner(t: &strata_server::memory_tuner::MemoryTunerConfig) -> String {
    if !t.enabled {
        return "off (the sizes above stay fixed)".into();
    }
    format!(
        "every {} ms, steps up to {}%; memtables {}–{}%, block cache {}–{}%, row cache {}–{}% \
         (the sizes above are where it started)",
        t.period.as_millis(),
        t.max_step_percent,
        t.memtables.min_percent,
        t.memtables.max_percent,
        t.block_cache.min_percent,
        t.block_cache.max_percent,
        t.row_cache.min_percent,
        t.row_cache.max_percent
    )
}
