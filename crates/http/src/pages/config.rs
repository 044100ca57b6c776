//! `/config`: the settings the server runs with.

use super::layout::{bytes, esc, page, table};
use std::net::SocketAddr;

use strata_server::RegionServer;

/// Renders the page: the region server's settings (if the process has one), the endpoint's
/// address and `settings` (the process's flags).
pub fn render(
    host: Option<&RegionServer>,
    addr: SocketAddr,
    settings: &[(String, String)],
) -> String {
    let mut rows: Vec<(String, String)> = vec![("HTTP endpoint".into(), addr.to_string())];
    if let Some(host) = host {
        server_rows(host, &mut rows);
    }
    rows.extend(settings.iter().cloned());
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(k, v)| vec![esc(&k), format!("<code>{}</code>", esc(&v))])
        .collect();
    page("Configuration", &table(&["Setting", "Value"], &rows))
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
        (
            "background threads".into(),
            c.background_threads.to_string(),
        ),
        (
            "compaction priority (nice steps below the server)".into(),
            c.compaction_nice.to_string(),
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
        ("WAL".into(), format!("{:?}", c.wal)),
        (
            "WAL storage policy".into(),
            format!("{:?}", c.wal_storage_policy),
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
