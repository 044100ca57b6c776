//! Scanners: `scannerOpen*`, `scannerGet`, `scannerGetList`, `scannerClose`.
//!
//! Opening a scanner fetches its first row, so a missing table or a bad filter fails the
//! open, as in HBase, not the first `scannerGet`. A reply stops growing past the service's
//! reply budget; the client simply asks again (an empty list is the only end signal).

use strata_model::cell::Cell;
use strata_model::ops::{parse_filter, Scan};

use super::read::row_results;
use super::{columns_of, older_than, Service};
use crate::error::{Result, ThriftError};
use crate::idl::{Fields, ScanSpec};
use crate::protocol::Value;
use crate::scanners::OpenScanner;

/// Runs scanner method `name` for connection `conn_id`.
pub(super) async fn call(
    s: &Service,
    name: &str,
    f: &Fields<'_>,
    conn_id: u64,
) -> Result<Option<Value>> {
    let (scan, sorted) = match name {
        "scannerGet" => return next_rows(s, f.i32(1, "id")?, 1).await.map(Some),
        "scannerGetList" => {
            let n = f.i32(2, "nbRows")?;
            return next_rows(s, f.i32(1, "id")?, n).await.map(Some);
        }
        "scannerClose" => {
            let id = f.i32(1, "id")?;
            if !s.scanners.close(id) {
                return Err(ThriftError::illegal(format!("scanner ID {id} is invalid")));
            }
            return Ok(None);
        }
        "scannerOpenWithScan" => from_tscan(&ScanSpec::read(f.structure(2, "scan")?)?)?,
        "scannerOpen" => (basic(f, None, 3, None)?, false),
        "scannerOpenWithStop" => (basic(f, Some(3), 4, None)?, false),
        "scannerOpenTs" => (basic(f, None, 3, Some(4))?, false),
        "scannerOpenWithStopTs" => (basic(f, Some(3), 4, Some(5))?, false),
        "scannerOpenWithPrefix" => {
            let mut scan = Scan::with_prefix(f.bytes(2, "startAndPrefix")?);
            scan.columns = columns_of(&f.bytes_list(3, "columns")?);
            (scan, false)
        }
        _ => return Err(ThriftError::io(format!("{name} is not a scanner method"))),
    };
    scan.validate()?;
    let table = s.table(f, 1)?;
    let mut scanner = table.scan(&scan);
    let first = scanner.next_row().await?;
    let open = OpenScanner {
        scanner,
        sorted,
        peeked: first,
    };
    Ok(Some(Value::I32(s.scanners.open(open, conn_id))))
}

/// A scan from positional arguments: start row at 2, optional stop row, columns and
/// timestamp field ids.
fn basic(f: &Fields<'_>, stop: Option<i16>, columns: i16, ts: Option<i16>) -> Result<Scan> {
    let mut scan = Scan::new();
    scan.start_row = f.bytes(2, "startRow")?;
    if let Some(id) = stop {
        scan.stop_row = f.bytes(id, "stopRow")?;
    }
    scan.columns = columns_of(&f.bytes_list(columns, "columns")?);
    if let Some(id) = ts {
        scan.time_range = older_than(f.i64(id, "timestamp")?)?;
    }
    Ok(scan)
}

/// A scan from a `TScan`, and whether to answer with sorted columns.
fn from_tscan(t: &ScanSpec) -> Result<(Scan, bool)> {
    let mut scan = Scan::new();
    scan.start_row = t.start_row.clone().unwrap_or_default();
    scan.stop_row = t.stop_row.clone().unwrap_or_default();
    scan.reversed = t.reversed;
    if let Some(ts) = t.timestamp {
        scan.time_range = older_than(ts)?;
    }
    scan.columns = columns_of(&t.columns);
    scan.caching = positive(t.caching);
    scan.batch = positive(t.batch_size);
    if let Some(text) = &t.filter_string {
        let text = std::str::from_utf8(text)
            .map_err(|_| ThriftError::illegal("filterString is not UTF-8"))?;
        if !text.trim().is_empty() {
            let filter = parse_filter(text).map_err(|e| ThriftError::illegal(e.to_string()))?;
            scan.filter = Some(filter);
        }
    }
    if let Some(cache) = t.cache_blocks {
        scan.cache_blocks = cache;
    }
    Ok((scan, t.sort_columns))
}

fn positive(v: Option<i32>) -> Option<u32> {
    v.and_then(|v| u32::try_from(v).ok()).filter(|v| *v > 0)
}

/// Up to `n` (at least 1) more rows of scanner `id`; empty at the end.
async fn next_rows(s: &Service, id: i32, n: i32) -> Result<Value> {
    let scanner = s
        .scanners
        .get(id)
        .ok_or_else(|| ThriftError::illegal(format!("scanner ID {id} is invalid")))?;
    let mut open = scanner.lock().await;
    let want = usize::try_from(n).unwrap_or(1).max(1);
    let mut rows: Vec<Vec<Cell>> = Vec::with_capacity(want.min(1024));
    let mut bytes = 0usize;
    while rows.len() < want && bytes < s.max_reply_bytes {
        let row = match open.peeked.take() {
            Some(row) => Some(row),
            None => open.scanner.next_row().await?,
        };
        let Some(row) = row else { break };
        bytes += row.iter().map(|c| c.raw_size()).sum::<usize>();
        rows.push(row);
    }
    let sorted = open.sorted;
    drop(open);
    s.scanners.touch(id);
    Ok(row_results(&rows, sorted))
}
