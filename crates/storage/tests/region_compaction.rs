//! Compaction keeps what reads see: versions, the four delete kinds, TTL, MIN_VERSIONS and
//! KEEP_DELETED_CELLS, through minor and major compactions and a reopen.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use region_support::*;
use strata_model::cell::Cell;
use strata_model::ops::{Delete, Get, Put, Scan, TimeRange};
use strata_model::schema::{FamilyDescriptor, KeepDeletedCells, TableDescriptor, TableName, Ttl};
use strata_sstable::{Reader, ReaderOptions};
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::read::DroppedCells;
use strata_storage::region::{region_dir_name, CompactionOptions};
use strata_storage::Region;

const NOW: i64 = 1_000_000;

fn table_with(f: FamilyDescriptor) -> TableDescriptor {
    TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f)
}

fn family(versions: u32, min_versions: u32, ttl: Ttl, kdc: KeepDeletedCells) -> FamilyDescriptor {
    let mut f = FamilyDescriptor::new("f");
    f.versions = versions;
    f.min_versions = min_versions;
    f.ttl = ttl;
    f.keep_deleted_cells = kdc;
    f
}

/// Minor compactions of 2 or 3 files, so a store of a few files gets partial compactions;
/// no write throttling (writers would compact).
fn small_minors(r: &Region) {
    let mut o = CompactionOptions::default();
    o.exploring.min_files = 2;
    o.exploring.max_files = 3;
    o.exploring.blocking_file_count = 1000;
    r.set_compaction_options(o).unwrap();
}

fn store_files(env: &Env) -> Vec<PathBuf> {
    let dir = env.root.join("t").join(region_dir_name(1)).join("f");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sst"))
        .collect();
    v.sort();
    v
}

/// (cells, delete markers) over the store's files on disk.
fn file_counts(env: &Env) -> (u64, u64) {
    store_files(env).iter().fold((0, 0), |(c, d), p| {
        let info = Reader::open(p, ReaderOptions::default())
            .unwrap()
            .info()
            .clone();
        (c + info.cell_count, d + info.delete_count)
    })
}

fn line(c: &Cell) -> String {
    format!(
        "{}/{}:{}@{} {:?} #{} = {}",
        String::from_utf8_lossy(&c.row),
        String::from_utf8_lossy(&c.family),
        String::from_utf8_lossy(&c.qualifier),
        c.timestamp,
        c.cell_type,
        c.seq,
        String::from_utf8_lossy(&c.value)
    )
}

fn scan_lines(r: &Region, scan: Scan) -> Vec<String> {
    let mut s = r.scan(&scan).unwrap();
    let mut out = Vec::new();
    while let Some(row) = s.next_row().unwrap() {
        out.extend(row.iter().map(line));
        out.push("--".into());
    }
    out
}

/// Everything a full-time-range read can see: scans (all versions, newest only, reversed)
/// and gets of every row.
fn reads(r: &Region, rows: &[&str]) -> Vec<String> {
    let mut out = scan_lines(
        r,
        Scan {
            max_versions: 100,
            ..Scan::new()
        },
    );
    out.extend(scan_lines(r, Scan::new()));
    out.extend(scan_lines(
        r,
        Scan {
            max_versions: 2,
            reversed: true,
            ..Scan::new()
        },
    ));
    for row in rows {
        let g = Get::new(row.to_string()).with_max_versions(100);
        out.extend(r.get(&g).unwrap().iter().map(line));
        let g = Get::new(row.to_string()).with_column("f", "a");
        out.extend(r.get(&g).unwrap().iter().map(line));
    }
    out
}

const ROWS: [&str; 3] = ["r0", "r1", "r2"];
const QUALIFIERS: [&str; 2] = ["a", ""];

/// Random puts and deletes with clashing timestamps, flushed into several files.
fn random_history(r: &Region, rng: &mut StdRng) {
    for i in 0..90 {
        let row = ROWS[rng.gen_range(0..ROWS.len())];
        let q = QUALIFIERS[rng.gen_range(0..QUALIFIERS.len())];
        let ts = NOW - 10_000 * rng.gen_range(0..6i64);
        if rng.gen_bool(0.65) {
            r.put(&Put::new(row).add_at("f", q, ts, format!("v{i}")))
                .unwrap();
        } else {
            let d = Delete::new(row);
            let d = match rng.gen_range(0..4) {
                0 => d.version_at("f", q, ts),
                1 => d.column_upto("f", q, ts),
                2 => d.family_upto("f", ts),
                _ => d.family_version("f", ts),
            };
            r.delete(&d).unwrap();
        }
        if rng.gen_bool(0.12) {
            r.flush().unwrap();
        }
    }
    r.flush().unwrap();
}

