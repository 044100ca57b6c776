//! Compaction alongside writers, readers and flushes; crash leftovers; write throttling when a
//! store has too many files; periodic major compactions.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use region_support::*;
use strata_model::ops::{Delete, Get, Scan};
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::region::{region_dir_name, CompactionOptions};
use strata_storage::Region;

fn store_dir(env: &Env) -> PathBuf {
    env.root.join("t").join(region_dir_name(1)).join("f")
}

fn names(env: &Env) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(store_dir(env))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn rows(r: &Region) -> Vec<String> {
    let mut s = r.scan(&Scan::new()).unwrap();
    let mut out = Vec::new();
    while let Some(cells) = s.next_row().unwrap() {
        out.push(String::from_utf8_lossy(&cells[0].row).into_owned());
    }
    out
}

fn options(f: impl FnOnce(&mut CompactionOptions)) -> CompactionOptions {
    let mut o = CompactionOptions::default();
    o.exploring.min_files = 2;
    f(&mut o);
    o
}

#[test]
fn concurrent_writers_readers_and_flushes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    r.set_compaction_options(options(|o| {
        o.exploring.max_files = 4;
        o.exploring.blocking_file_count = 8;
        o.blocking_wait = Duration::from_secs(5);
    }))
    .unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..3)
        .map(|t| {
            let r = r.clone();
            std::thread::spawn(move || {
                for i in 0..300 {
                    put(&r, &format!("w{t}-{i:04}"), "f", "q", 1, "v");
                    if i % 25 == 24 {
                        r.flush().unwrap();
                    }
                }
            })
        })
        .collect();
    let compactor = {
        let (r, done) = (r.clone(), done.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !done.load(Ordering::SeqCst) {
                let major = if n % 5 == 4 {
                    MajorRequest::User
                } else {
                    MajorRequest::None
                };
                n += r.compact(major).unwrap().len();
                std::thread::sleep(Duration::from_millis(2));
            }
            n
        })
    };
    let reader = {
        let (r, done) = (r.clone(), done.clone());
        std::thread::spawn(move || {
            // Rows never disappear: each scan sees at least what the previous one saw.
            let (mut scans, mut last) = (0, 0);
            while !done.load(Ordering::SeqCst) {
                let seen = rows(&r).len();
                assert!(
                    seen >= last,
                    "a scan saw {seen} rows, the one before {last}"
                );
                last = seen;
                scans += 1;
            }
            scans
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    let compactions = compactor.join().unwrap();
    let scans = reader.join().unwrap();
    assert!(
        compactions > 0 && scans > 0,
        "{compactions} compactions, {scans} scans"
    );

    let want: Vec<String> = (0..3)
        .flat_map(|t| (0..300).map(move |i| format!("w{t}-{i:04}")))
        .collect();
    let mut want = want;
    want.sort();
    assert_eq!(rows(&r), want);
    r.flush().unwrap();
    r.compact(MajorRequest::User).unwrap();
    assert_eq!(r.store_stats()[0].files, 1);
    assert_eq!(
        names(&env).len(),
        1,
        "inputs are deleted: {:?}",
        names(&env)
    );
    drop(r);
    let r = env.open();
    assert_eq!(rows(&r), want);
}

#[test]
fn a_scan_reads_on_across_a_compaction_that_deletes_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for file in 0..3 {
        for i in 0..100 {
            put(&r, &format!("row{:04}", i * 3 + file), "f", "q", 1, "v");
        }
        r.flush().unwrap();
    }
    let old = names(&env);
    let mut scan = r.scan(&Scan::new()).unwrap();
    for _ in 0..10 {
        scan.next_row().unwrap().unwrap();
    }
    let report = r.compact(MajorRequest::User).unwrap();
    assert_eq!(report.len(), 1);
    assert!(
        old.iter().all(|n| !names(&env).contains(n)),
        "inputs deleted"
    );
    let mut n = 10;
    while scan.next_row().unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, 300, "the open scan kept its (unlinked) files");
    assert_eq!(rows(&r).len(), 300);
}

