//! Reads: `get`, `getVer(Ts)`, `getRow*`, `getRows*`, `getRowOrBefore`.
//!
//! HBase's `...Ts` reads return versions strictly older than the timestamp; rows with no
//! cells are left out of the result lists.

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::{Columns, Get, Scan, TimeRange};

use super::{columns_of, older_than, split_column, Service};
use crate::error::{Result, ThriftError};
use crate::idl::{row_result, tcells, Fields};
use crate::protocol::{TType, Value};

/// Runs read method `name`.
pub(super) async fn call(s: &Service, name: &str, f: &Fields<'_>) -> Result<Option<Value>> {
    let value = match name {
        "get" => cells(s, f, 1, None).await?,
        "getVer" => {
            let versions = f.i32(4, "numVersions")?;
            cells(s, f, versions, None).await?
        }
        "getVerTs" => {
            let ts = f.i64(4, "timestamp")?;
            let versions = f.i32(5, "numVersions")?;
            cells(s, f, versions, Some(ts)).await?
        }
        "getRow" => rows(s, f, vec![f.bytes(2, "row")?], &[], None).await?,
        "getRowWithColumns" => {
            let columns = f.bytes_list(3, "columns")?;
            rows(s, f, vec![f.bytes(2, "row")?], &columns, None).await?
        }
        "getRowTs" => {
            let ts = f.i64(3, "timestamp")?;
            rows(s, f, vec![f.bytes(2, "row")?], &[], Some(ts)).await?
        }
        "getRowWithColumnsTs" => {
            let columns = f.bytes_list(3, "columns")?;
            let ts = f.i64(4, "timestamp")?;
            rows(s, f, vec![f.bytes(2, "row")?], &columns, Some(ts)).await?
        }
        "getRows" => rows(s, f, f.bytes_list(2, "rows")?, &[], None).await?,
        "getRowsWithColumns" => {
            let columns = f.bytes_list(3, "columns")?;
            rows(s, f, f.bytes_list(2, "rows")?, &columns, None).await?
        }
        "getRowsTs" => {
            let ts = f.i64(3, "timestamp")?;
            rows(s, f, f.bytes_list(2, "rows")?, &[], Some(ts)).await?
        }
        "getRowsWithColumnsTs" => {
            let columns = f.bytes_list(3, "columns")?;
            let ts = f.i64(4, "timestamp")?;
            rows(s, f, f.bytes_list(2, "rows")?, &columns, Some(ts)).await?
        }
        "getRowOrBefore" => row_or_before(s, f).await?,
        _ => return Err(ThriftError::io(format!("{name} is not a read"))),
    };
    Ok(Some(value))
}

/// `get`/`getVer`/`getVerTs`: the cells of one column (or family), newest first.
async fn cells(s: &Service, f: &Fields<'_>, versions: i32, ts: Option<i64>) -> Result<Value> {
    let table = s.table(f, 1)?;
    let row = f.bytes(2, "row")?;
    let column = f.bytes(3, "column")?;
    let versions = u32::try_from(versions)
        .ok()
        .filter(|v| *v > 0)
        .ok_or_else(|| ThriftError::illegal(format!("numVersions {versions} must be positive")))?;
    let mut get = Get::new(row).with_max_versions(versions);
    get = match split_column(&column) {
        (family, Some(qualifier)) => get.with_column(family, qualifier),
        (family, None) => get.with_family(family),
    };
    if let Some(ts) = ts {
        get = get.with_time_range(older_than(ts)?);
    }
    let found = table.get(&get).await?;
    Ok(tcells(&found))
}

/// `getRow*`/`getRows*`: one `TRowResult` per row that has cells, newest version of each
/// column.
async fn rows(
    s: &Service,
    f: &Fields<'_>,
    rows: Vec<Bytes>,
    columns: &[Bytes],
    ts: Option<i64>,
) -> Result<Value> {
    let table = s.table(f, 1)?;
    let columns: Columns = columns_of(columns);
    let time_range = match ts {
        Some(ts) => older_than(ts)?,
        None => TimeRange::ALL,
    };
    let gets: Vec<Get> = rows
        .into_iter()
        .map(|row| {
            let mut get = Get::new(row).with_time_range(time_range);
            get.columns = columns.clone();
            get
        })
        .collect();
    let results = if gets.is_empty() {
        Vec::new()
    } else if gets.len() == 1 {
        vec![table.get(&gets[0]).await?]
    } else {
        table.get_many(&gets).await?
    };
    Ok(row_results(&results, false))
}

/// `TRowResult`s of non-empty rows.
pub(super) fn row_results(rows: &[Vec<Cell>], sorted: bool) -> Value {
    let items = rows
        .iter()
        .filter_map(|cells| {
            let first = cells.first()?;
            Some(row_result(&first.row, cells, sorted))
        })
        .collect();
    Value::list(TType::Struct, items)
}

/// `getRowOrBefore(1: tableName, 2: row, 3: family)`: the cells of `family` in the last row
/// at or before `row`.
async fn row_or_before(s: &Service, f: &Fields<'_>) -> Result<Value> {
    let table = s.table(f, 1)?;
    let row = f.bytes(2, "row")?;
    let (family, _) = split_column(&f.bytes(3, "family")?);
    let mut scan = Scan::new();
    scan.start_row = row;
    scan.reversed = true;
    scan.limit = Some(1);
    scan.caching = Some(1);
    scan.columns.add_family(family);
    scan.validate()?;
    let found = table.scan_all(&scan).await?;
    Ok(tcells(found.first().into_iter().flatten()))
}
