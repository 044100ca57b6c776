//! `ASYNC_WAL` entries wait in memory, then reach the file within the flush interval, with
//! the next synchronous writer, or on close, whichever comes first.
#![allow(clippy::unwrap_used)]

mod wal_support;

use std::time::{Duration, Instant};

use strata_model::schema::Durability;
use strata_storage::wal::{Wal, WalOptions};
use wal_support::{entry, replay_dir, segment_files};

fn options(interval: Duration) -> WalOptions {
    WalOptions {
        async_flush_interval: interval,
        ..WalOptions::default()
    }
}

fn active_len(dir: &std::path::Path) -> u64 {
    std::fs::metadata(segment_files(dir).pop().unwrap())
        .unwrap()
        .len()
}

#[test]
fn async_entries_reach_the_file_within_the_interval() {
    let dir = tempfile::tempdir().unwrap();
    let interval = Duration::from_millis(100);
    let wal = Wal::open(dir.path(), options(interval)).unwrap();
    let empty = active_len(dir.path());
    let appended = Instant::now();
    wal.append(&entry(1, 1, 100), Durability::AsyncWal).unwrap();
    // Poll generously: the machine may be busy; the bound checked is the interval's order.
    while active_len(dir.path()) == empty {
        assert!(appended.elapsed() < interval * 50, "not written after 5 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        appended.elapsed() >= interval / 2,
        "written before the interval"
    );
    assert_eq!(wal.stats().writes, 1);
}

#[test]
fn the_next_synchronous_writer_writes_queued_async_entries() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), options(Duration::from_secs(3600))).unwrap();
    let empty = active_len(dir.path());
    wal.append(&entry(1, 1, 100), Durability::AsyncWal).unwrap();
    wal.append(&entry(1, 2, 100), Durability::AsyncWal).unwrap();
    assert_eq!(
        active_len(dir.path()),
        empty,
        "async entries wait in memory"
    );
    wal.append(&entry(1, 3, 100), Durability::SyncWal).unwrap();
    let stats = wal.stats();
    assert_eq!((stats.writes, stats.batched_entries), (1, 3));
    assert!(active_len(dir.path()) > empty);
}

#[test]
fn async_entries_are_written_on_close_and_on_drop() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), options(Duration::from_secs(3600))).unwrap();
    wal.append(&entry(1, 1, 100), Durability::AsyncWal).unwrap();
    wal.close().unwrap();
    let wal = Wal::open(dir.path(), options(Duration::from_secs(3600))).unwrap();
    wal.append(&entry(1, 2, 100), Durability::AsyncWal).unwrap();
    drop(wal);
    let got: Vec<_> = replay_dir(dir.path(), WalOptions::default())
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(got, vec![1, 2]);
}

#[test]
fn a_full_async_buffer_makes_the_appender_write() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(
        dir.path(),
        WalOptions {
            async_buffer_limit: 1000,
            ..options(Duration::from_secs(3600))
        },
    )
    .unwrap();
    for seq in 1..=20 {
        wal.append(&entry(1, seq, 100), Durability::AsyncWal)
            .unwrap();
    }
    let stats = wal.stats();
    assert!(stats.writes >= 2, "{stats:?}");
    assert!(stats.batched_entries >= 14, "{stats:?}");
}
