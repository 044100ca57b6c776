//! A crash cuts the last write short: on open the torn tail is cut off at the last good
//! record, physically, and appends go on after it.
#![allow(clippy::unwrap_used)]

mod wal_support;

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use strata_model::schema::Durability;
use strata_storage::wal::{Wal, WalOptions};
use wal_support::{check, entry, replay_dir, segment_files};

/// Writes `n` entries into one segment; returns its bytes and the offset of the last record.
fn one_segment(n: u64) -> (Vec<u8>, u64) {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    let segment = segment_files(dir.path()).pop().unwrap();
    for seq in 1..n {
        wal.append(&entry(1, seq, 100), Durability::SyncWal)
            .unwrap();
    }
    let last_start = std::fs::metadata(&segment).unwrap().len();
    wal.append(&entry(1, n, 100), Durability::SyncWal).unwrap();
    wal.close().unwrap();
    (std::fs::read(&segment).unwrap(), last_start)
}

/// A fresh WAL directory holding `bytes` as its only segment.
fn dir_with_segment(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{:020}.wal", 1));
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn seqs(dir: &Path) -> Vec<u64> {
    replay_dir(dir, WalOptions::default())
        .iter()
        .map(|e| {
            check(e, 100);
            e.seq
        })
        .collect()
}

#[test]
fn torn_tail_at_every_byte_of_the_last_record_is_cut_to_the_previous_record() {
    let (bytes, last_start) = one_segment(5);
    for cut in last_start..bytes.len() as u64 {
        let (dir, path) = dir_with_segment(&bytes[..cut as usize]);
        let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
        assert_eq!(wal.stats().truncated_bytes, cut - last_start, "cut {cut}");
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            last_start,
            "cut {cut}"
        );
        let got: Vec<_> = wal.replay(|_| Some(0)).map(|e| e.unwrap().seq).collect();
        assert_eq!(got, vec![1, 2, 3, 4], "cut {cut}");
        wal.close().unwrap();
    }
}

#[test]
fn appends_after_a_cut_tail_replay_after_the_surviving_records() {
    let (bytes, last_start) = one_segment(5);
    let (dir, _) = dir_with_segment(&bytes[..last_start as usize + 7]);
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    wal.append(&entry(1, 10, 100), Durability::SyncWal).unwrap();
    wal.close().unwrap();
    assert_eq!(seqs(dir.path()), vec![1, 2, 3, 4, 10]);
    // Nothing torn is left behind: a second open cuts nothing.
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    assert_eq!(wal.stats().truncated_bytes, 0);
}

#[test]
fn zeroed_or_garbled_last_record_is_a_torn_tail() {
    let (bytes, last_start) = one_segment(3);
    for fill in [0x00u8, 0xA5] {
        let mut damaged = bytes.clone();
        for b in &mut damaged[last_start as usize + 20..] {
            *b = fill;
        }
        // The file also grew past the record, as a power loss may leave it.
        damaged.extend(std::iter::repeat_n(fill, 4096));
        let (dir, _) = dir_with_segment(&damaged);
        assert_eq!(seqs(dir.path()), vec![1, 2], "fill {fill:#x}");
    }
}

#[test]
fn a_segment_torn_inside_its_header_is_removed() {
    let (bytes, _) = one_segment(3);
    let (dir, _) = dir_with_segment(&bytes);
    // A crash while a roll created segment 2: only part of its header reached the disk.
    let torn = dir.path().join(format!("{:020}.wal", 2));
    std::fs::write(&torn, &bytes[..10]).unwrap();
    assert_eq!(seqs(dir.path()), vec![1, 2, 3]);
    assert!(!torn.exists());
}

#[test]
fn the_last_segment_with_records_may_be_torn_even_before_empty_ones() {
    let (bytes, last_start) = one_segment(3);
    let (dir, path) = dir_with_segment(&bytes[..last_start as usize + 5]);
    // An open after the crash started segment 2 and crashed again before writing to it.
    let header_only = &one_segment_header(2);
    std::fs::write(dir.path().join(format!("{:020}.wal", 2)), header_only).unwrap();
    assert_eq!(seqs(dir.path()), vec![1, 2]);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), last_start);
}

/// The header of an empty segment `id`, taken from a real WAL.
fn one_segment_header(id: u64) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    // Segments 1 to id - 1 each keep an unflushed entry (a closed log deletes segments with
    // none), so the last open starts segment `id`; it is read while that log is open.
    for seq in 1..id {
        let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
        wal.append(&entry(1, seq, 10), Durability::SyncWal).unwrap();
    }
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    let path = dir.path().join(format!("{id:020}.wal"));
    let mut file = OpenOptions::new().read(true).open(path).unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut out).unwrap();
    drop(wal);
    out
}
