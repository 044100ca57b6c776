//! Reads and writes: put, get, scan, delete, incr, append, get_counter, count.

use std::io::Write;
use std::time::{Duration, Instant};

use strata_bench::progress::Progress;
use strata_client::{Connection, Error as ClientError, Table};
use strata_model::cell::Cell;
use strata_model::ops::{escape, Append, Delete, Get, Increment, Put, Scan};
use strata_model::schema::TableName;
use strata_proto::pb::ErrorCode;

use super::ExecError;
use crate::format;

fn table(conn: &Connection, name: &TableName) -> Result<Table, ExecError> {
    Ok(conn.table(&name.to_string())?)
}

/// Names the table in the server's "no such column family" message, which names only the
/// family.
fn in_table(name: &TableName) -> impl Fn(ClientError) -> ExecError + '_ {
    move |e| match e.code {
        ErrorCode::NoSuchFamily => ExecError::Rejected(format!("table '{name}': {}", e.message)),
        _ => ExecError::Client(e),
    }
}

/// `put`.
pub(super) async fn put(conn: &Connection, name: &TableName, put: &Put) -> Result<(), ExecError> {
    table(conn, name)?.put(put).await.map_err(in_table(name))
}

/// `get`: `COLUMN  CELL`, a line per cell (every version, newest first), then `1 row(s)`, or
/// `0 row(s)` when the row has no cells: as HBase's shell, which counts the row, not its
/// cells (`count += 1` once per `Result` in `table.rb`'s `_get_internal`).
pub(super) async fn get(
    conn: &Connection,
    name: &TableName,
    get: &Get,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let cells = table(conn, name)?.get(get).await.map_err(in_table(name))?;
    format::header(out, "COLUMN", "CELL")?;
    for cell in &cells {
        format::row(
            out,
            &format::column(cell),
            &format::timestamp_and_value(cell),
        )?;
    }
    format::rows(out, u64::from(!cells.is_empty()))?;
    Ok(())
}

/// `scan`: `ROW  COLUMN+CELL`, a line per cell, `N row(s)`; rows print as they arrive.
pub(super) async fn scan(
    conn: &Connection,
    name: &TableName,
    scan: &Scan,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let mut scanner = table(conn, name)?.scan(scan);
    // The header waits for the first answer, so a failed scan prints only its error.
    let mut next = scanner.next_row().await.map_err(in_table(name))?;
    format::header(out, "ROW", "COLUMN+CELL")?;
    let mut rows = 0u64;
    while let Some(cells) = next {
        for cell in &cells {
            let text = format!(
                "column={}, {}",
                format::column(cell),
                format::timestamp_and_value(cell)
            );
            format::row(out, &escape(&cell.row), &text)?;
        }
        rows += 1;
        next = scanner.next_row().await.map_err(in_table(name))?;
    }
    format::rows(out, rows)?;
    Ok(())
}

/// `delete` / `deleteall`.
pub(super) async fn delete(
    conn: &Connection,
    name: &TableName,
    delete: &Delete,
) -> Result<(), ExecError> {
    table(conn, name)?
        .delete(delete)
        .await
        .map_err(in_table(name))
}

/// `incr`: `COUNTER VALUE = n`.
pub(super) async fn increment(
    conn: &Connection,
    name: &TableName,
    increment: &Increment,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let cells = table(conn, name)?
        .increment(increment)
        .await
        .map_err(in_table(name))?;
    let cell = cells
        .first()
        .ok_or_else(|| ExecError::Rejected("incr: the server returned no counter".into()))?;
    writeln!(out, "COUNTER VALUE = {}", counter(cell)?)?;
    Ok(())
}

/// `append`: `CURRENT VALUE = bytes`.
pub(super) async fn append(
    conn: &Connection,
    name: &TableName,
    append: &Append,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let cells = table(conn, name)?
        .append(append)
        .await
        .map_err(in_table(name))?;
    if let Some(cell) = cells.first() {
        writeln!(out, "CURRENT VALUE = {}", escape(&cell.value))?;
    }
    Ok(())
}

/// `get_counter`: `COUNTER VALUE = n`, or HBase's note when the column is empty.
pub(super) async fn get_counter(
    conn: &Connection,
    name: &TableName,
    get: &Get,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let cells = table(conn, name)?.get(get).await.map_err(in_table(name))?;
    match cells.first() {
        Some(cell) => writeln!(out, "COUNTER VALUE = {}", counter(cell)?)?,
        None => writeln!(out, "No counter found at specified coordinates")?,
    }
    Ok(())
}

/// A counter cell's value: a big-endian `i64`.
fn counter(cell: &Cell) -> Result<i64, ExecError> {
    let bytes: [u8; 8] = cell.value.as_ref().try_into().map_err(|_| {
        ExecError::Rejected(format!(
            "{} is {} bytes long, not a 64-bit counter (value={})",
            format::column(cell),
            cell.value.len(),
            escape(&cell.value)
        ))
    })?;
    Ok(i64::from_be_bytes(bytes))
}

/// `count`: `Current count: N, row: r` every `interval` rows, then `N row(s)`.
pub(super) async fn count(
    conn: &Connection,
    name: &TableName,
    scan: &Scan,
    interval: u64,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let mut scanner = table(conn, name)?.scan(scan);
    let mut rows = 0u64;
    // On a terminal, a live count (redrawn at most every 100 ms); the `Current count`
    // lines are the progress everywhere else.
    let mut live = Progress::new(format!("count '{name}'"), None, Duration::from_secs(10));
    let mut drawn = Instant::now();
    while let Some(cells) = scanner.next_row().await.map_err(in_table(name))? {
        rows += 1;
        if live.is_terminal() && drawn.elapsed() >= Duration::from_millis(100) {
            let rate = rows as f64 / live.elapsed().as_secs_f64().max(1e-3);
            live.update(rows, &format!("{rate:.0} rows/s"));
            drawn = Instant::now();
        }
        if interval > 0 && rows.is_multiple_of(interval) {
            let row = cells.first().map(|c| escape(&c.row)).unwrap_or_default();
            live.finish();
            writeln!(out, "Current count: {rows}, row: {row}")?;
        }
    }
    live.finish();
    format::rows(out, rows)?;
    Ok(())
}
