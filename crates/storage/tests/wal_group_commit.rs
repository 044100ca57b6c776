//! Concurrent appenders share writes and syncs, and every acknowledged entry replays intact.
#![allow(clippy::unwrap_used)]

mod wal_support;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use strata_model::schema::Durability;
use strata_storage::wal::{Wal, WalOptions, WalStats};
use wal_support::{check, entry, replay_dir, Faults, FaultyFs};

/// `threads` threads each append `per_thread` entries of their own region (seq 1, 2, …).
fn hammer(
    dir: &std::path::Path,
    threads: u64,
    per_thread: u64,
    durability: Durability,
) -> WalStats {
    let options = WalOptions {
        segment_size: 256 << 10,
        ..WalOptions::default()
    };
    let wal = Arc::new(Wal::open(dir, options).unwrap());
    let start = Arc::new(Barrier::new(threads as usize));
    let handles: Vec<_> = (0..threads)
        .map(|region| {
            let wal = Arc::clone(&wal);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                for seq in 1..=per_thread {
                    wal.append(&entry(region, seq, 100), durability).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let stats = wal.stats();
    wal.close().unwrap();
    stats
}

/// Every region's entries come back complete, intact and in the order they were appended.
fn check_replay(dir: &std::path::Path, threads: u64, per_thread: u64) {
    let got = replay_dir(dir, WalOptions::default());
    assert_eq!(got.len() as u64, threads * per_thread);
    let mut next = vec![1u64; threads as usize];
    for e in &got {
        check(e, 100);
        assert_eq!(
            e.seq, next[e.region as usize],
            "region {} out of order",
            e.region
        );
        next[e.region as usize] += 1;
    }
}

#[test]
fn concurrent_sync_appends_are_grouped_and_all_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let stats = hammer(dir.path(), 8, 1000, Durability::SyncWal);
    assert_eq!(stats.appends, 8000);
    assert_eq!(stats.batched_entries, 8000);
    assert!(stats.writes < stats.appends, "no grouping: {stats:?}");
    assert!(stats.max_batch_entries > 1, "{stats:?}");
    check_replay(dir.path(), 8, 1000);
}

#[test]
fn concurrent_fsync_appends_share_syncs() {
    let dir = tempfile::tempdir().unwrap();
    let stats = hammer(dir.path(), 8, 100, Durability::FsyncWal);
    assert_eq!(stats.appends, 800);
    assert!(stats.syncs < stats.appends, "no shared syncs: {stats:?}");
    check_replay(dir.path(), 8, 100);
}

#[test]
fn mixed_durabilities_from_many_threads_all_replay() {
    let dir = tempfile::tempdir().unwrap();
    let options = WalOptions {
        segment_size: 64 << 10,
        ..WalOptions::default()
    };
    let wal = Arc::new(Wal::open(dir.path(), options).unwrap());
    let modes = [
        Durability::AsyncWal,
        Durability::SyncWal,
        Durability::FsyncWal,
        Durability::UseDefault,
    ];
    let handles: Vec<_> = (0..4u64)
        .map(|region| {
            let wal = Arc::clone(&wal);
            std::thread::spawn(move || {
                for seq in 1..=300 {
                    wal.append(&entry(region, seq, 100), modes[region as usize])
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    wal.close().unwrap();
    check_replay(dir.path(), 4, 300);
}

#[test]
fn appenders_arriving_during_a_write_share_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultyFs::default();
    let faults = Arc::clone(&fs.faults);
    let wal = Wal::open_with(dir.path(), WalOptions::default(), Arc::new(fs)).unwrap();
    let wal = Arc::new(wal);
    let append = |region: u64| {
        let wal = Arc::clone(&wal);
        std::thread::spawn(move || wal.append(&entry(region, 1, 100), Durability::FsyncWal))
    };
    // The first appender leads and stops inside its write; seven more queue behind it.
    Faults::set(&faults.paused, true);
    let mut handles = vec![append(0)];
    while faults.waiting.load(Ordering::SeqCst) == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    handles.extend((1..8).map(append));
    while wal.stats().appends < 8 {
        std::thread::sleep(Duration::from_millis(1));
    }
    Faults::set(&faults.paused, false);
    for h in handles {
        h.join().unwrap().unwrap();
    }
    let stats = wal.stats();
    assert_eq!((stats.writes, stats.max_batch_entries), (2, 7), "{stats:?}");
    // Two fdatasyncs for eight FSYNC_WAL appends (plus the two of opening the segment).
    assert_eq!(stats.syncs, 2 + 2, "{stats:?}");
    wal.close().unwrap();
    check_replay(dir.path(), 8, 1);
}

#[test]
fn followers_are_released_whether_they_poll_or_sleep() {
    // Leaders stall in their writes for lengths on both sides of a follower's poll (µs to a
    // few ms), so followers finish polling, sleep, or see the batch end just as they give
    // up polling: every append must still return (a missed wake-up would hang here).
    const PER_THREAD: u64 = 3_000;
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultyFs::default();
    let faults = Arc::clone(&fs.faults);
    let wal = Arc::new(Wal::open_with(dir.path(), WalOptions::default(), Arc::new(fs)).unwrap());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let staller = {
        let (faults, stop) = (Arc::clone(&faults), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut pause_us = 1u64;
            while !stop.load(Ordering::SeqCst) {
                Faults::set(&faults.paused, true);
                std::thread::sleep(Duration::from_micros(pause_us));
                Faults::set(&faults.paused, false);
                std::thread::sleep(Duration::from_micros(50));
                pause_us = if pause_us >= 2_000 { 1 } else { pause_us * 3 };
            }
        })
    };
    let (done, finished) = std::sync::mpsc::channel();
    let handles: Vec<_> = (0..8u64)
        .map(|region| {
            let (wal, done) = (Arc::clone(&wal), done.clone());
            std::thread::spawn(move || {
                for seq in 1..=PER_THREAD {
                    wal.append(&entry(region, seq, 100), Durability::SyncWal)
                        .unwrap();
                }
                done.send(()).unwrap();
            })
        })
        .collect();
    for _ in 0..8 {
        let waited = finished.recv_timeout(Duration::from_secs(60));
        assert!(waited.is_ok(), "an appender never returned");
    }
    stop.store(true, Ordering::SeqCst);
    staller.join().unwrap();
    for h in handles {
        h.join().unwrap();
    }
    wal.close().unwrap();
    check_replay(dir.path(), 8, PER_THREAD);
}
