//! The periodic tier check (`strata_storage::tier_check`): a region that takes no writes
//! moves a date-tiered window that aged past its cold age within one check interval, without
//! a compaction check, a flush or a `compact`; a check that finds nothing due asks for no
//! move and touches no store.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use region_support::*;
use strata_model::ops::Scan;
use strata_storage::background::Background;
use strata_storage::clock::Clock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::region::CompactionOptions;
use strata_storage::tier_check::{check_round, TierChecker};
use strata_storage::tiers::{StorageType, Volume, Volumes};
use strata_storage::vfs::{Fault, FaultOp, Faulty, FileStore, Local};
use strata_storage::Region;

/// The data directory (HDD) and an ARCHIVE volume, both on `files`.
fn volumes(env: &Env, archive: &Path, files: Arc<dyn FileStore>) -> Arc<Volumes> {
    let archive = Volume {
        kind: StorageType::Archive,
        path: archive.to_owned(),
    };
    Arc::new(
        Volumes::new(&env.root, StorageType::Hdd, vec![archive])
            .unwrap()
            .with_files(files),
    )
}

/// A region holding one major-compacted file of ten rows written now (the incoming window,
/// so the major compaction places it by the family's policy: HOT).
fn region_with_a_young_window(
    env: &Env,
    volumes: Arc<Volumes>,
    bg: Option<Arc<Background>>,
) -> Region {
    let r = env.open_with(Some(volumes), bg).unwrap();
    let mut o = CompactionOptions::default();
    o.exploring.major.period_ms = 0;
    o.exploring.blocking_file_count = 1000;
    r.set_compaction_options(o).unwrap();
    let now = env.clock.now_ms();
    for i in 0..10 {
        put(&r, &format!("row{i}"), "f", "q", now, "v");
    }
    r.flush().unwrap();
    r.compact_store(b"f", MajorRequest::User).unwrap();
    let tiers: Vec<String> = r.file_listing().into_iter().map(|f| f.tier).collect();
    assert_eq!(tiers, vec!["HDD".to_owned()]);
    r
}

fn cells(r: &Region) -> usize {
    let mut scanner = r.scan(&Scan::default()).unwrap();
    let mut n = 0;
    while let Some(row) = scanner.next_row().unwrap() {
        n += row.len();
    }
    n
}

/// Waits until `done` holds, failing the test after `limit`.
fn wait_for(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn an_idle_region_moves_an_aged_window_within_one_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, archive) = (tmp.path().join("data"), tmp.path().join("archive"));
    std::fs::create_dir_all(&data).unwrap();
    let env = cold_archive_env(&data);
    // At the process's priority: nice-19 compactions starve behind parallel tests.
    let bg = Background::with_priority(1, 0);
    let r = region_with_a_young_window(
        &env,
        volumes(&env, &archive, Arc::new(Local)),
        Some(bg.clone()),
    );
    let listed = r.file_listing().remove(0);

    let every = Duration::from_millis(50);
    let region = r.clone();
    let checker = TierChecker::start(every, Arc::new(move || vec![region.clone()])).unwrap();
    // Nothing is due: rounds pass, no move is asked for.
    wait_for(Duration::from_secs(10), "three rounds", || {
        checker.stats().rounds >= 3
    });
    assert_eq!(checker.stats().moves_requested, 0);
    assert_eq!(checker.stats().regions_checked, checker.stats().rounds);

    // A month passes without a write: the window is past its cold age.
    env.clock.set(env.clock.now_ms() + 30 * DAY);
    let asked_at = Instant::now();
    wait_for(Duration::from_secs(10), "the move to ARCHIVE", || {
        r.file_listing().iter().any(|f| f.tier == "ARCHIVE")
    });
    let took = asked_at.elapsed();
    let moved = r.file_listing().remove(0);
    assert_eq!(moved.name, listed.name, "moved, not rewritten");
    assert!(
        moved.path.starts_with(&*archive.to_string_lossy()),
        "{moved:?}"
    );
    assert!(!Path::new(&listed.path).exists(), "the HDD copy is gone");
    assert_eq!(cells(&r), 10);
    assert_eq!(
        r.compaction_counters().files_moved.load(Ordering::Relaxed),
        1
    );
    assert_eq!(
        r.compaction_counters().compactions.load(Ordering::Relaxed),
        1,
        "the check moved the file without compacting"
    );
    assert_eq!(checker.stats().moves_requested, 1);
    eprintln!("moved {took:?} after the window aged (interval {every:?})");

    // Where its age wants it now: later rounds ask for nothing more.
    let rounds = checker.stats().rounds;
    wait_for(Duration::from_secs(10), "three more rounds", || {
        checker.stats().rounds >= rounds + 3
    });
    assert_eq!(checker.stats().moves_requested, 1);
    checker.stop();
    let stopped = checker.stats().rounds;
    std::thread::sleep(every * 3);
    assert_eq!(checker.stats().rounds, stopped, "no round after stop");
    r.close().unwrap();
    bg.shutdown();
}

#[test]
fn a_check_touches_no_store_and_skips_closed_regions() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, archive) = (tmp.path().join("data"), tmp.path().join("archive"));
    std::fs::create_dir_all(&data).unwrap();
    let env = cold_archive_env(&data);
    let store = Arc::new(Faulty::new(Local));
    let r = region_with_a_young_window(&env, volumes(&env, &archive, store.clone()), None);
    // Every store operation fails from here on: a check that did any I/O could not answer.
    for op in [
        FaultOp::Read,
        FaultOp::Write,
        FaultOp::Sync,
        FaultOp::Namespace,
        FaultOp::Append,
    ] {
        store.inject(op, Fault::EIO, None);
    }
    assert!(!r.tier_moves_due());
    assert_eq!(check_round(std::slice::from_ref(&r)), 0);
    env.clock.set(env.clock.now_ms() + 30 * DAY);
    assert!(
        r.tier_moves_due(),
        "the window aged: due, found without I/O"
    );
    assert_eq!(
        r.compaction_counters().files_moved.load(Ordering::Relaxed),
        0
    );

    // Once the store works, a round (no pool: the move runs inline) moves it.
    store.clear();
    assert_eq!(check_round(std::slice::from_ref(&r)), 1);
    assert_eq!(r.file_listing().remove(0).tier, "ARCHIVE");
    assert!(!r.tier_moves_due());
    assert_eq!(check_round(std::slice::from_ref(&r)), 0);

    r.close().unwrap();

    // A closed region is never due.
    let tmp = tempfile::tempdir().unwrap();
    let env = cold_archive_env(tmp.path());
    let r = region_with_a_young_window(&env, volumes(&env, &archive, Arc::new(Local)), None);
    r.close().unwrap();
    env.clock.set(env.clock.now_ms() + 30 * DAY);
    assert!(!r.tier_moves_due());
    assert_eq!(check_round(&[r]), 0);
}

#[test]
fn a_zero_interval_is_refused() {
    let err = TierChecker::start(Duration::ZERO, Arc::new(Vec::new))
        .err()
        .unwrap();
    assert!(err.to_string().contains("above zero"), "{err}");
}
