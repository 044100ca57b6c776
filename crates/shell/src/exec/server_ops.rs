//! Commands about a server rather than a table: `compact_rs`, `processlist` and
//! `list_procedures`,
//! `clear_block_cache`, `table_help` (the table
//! commands and table references), and `update_config` / `update_all_config`.

use std::collections::BTreeSet;
use std::io::Write;

use strata_client::Connection;
use strata_model::schema::TableName;

use super::ExecError;
use crate::format;

/// `compact_rs 'SERVER' [, major]`: compacts every table with a serving region on the server.
/// The admin service compacts whole tables; there is no per-server compaction to ask for.
pub(super) async fn compact_server(
    conn: &Connection,
    server: &str,
    major: bool,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    let servers: Vec<String> = admin
        .status()
        .await?
        .servers
        .into_iter()
        .map(|s| s.address)
        .collect();
    // `host:port:startcode` names the same server as `host:port`.
    let matches = |address: &str| address == server || server.starts_with(&format!("{address}:"));
    if !servers.iter().any(|s| matches(s)) {
        return Err(ExecError::Rejected(format!(
            "compact_rs: no live server '{server}' (servers: {})",
            servers.join(", ")
        )));
    }
    let tables: BTreeSet<String> = admin
        .list_tables()
        .await?
        .into_iter()
        .filter(|t| t.enabled && t.regions.iter().any(|r| matches(&r.server)))
        .map(|t| t.descriptor.name.to_string())
        .collect();
    for table in &tables {
        admin.compact(table, None, major).await?;
    }
    let kind = if major { "major" } else { "minor" };
    writeln!(
        out,
        "Requested {kind} compactions of {} table(s) on {server}",
        tables.len()
    )?;
    Ok(())
}

/// `list_procedures` (and `processlist`): the procedures in progress, through the admin
/// service, as HBase's shell lists them. The coordination store keeps no times for them, so
/// `Submitted_Time` and `Last_Update` are `-`; their table or region and step follow.
pub(super) async fn list_procedures(
    conn: &Connection,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let procedures = conn.admin().list_procedures().await?;
    let rows: Vec<Vec<String>> = procedures
        .iter()
        .map(|p| {
            vec![
                p.id.clone(),
                p.name.clone(),
                p.state.clone(),
                "-".into(),
                "-".into(),
                p.parameters.clone(),
            ]
        })
        .collect();
    format::columns(
        out,
        &[
            "Id",
            "Name",
            "State",
            "Submitted_Time",
            "Last_Update",
            "Parameters",
        ],
        &rows,
    )?;
    format::rows(out, procedures.len() as u64)?;
    Ok(())
}

/// `clear_block_cache 't'`: the table's blocks leave the block caches; HBase's line of
/// `CacheEvictionStats` (with the bytes evicted too).
pub(super) async fn clear_block_cache(
    conn: &Connection,
    table: &TableName,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let stats = conn.admin().clear_block_cache(&table.to_string()).await?;
    writeln!(
        out,
        "CacheEvictionStats{{evictedBlocks={}, bytesEvicted={}, maxCacheSize={}, \
         failedRegionsSize={}, failedRegions=[{}]}}",
        stats.evicted_blocks,
        stats.evicted_bytes,
        stats.max_cache_size,
        stats.failed_regions.len(),
        stats.failed_regions.join(", ")
    )?;
    Ok(())
}

/// `table_help`: the table commands, and HBase's table references with their methods.
pub(super) fn table_help(out: &mut impl Write) -> Result<(), ExecError> {
    write!(
        out,
        "Every table command names its table first: create, alter, describe, disable, \
         enable, drop,\ntruncate, put, get, scan, delete, deleteall, incr, append, \
         get_counter, count, flush,\ncompact, major_compact, split, files. See help 'name' \
         for each.\n\nA table reference names a table once:\n\n  t = get_table 't'\n  \
         t = create 't', 'f'      (creates the table, then names it)\n\nthen t.METHOD \
         arguments runs the command of the same name on it:\n\n  t.put 'r1', 'f:q', 'v'\n  \
         t.get 'r1'\n  t.scan\n  t.scan {{LIMIT => 10}}\n\nMethods:\n"
    )?;
    let methods: Vec<&str> = crate::references::method_names().collect();
    for line in methods.chunks(8) {
        writeln!(out, "  {}", line.join(", "))?;
    }
    Ok(())
}

/// `update_config 'SERVER'` (`server` given) or `update_all_config`: one line per server
/// saying what its reload changed; an error naming each server that reloaded nothing.
pub(super) async fn update_config(
    conn: &Connection,
    server: Option<&str>,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    let updates = match server {
        Some(s) => vec![admin.update_configuration(s).await?],
        None => admin.update_all_configuration().await?,
    };
    let mut failed = Vec::new();
    for u in &updates {
        if let Some(error) = &u.error {
            failed.push(format!("{}: {error}", u.server));
            continue;
        }
        if u.applied.is_empty() && u.needs_restart.is_empty() {
            writeln!(out, "{}: configuration reloaded, nothing changed", u.server)?;
        }
        for change in &u.applied {
            writeln!(out, "{}: applied {change}", u.server)?;
        }
        for change in &u.needs_restart {
            writeln!(out, "{}: waits for a restart: {change}", u.server)?;
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        let command = match server {
            Some(s) => format!("update_config '{s}'"),
            None => "update_all_config".to_string(),
        };
        Err(ExecError::Rejected(format!(
            "{command}: not reloaded on {}",
            failed.join("; ")
        )))
    }
}