#[test]
fn compaction_keeps_what_reads_saw() {
    let kdcs = [
        KeepDeletedCells::False,
        KeepDeletedCells::True,
        KeepDeletedCells::Ttl,
    ];
    // Every rule must have dropped something somewhere, or the test proves little.
    let mut dropped = DroppedCells::default();
    for seed in 0..96u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let versions = rng.gen_range(1..=3);
        let min_versions = if rng.gen_bool(0.4) { 1 } else { 0 };
        let ttl = if rng.gen_bool(0.5) {
            Ttl::Seconds(25)
        } else {
            Ttl::Forever
        };
        let kdc = kdcs[(seed % 3) as usize];
        let dir = tempfile::tempdir().unwrap();
        let env = Env::new(
            dir.path(),
            table_with(family(versions, min_versions, ttl, kdc)),
        );
        let r = env.open();
        small_minors(&r);
        random_history(&r, &mut rng);
        let ctx =
            format!("seed {seed}: VERSIONS={versions} MIN_VERSIONS={min_versions} {ttl:?} {kdc:?}");
        let before = reads(&r, &ROWS);
        let (cells_before, _) = file_counts(&env);

        let mut minors = 0;
        while let Some(report) = r.compact_store(b"f", MajorRequest::None).unwrap() {
            assert!(!report.major, "{ctx}");
            assert_eq!(report.dropped.markers, 0, "{ctx}: a minor keeps markers");
            assert_eq!(
                reads(&r, &ROWS),
                before,
                "{ctx}: after minor {minors}: {report:?}"
            );
            add(&mut dropped, &report.dropped);
            minors += 1;
            assert!(minors < 20, "{ctx}: minors never end");
        }
        assert!(minors > 0, "{ctx}: no minor compaction ran");

        let report = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
        assert!(report.major, "{ctx}");
        assert_eq!(reads(&r, &ROWS), before, "{ctx}: after major: {report:?}");
        add(&mut dropped, &report.dropped);
        let (cells_after, markers_after) = file_counts(&env);
        assert!(store_files(&env).len() <= 1, "{ctx}");
        assert!(cells_after <= cells_before, "{ctx}");
        if kdc == KeepDeletedCells::False {
            assert_eq!(markers_after, 0, "{ctx}: a major drops every marker");
        }

        drop(r);
        let r = env.open();
        assert_eq!(reads(&r, &ROWS), before, "{ctx}: after reopen");
    }
    let d = dropped;
    assert!(
        d.versions > 0 && d.masked > 0 && d.markers > 0 && d.expired > 0 && d.duplicates > 0,
        "{d:?}"
    );
}

fn add(total: &mut DroppedCells, d: &DroppedCells) {
    total.versions += d.versions;
    total.masked += d.masked;
    total.markers += d.markers;
    total.expired += d.expired;
    total.duplicates += d.duplicates;
}

#[test]
fn major_drops_markers_and_what_they_mask() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for ts in 1..=3 {
        put(&r, "a", "f", "q", ts, "old");
        put(&r, "b", "f", "q", ts, "kept");
    }
    r.flush().unwrap();
    r.delete(&Delete::new("a").column_upto("f", "q", 2))
        .unwrap();
    r.delete(&Delete::new("b").version_at("f", "q", 9)).unwrap();
    r.flush().unwrap();
    assert_eq!(file_counts(&env), (8, 2));

    let report = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    assert!(report.major);
    assert_eq!(report.inputs.len(), 2);
    assert_eq!(report.cells_in, 8);
    assert_eq!(report.dropped.markers, 2);
    assert_eq!(report.dropped.masked, 2);
    assert_eq!(report.cells_out, 4);
    assert!(report.bytes_in > 0 && report.bytes_out > 0);
    assert_eq!(
        file_counts(&env),
        (4, 0),
        "a@3 and b@1..3 remain, no marker"
    );
    assert_eq!(store_files(&env).len(), 1);
    assert_eq!(
        get(&r, Get::new("a").with_max_versions(5)),
        vec![("f".into(), "q".into(), 3, "old".into())]
    );
    // The marker is gone, so a put it would have masked is visible again (as in HBase).
    put(&r, "a", "f", "q", 1, "again");
    assert_eq!(get(&r, Get::new("a").with_max_versions(5)).len(), 2);
}

