//! Table lifecycle and schema: create, alter, describe, list, enable/disable, drop, exists,
//! truncate.

use std::io::Write;

use bytes::Bytes;
use strata_client::{Connection, TableInfo};
use strata_model::ops::escape;
use strata_model::schema::{TableDescriptor, TableName};

use super::ExecError;
use crate::format;
use crate::pattern::Pattern;
use crate::AlterChange;

/// `create`: prints `Created table t`.
pub(super) async fn create(
    conn: &Connection,
    table: &TableDescriptor,
    splits: &[Bytes],
    out: &mut impl Write,
) -> Result<(), ExecError> {
    conn.admin().create_table(table, splits).await?;
    writeln!(out, "Created table {}", table.name)?;
    Ok(())
}

/// `alter`: the current schema, edited, sent back whole.
pub(super) async fn alter(
    conn: &Connection,
    table: &TableName,
    changes: &[AlterChange],
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    let mut descriptor = admin.describe_table(&table.to_string()).await?.descriptor;
    AlterChange::apply_all(changes, &mut descriptor)?;
    writeln!(out, "Updating all regions with the new schema...")?;
    admin.alter_table(&descriptor).await?;
    writeln!(out, "Done.")?;
    Ok(())
}

/// `alter_async`: the same changes as `alter`, answered once the reopening is submitted.
pub(super) async fn alter_async(
    conn: &Connection,
    table: &TableName,
    changes: &[AlterChange],
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    let mut descriptor = admin.describe_table(&table.to_string()).await?.descriptor;
    AlterChange::apply_all(changes, &mut descriptor)?;
    admin.alter_table_async(&descriptor).await?;
    writeln!(
        out,
        "The regions reopen with the new schema; alter_status '{table}' follows them."
    )?;
    Ok(())
}

/// `alter_status 't'`: HBase's `N/M regions updated.`, then `Done.` once all are.
pub(super) async fn alter_status(
    conn: &Connection,
    table: &TableName,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let (updated, regions) = conn.admin().alter_status(&table.to_string()).await?;
    writeln!(out, "{updated}/{regions} regions updated.")?;
    if updated == regions {
        writeln!(out, "Done.")?;
    }
    Ok(())
}

/// `describe`: state, table settings, one line per family, then the regions.
pub(super) async fn describe(
    conn: &Connection,
    table: &TableName,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let info = conn.admin().describe_table(&table.to_string()).await?;
    write_description(&info, out)
}

/// The text of `describe` for `info`.
pub(super) fn write_description(info: &TableInfo, out: &mut impl Write) -> Result<(), ExecError> {
    let d = &info.descriptor;
    let state = if info.enabled { "ENABLED" } else { "DISABLED" };
    writeln!(out, "Table {} is {state}", d.name)?;
    let table_attributes = with_custom(settings_hash(&d.settings()), &d.metadata, &d.configuration);
    writeln!(
        out,
        "{}, {{TABLE_ATTRIBUTES => {table_attributes}}}",
        d.name
    )?;
    writeln!(out, "COLUMN FAMILIES DESCRIPTION")?;
    for family in &d.families {
        let hash = settings_hash(&family.settings());
        writeln!(
            out,
            "{}",
            with_custom(hash, &family.metadata, &family.configuration)
        )?;
    }
    writeln!(out)?;
    format::rows(out, d.families.len() as u64)?;
    writeln!(out, "REGIONS")?;
    for r in &info.regions {
        writeln!(
            out,
            " {{ID => {}, STARTKEY => '{}', ENDKEY => '{}', SERVER => '{}', STOREFILES => {}, \
             STOREFILE_SIZE => '{}', MEMTABLE_SIZE => '{}'}}",
            r.region_id,
            escape(&r.start_row),
            escape(&r.end_row),
            r.server,
            r.store_files,
            format::size(r.store_bytes),
            format::size(r.memtable_bytes),
        )?;
    }
    writeln!(out, "{} region(s)", info.regions.len())?;
    Ok(())
}

