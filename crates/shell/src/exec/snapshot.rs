//! Snapshot commands through the client's admin, with HBase shell's output: `snapshot`,
//! `delete_snapshot`, `clone_snapshot` and `restore_snapshot` print nothing but the time
//! taken; the listings print `SNAPSHOT` and `TABLE + CREATION TIME` columns, the time as
//! Ruby's `Time#to_s` prints it (`2026-12-05 07:30:22 +0000`, in UTC here).

use std::io::Write;

use strata_client::{Connection, SnapshotDescription};
use strata_model::schema::TableName;

use super::ExecError;
use crate::format;
use crate::pattern::Pattern;

/// `snapshot 't', 's'`.
pub(super) async fn take(
    conn: &Connection,
    table: &TableName,
    name: &str,
) -> Result<(), ExecError> {
    conn.admin().snapshot(&table.to_string(), name).await?;
    Ok(())
}

/// `clone_snapshot 's', 't'`.
pub(super) async fn clone(
    conn: &Connection,
    name: &str,
    table: &TableName,
) -> Result<(), ExecError> {
    Ok(conn
        .admin()
        .clone_snapshot(name, &table.to_string())
        .await?)
}

/// `restore_snapshot 's'`.
pub(super) async fn restore(conn: &Connection, name: &str) -> Result<(), ExecError> {
    Ok(conn.admin().restore_snapshot(name).await?)
}

/// `delete_snapshot 's'`.
pub(super) async fn delete(conn: &Connection, name: &str) -> Result<(), ExecError> {
    Ok(conn.admin().delete_snapshot(name).await?)
}

/// A whole-name pattern, as `java.util.regex.Pattern.matcher(name).matches()` takes it.
fn whole(command: &str, p: Option<&str>) -> Result<Option<Pattern>, ExecError> {
    p.map(|p| {
        Pattern::new(p)
            .map_err(|e| ExecError::Rejected(format!("{command}: bad pattern '{p}': {e}")))
    })
    .transpose()
}

/// `list_snapshots ['regex']`: the snapshots whose whole name matches, oldest first.
pub(super) async fn list(
    conn: &Connection,
    pattern: Option<&str>,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let pattern = whole("list_snapshots", pattern)?;
    let list = conn.admin().list_snapshots(None).await?;
    print(
        list.into_iter()
            .filter(|s| pattern.as_ref().is_none_or(|p| p.matches(&s.name))),
        out,
    )
}

/// `list_table_snapshots 'table_regex' [, 'snapshot_regex']`.
pub(super) async fn list_of_tables(
    conn: &Connection,
    table: &str,
    pattern: Option<&str>,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let tables = whole("list_table_snapshots", Some(table))?;
    let pattern = whole("list_table_snapshots", pattern)?;
    let list = conn.admin().list_snapshots(None).await?;
    print(
        list.into_iter()
            .filter(|s| tables.as_ref().is_none_or(|p| p.matches(&s.table)))
            .filter(|s| pattern.as_ref().is_none_or(|p| p.matches(&s.name))),
        out,
    )
}

fn print(
    list: impl Iterator<Item = SnapshotDescription>,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    format::header(out, "SNAPSHOT", "TABLE + CREATION TIME")?;
    let mut n = 0;
    for s in list {
        let created = format::ruby_time(s.creation_time_ms);
        format::row(out, &s.name, &format!("{} ({created})", s.table))?;
        n += 1;
    }
    format::rows(out, n)?;
    Ok(())
}