#[test]
fn minor_keeps_markers_so_older_files_stay_masked() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let mut o = CompactionOptions::default();
    o.exploring.min_files = 3;
    o.exploring.max_files = 3;
    r.set_compaction_options(o).unwrap();
    // An old, large file: not in the minor compaction below.
    for i in 0..200 {
        put(&r, &format!("row{i:03}"), "f", "q", 5, "old");
    }
    r.flush().unwrap();
    r.delete(&Delete::new("row001").column_upto("f", "q", 5))
        .unwrap();
    r.flush().unwrap();
    r.delete(&Delete::new("row002").family_upto("f", 5))
        .unwrap();
    r.flush().unwrap();
    put(&r, "row003", "f", "q", 6, "new");
    r.flush().unwrap();
    let before = reads(&r, &["row001", "row002", "row003"]);

    let report = r.compact_store(b"f", MajorRequest::None).unwrap().unwrap();
    assert!(!report.major);
    assert_eq!(report.inputs.len(), 3, "the three small files: {report:?}");
    assert_eq!(report.dropped.markers, 0);
    assert_eq!(report.cells_out, 3);
    assert_eq!(store_files(&env).len(), 2);
    assert_eq!(
        file_counts(&env),
        (203, 2),
        "both markers are in the output"
    );
    assert!(get(&r, Get::new("row001")).is_empty());
    assert!(get(&r, Get::new("row002")).is_empty());
    assert_eq!(reads(&r, &["row001", "row002", "row003"]), before);
}

#[test]
fn versions_beyond_the_limit_are_dropped_only_when_no_outside_marker_needs_them() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(
        dir.path(),
        table_with(family(1, 0, Ttl::Forever, KeepDeletedCells::False)),
    );
    let r = env.open();
    let mut o = CompactionOptions::default();
    o.exploring.min_files = 2;
    o.exploring.max_files = 2;
    r.set_compaction_options(o).unwrap();
    // Oldest (and largest) file: a marker for ts 3, so a put written later at ts 3 is masked.
    r.delete(&Delete::new("x").version_at("f", "q", 3)).unwrap();
    for i in 0..50 {
        put(&r, &format!("filler{i:02}"), "f", "q", 1, "filler");
    }
    r.flush().unwrap();
    put(&r, "x", "f", "q", 3, "masked");
    r.flush().unwrap();
    put(&r, "x", "f", "q", 2, "visible");
    r.flush().unwrap();
    let visible = vec![("f".into(), "q".into(), 2, "visible".into())];
    assert_eq!(get(&r, Get::new("x")), visible);
    // A minor of the two newest files must not drop ts 2 as "beyond VERSIONS": the marker
    // outside the compaction masks ts 3.
    let report = r.compact_store(b"f", MajorRequest::None).unwrap().unwrap();
    assert_eq!(report.inputs.len(), 2, "{report:?}");
    assert_eq!(
        report.cells_in, 2,
        "the two puts of x, not the marker's file"
    );
    assert_eq!(report.dropped.versions, 0);
    assert_eq!(get(&r, Get::new("x")), visible);
    // A major sees the marker and drops what it masks.
    let report = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    assert_eq!(report.dropped.masked, 1, "{report:?}");
    assert_eq!(report.dropped.markers, 1);
    assert_eq!(get(&r, Get::new("x")), visible);
    assert_eq!(file_counts(&env), (51, 0));
}

#[test]
fn keep_deleted_cells_survive_a_major_for_time_travel() {
    let dir = tempfile::tempdir().unwrap();
    let f = family(3, 0, Ttl::Forever, KeepDeletedCells::True);
    let env = Env::new(dir.path(), table_with(f));
    let r = env.open();
    put(&r, "x", "f", "q", 10, "v10");
    put(&r, "x", "f", "q", 20, "v20");
    r.flush().unwrap();
    r.delete(&Delete::new("x").column_upto("f", "q", 25))
        .unwrap();
    r.flush().unwrap();
    let report = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    assert_eq!(report.dropped.total(), 0, "{report:?}");
    assert_eq!(file_counts(&env), (3, 1));
    assert!(get(&r, Get::new("x")).is_empty());
    let before_delete = TimeRange::new(0, 25).unwrap();
    assert_eq!(
        get(
            &r,
            Get::new("x")
                .with_time_range(before_delete)
                .with_max_versions(3)
        ),
        vec![
            ("f".into(), "q".into(), 20, "v20".into()),
            ("f".into(), "q".into(), 10, "v10".into())
        ]
    );
}

