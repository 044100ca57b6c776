//! What goes into the WAL comes back on replay, in order, across segments and reopens.
#![allow(clippy::unwrap_used)]

mod wal_support;

use strata_model::schema::Durability;
use strata_storage::wal::{Wal, WalOptions};
use wal_support::{check, entry, replay_dir, segment_files, small_segments};

#[test]
fn entries_round_trip_across_many_segments() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    let durabilities = [
        Durability::SyncWal,
        Durability::UseDefault,
        Durability::AsyncWal,
        Durability::FsyncWal,
    ];
    let mut want = Vec::new();
    for seq in 1..=1500u64 {
        let e = entry(seq % 3, seq, (seq % 200) as usize);
        wal.append(&e, durabilities[seq as usize % 4]).unwrap();
        want.push((e.region, e.seq));
    }
    let stats = wal.stats();
    assert!(stats.segments > 20, "{stats:?}");
    assert_eq!(stats.appends, 1500);
    wal.close().unwrap();

    let got = replay_dir(dir.path(), small_segments());
    let ids: Vec<_> = got.iter().map(|e| (e.region, e.seq)).collect();
    assert_eq!(ids, want);
    for e in &got {
        check(e, (e.seq % 200) as usize);
    }
}

#[test]
fn replay_keeps_only_entries_past_each_region_flushed_seq() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    for seq in 1..=300u64 {
        wal.append(&entry(seq % 3, seq, 50), Durability::SyncWal)
            .unwrap();
    }
    drop(wal);

    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    // Region 0 flushed to 150, region 1 to 0, region 2 is not hosted here.
    let flushed = |region| match region {
        0 => Some(150),
        1 => Some(0),
        _ => None,
    };
    let got: Vec<_> = wal
        .replay(flushed)
        .map(|e| e.map(|e| (e.region, e.seq)))
        .collect::<Result<_, _>>()
        .unwrap();
    let want: Vec<_> = (1..=300u64)
        .filter(|s| (s % 3 == 0 && *s > 150) || s % 3 == 1)
        .map(|s| (s % 3, s))
        .collect();
    assert_eq!(got, want);
    // Replay can run again and reads the same.
    assert_eq!(wal.replay(flushed).count(), want.len());
}

#[test]
fn each_reopen_starts_a_new_segment_and_replays_every_generation() {
    let dir = tempfile::tempdir().unwrap();
    let mut want = Vec::new();
    for generation in 0..4u64 {
        let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
        let replayed: Vec<_> = wal.replay(|_| Some(0)).map(|e| e.unwrap().seq).collect();
        assert_eq!(replayed, want);
        for i in 1..=10 {
            let seq = generation * 100 + i;
            wal.append(&entry(1, seq, 10), Durability::SyncWal).unwrap();
            want.push(seq);
        }
        wal.close().unwrap();
    }
    // One segment per generation (no segment is deleted: nothing was marked flushed).
    assert_eq!(segment_files(dir.path()).len(), 4);
}

#[test]
fn skip_wal_writes_nothing_and_batches_are_contiguous() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    wal.append(&entry(1, 1, 10), Durability::SkipWal).unwrap();
    let batch: Vec<_> = (2..=6).map(|s| entry(1, s, 10)).collect();
    wal.append_batch(&batch, Durability::FsyncWal).unwrap();
    let stats = wal.stats();
    assert_eq!((stats.skipped_appends, stats.appends), (1, 5));
    assert_eq!(stats.writes, 1, "one batch, one write");
    wal.close().unwrap();
    let got: Vec<_> = replay_dir(dir.path(), WalOptions::default())
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(got, vec![2, 3, 4, 5, 6]);
}

#[test]
fn appends_after_close_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    wal.close().unwrap();
    wal.close().unwrap();
    let err = wal
        .append(&entry(1, 1, 1), Durability::SyncWal)
        .unwrap_err();
    assert_eq!(err.kind(), strata_storage::wal::ErrorKind::Closed);
}
