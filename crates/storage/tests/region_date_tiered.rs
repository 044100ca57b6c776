//! Date-tiered compaction end to end: a time series written over simulated days with the
//! manual clock, compacted after every flush, then checked window by window.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::cmp::Ordering as Cmp;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use region_support::*;
use strata_model::ops::{Scan, TimeRange};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, TableDescriptor, TableName, Ttl,
};
use strata_sstable::{FileInfo, Reader, ReaderOptions};
use strata_storage::clock::Clock;
use strata_storage::compaction::date_tiered::incoming_window;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::region::{region_dir_name, CompactionOptions, CompactionReport};
use strata_storage::Region;

const MIN: i64 = 60_000;
const H: i64 = 60 * MIN;
const DAY: i64 = 24 * H;

fn dt() -> DateTiered {
    DateTiered {
        base_window_ms: H,
        windows_per_tier: 4,
        incoming_window_min: 3,
        ..DateTiered::default()
    }
}

fn env(dir: &std::path::Path, ttl: Ttl) -> Env {
    let mut f = FamilyDescriptor::new("f");
    f.versions = 1;
    f.ttl = ttl;
    f.compaction_policy = CompactionPolicy::DateTiered(dt());
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f);
    let e = Env::new(dir, t);
    e.clock.set(10 * DAY);
    e
}

/// No periodic major, no writer throttling, three files per minor.
fn options(r: &Region) {
    let mut o = CompactionOptions::default();
    o.exploring.min_files = 3;
    o.exploring.blocking_file_count = 1000;
    o.exploring.major.period_ms = 0;
    r.set_compaction_options(o).unwrap();
}

fn infos(env: &Env) -> Vec<FileInfo> {
    let dir: PathBuf = env.root.join("t").join(region_dir_name(1)).join("f");
    let mut v: Vec<FileInfo> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sst"))
        .map(|p| {
            Reader::open(&p, ReaderOptions::default())
                .unwrap()
                .info()
                .clone()
        })
        .collect();
    v.sort_by_key(|i| i.max_timestamp);
    v
}

/// Writes `flushes` × 20 minutes of a time series (one row a minute, keyed by sensor and
/// time, a flush every 20 minutes, a minor compaction round after each flush). Returns the
/// compaction reports.
fn write(env: &Env, r: &Region, flushes: i64) -> Vec<CompactionReport> {
    let mut reports = vec![];
    for _ in 0..flushes {
        for m in 0..20 {
            let now = env.clock.now_ms();
            let row = format!("sensor{}-{now:015}", m % 8);
            put(r, &row, "f", "v", now, &format!("{now}"));
            env.clock.advance(MIN);
        }
        r.flush().unwrap();
        while let Some(rep) = r.compact_store(b"f", MajorRequest::None).unwrap() {
            reports.push(rep);
        }
    }
    reports
}

/// (window start, width) of the date-tiered window holding `ts` at `now`.
fn window_of(now: i64, ts: i64) -> (i64, i64) {
    let mut w = incoming_window(&dt(), now);
    while w.compare_to_timestamp(ts) == Cmp::Greater {
        w = w.next_earlier();
    }
    (w.start(), w.width())
}

#[test]
fn time_series_keeps_few_files_per_window_and_last_hour_scans_open_few() {
    let dir = tempfile::tempdir().unwrap();
    let env = env(dir.path(), Ttl::Forever);
    let r = env.open();
    options(&r);
    // Three days and 40 minutes: the incoming window holds data.
    write(&env, &r, 3 * 24 * 3 + 2);
    let now = env.clock.now_ms();
    let files = infos(&env);
    // Every file lies inside one window, and no window holds more than two files (three
    // would have been compacted), except that a window wider than the first promoted tier
    // (4 h here) keeps one file per 4 h unit (settled windows, RFC 0006): no unit holds more
    // than two.
    let unit = 4 * H;
    let mut per_window = std::collections::BTreeMap::new();
    let mut per_unit = std::collections::BTreeMap::new();
    for f in &files {
        let w = window_of(now, f.max_timestamp);
        assert_eq!(
            window_of(now, f.min_timestamp),
            w,
            "file spans windows: {f:?}"
        );
        *per_window.entry(w).or_insert(0) += 1;
        let u = if w.1 > unit {
            (f.max_timestamp.div_euclid(unit) * unit, unit)
        } else {
            w
        };
        *per_unit.entry(u).or_insert(0) += 1;
    }
    assert!(per_unit.values().all(|&n| n <= 2), "{per_unit:?}");
    // Tiers: 3 days of data fit in a handful of windows, not 72 hourly ones, and in about
    // one file per 4 h unit.
    assert!(per_window.len() <= 12, "{per_window:?}");
    assert!(files.len() <= 24, "{} files", files.len());

    // A scan of the incoming window opens at most 2 files; of the last hour, a few.
    let incoming = incoming_window(&dt(), now);
    for (since, most) in [(incoming.start(), 2), (now - H, 4)] {
        let skipped = r
            .counters()
            .files_skipped_time_range
            .load(Ordering::Relaxed);
        let read = r.counters().files_read.load(Ordering::Relaxed);
        let scan = Scan {
            time_range: TimeRange::new(since, now + 1).unwrap(),
            ..Scan::new()
        };
        let mut s = r.scan(&scan).unwrap();
        let mut rows = 0;
        while s.next_row().unwrap().is_some() {
            rows += 1;
        }
        assert!(rows > 0);
        let opened = r.counters().files_read.load(Ordering::Relaxed) - read;
        let now_skipped = r
            .counters()
            .files_skipped_time_range
            .load(Ordering::Relaxed);
        assert!(
            opened <= most,
            "{opened} files opened for a scan since {since}"
        );
        assert!(now_skipped - skipped >= files.len() as u64 - most);
    }
}

