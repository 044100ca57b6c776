//! Damage anywhere but a torn tail is an error naming the file and offset; an operator can
//! choose to skip it (`skip_corrupt`), losing only the damaged records.
#![allow(clippy::unwrap_used)]

mod wal_support;

use std::path::PathBuf;

use strata_model::schema::Durability;
use strata_storage::wal::{Error, ErrorKind, Wal, WalOptions};
use wal_support::{check, entry, replay_dir, segment_files, small_segments};

/// A WAL with `n` entries of 100 bytes in one segment; the segment and each record's offset.
fn written(n: u64) -> (tempfile::TempDir, PathBuf, Vec<u64>) {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    let segment = segment_files(dir.path()).pop().unwrap();
    let mut offsets = Vec::new();
    for seq in 1..=n {
        offsets.push(std::fs::metadata(&segment).unwrap().len());
        wal.append(&entry(1, seq, 100), Durability::SyncWal)
            .unwrap();
    }
    wal.close().unwrap();
    (dir, segment, offsets)
}

fn flip(path: &PathBuf, at: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at as usize] ^= 0x40;
    std::fs::write(path, bytes).unwrap();
}

fn open_error(dir: &std::path::Path) -> Error {
    match Wal::open(dir, WalOptions::default()) {
        Ok(_) => panic!("open accepted a corrupt wal"),
        Err(e) => e,
    }
}

#[test]
fn a_corrupt_middle_record_is_an_error_naming_file_and_offset() {
    // Damage in the payload, in the checksums and in the length field all point at the record.
    for delta in [40, 5, 9, 0] {
        let (dir, segment, offsets) = written(10);
        flip(&segment, offsets[4] + delta);
        let err = open_error(dir.path());
        assert_eq!(err.kind(), ErrorKind::Data);
        match &err {
            Error::Corruption { file, offset, .. } => {
                assert_eq!(file, &segment.display().to_string());
                assert_eq!(*offset, offsets[4], "delta {delta}");
            }
            other => panic!("expected corruption, got {other}"),
        }
        let text = err.to_string();
        assert!(text.contains(&format!("offset {}", offsets[4])), "{text}");
        // Nothing was cut: the evidence stays for the operator.
        assert!(std::fs::metadata(&segment).unwrap().len() > offsets[9]);
    }
}

#[test]
fn skip_corrupt_skips_only_the_damaged_record_and_counts_it() {
    let (dir, segment, offsets) = written(10);
    flip(&segment, offsets[4] + 40);
    let options = WalOptions {
        skip_corrupt: true,
        ..WalOptions::default()
    };
    let wal = Wal::open(dir.path(), options.clone()).unwrap();
    assert_eq!(wal.stats().corrupt_skipped, 1);
    let got: Vec<_> = wal
        .replay(|_| Some(0))
        .map(|e| {
            let e = e.unwrap();
            check(&e, 100);
            e.seq
        })
        .collect();
    assert_eq!(got, vec![1, 2, 3, 4, 6, 7, 8, 9, 10]);
    wal.close().unwrap();
    // A damaged length field is skipped by searching for the next valid record.
    let (dir, segment, offsets) = written(10);
    flip(&segment, offsets[2] + 1);
    let got: Vec<_> = replay_dir(dir.path(), options)
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(got, vec![1, 2, 4, 5, 6, 7, 8, 9, 10]);
}

#[test]
fn damage_at_the_end_of_an_older_segment_is_corruption_not_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), small_segments()).unwrap();
    for seq in 1..=200 {
        wal.append(&entry(1, seq, 100), Durability::SyncWal)
            .unwrap();
    }
    wal.close().unwrap();
    let files = segment_files(dir.path());
    assert!(files.len() > 3);
    let older = &files[1];
    let len = std::fs::metadata(older).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(older)
        .unwrap()
        .set_len(len - 3)
        .unwrap();
    match open_error(dir.path()) {
        Error::Corruption { file, .. } => assert_eq!(file, older.display().to_string()),
        other => panic!("expected corruption, got {other}"),
    }
}

#[test]
fn a_damaged_segment_header_is_corruption() {
    let (dir, segment, _) = written(3);
    flip(&segment, 2);
    match open_error(dir.path()) {
        Error::Corruption { offset, reason, .. } => {
            assert_eq!(offset, 0);
            assert!(reason.contains("magic"), "{reason}");
        }
        other => panic!("expected corruption, got {other}"),
    }
    let options = WalOptions {
        skip_corrupt: true,
        ..WalOptions::default()
    };
    let got: Vec<_> = replay_dir(dir.path(), options)
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(got, vec![1, 2, 3]);
}

#[test]
fn any_flipped_byte_gives_an_error_or_a_valid_prefix_never_a_wrong_entry() {
    let (dir, segment, _) = written(4);
    let pristine = std::fs::read(&segment).unwrap();
    // Every fourth byte keeps the test quick; each open creates and syncs a segment.
    for at in (0..pristine.len()).step_by(4) {
        for skip_corrupt in [false, true] {
            let mut bytes = pristine.clone();
            bytes[at] ^= 0x01;
            // Each open starts (and may delete) segments: work on a fresh copy.
            let copy = tempfile::tempdir().unwrap();
            std::fs::write(copy.path().join(segment.file_name().unwrap()), &bytes).unwrap();
            let options = WalOptions {
                skip_corrupt,
                ..WalOptions::default()
            };
            let Ok(wal) = Wal::open(copy.path(), options) else {
                assert!(!skip_corrupt, "skip_corrupt refused a flip at {at}");
                continue;
            };
            let got: Vec<_> = wal.replay(|_| Some(0)).map(|e| e.unwrap()).collect();
            let mut last = 0;
            for e in &got {
                check(e, 100);
                assert!(e.seq > last, "flip at {at}: out of order");
                last = e.seq;
            }
            assert!(got.len() >= 3, "flip at {at} lost more than one entry");
        }
    }
    drop(dir);
}