/// `hash` (`{...}`) with HBase's `METADATA => {'k' => 'v'}` and `CONFIGURATION => {...}`
/// entries appended when there are custom values.
fn with_custom(
    hash: String,
    metadata: &std::collections::BTreeMap<String, String>,
    configuration: &std::collections::BTreeMap<String, String>,
) -> String {
    let quoted = |map: &std::collections::BTreeMap<String, String>| {
        let pairs: Vec<String> = map.iter().map(|(k, v)| format!("'{k}' => '{v}'")).collect();
        format!("{{{}}}", pairs.join(", "))
    };
    let mut extra = Vec::new();
    if !metadata.is_empty() {
        extra.push(format!("METADATA => {}", quoted(metadata)));
    }
    if !configuration.is_empty() {
        extra.push(format!("CONFIGURATION => {}", quoted(configuration)));
    }
    if extra.is_empty() {
        return hash;
    }
    let body = hash.strip_suffix('}').unwrap_or(&hash);
    let sep = if body.ends_with('{') { "" } else { ", " };
    format!("{body}{sep}{}}}", extra.join(", "))
}

/// `{KEY => 'value', ...}` as HBase prints descriptors.
fn settings_hash(settings: &[(&str, String)]) -> String {
    let pairs: Vec<String> = settings
        .iter()
        .map(|(k, v)| match (*k, v.parse::<u64>()) {
            // As HBase's describe: `TTL => '86400 SECONDS (1 DAY)'`.
            ("TTL", Ok(seconds)) => format!("{k} => '{}'", format::ttl(seconds)),
            _ => format!("{k} => '{v}'"),
        })
        .collect();
    format!("{{{}}}", pairs.join(", "))
}

/// `list ['regex']`: table names, sorted.
pub(super) async fn list(
    conn: &Connection,
    pattern: Option<&str>,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let pattern = match pattern {
        Some(p) => Some(
            Pattern::new(p)
                .map_err(|e| ExecError::Rejected(format!("list: bad pattern '{p}': {e}")))?,
        ),
        None => None,
    };
    let mut names: Vec<String> = conn
        .admin()
        .list_tables()
        .await?
        .into_iter()
        .map(|t| t.descriptor.name.to_string())
        .filter(|name| pattern.as_ref().is_none_or(|p| p.matches(name)))
        .collect();
    names.sort();
    writeln!(out, "TABLE")?;
    for name in &names {
        writeln!(out, "{name}")?;
    }
    format::rows(out, names.len() as u64)?;
    Ok(())
}

/// `disable`.
pub(super) async fn disable(conn: &Connection, table: &TableName) -> Result<(), ExecError> {
    Ok(conn.admin().disable_table(&table.to_string()).await?)
}

/// `enable`.
pub(super) async fn enable(conn: &Connection, table: &TableName) -> Result<(), ExecError> {
    Ok(conn.admin().enable_table(&table.to_string()).await?)
}

/// `is_enabled` (`enabled: true`) or `is_disabled` (false): prints `true` or `false`.
pub(super) async fn is_enabled(
    conn: &Connection,
    table: &TableName,
    enabled: bool,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let info = conn.admin().describe_table(&table.to_string()).await?;
    writeln!(out, "{}", info.enabled == enabled)?;
    Ok(())
}

/// `drop`.
pub(super) async fn drop(conn: &Connection, table: &TableName) -> Result<(), ExecError> {
    Ok(conn.admin().delete_table(&table.to_string()).await?)
}

/// `exists`: `Table t does exist` or `Table t does not exist`.
pub(super) async fn exists(
    conn: &Connection,
    table: &TableName,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let exists = conn.admin().table_exists(&table.to_string()).await?;
    let verb = if exists { "does" } else { "does not" };
    writeln!(out, "Table {table} {verb} exist")?;
    Ok(())
}

/// `truncate` / `truncate_preserve`.
pub(super) async fn truncate(
    conn: &Connection,
    table: &TableName,
    preserve_splits: bool,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let splits = if preserve_splits {
        " (preserving its regions)"
    } else {
        ""
    };
    writeln!(
        out,
        "Truncating '{table}' table{splits} (it may take a while):"
    )?;
    // As HBase's shell: the server truncates only a disabled table, so disable it first.
    let name = table.to_string();
    let admin = conn.admin();
    if admin.describe_table(&name).await?.enabled {
        writeln!(out, "Disabling table...")?;
        admin.disable_table(&name).await?;
    }
    writeln!(out, "Truncating table...")?;
    admin.truncate_table(&name, preserve_splits).await?;
    writeln!(out, "Done.")?;
    Ok(())
}
