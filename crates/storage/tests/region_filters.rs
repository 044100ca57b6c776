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