#[test]
fn keep_deleted_cells_ttl_drops_markers_once_expired() {
    let dir = tempfile::tempdir().unwrap();
    let f = family(3, 0, Ttl::Seconds(100), KeepDeletedCells::Ttl);
    let env = Env::new(dir.path(), table_with(f));
    let r = env.open();
    put(&r, "x", "f", "q", NOW - 10, "v");
    r.delete(&Delete::new("x").column_upto("f", "q", NOW - 5))
        .unwrap();
    put(&r, "y", "f", "q", NOW - 10, "live");
    r.flush().unwrap();
    let report = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    assert_eq!(report.dropped.total(), 0, "not expired yet: kept");
    assert_eq!(file_counts(&env), (3, 1));
    // Past the TTL every cell of x (and y) expires.
    env.clock.advance(200_000);
    put(&r, "z", "f", "q", NOW + 150_000, "fresh");
    r.flush().unwrap();
    let report = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    // x's put is masked by an expired marker, or expired itself: gone either way.
    assert_eq!(report.dropped.total(), 3, "{report:?}");
    assert_eq!(report.dropped.masked + report.dropped.expired, 3);
    assert_eq!(file_counts(&env), (1, 0));
}

#[test]
fn expired_cells_go_except_min_versions() {
    let dir = tempfile::tempdir().unwrap();
    let f = family(3, 1, Ttl::Seconds(100), KeepDeletedCells::False);
    let env = Env::new(dir.path(), table_with(f));
    let r = env.open();
    for ts in [NOW - 300_000, NOW - 200_000, NOW - 50_000] {
        put(&r, "x", "f", "q", ts, &ts.to_string());
    }
    for ts in [NOW - 300_000, NOW - 200_000] {
        put(&r, "y", "f", "q", ts, &ts.to_string());
    }
    r.flush().unwrap();
    let before = reads(&r, &["x", "y"]);
    let report = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    // x keeps its live version; y keeps its newest expired one (MIN_VERSIONS = 1).
    assert_eq!(report.dropped.expired, 3, "{report:?}");
    assert_eq!(report.cells_out, 2);
    assert_eq!(reads(&r, &["x", "y"]), before);
}

#[test]
fn an_expired_marker_stays_while_min_versions_may_show_what_it_masks() {
    let dir = tempfile::tempdir().unwrap();
    let f = family(3, 1, Ttl::Seconds(100), KeepDeletedCells::False);
    let env = Env::new(dir.path(), table_with(f));
    let r = env.open();
    let mut o = CompactionOptions::default();
    o.exploring.min_files = 3;
    o.exploring.max_files = 3;
    r.set_compaction_options(o).unwrap();
    let (old, older) = (NOW - 300_000, NOW - 400_000);
    // The oldest, largest file, left out of the minor compaction.
    put(&r, "x", "f", "q", old, "masked");
    put(&r, "x", "f", "q", older, "shown");
    for i in 0..100 {
        put(&r, &format!("filler{i:03}"), "f", "q", NOW, "filler");
    }
    r.flush().unwrap();
    r.delete(&Delete::new("x").version_at("f", "q", old))
        .unwrap();
    r.flush().unwrap();
    put(&r, "y", "f", "q", NOW, "y1");
    r.flush().unwrap();
    put(&r, "z", "f", "q", NOW, "z1");
    r.flush().unwrap();
    // MIN_VERSIONS = 1 shows the newest expired version that is not deleted.
    let shown = vec![("f".into(), "q".into(), older, "shown".into())];
    assert_eq!(get(&r, Get::new("x")), shown);
    let report = r.compact_store(b"f", MajorRequest::None).unwrap().unwrap();
    assert_eq!(report.cells_in, 3, "the three small files: {report:?}");
    assert_eq!(report.dropped.total(), 0);
    assert_eq!(get(&r, Get::new("x")), shown);
    let report = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    assert_eq!(
        report.dropped.markers + report.dropped.masked,
        2,
        "{report:?}"
    );
    assert_eq!(get(&r, Get::new("x")), shown);
}
