//! Maintenance and cluster information: flush, compact, compaction_state, split, merge,
//! files, status, version, help.

use std::io::Write;

use bytes::Bytes;
use strata_client::Connection;
use strata_model::ops::escape;
use strata_model::schema::TableName;
use strata_proto::pb;

use super::ExecError;
use crate::format::{self, size};
use crate::help::{self, CommandHelp};
use crate::StatusDetail;

/// `flush`. The admin service flushes whole tables, so `flush 't', 'cf'` checks that the
/// family exists and then flushes every family of the table.
pub(super) async fn flush(
    conn: &Connection,
    table: &TableName,
    family: Option<&str>,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    if let Some(family) = family {
        let info = admin.describe_table(&table.to_string()).await?;
        if info.descriptor.family(family.as_bytes()).is_none() {
            return Err(ExecError::Rejected(format!(
                "table '{table}' has no column family '{family}'"
            )));
        }
    }
    Ok(admin.flush(&table.to_string()).await?)
}

/// `compact` / `major_compact`.
pub(super) async fn compact(
    conn: &Connection,
    table: &TableName,
    family: Option<&str>,
    major: bool,
) -> Result<(), ExecError> {
    Ok(conn
        .admin()
        .compact(&table.to_string(), family, major)
        .await?)
}

/// `compaction_state 't'`: HBase's name of the compactions running in the table's regions
/// now (`NONE`, `MINOR`, `MAJOR`, `MAJOR_AND_MINOR`), alone on its line as HBase's shell
/// prints it.
pub(super) async fn compaction_state(
    conn: &Connection,
    table: &TableName,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let state = conn.admin().compaction_state(&table.to_string()).await?;
    writeln!(out, "{state}")?;
    Ok(())
}

/// `split`.
pub(super) async fn split(
    conn: &Connection,
    table: &TableName,
    key: Option<Bytes>,
) -> Result<(), ExecError> {
    Ok(conn.admin().split(&table.to_string(), key).await?)
}

/// `merge_region`: each region by any of its names (see `regions`), then one merge.
pub(super) async fn merge_regions(conn: &Connection, a: &str, b: &str) -> Result<(), ExecError> {
    let (ta, ra) = super::regions::resolve(conn, a).await?;
    let (tb, rb) = super::regions::resolve(conn, b).await?;
    if ta != tb {
        return Err(ExecError::Rejected(format!(
            "regions '{a}' and '{b}' are of different tables"
        )));
    }
    Ok(conn.admin().merge(&ta, ra.region_id, rb.region_id).await?)
}

/// `files`: one line per store file of the table's serving regions (regions by start row,
/// then by family), then `N file(s)`.
pub(super) async fn files(
    conn: &Connection,
    table: &TableName,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let files = conn.admin().list_files(&table.to_string()).await?;
    let rows: Vec<Vec<String>> = files
        .iter()
        .map(|f| {
            vec![
                format!("'{}'", escape(&f.region_start)),
                f.family.clone(),
                f.name.clone(),
                size(f.size),
                f.cells.to_string(),
                window(f.window),
                f.tier.clone(),
                f.path.clone(),
            ]
        })
        .collect();
    format::columns(
        out,
        &[
            "REGION", "FAMILY", "FILE", "SIZE", "CELLS", "WINDOW", "TIER", "PATH",
        ],
        &rows,
    )?;
    writeln!(out, "{} file(s)", files.len())?;
    Ok(())
}

/// A date-tiered window as an ISO 8601 interval of UTC times, `start/end` (end exclusive);
/// `-` for none.
fn window(window: Option<(i64, i64)>) -> String {
    window.map_or_else(
        || "-".to_string(),
        |(start, end)| format!("{}/{}", format::timestamp(start), format::timestamp(end)),
    )
}

