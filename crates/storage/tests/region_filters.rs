//! Server-side filters through a region's get, scan and check-and-mutate.
#![allow(clippy::unwrap_used)]

mod region_support;

use bytes::Bytes;
use region_support::*;
use strata_model::ops::{
    CheckAndMutate, Comparator, CompareOp, Condition, Filter, Get, Put, RowMutations, Scan,
    SingleColumnValue,
};

fn rows(r: &strata_storage::Region, scan: Scan) -> Vec<String> {
    let mut sc = r.scan(&scan).unwrap();
    let mut out = Vec::new();
    while let Some(cells) = sc.next_row().unwrap() {
        out.push(String::from_utf8_lossy(&cells[0].row).into_owned());
    }
    out
}

#[test]
fn filters_apply_to_gets_scans_and_conditions() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for (row, colour) in [
        ("a1", "red"),
        ("a2", "blue"),
        ("b1", "red"),
        ("b2", "green"),
    ] {
        put(&r, row, "f", "colour", 1, colour);
        put(&r, row, "f", "size", 1, "big");
    }
    r.flush().unwrap();
    put(&r, "a3", "f", "colour", 1, "red");

    let mut scan = Scan::new();
    scan.filter = Some(Filter::Prefix(Bytes::from_static(b"a")));
    assert_eq!(rows(&r, scan), ["a1", "a2", "a3"]);

    let mut scan = Scan::new();
    scan.filter = Some(Filter::SingleColumnValue(SingleColumnValue {
        family: Bytes::from_static(b"f"),
        qualifier: Bytes::from_static(b"colour"),
        op: CompareOp::Equal,
        comparator: Comparator::Binary(Bytes::from_static(b"red")),
        filter_if_missing: true,
        latest_version_only: true,
    }));
    assert_eq!(rows(&r, scan), ["a1", "a3", "b1"]);

    let mut scan = Scan::new();
    scan.filter = Some(Filter::Page(2));
    assert_eq!(rows(&r, scan), ["a1", "a2"]);

    let mut reversed = Scan::new();
    reversed.reversed = true;
    reversed.filter = Some(Filter::Prefix(Bytes::from_static(b"b")));
    assert_eq!(rows(&r, reversed), ["b2", "b1"]);

    let get = Get::new("a2").with_filter(Filter::Qualifier(
        CompareOp::Equal,
        Comparator::Binary(Bytes::from_static(b"size")),
    ));
    assert_eq!(
        get_cells(&r, get),
        vec![("size".to_owned(), "big".to_owned())]
    );

    let cond = Condition::Filter(Filter::Value(
        CompareOp::Equal,
        Comparator::Substring("gree".into()),
    ));
    let mutation = |row: &str| {
        RowMutations::new(row.to_owned())
            .with(Put::new(row.to_owned()).add("f", "seen", "yes"))
            .unwrap()
    };
    assert!(r
        .check_and_mutate(&CheckAndMutate::new(cond.clone(), mutation("b2")))
        .unwrap());
    assert!(!r
        .check_and_mutate(&CheckAndMutate::new(cond, mutation("b1")))
        .unwrap());
    assert_eq!(
        r.get(&Get::new("b2").with_column("f", "seen"))
            .unwrap()
            .len(),
        1
    );
    assert!(r
        .get(&Get::new("b1").with_column("f", "seen"))
        .unwrap()
        .is_empty());
}

fn get_cells(r: &strata_storage::Region, g: Get) -> Vec<(String, String)> {
    r.get(&g)
        .unwrap()
        .into_iter()
        .map(|c| {
            (
                String::from_utf8_lossy(&c.qualifier).into_owned(),
                String::from_utf8_lossy(&c.value).into_owned(),
            )
        })
        .collect()
}

/// Every row a scan returns through `next_row_within` with a deadline already passed, and how
/// many calls timed out on the way.
fn rows_with_deadline(r: &strata_storage::Region, scan: Scan) -> (Vec<String>, usize) {
    use strata_storage::region::ScanStep;
    let mut sc = r.scan(&scan).unwrap();
    let (mut out, mut timeouts) = (Vec::new(), 0);
    let past = std::time::Instant::now();
    loop {
        match sc.next_row_within(Some(past)).unwrap() {
            ScanStep::Row(cells) => out.push(String::from_utf8_lossy(&cells[0].row).into_owned()),
            ScanStep::TimedOut => timeouts += 1,
            ScanStep::End => return (out, timeouts),
        }
        assert!(timeouts < 1000, "the scan does not progress");
    }
}

#[test]
fn a_deadline_stops_between_skipped_rows_and_the_scan_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for i in 0..20 {
        let colour = if i % 5 == 4 { "red" } else { "blue" };
        put(&r, &format!("r{i:02}"), "f", "colour", 1, colour);
    }
    r.flush().unwrap();
    put(&r, "r20", "f", "colour", 1, "red");
    let red = || {
        let mut scan = Scan::new();
        scan.filter = Some(Filter::SingleColumnValue(SingleColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier: Bytes::from_static(b"colour"),
            op: CompareOp::Equal,
            comparator: Comparator::Binary(Bytes::from_static(b"red")),
            filter_if_missing: true,
            latest_version_only: true,
        }));
        scan
    };
    // Each call examines one row at least: the skipped ones time out, the matches come back,
    // and the rows are those of the scan without a deadline.
    let (found, timeouts) = rows_with_deadline(&r, red());
    assert_eq!(found, rows(&r, red()));
    assert_eq!(found, ["r04", "r09", "r14", "r19", "r20"]);
    assert_eq!(timeouts, 16);
    let mut reversed = red();
    reversed.reversed = true;
    let (found, timeouts) = rows_with_deadline(&r, reversed.clone());
    assert_eq!(found, rows(&r, reversed));
    assert_eq!(found, ["r20", "r19", "r14", "r09", "r04"]);
    assert_eq!(timeouts, 16);
}
