//! Raw scans, per-family limits and filters over several versions, through a region's get and
//! scan, in the memtable and in files. Each case states what HBase 2.6 answers; the class it
//! follows is named beside it.
#![allow(clippy::unwrap_used)]

mod region_support;

use bytes::Bytes;
use region_support::*;
use strata_model::cell::Cell;
use strata_model::ops::{Comparator, CompareOp, Delete, Filter, Get, Scan};
use strata_model::schema::KeepDeletedCells;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::Region;

/// `row/family:qualifier@ts type=value` of every cell a scan returns.
fn scan_all(r: &Region, scan: &Scan) -> Vec<String> {
    let mut sc = r.scan(scan).unwrap();
    let mut out = Vec::new();
    while let Some(cells) = sc.next_row().unwrap() {
        out.extend(cells.iter().map(render));
    }
    out
}

fn render(c: &Cell) -> String {
    format!(
        "{}/{}:{}@{} {}={}",
        c.row.escape_ascii(),
        c.family.escape_ascii(),
        c.qualifier.escape_ascii(),
        c.timestamp,
        c.cell_type.name(),
        c.value.escape_ascii()
    )
}

fn raw(max_versions: u32) -> Scan {
    Scan {
        raw: true,
        max_versions,
        ..Scan::new()
    }
}

fn delete(r: &Region, d: Delete) {
    r.delete(&d).unwrap();
}

/// Row `r`: `f:a` at 1..=3, a Delete of `a`@2, `f:b` at 1 and 2 under a DeleteColumn at 2,
/// `f:c`@2 and a DeleteFamilyVersion at 2, then row `s` with a DeleteFamily at 5 over `f:a`@4.
fn write_deletes(r: &Region) {
    for ts in 1..=3 {
        put(r, "r", "f", "a", ts, &format!("a{ts}"));
    }
    put(r, "r", "f", "b", 1, "b1");
    put(r, "r", "f", "b", 2, "b2");
    put(r, "r", "f", "c", 2, "c2");
    delete(r, Delete::new("r").version_at("f", "a", 2));
    delete(r, Delete::new("r").column_upto("f", "b", 2));
    delete(r, Delete::new("r").family_version("f", 2));
    put(r, "s", "f", "a", 4, "a4");
    delete(r, Delete::new("s").family_upto("f", 5));
}

