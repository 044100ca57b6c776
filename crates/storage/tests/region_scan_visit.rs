//! `RegionScanner::next_row_visit` lends the same rows and cells, in the same order, as
//! `next_row_within` returns: forward and reversed, bounded, limited, batched, filtered, over
//! versions, deletes, time ranges and columns, from the memtable and store files.
#![allow(clippy::unwrap_used)]

mod region_support;

use bytes::Bytes;
use region_support::*;
use strata_model::cell::Cell;
use strata_model::ops::{Delete, Filter, Scan, TimeRange};
use strata_sstable::CellRef;
use strata_storage::region::{CellSink, ScanStep, VisitStep};
use strata_storage::Region;

#[derive(Default)]
struct Collect(Vec<Cell>);

impl CellSink for Collect {
    fn cell(&mut self, family: &[u8], cell: &CellRef<'_>) {
        self.0.push(cell.to_cell(&Bytes::copy_from_slice(family)));
    }
}

fn by_rows(r: &Region, scan: &Scan) -> Vec<Vec<Cell>> {
    let mut sc = r.scan(scan).unwrap();
    let mut out = Vec::new();
    while let ScanStep::Row(cells) = sc.next_row_within(None).unwrap() {
        out.push(cells);
    }
    out
}

fn by_visits(r: &Region, scan: &Scan) -> Vec<Vec<Cell>> {
    let mut sc = r.scan(scan).unwrap();
    let mut out = Vec::new();
    loop {
        let mut sink = Collect::default();
        match sc.next_row_visit(None, &mut sink).unwrap() {
            VisitStep::Row(row) => {
                assert!(sink.0.iter().all(|c| c.row == row), "row key {row:?}");
                out.push(sink.0);
            }
            VisitStep::End => return out,
            VisitStep::TimedOut => panic!("no deadline was set"),
        }
    }
}

#[test]
fn visits_lend_what_rows_return() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f", "g"]));
    let r = env.open();
    for i in 0..30 {
        let row = format!("r{i:02}");
        for ts in 1..=4 {
            put(&r, &row, "f", "a", ts, &format!("a{ts}"));
        }
        put(&r, &row, "f", "b", 2, "b");
        if i % 3 == 0 {
            put(&r, &row, "g", "c", 5, "c");
        }
        if i == 15 {
            r.flush().unwrap();
        }
    }
    // A row with every cell deleted, a column deleted, a family deleted.
    r.delete(&Delete::new("r04")).unwrap();
    r.delete(&Delete::new("r05").column_upto("f", "a", 3))
        .unwrap();
    r.delete(&Delete::new("r06").family("g")).unwrap();
    let mut scans = vec![
        Scan::new(),
        Scan::range("r03", "r09"),
        Scan::with_prefix("r1"),
    ];
    let mut reversed = Scan::new();
    reversed.reversed = true;
    scans.push(reversed);
    let mut reversed_range = Scan::range("r20", "r03");
    reversed_range.reversed = true;
    scans.push(reversed_range);
    let mut limited = Scan::new();
    limited.limit = Some(7);
    scans.push(limited);
    let mut versions = Scan::new();
    versions.max_versions = 3;
    scans.push(versions.clone());
    versions.time_range = TimeRange::new(2, 4).unwrap();
    scans.push(versions);
    let mut batched = Scan::range("r00", "r08");
    batched.batch = Some(2);
    batched.max_versions = 3;
    scans.push(batched);
    let mut columns = Scan::new();
    columns.columns.add_column("f", "b");
    columns.columns.add_family("g");
    scans.push(columns);
    let mut filtered = Scan::new();
    filtered.filter = Some(Filter::FirstKeyOnly);
    scans.push(filtered);
    for scan in &scans {
        let rows = by_rows(&r, scan);
        assert!(!rows.is_empty(), "{scan:?}");
        assert_eq!(by_visits(&r, scan), rows, "{scan:?}");
    }
}