#[test]
fn major_compaction_writes_one_file_per_window() {
    let dir = tempfile::tempdir().unwrap();
    let env = env(dir.path(), Ttl::Forever);
    let r = env.open();
    options(&r);
    write(&env, &r, 30 * 3);
    let before: u64 = infos(&env).iter().map(|i| i.cell_count).sum();
    let rep = r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    assert!(rep.major);
    let now = env.clock.now_ms();
    let files = infos(&env);
    assert_eq!(rep.outputs.len(), files.len());
    assert!(files.len() > 1, "{rep:?} {files:?}");
    let mut windows = std::collections::BTreeSet::new();
    for f in &files {
        let w = window_of(now, f.max_timestamp);
        assert_eq!(window_of(now, f.min_timestamp), w);
        assert!(windows.insert(w), "two files in window {w:?}");
    }
    // Nothing lost (one version per row and minute: distinct timestamps).
    assert_eq!(files.iter().map(|i| i.cell_count).sum::<u64>(), before);
    // The split survives a reopen.
    r.close().unwrap();
    let r = env.open();
    let mut s = r.scan(&Scan::new()).unwrap();
    let mut rows = 0;
    while s.next_row().unwrap().is_some() {
        rows += 1;
    }
    assert_eq!(rows, before);
}

#[test]
fn files_past_ttl_are_dropped_whole() {
    let dir = tempfile::tempdir().unwrap();
    let env = env(dir.path(), Ttl::Seconds(86_400));
    let r = env.open();
    options(&r);
    write(&env, &r, 12 * 3);
    assert!(infos(&env).len() > 1);
    // Two days later, a few fresh files: every older file is past the TTL and is dropped
    // whole, without being read or rewritten.
    env.clock.advance(2 * DAY);
    let reports = write(&env, &r, 3);
    assert!(reports
        .iter()
        .any(|rep| rep.dropped_expired && rep.cells_in == 0 && rep.outputs.is_empty()));
    let now = env.clock.now_ms();
    let files = infos(&env);
    assert!(!files.is_empty());
    assert!(
        files.iter().all(|f| f.max_timestamp >= now - DAY),
        "expired files remain: {files:?}"
    );
}

#[test]
fn minor_with_one_output_per_window_splits_late_cells_off() {
    let dir = tempfile::tempdir().unwrap();
    let mut f = FamilyDescriptor::new("f");
    f.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        single_output_for_minor: false,
        ..dt()
    });
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f);
    let env = Env::new(dir.path(), t);
    env.clock.set(10 * DAY + 30 * MIN);
    let r = env.open();
    options(&r);
    // Three flushes in the 10 d + [0, 1 h) window, each with one cell an hour late.
    for i in 0..3 {
        let now = env.clock.now_ms();
        put(&r, &format!("on-time-{i}"), "f", "v", now, "x");
        put(&r, &format!("late-{i}"), "f", "v", now - H, "x");
        r.flush().unwrap();
        env.clock.advance(MIN);
    }
    let rep = r.compact_store(b"f", MajorRequest::None).unwrap().unwrap();
    assert!(!rep.major);
    assert_eq!(rep.outputs.len(), 2, "{rep:?}");
    let files = infos(&env);
    assert_eq!(files.len(), 2);
    let start = 10 * DAY;
    assert!(files[0].max_timestamp < start && files[0].cell_count == 3);
    assert!(files[1].min_timestamp >= start && files[1].cell_count == 3);
}
