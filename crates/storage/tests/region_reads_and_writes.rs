//! A region's writes and reads through memtable, flush and reopen.
#![allow(clippy::unwrap_used)]

mod region_support;

use bytes::Bytes;
use region_support::*;
use strata_model::ops::{
    Append, CheckAndMutate, Condition, Delete, Get, Increment, Put, RowMutations, Scan, TimeRange,
};
use strata_storage::ErrorKind;

#[test]
fn versions_and_every_delete_kind_across_flushes() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f", "g"]));
    let r = env.open();
    for ts in 1..=4 {
        put(&r, "row", "f", "a", ts, &format!("a{ts}"));
        put(&r, "row", "f", "b", ts, &format!("b{ts}"));
    }
    put(&r, "row", "g", "c", 1, "c1");
    r.flush().unwrap();
    let all = Get::new("row").with_max_versions(10);
    assert_eq!(
        get(&r, all.clone()).len(),
        3 + 3 + 1,
        "VERSIONS=3 per column"
    );
    // Newest version only by default.
    assert_eq!(
        get(&r, Get::new("row")),
        vec![
            (s("f"), s("a"), 4, s("a4")),
            (s("f"), s("b"), 4, s("b4")),
            (s("g"), s("c"), 1, s("c1"))
        ]
    );
    // Delete one version (in the memtable, over a flushed file).
    r.delete(&Delete::new("row").version_at("f", "a", 4))
        .unwrap();
    assert_eq!(
        get(&r, Get::new("row").with_column("f", "a")),
        vec![(s("f"), s("a"), 3, s("a3"))]
    );
    // Delete a column up to ts 3.
    r.delete(&Delete::new("row").column_upto("f", "a", 3))
        .unwrap();
    assert!(get(&r, Get::new("row").with_column("f", "a")).is_empty());
    r.flush().unwrap();
    // Family-version delete at ts 4 hides b4; family delete up to 3 hides the rest of f.
    r.delete(&Delete::new("row").family_version("f", 4))
        .unwrap();
    assert_eq!(
        get(&r, Get::new("row").with_family("f")),
        vec![(s("f"), s("b"), 3, s("b3"))]
    );
    r.delete(&Delete::new("row").family_upto("f", 3)).unwrap();
    assert!(get(&r, Get::new("row").with_family("f")).is_empty());
    assert_eq!(get(&r, Get::new("row")), vec![(s("g"), s("c"), 1, s("c1"))]);
    // A whole-row delete.
    r.delete(&Delete::new("row")).unwrap();
    assert!(get(&r, Get::new("row")).is_empty());
    // Reopen: the same answers from files and the replayed WAL.
    drop(r);
    let r = env.open();
    assert!(get(&r, Get::new("row")).is_empty());
    put(&r, "row", "f", "a", 2_000_000, "new");
    assert_eq!(
        get(&r, Get::new("row")),
        vec![(s("f"), s("a"), 2_000_000, s("new"))]
    );
}

#[test]
fn unflushed_writes_survive_reopen_and_flushed_ones_leave_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for i in 0..100 {
        put(&r, &format!("r{i:03}"), "f", "q", 5, &format!("v{i}"));
    }
    drop(r);
    let r = env.open();
    assert_eq!(
        get(&r, Get::new("r042")),
        vec![(s("f"), s("q"), 5, s("v42"))]
    );
    assert!(r.memtable_bytes() > 0);
    r.flush().unwrap();
    assert_eq!(r.memtable_bytes(), 0);
    put(&r, "r200", "f", "q", 5, "late");
    drop(r);
    let r = env.open();
    assert_eq!(r.store_stats()[0].files, 1);
    assert_eq!(
        get(&r, Get::new("r042")),
        vec![(s("f"), s("q"), 5, s("v42"))]
    );
    assert_eq!(
        get(&r, Get::new("r200")),
        vec![(s("f"), s("q"), 5, s("late"))]
    );
    // Only the late write was replayed into the memtable.
    assert_eq!(r.store_stats()[0].memtable_cells, 1);
}