/// What a raw scan of [`write_deletes`] returns.
fn raw_all() -> Vec<String> {
    [
        "r/f:@2 DeleteFamilyVersion=",
        "r/f:a@3 Put=a3",
        "r/f:a@2 Delete=",
        "r/f:a@2 Put=a2",
        "r/f:a@1 Put=a1",
        "r/f:b@2 DeleteColumn=",
        "r/f:b@2 Put=b2",
        "r/f:b@1 Put=b1",
        "r/f:c@2 Put=c2",
        "s/f:@5 DeleteFamily=",
        "s/f:a@4 Put=a4",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn raw_scans_return_markers_and_masked_cells() {
    // HBase: RawScanQueryMatcher tracks no deletes; markers come back with their types and
    // mask nothing, sorted before the puts of their timestamp.
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    write_deletes(&r);
    let normal = scan_all(
        &r,
        &Scan {
            max_versions: 3,
            ..Scan::new()
        },
    );
    assert_eq!(normal, ["r/f:a@3 Put=a3", "r/f:a@1 Put=a1"]);
    assert_eq!(scan_all(&r, &raw(3)), raw_all());
    // The same from files, and from a memtable over files.
    r.flush().unwrap();
    assert_eq!(scan_all(&r, &raw(3)), raw_all());
    put(&r, "r", "f", "a", 4, "a4");
    let mut want = raw_all();
    want.insert(1, "r/f:a@4 Put=a4".into());
    assert_eq!(scan_all(&r, &raw(4)), want);
}

#[test]
fn raw_versions_count_puts_only_and_ignore_the_family_limit() {
    // HBase: ScanQueryMatcher.getTrackers gives a raw scan the scan's own max versions (not
    // capped by the family's VERSIONS); ScanWildcardColumnTracker.checkVersion does not count
    // markers, so a marker after the last version returned still comes back.
    let dir = tempfile::tempdir().unwrap();
    let mut t = table(&["f"]);
    t.families[0].versions = 1;
    let env = Env::new(dir.path(), t);
    let r = env.open();
    write_deletes(&r);
    assert_eq!(
        scan_all(&r, &raw(1)),
        [
            "r/f:@2 DeleteFamilyVersion=",
            "r/f:a@3 Put=a3",
            "r/f:a@2 Delete=",
            "r/f:b@2 DeleteColumn=",
            "r/f:b@2 Put=b2",
            "r/f:c@2 Put=c2",
            "s/f:@5 DeleteFamily=",
            "s/f:a@4 Put=a4",
        ]
    );
    // Two versions although the family keeps one: what is not compacted away is there.
    let two = scan_all(&r, &raw(2));
    assert!(two.contains(&"r/f:a@2 Put=a2".to_string()), "{two:?}");
    assert!(two.contains(&"r/f:a@2 Delete=".to_string()), "{two:?}");
    assert!(!two.contains(&"r/f:a@1 Put=a1".to_string()), "{two:?}");
}

#[test]
fn raw_scans_apply_time_range_and_filters_to_markers() {
    // HBase: UserScanQueryMatcher.matchColumn checks the time range and offers markers to the
    // filter like any cell in a raw scan.
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    write_deletes(&r);
    let mut ranged = raw(3);
    ranged.time_range = strata_model::ops::TimeRange::new(2, 3).unwrap();
    assert_eq!(
        scan_all(&r, &ranged),
        [
            "r/f:@2 DeleteFamilyVersion=",
            "r/f:a@2 Delete=",
            "r/f:a@2 Put=a2",
            "r/f:b@2 DeleteColumn=",
            "r/f:b@2 Put=b2",
            "r/f:c@2 Put=c2",
        ]
    );
    let mut filtered = raw(3);
    filtered.filter = Some(Filter::Qualifier(
        CompareOp::Equal,
        Comparator::Binary(Bytes::from_static(b"b")),
    ));
    assert_eq!(
        scan_all(&r, &filtered),
        ["r/f:b@2 DeleteColumn=", "r/f:b@2 Put=b2", "r/f:b@1 Put=b1"]
    );
}

#[test]
fn raw_scans_refuse_columns() {
    // HBase's StoreScanner: "Cannot specify any column for a raw scan".
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let mut scan = raw(1);
    scan.columns.add_column("f", "a");
    assert!(r.scan(&scan).is_err());
    let mut family = raw(1);
    family.columns.add_family("f");
    assert!(r.scan(&family).is_ok());
}

#[test]
fn keep_deleted_cells_keeps_what_a_raw_scan_shows_through_a_major_compaction() {
    // HBase: with KEEP_DELETED_CELLS a major compaction keeps markers and deleted cells, so a
    // raw scan shows them after it; without, they are gone.
    for keep in [KeepDeletedCells::True, KeepDeletedCells::False] {
        let dir = tempfile::tempdir().unwrap();
        let mut t = table(&["f"]);
        t.families[0].keep_deleted_cells = keep;
        let env = Env::new(dir.path(), t);
        let r = env.open();
        put(&r, "r", "f", "a", 1, "a1");
        delete(&r, Delete::new("r").column_upto("f", "a", 1));
        r.flush().unwrap();
        r.compact(MajorRequest::User).unwrap();
        let got = scan_all(&r, &raw(3));
        if keep == KeepDeletedCells::True {
            assert_eq!(got, ["r/f:a@1 DeleteColumn=", "r/f:a@1 Put=a1"]);
        } else {
            assert!(got.is_empty(), "{got:?}");
        }
        assert!(scan_all(&r, &Scan::new()).is_empty());
    }
}

/// Row `r` with columns `a`..`e` (one version each) in `f` and `x`, `y` in `g`.
fn wide(r: &Region) {
    for q in ["a", "b", "c", "d", "e"] {
        put(r, "r", "f", q, 1, q);
    }
    for q in ["x", "y"] {
        put(r, "r", "g", q, 1, q);
    }
}

fn qualifiers(cells: Vec<Cell>) -> Vec<String> {
    cells
        .iter()
        .map(|c| format!("{}:{}", c.family.escape_ascii(), c.qualifier.escape_ascii()))
        .collect()
}

#[test]
fn per_family_limit_and_offset_on_gets_and_scans() {
    // HBase's StoreScanner: storeOffset cells of each family are skipped, then at most
    // storeLimit come back, per row.
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f", "g"]));
    let r = env.open();
    wide(&r);
    let get = Get::new("r").with_per_family(Some(2), 1);
    assert_eq!(qualifiers(r.get(&get).unwrap()), ["f:b", "f:c", "g:y"]);
    let get = Get::new("r").with_per_family(None, 4);
    assert_eq!(qualifiers(r.get(&get).unwrap()), ["f:e"]);
    let get = Get::new("r").with_per_family(Some(0), 0);
    assert!(r.get(&get).unwrap().is_empty());
    r.flush().unwrap();
    put(&r, "s", "f", "a", 1, "a");
    let scan = Scan {
        max_results_per_family: Some(1),
        offset_per_family: 1,
        ..Scan::new()
    };
    let got: Vec<String> = scan_all(&r, &scan);
    // Row `s` has nothing past the offset and is not returned.
    assert_eq!(got, ["r/f:b@1 Put=b", "r/g:y@1 Put=y"]);
}

#[test]
fn per_family_limit_counts_versions_and_filtered_cells() {
    // HBase's StoreScanner counts the cells the matcher includes: every version returned,
    // only the cells the filter keeps.
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for ts in 1..=3 {
        put(&r, "r", "f", "a", ts, "x");
        put(&r, "r", "f", "b", ts, if ts == 2 { "y" } else { "x" });
    }
    let get = Get::new("r")
        .with_max_versions(3)
        .with_per_family(Some(2), 2);
    let got: Vec<String> = r.get(&get).unwrap().iter().map(render).collect();
    assert_eq!(got, ["r/f:a@1 Put=x", "r/f:b@3 Put=x"]);
    let get = Get::new("r")
        .with_max_versions(3)
        .with_per_family(Some(2), 1)
        .with_filter(Filter::Value(
            CompareOp::Equal,
            Comparator::Binary(Bytes::from_static(b"x")),
        ));
    let got: Vec<String> = r.get(&get).unwrap().iter().map(render).collect();
    assert_eq!(got, ["r/f:a@2 Put=x", "r/f:a@1 Put=x"]);
}

#[test]
fn filters_see_older_versions_before_versions_are_limited() {
    // HBase's UserScanQueryMatcher.matchColumn: the column tracker offers the family's
    // VERSIONS to the filter, and max versions count what the filter keeps; so an older
    // version that matches comes back when the newest does not.
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"])); // VERSIONS => 3
    let r = env.open();
    put(&r, "r", "f", "a", 1, "old");
    put(&r, "r", "f", "a", 2, "mid");
    put(&r, "r", "f", "a", 3, "new");
    put(&r, "r", "f", "a", 4, "newest");
    let value = |v: &'static str| {
        Filter::Value(
            CompareOp::Equal,
            Comparator::Binary(Bytes::from_static(v.as_bytes())),
        )
    };
    for flushed in [false, true] {
        if flushed {
            r.flush().unwrap();
        }
        // One version asked: the newest matching among the 3 the family keeps.
        let get = Get::new("r").with_filter(value("mid"));
        let got: Vec<String> = r.get(&get).unwrap().iter().map(render).collect();
        assert_eq!(got, ["r/f:a@2 Put=mid"]);
        let scan = Scan {
            filter: Some(value("mid")),
            ..Scan::new()
        };
        assert_eq!(scan_all(&r, &scan), ["r/f:a@2 Put=mid"]);
        // The 4th version is past the family's VERSIONS: never offered.
        let get = Get::new("r")
            .with_max_versions(10)
            .with_filter(value("old"));
        assert!(r.get(&get).unwrap().is_empty());
        // Versions count after the filter: two of the three kept.
        let not_new = Filter::Value(
            CompareOp::NotEqual,
            Comparator::Binary(Bytes::from_static(b"new")),
        );
        let get = Get::new("r").with_max_versions(2).with_filter(not_new);
        let got: Vec<String> = r.get(&get).unwrap().iter().map(render).collect();
        assert_eq!(got, ["r/f:a@4 Put=newest", "r/f:a@2 Put=mid"]);
    }
    // A deleted version is not offered to the filter.
    delete(&r, Delete::new("r").version_at("f", "a", 2));
    let get = Get::new("r").with_filter(value("mid"));
    assert!(r.get(&get).unwrap().is_empty());
    // A raw scan offers every version, markers too, and counts what the filter keeps.
    for (ts, v) in [(1, "old"), (2, "mid"), (3, "new"), (4, "newest")] {
        put(&r, "q", "f", "a", ts, v);
    }
    delete(&r, Delete::new("q").version_at("f", "a", 1));
    let scan = Scan {
        filter: Some(value("old")),
        stop_row: Bytes::from_static(b"r"),
        ..raw(1)
    };
    assert_eq!(scan_all(&r, &scan), ["q/f:a@1 Put=old"]);
}