#[test]
fn crash_leftovers_are_deleted_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for i in 0..3 {
        put(&r, &format!("row{i}"), "f", "q", 1, "v");
        r.delete(&Delete::new(format!("row{i}")).version_at("f", "q", 0))
            .unwrap();
        r.flush().unwrap();
    }
    let inputs = names(&env);
    let saved: Vec<(String, Vec<u8>)> = inputs
        .iter()
        .map(|n| (n.clone(), std::fs::read(store_dir(&env).join(n)).unwrap()))
        .collect();
    r.compact(MajorRequest::User).unwrap();
    let after = names(&env);
    assert_eq!(after.len(), 1);
    let expected = rows(&r);
    drop(r);
    // A crash after the manifest edit, before the inputs were deleted...
    for (name, bytes) in &saved {
        std::fs::write(store_dir(&env).join(name), bytes).unwrap();
    }
    // ...and one during a later compaction: a renamed output not yet listed, and a temporary.
    let (name, bytes) = &saved[0];
    std::fs::write(store_dir(&env).join(format!("{name}-c99.sst")), bytes).unwrap();
    std::fs::write(
        store_dir(&env).join("0000000000000009-1-c7.sst.tmp"),
        b"torn",
    )
    .unwrap();
    let r = env.open();
    assert_eq!(names(&env), after, "only the listed file remains");
    assert_eq!(rows(&r), expected);
    assert_eq!(r.store_stats()[0].files, 1);
}

#[test]
fn too_many_files_slow_writers_until_a_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    r.set_compaction_options(options(|o| {
        o.exploring.blocking_file_count = 3;
        o.blocking_wait = Duration::from_secs(60);
    }))
    .unwrap();
    for i in 0..4 {
        put(&r, &format!("row{i}"), "f", "q", 1, "v");
        r.flush().unwrap();
    }
    assert!(r.has_too_many_files());
    assert!(!r
        .wait_for_compaction_pressure(Duration::from_millis(20))
        .unwrap());

    // A waiter wakes as soon as a compaction ends.
    let waiter = {
        let r = r.clone();
        std::thread::spawn(move || {
            let t = Instant::now();
            let ok = r
                .wait_for_compaction_pressure(Duration::from_secs(60))
                .unwrap();
            (ok, t.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    // HBase's "might be stuck" selection: the fewest bytes per file removed (two of four).
    assert_eq!(r.compact(MajorRequest::None).unwrap()[0].inputs.len(), 2);
    let (ok, waited) = waiter.join().unwrap();
    assert!(ok && waited < Duration::from_secs(30), "{waited:?}");
    assert!(!r.has_too_many_files());

    // With no compaction running, a throttled writer compacts the store itself.
    for i in 0..4 {
        put(&r, &format!("more{i}"), "f", "q", 1, "v");
        r.flush().unwrap();
    }
    assert!(r.has_too_many_files());
    let c = r.compaction_counters();
    let delayed = c.writes_delayed.load(Ordering::SeqCst);
    put(&r, "throttled", "f", "q", 1, "v");
    assert!(!r.has_too_many_files());
    assert_eq!(c.writes_delayed.load(Ordering::SeqCst), delayed + 1);
    assert_eq!(c.writes_delay_timeouts.load(Ordering::SeqCst), 0);
    assert_eq!(rows(&r).len(), 9);
}

#[test]
fn throttled_writers_go_ahead_after_the_blocking_wait() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    r.set_compaction_options(options(|o| {
        o.exploring.blocking_file_count = 2;
        // Nothing is small enough to compact, so the pressure cannot go away.
        o.exploring.max_compact_size = 1;
        o.blocking_wait = Duration::from_millis(100);
    }))
    .unwrap();
    for i in 0..3 {
        put(&r, &format!("row{i}"), "f", "q", 1, "v");
        r.flush().unwrap();
    }
    let t = Instant::now();
    put(&r, "late", "f", "q", 1, "v");
    assert!(t.elapsed() >= Duration::from_millis(100));
    let c = r.compaction_counters();
    assert_eq!(c.writes_delay_timeouts.load(Ordering::SeqCst), 1);
    assert_eq!(
        get(&r, Get::new("late")),
        vec![("f".into(), "q".into(), 1, "v".into())]
    );
}

#[test]
fn a_periodic_major_comes_after_the_jittered_period() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    r.set_compaction_options(options(|o| {
        o.exploring.major.period_ms = 10_000;
        o.exploring.major.jitter = 0.5;
    }))
    .unwrap();
    put(&r, "a", "f", "q", 1, "v");
    r.flush().unwrap();
    r.delete(&Delete::new("a").version_at("f", "q", 1)).unwrap();
    r.flush().unwrap();
    // Within half the period no jitter makes a major due.
    env.clock.advance(4_000);
    let report = r.compact_store(b"f", MajorRequest::None).unwrap().unwrap();
    assert!(!report.major);
    assert_eq!(report.dropped.markers, 0);
    put(&r, "b", "f", "q", 1, "v");
    r.flush().unwrap();
    // Past 1.5 periods every jitter makes it due.
    env.clock.advance(20_000);
    let report = r.compact_store(b"f", MajorRequest::None).unwrap().unwrap();
    assert!(report.major, "{report:?}");
    assert_eq!(report.dropped.markers, 1);
    assert_eq!(r.compaction_counters().majors.load(Ordering::SeqCst), 1);
    assert_eq!(rows(&r), vec!["b".to_string()]);
}