#[test]
fn scans_forward_reversed_limited_and_batched() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for i in 0..20 {
        for q in ["a", "b", "c"] {
            put(&r, &format!("r{i:02}"), "f", q, 1, "v");
        }
        if i == 10 {
            r.flush().unwrap();
        }
    }
    let rows = |scan: Scan| {
        let mut sc = r.scan(&scan).unwrap();
        let mut out = Vec::new();
        while let Some(cells) = sc.next_row().unwrap() {
            out.push((
                String::from_utf8_lossy(&cells[0].row).into_owned(),
                cells.len(),
            ));
        }
        out
    };
    let all = rows(Scan::new());
    assert_eq!(all.len(), 20);
    assert_eq!(all[0], (s("r00"), 3));
    let mut range = Scan::range("r05", "r08");
    assert_eq!(
        rows(range.clone())
            .iter()
            .map(|x| x.0.clone())
            .collect::<Vec<_>>(),
        ["r05", "r06", "r07"]
    );
    range.reversed = true;
    range.start_row = Bytes::from_static(b"r07");
    range.stop_row = Bytes::from_static(b"r04");
    assert_eq!(
        rows(range.clone())
            .iter()
            .map(|x| x.0.clone())
            .collect::<Vec<_>>(),
        ["r07", "r06", "r05"]
    );
    // HBase's `withStopRow(row, true)`, reversed: the stop row, the lowest, comes back too.
    range.include_stop_row = true;
    assert_eq!(
        rows(range.clone())
            .iter()
            .map(|x| x.0.clone())
            .collect::<Vec<_>>(),
        ["r07", "r06", "r05", "r04"]
    );
    range.reversed = false;
    range.start_row = Bytes::from_static(b"r17");
    range.stop_row = Bytes::from_static(b"r19");
    assert_eq!(
        rows(range).iter().map(|x| x.0.clone()).collect::<Vec<_>>(),
        ["r17", "r18", "r19"]
    );
    let mut rev = Scan::new();
    rev.reversed = true;
    let back = rows(rev);
    assert_eq!(back.first().unwrap().0, "r19");
    assert_eq!(back.len(), 20);
    let mut limited = Scan::with_prefix("r1");
    limited.limit = Some(4);
    assert_eq!(rows(limited).len(), 4);
    let mut batched = Scan::range("r00", "r02");
    batched.batch = Some(2);
    assert_eq!(
        rows(batched),
        vec![(s("r00"), 2), (s("r00"), 1), (s("r01"), 2), (s("r01"), 1)]
    );
}

#[test]
fn increment_append_and_check_and_mutate() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let inc = Increment::new("c").add("f", "n", 5);
    r.increment(&inc).unwrap();
    r.flush().unwrap();
    let res = r.increment(&inc).unwrap();
    assert_eq!(res.cells[0].value.as_ref(), &10i64.to_be_bytes());
    r.append(&Append::new("c").add("f", "s", "ab")).unwrap();
    r.append(&Append::new("c").add("f", "s", "cd")).unwrap();
    assert_eq!(get(&r, Get::new("c").with_column("f", "s"))[0].3, "abcd");
    // Not a counter.
    let e = r
        .increment(&Increment::new("c").add("f", "s", 1))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);

    let cam = |cond, v: &str| {
        CheckAndMutate::new(
            cond,
            RowMutations::new("c")
                .with(Put::new("c").add("f", "x", v.to_owned()))
                .unwrap(),
        )
    };
    assert!(r
        .check_and_mutate(&cam(Condition::absent("f", "x"), "1"))
        .unwrap());
    assert!(!r
        .check_and_mutate(&cam(Condition::absent("f", "x"), "2"))
        .unwrap());
    assert!(r
        .check_and_mutate(&cam(Condition::equals("f", "x", "1"), "3"))
        .unwrap());
    assert!(!r
        .check_and_mutate(&cam(Condition::equals("f", "x", "1"), "4"))
        .unwrap());
    assert_eq!(get(&r, Get::new("c").with_column("f", "x"))[0].3, "3");
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let e = r.put(&Put::new("r").add("nope", "q", "v")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert!(e.to_string().contains("nope"), "{e}");
    let long = vec![b'x'; 40_000];
    assert_eq!(
        r.put(&Put::new(long).add("f", "q", "v"))
            .unwrap_err()
            .kind(),
        ErrorKind::Invalid
    );
    // A row mutation with one bad part writes none of it.
    let rm = RowMutations::new("r")
        .with(Put::new("r").add("f", "q", "v"))
        .unwrap()
        .with(Put::new("r").add("nope", "q", "v"))
        .unwrap();
    assert!(r.mutate_row(&rm).is_err());
    assert!(get(&r, Get::new("r")).is_empty());
    assert!(r.get(&Get::new("r").with_family("nope")).is_err());
    assert!(TimeRange::new(5, 5).is_err());
}

#[test]
fn rows_outside_the_region_are_redirected() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = Env::new(dir.path(), table(&["f"]));
    env.info.start_row = Bytes::from_static(b"m");
    env.info.end_row = Bytes::from_static(b"t");
    let r = env.open();
    put(&r, "p", "f", "q", 1, "v");
    let e = r.put(&Put::new("a").add("f", "q", "v")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongRegion);
    assert_eq!(
        r.get(&Get::new("t")).unwrap_err().kind(),
        ErrorKind::WrongRegion
    );
}