/// `status`, as HBase's shell (`admin.rb`'s `status`): `summary` (the default) is one line
/// of counts; `simple` lists the master, each live server with its load, the dead servers
/// and the aggregate load; `detailed` starts with the version and the regions in transition
/// and adds each table's regions.
pub(super) async fn status(
    conn: &Connection,
    detail: StatusDetail,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    let status = admin.status().await?;
    let servers = status.servers.len();
    if detail == StatusDetail::Summary {
        // Precision loss is harmless: an average for display.
        let load = f64::from(status.regions) / servers.max(1) as f64;
        writeln!(
            out,
            "1 active master, 0 backup masters, {servers} servers, 0 dead, {load:.4} average load"
        )?;
        return Ok(());
    }
    if detail == StatusDetail::Detailed {
        writeln!(out, "version {}", status.version)?;
        // A standalone server moves no region between servers.
        writeln!(out, "0 regionsInTransition")?;
    }
    // In standalone mode the master is the server itself.
    let master = status.servers.first().map_or("", |s| s.address.as_str());
    writeln!(out, "active master:  {master}")?;
    writeln!(out, "0 backup masters")?;
    writeln!(out, "{servers} live servers")?;
    for server in &status.servers {
        write_server(server, out)?;
    }
    writeln!(out, "0 dead servers")?;
    if detail == StatusDetail::Simple {
        let requests: u64 = status.servers.iter().map(|s| s.requests).sum();
        writeln!(
            out,
            "Aggregate load: {requests}, regions: {}",
            status.regions
        )?;
        return Ok(());
    }
    let mut tables = admin.list_tables().await?;
    tables.sort_by_key(|t| t.descriptor.name.to_string());
    for table in &tables {
        let state = if table.enabled { "ENABLED" } else { "DISABLED" };
        writeln!(out, "table {} ({state})", table.descriptor.name)?;
        for r in &table.regions {
            writeln!(
                out,
                "    region {} ['{}', '{}') on {}: storefiles={}, storefileSize={}, \
                 memtableSize={}",
                r.region_id,
                escape(&r.start_row),
                escape(&r.end_row),
                r.server,
                r.store_files,
                size(r.store_bytes),
                size(r.memtable_bytes)
            )?;
        }
    }
    Ok(())
}

fn write_server(s: &pb::ServerStatus, out: &mut impl Write) -> Result<(), ExecError> {
    let hit_ratio = ratio(s.block_cache_hits, s.block_cache_misses);
    writeln!(out, "    {} uptime={}s", s.address, s.uptime_ms / 1000)?;
    writeln!(
        out,
        "        regions={}, requests={}, memtableSize={} of {}, blockCacheSize={}, \
         blockCacheHits={}, blockCacheMisses={}, blockCacheHitRatio={hit_ratio:.1}%, \
         walSize={}, flushes={}, compactions={}, splits={}, rowCacheSize={}, \
         rowCacheEntries={}, rowCacheHits={}, rowCacheMisses={}, rowCacheHitRatio={:.1}%, \
         rowCacheEvictions={}, rowCacheInvalidations={}, storeFilesRead={}, \
         storeFilesSkippedByTimeRange={}, storeFilesSkippedByBloom={}",
        s.regions,
        s.requests,
        size(s.memtable_bytes),
        size(s.memtable_limit),
        size(s.block_cache_bytes),
        s.block_cache_hits,
        s.block_cache_misses,
        size(s.wal_bytes),
        s.flushes,
        s.compactions,
        s.splits,
        size(s.row_cache_bytes),
        s.row_cache_entries,
        s.row_cache_hits,
        s.row_cache_misses,
        ratio(s.row_cache_hits, s.row_cache_misses),
        s.row_cache_evictions,
        s.row_cache_invalidations,
        s.files_read,
        s.files_skipped_time_range,
        s.files_skipped_bloom
    )?;
    Ok(())
}

/// Hits as a percentage of lookups (0 when there were none).
fn ratio(hits: u64, misses: u64) -> f64 {
    match hits + misses {
        0 => 0.0,
        // Precision loss is harmless: a ratio for display.
        lookups => 100.0 * hits as f64 / lookups as f64,
    }
}

/// `version`: the server's version and the shell's.
pub(super) async fn version(conn: &Connection, out: &mut impl Write) -> Result<(), ExecError> {
    let status = conn.admin().status().await?;
    writeln!(
        out,
        "{}, shell {}",
        status.version,
        env!("CARGO_PKG_VERSION")
    )?;
    Ok(())
}

/// `help` and `help 'command'`.
pub(super) fn help(
    topic: Option<&'static CommandHelp>,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    match topic {
        Some(command) => write!(out, "{}", help::detail(command))?,
        None => write!(out, "{}", help::overview())?,
    }
    Ok(())
}
