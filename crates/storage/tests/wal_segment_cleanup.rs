//! A segment file is deleted once every region with entries in it has flushed past them (or
//! has been forgotten), and never before; the active segment stays while the log is open, and
//! is deleted as the others once the log is closed.
#![allow(clippy::unwrap_used)]

mod wal_support;

use strata_model::schema::Durability;
use strata_storage::wal::Wal;
use wal_support::{entry, segment_files, small_segments};

#[test]
fn segments_are_deleted_only_after_every_region_flushed_past_them() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    // Regions 1 and 2 interleave; region 3 writes only at the start.
    wal.append(&entry(3, 1, 100), Durability::SyncWal).unwrap();
    for seq in 1..=200 {
        wal.append(&entry(1 + seq % 2, seq, 100), Durability::SyncWal)
            .unwrap();
    }
    let all = segment_files(dir.path());
    assert!(all.len() > 4, "{all:?}");

    wal.mark_flushed(1, 199).unwrap();
    wal.mark_flushed(3, 1).unwrap();
    assert_eq!(segment_files(dir.path()), all, "region 2 has not flushed");
    wal.mark_flushed(2, 100).unwrap();
    let left = segment_files(dir.path());
    assert!(left.len() < all.len() && left.len() > 1, "{left:?}");
    // The segments left are exactly the newest: region 2's entries past 100 are in them.
    assert_eq!(left[..], all[all.len() - left.len()..]);
    for dropped in &all[..all.len() - left.len()] {
        assert!(!dropped.exists());
    }
    wal.mark_flushed(2, 200).unwrap();
    assert_eq!(segment_files(dir.path()), vec![all[all.len() - 1].clone()]);
    let stats = wal.stats();
    assert_eq!(stats.segments, 1);
    assert_eq!(stats.deleted_segments, all.len() as u64 - 1);
    wal.close().unwrap();
}

#[test]
fn a_forgotten_region_keeps_no_segment_alive() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    interleave(&wal, 100);
    wal.mark_flushed(1, 100).unwrap();
    let before = segment_files(dir.path()).len();
    assert!(before > 2);
    assert_eq!(wal.regions(), vec![1, 2]);
    wal.forget_region(2).unwrap();
    assert_eq!(
        wal.regions(),
        vec![1],
        "region 1's entries are in the active segment"
    );
    assert_eq!(segment_files(dir.path()).len(), 1);
}

#[test]
fn recovered_segments_are_kept_until_their_regions_report_flushes() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    for seq in 1..=100 {
        wal.append(&entry(7, seq, 100), Durability::SyncWal)
            .unwrap();
    }
    wal.close().unwrap();
    drop(wal);
    let before = segment_files(dir.path());

    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    // The old segments plus the new active one; nothing is deleted on open.
    assert_eq!(segment_files(dir.path()).len(), before.len() + 1);
    assert_eq!(wal.replay(|_| Some(50)).count(), 50);
    wal.mark_flushed(7, 100).unwrap();
    assert_eq!(segment_files(dir.path()).len(), 1);
}

#[test]
fn segments_without_entries_are_deleted_on_open_and_at_close() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..3 {
        let wal = Wal::open(dir.path(), small_segments()).unwrap();
        assert_eq!(segment_files(dir.path()).len(), 1, "the active segment");
        drop(wal);
    }
    assert!(segment_files(dir.path()).is_empty());
}

/// A clean stop: every region flushed, then the log closed. Nothing is left to replay or
/// split, the active segment included.
#[test]
fn a_log_closed_after_every_region_flushed_leaves_no_segment() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    interleave(&wal, 100);
    wal.mark_flushed(1, 100).unwrap();
    wal.mark_flushed(2, 99).unwrap();
    assert_eq!(segment_files(dir.path()).len(), 1, "the active one stays");
    wal.close().unwrap();
    assert!(segment_files(dir.path()).is_empty());
    assert_eq!(wal.stats().segments, 0);
    wal.close().unwrap();
}

/// An unflushed entry keeps its segment at close (an abort, a flush that failed): it is
/// replayed when the log is opened again.
#[test]
fn a_log_closed_with_an_unflushed_region_keeps_its_segments() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    interleave(&wal, 100);
    // Region 1 (even sequence ids) has not flushed its last entry.
    wal.mark_flushed(1, 98).unwrap();
    wal.mark_flushed(2, 99).unwrap();
    wal.close().unwrap();
    drop(wal);
    let kept = segment_files(dir.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    let flushed = |region| Some(if region == 1 { 98 } else { 99 });
    let replayed: Vec<_> = wal.replay(flushed).map(|e| e.unwrap().seq).collect();
    assert_eq!(replayed, vec![100]);
}

/// Appends sequence ids 1 to `n` of 100-byte entries, alternately to regions 2 and 1
/// (region 1 holds the even ids, region 2 the odd ones).
fn interleave(wal: &Wal, n: u64) {
    for seq in 1..=n {
        wal.append(&entry(1 + seq % 2, seq, 100), Durability::SyncWal)
            .unwrap();
    }
}
