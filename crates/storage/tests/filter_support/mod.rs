//! Helpers shared by the filter tests: hand-built rows, and [`RowFilter`] driven the way the
//! region's scan drives it.
#![allow(dead_code)]

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::{Comparator, CompareOp, Filter, SingleColumnValue};
use strata_storage::read::filter::RowFilter;

/// A row's visible cells from `(family, qualifier, timestamp, value)`, put in the order the
/// region hands them over: family, qualifier ascending, timestamp descending.
pub fn row(key: &str, cells: &[(&str, &str, i64, &str)]) -> Vec<Cell> {
    let mut out: Vec<Cell> = cells
        .iter()
        .map(|&(f, q, ts, v)| {
            Cell::put(
                key.to_string(),
                f.to_string(),
                q.to_string(),
                ts,
                v.to_string(),
            )
        })
        .collect();
    out.sort_by(|a, b| {
        (&a.family, &a.qualifier)
            .cmp(&(&b.family, &b.qualifier))
            .then(b.timestamp.cmp(&a.timestamp))
    });
    out
}

/// Rows with one `cf:q` cell each, valued `v`.
pub fn plain_rows(keys: &[&str]) -> Vec<Vec<Cell>> {
    keys.iter()
        .map(|k| row(k, &[("cf", "q", 1, "v")]))
        .collect()
}

/// Runs `filter` over `rows` (given ascending; read in reverse if `reversed`) as a scan does.
pub fn scan(filter: Option<&Filter>, rows: &[Vec<Cell>], reversed: bool) -> Vec<Vec<Cell>> {
    scan_counting(filter, rows, reversed).0
}

/// As [`scan`], also returning how many rows were looked at before the filter said done.
pub fn scan_counting(
    filter: Option<&Filter>,
    rows: &[Vec<Cell>],
    reversed: bool,
) -> (Vec<Vec<Cell>>, usize) {
    let mut rf = RowFilter::new(filter, reversed).expect("filter compiles");
    let order: Vec<&Vec<Cell>> = if reversed {
        rows.iter().rev().collect()
    } else {
        rows.iter().collect()
    };
    let mut out = Vec::new();
    let mut looked = 0;
    for cells in order {
        if rf.is_done() {
            break;
        }
        looked += 1;
        let key = cells.first().map(|c| c.row.clone()).unwrap_or_default();
        if rf.skip_row(&key) {
            continue;
        }
        if let Some(kept) = rf.finish_row(cells.clone()) {
            out.push(kept);
        }
    }
    (out, looked)
}

/// `row/family:qualifier@ts=value` for every cell, rows in order.
pub fn render(rows: &[Vec<Cell>]) -> Vec<String> {
    rows.iter().flatten().map(render_cell).collect()
}

/// `row/family:qualifier@ts=value`.
pub fn render_cell(c: &Cell) -> String {
    format!(
        "{}/{}:{}@{}={}",
        c.row.escape_ascii(),
        c.family.escape_ascii(),
        c.qualifier.escape_ascii(),
        c.timestamp,
        c.value.escape_ascii()
    )
}

/// The row keys of the result.
pub fn keys(rows: &[Vec<Cell>]) -> Vec<String> {
    rows.iter()
        .map(|r| r[0].row.escape_ascii().to_string())
        .collect()
}

/// Shorthand for what [`scan`] returns, rendered.
pub fn scan_render(filter: &Filter, rows: &[Vec<Cell>]) -> Vec<String> {
    render(&scan(Some(filter), rows, false))
}

/// `binary:` comparator.
pub fn bin(s: &str) -> Comparator {
    Comparator::Binary(Bytes::from(s.to_string()))
}

/// A `SingleColumnValue` condition `family:qualifier op binary:value`.
pub fn scv(family: &str, qualifier: &str, op: CompareOp, value: &str) -> SingleColumnValue {
    SingleColumnValue::new(family.to_string(), qualifier.to_string(), op, bin(value))
}

/// `Bytes` from text.
pub fn b(s: &str) -> Bytes {
    Bytes::from(s.to_string())
}
