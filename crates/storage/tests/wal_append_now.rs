//! `Wal::try_append_now`: an append that never waits for another thread. It logs at once
//! what needs no wait (`SKIP_WAL`, `ASYNC_WAL`, `SYNC_WAL` on a local store with no batch in
//! progress) and declines, logging nothing, what would wait.
#![allow(clippy::unwrap_used)]

mod wal_support;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_model::schema::Durability;
use strata_storage::wal::{Wal, WalOptions};
use wal_support::{check, entry, replay_dir, small_segments, Faults, FaultyFs};

#[test]
fn a_sync_append_on_a_local_store_is_written_at_once_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    for seq in 1..=3 {
        wal.try_append_now(&entry(1, seq, 100), Durability::SyncWal)
            .expect("a local store with no batch in progress takes it now")
            .unwrap();
    }
    assert_eq!(wal.stats().appends, 3);
    // Nothing closes the log: the entries were written by the appends themselves.
    let got = replay_dir(dir.path(), WalOptions::default());
    assert_eq!(got.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2, 3]);
    got.iter().for_each(|e| check(e, 100));
    drop(wal);
}

#[test]
fn skip_and_async_appends_never_decline_and_fsync_always_does() {
    let dir = tempfile::tempdir().unwrap();
    // A store that is not quick: SYNC_WAL would wait for the network.
    let fs = Arc::new(FaultyFs::default());
    let wal = Wal::open_with(dir.path(), WalOptions::default(), fs).unwrap();
    assert!(wal
        .try_append_now(&entry(1, 1, 10), Durability::SkipWal)
        .unwrap()
        .is_ok());
    assert!(wal
        .try_append_now(&entry(1, 2, 10), Durability::AsyncWal)
        .unwrap()
        .is_ok());
    assert!(wal
        .try_append_now(&entry(1, 3, 10), Durability::SyncWal)
        .is_none());
    assert!(wal
        .try_append_now(&entry(1, 4, 10), Durability::FsyncWal)
        .is_none());
    let stats = wal.stats();
    assert_eq!((stats.appends, stats.skipped_appends), (1, 1), "{stats:?}");
    wal.close().unwrap();
    let got = replay_dir(dir.path(), WalOptions::default());
    assert_eq!(
        got.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![2],
        "only the async one"
    );
}

#[test]
fn a_batch_in_progress_makes_it_decline_without_logging() {
    let dir = tempfile::tempdir().unwrap();
    let fs = Arc::new(FaultyFs {
        quick: true,
        ..FaultyFs::default()
    });
    let faults = fs.faults.clone();
    let wal = Arc::new(Wal::open_with(dir.path(), WalOptions::default(), fs).unwrap());
    // Another thread leads a batch whose append is held at the pause.
    Faults::set(&faults.paused, true);
    let leader = {
        let wal = wal.clone();
        std::thread::spawn(move || wal.append(&entry(1, 1, 10), Durability::SyncWal))
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while faults.waiting.load(Ordering::SeqCst) == 0 {
        assert!(
            Instant::now() < deadline,
            "the leader never reached its append"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(wal
        .try_append_now(&entry(2, 1, 10), Durability::SyncWal)
        .is_none());
    Faults::set(&faults.paused, false);
    leader.join().unwrap().unwrap();
    // Now nothing is in progress: taken at once.
    wal.try_append_now(&entry(2, 2, 10), Durability::SyncWal)
        .unwrap()
        .unwrap();
    wal.close().unwrap();
    let got: Vec<(u64, u64)> = replay_dir(dir.path(), WalOptions::default())
        .iter()
        .map(|e| (e.region, e.seq))
        .collect();
    assert_eq!(got, vec![(1, 1), (2, 2)]);
}

#[test]
fn a_full_segment_declines_and_the_usual_append_rolls_it() {
    let dir = tempfile::tempdir().unwrap();
    let options = small_segments();
    let wal = Wal::open(dir.path(), options.clone()).unwrap();
    let mut seq = 0;
    // Fill the active segment past its size with appends made at once.
    let declined = loop {
        seq += 1;
        assert!(seq < 10_000, "a segment never filled");
        match wal.try_append_now(&entry(1, seq, 1000), Durability::SyncWal) {
            Some(result) => result.unwrap(),
            None => break seq,
        }
    };
    // The declined entry goes the usual way (which rolls the segment), then appends are
    // taken at once again.
    wal.append(&entry(1, declined, 1000), Durability::SyncWal)
        .unwrap();
    wal.try_append_now(&entry(1, declined + 1, 1000), Durability::SyncWal)
        .unwrap()
        .unwrap();
    wal.close().unwrap();
    let got = replay_dir(dir.path(), options);
    assert_eq!(got.len() as u64, declined + 1);
    assert!(got.iter().zip(1..).all(|(e, s)| e.seq == s));
}

#[test]
fn a_closed_log_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    wal.close().unwrap();
    let outcome = wal.try_append_now(&entry(1, 1, 10), Durability::SyncWal);
    assert!(matches!(outcome, Some(Err(_))), "{outcome:?}");
}
