//! A failed write or sync (a full disk) fails the appenders of that batch with a clear error,
//! leaves no partial entry in the log, and the WAL works again once the disk has room.
#![allow(clippy::unwrap_used)]

mod wal_support;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use strata_model::schema::Durability;
use strata_storage::wal::{ErrorKind, Wal, WalOptions};
use wal_support::{check, entry, replay_dir, segment_files, small_segments, Faults, FaultyFs};

fn open(dir: &Path, options: WalOptions) -> (Wal, Arc<Faults>) {
    let fs = FaultyFs::default();
    let faults = Arc::clone(&fs.faults);
    (Wal::open_with(dir, options, Arc::new(fs)).unwrap(), faults)
}

/// Replays `dir` strictly (no skipping): any partial entry would fail it.
fn replayed_seqs(dir: &Path) -> Vec<u64> {
    replay_dir(dir, WalOptions::default())
        .iter()
        .map(|e| {
            check(e, 100);
            e.seq
        })
        .collect()
}

#[test]
fn a_failed_write_fails_the_append_and_the_next_append_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, faults) = open(dir.path(), WalOptions::default());
    wal.append(&entry(1, 1, 100), Durability::SyncWal).unwrap();
    Faults::set(&faults.writes, true);
    let err = wal
        .append(&entry(1, 2, 100), Durability::SyncWal)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.is_disk_full(), "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with("wal write failed on ") && text.contains(".wal"),
        "{text}"
    );
    assert!(text.contains("No space left on device"), "{text}");
    Faults::set(&faults.writes, false);
    wal.append(&entry(1, 3, 100), Durability::SyncWal).unwrap();
    let stats = wal.stats();
    assert_eq!((stats.failed_batches, stats.failed_entries), (1, 1));
    wal.close().unwrap();
    assert_eq!(replayed_seqs(dir.path()), vec![1, 3]);
}

#[test]
fn a_failed_sync_fails_the_batch_and_later_appends_go_to_a_new_segment() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, faults) = open(dir.path(), WalOptions::default());
    wal.append(&entry(1, 1, 100), Durability::FsyncWal).unwrap();
    Faults::set(&faults.syncs, true);
    let err = wal
        .append(&entry(1, 2, 100), Durability::FsyncWal)
        .unwrap_err();
    assert!(err.to_string().starts_with("wal sync failed"), "{err}");
    // While syncs fail, the forced roll (which syncs the old segment) fails too.
    assert!(wal.append(&entry(1, 3, 100), Durability::SyncWal).is_err());
    Faults::set(&faults.syncs, false);
    wal.append(&entry(1, 4, 100), Durability::FsyncWal).unwrap();
    assert_eq!(wal.stats().rolls, 1);
    assert_eq!(segment_files(dir.path()).len(), 2);
    wal.close().unwrap();
    assert_eq!(replayed_seqs(dir.path()), vec![1, 4]);
}

#[test]
fn the_wal_recovers_once_space_returns_losing_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, faults) = open(dir.path(), small_segments());
    let mut acknowledged = Vec::new();
    for seq in 1..=300u64 {
        // The disk is full for seq 100..150 and 200..210 (writes, syncs and new segments).
        let full = (100..150).contains(&seq) || (200..210).contains(&seq);
        for flag in [&faults.writes, &faults.syncs, &faults.creates] {
            Faults::set(flag, full);
        }
        let durability = if seq % 2 == 0 {
            Durability::FsyncWal
        } else {
            Durability::SyncWal
        };
        match wal.append(&entry(1, seq, 100), durability) {
            Ok(()) => acknowledged.push(seq),
            Err(e) => assert!(full && e.is_disk_full(), "seq {seq}: {e}"),
        }
    }
    assert!(acknowledged.len() >= 240, "{}", acknowledged.len());
    wal.close().unwrap();
    assert_eq!(replayed_seqs(dir.path()), acknowledged);
}

#[test]
fn every_appender_of_a_failed_batch_gets_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, faults) = open(dir.path(), WalOptions::default());
    let wal = Arc::new(wal);
    let append = |region: u64| {
        let wal = Arc::clone(&wal);
        std::thread::spawn(move || wal.append(&entry(region, 1, 100), Durability::SyncWal))
    };
    // The first appender leads and stops inside its write; the others queue up behind it.
    Faults::set(&faults.paused, true);
    let mut handles = vec![append(0)];
    while faults.waiting.load(Ordering::SeqCst) == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    handles.extend((1..8).map(append));
    // Appends are counted as they join the queue: then all 7 wait in the second batch.
    while wal.stats().appends < 8 {
        std::thread::sleep(Duration::from_millis(1));
    }
    Faults::set(&faults.writes, true);
    Faults::set(&faults.paused, false);
    for h in handles {
        let err = h.join().unwrap().unwrap_err();
        assert!(err.is_disk_full(), "{err}");
    }
    let stats = wal.stats();
    assert_eq!(stats.failed_entries, 8);
    assert_eq!(
        stats.failed_batches, 2,
        "the leader's, then the followers' batch"
    );
    Faults::set(&faults.writes, false);
    wal.append(&entry(9, 1, 100), Durability::SyncWal).unwrap();
    wal.close().unwrap();
    assert_eq!(replayed_seqs(dir.path()), vec![1]);
}

#[test]
fn a_failed_cleanup_after_a_failed_write_is_retried_before_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, faults) = open(dir.path(), WalOptions::default());
    wal.append(&entry(1, 1, 100), Durability::SyncWal).unwrap();
    Faults::set(&faults.writes, true);
    Faults::set(&faults.truncates, true);
    assert!(wal.append(&entry(1, 2, 100), Durability::SyncWal).is_err());
    Faults::set(&faults.writes, false);
    // The half-written record is still in the file and cannot be cut: appends must wait.
    let err = wal
        .append(&entry(1, 3, 100), Durability::SyncWal)
        .unwrap_err();
    assert!(err.to_string().starts_with("wal truncate failed"), "{err}");
    Faults::set(&faults.truncates, false);
    wal.append(&entry(1, 4, 100), Durability::SyncWal).unwrap();
    wal.close().unwrap();
    assert_eq!(replayed_seqs(dir.path()), vec![1, 4]);
}

#[test]
fn a_failed_roll_keeps_appending_to_the_current_segment() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, faults) = open(dir.path(), small_segments());
    Faults::set(&faults.creates, true);
    for seq in 1..=100 {
        wal.append(&entry(1, seq, 100), Durability::SyncWal)
            .unwrap();
    }
    assert_eq!(segment_files(dir.path()).len(), 1);
    Faults::set(&faults.creates, false);
    wal.append(&entry(1, 101, 100), Durability::SyncWal)
        .unwrap();
    assert_eq!(segment_files(dir.path()).len(), 2);
    assert_eq!(wal.stats().rolls, 1);
    wal.close().unwrap();
    assert_eq!(replayed_seqs(dir.path()), (1..=101).collect::<Vec<_>>());
}
