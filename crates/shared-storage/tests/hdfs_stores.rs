//! The file store and the log store on a real HDFS (MiniDFSCluster from scripts/hdfs.sh).
#![allow(clippy::unwrap_used)]

mod support;

use std::io::Write;
use std::path::Path;

use strata_storage::vfs::{FileStore, LogStore, StoragePolicy};

#[test]
fn files_are_written_once_read_by_range_listed_renamed_and_removed() {
    let Some(hdfs) = support::client() else {
        return;
    };
    let dir = support::unique_dir("files");
    FileStore::create_dir_all(hdfs.as_ref(), &dir).unwrap();
    let path = dir.join("a.sst");
    let mut w = FileStore::create(hdfs.as_ref(), &path).unwrap();
    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    w.write_all(&data).unwrap();
    w.sync().unwrap();
    w.close().unwrap();
    assert_eq!(
        FileStore::len(hdfs.as_ref(), &path).unwrap(),
        Some(data.len() as u64)
    );
    let src = FileStore::open(hdfs.as_ref(), &path).unwrap();
    assert_eq!(
        &src.read_at(2_000_000, 10).unwrap()[..],
        &data[2_000_000..2_000_010]
    );
    assert!(
        src.read_at(data.len() as u64 - 1, 2).is_err(),
        "read past the end"
    );
    hdfs.write_atomic(&dir.join("MANIFEST"), b"one").unwrap();
    hdfs.write_atomic(&dir.join("MANIFEST"), b"two").unwrap();
    assert_eq!(
        FileStore::read(hdfs.as_ref(), &dir.join("MANIFEST")).unwrap(),
        b"two"
    );
    let mut names: Vec<String> = FileStore::list(hdfs.as_ref(), &dir)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    names.sort();
    assert_eq!(names, ["MANIFEST", "a.sst"]);
    hdfs.rename(&path, &dir.join("b.sst")).unwrap();
    assert_eq!(FileStore::len(hdfs.as_ref(), &path).unwrap(), None);
    hdfs.remove_file(&dir.join("b.sst")).unwrap();
    let gone = hdfs.remove_file(&dir.join("b.sst")).unwrap_err();
    assert_eq!(gone.kind(), std::io::ErrorKind::NotFound);
    assert!(FileStore::url(hdfs.as_ref(), &path).starts_with("hdfs://"));
    hdfs.remove_dir_all(&dir).unwrap();
    hdfs.remove_dir_all(&dir).unwrap();
}

#[test]
fn a_recovered_lease_fences_the_old_writer_and_keeps_every_synced_byte() {
    let Some(writer) = support::client() else {
        return;
    };
    let other = support::client().unwrap();
    let dir = support::unique_dir("fence");
    LogStore::create_dir_all(writer.as_ref(), &dir).unwrap();
    let path = dir.join("wal-1");
    let mut log = LogStore::create(writer.as_ref(), &path).unwrap();
    for i in 0..20u8 {
        log.append(&[i; 100]).unwrap();
        log.sync().unwrap();
    }
    // Recovery fences first: only then is the length final (a reader of a log still being
    // written sees its completed blocks only; see RFC 0011).
    other.recover_lease(&path).unwrap();
    // The old writer can never make another byte durable.
    let fenced = log.append(&[9; 100]).and_then(|()| log.sync());
    assert!(fenced.is_err(), "a fenced writer synced");
    let src = LogStore::open(other.as_ref(), &path).unwrap();
    assert_eq!(src.size().unwrap(), 2000);
    assert_eq!(&src.read_at(1900, 100).unwrap()[..], &[19u8; 100][..]);
    // A log cannot be created in a directory that is gone (no parents are made).
    let orphan = LogStore::create(writer.as_ref(), &dir.join("gone/wal-2"));
    assert!(orphan.is_err());
    // Cutting a closed log keeps the prefix.
    other.cut(&path, 1500).unwrap();
    assert_eq!(
        LogStore::open(other.as_ref(), &path)
            .unwrap()
            .size()
            .unwrap(),
        1500
    );
    FileStore::remove_dir_all(other.as_ref(), &dir).unwrap();
}

fn storage_types_of(hdfs: &strata_shared_storage::Hdfs, path: &Path) -> String {
    hdfs.webhdfs()
        .block_locations(path.to_str().unwrap())
        .unwrap()
}

#[test]
fn storage_policies_place_blocks_on_datanode_volumes_of_their_type() {
    let Some(hdfs) = support::client() else {
        return;
    };
    let root = support::unique_dir("policies");
    // One replica: ONE_SSD puts it on SSD; LAZY_PERSIST falls back to DISK without the
    // DataNode's native memory locking, as HDFS documents.
    let cases = [
        (StoragePolicy::AllSsd, &["\"SSD\""][..]),
        (StoragePolicy::OneSsd, &["\"SSD\""][..]),
        (StoragePolicy::Hot, &["\"DISK\""][..]),
        (StoragePolicy::Cold, &["\"ARCHIVE\""][..]),
        (
            StoragePolicy::LazyPersist,
            &["\"RAM_DISK\"", "\"DISK\""][..],
        ),
    ];
    for (policy, wanted) in cases {
        let dir = root.join(policy.to_string());
        FileStore::create_dir_all(hdfs.as_ref(), &dir).unwrap();
        FileStore::set_storage_policy(hdfs.as_ref(), &dir, policy).unwrap();
        let path = dir.join("f");
        hdfs.write_atomic(&path, &[7u8; 4096]).unwrap();
        let locations = storage_types_of(&hdfs, &path);
        assert!(
            wanted.iter().any(|w| locations.contains(w)),
            "{policy}: {locations}"
        );
    }
    FileStore::remove_dir_all(hdfs.as_ref(), &root).unwrap();
}

#[test]
fn a_writer_whose_directory_was_moved_and_fenced_can_neither_append_nor_start_a_log() {
    let Some(writer) = support::client() else {
        return;
    };
    let fencer = support::client().unwrap();
    let base = support::unique_dir("moved");
    let (live, moved) = (base.join("rs,1,1"), base.join("rs,1,1-splitting"));
    LogStore::create_dir_all(writer.as_ref(), &live).unwrap();
    let mut log = LogStore::create(writer.as_ref(), &live.join("wal-1")).unwrap();
    log.append(&[1; 100]).unwrap();
    log.sync().unwrap();
    // The fencer moves the directory away (one rename on the NameNode), then fences each log.
    fencer.rename_dir(&live, &moved).unwrap();
    let again = fencer.rename_dir(&live, &moved).unwrap_err();
    assert_eq!(again.kind(), std::io::ErrorKind::NotFound, "{again}");
    LogStore::create_dir_all(fencer.as_ref(), &live).unwrap();
    let onto = fencer.rename_dir(&live, &moved).unwrap_err();
    assert_eq!(onto.kind(), std::io::ErrorKind::AlreadyExists, "{onto}");
    FileStore::remove_dir_all(fencer.as_ref(), &live).unwrap();
    fencer.recover_lease(&moved.join("wal-1")).unwrap();
    // The old writer: its open log is closed under it, and the roll it would try next fails,
    // because the directory it knows is gone and logs are created without parents.
    let appended = log.append(&[2; 100]).and_then(|()| log.sync());
    assert!(appended.is_err(), "a fenced writer synced");
    assert!(LogStore::create(writer.as_ref(), &live.join("wal-2")).is_err());
    let src = LogStore::open(fencer.as_ref(), &moved.join("wal-1")).unwrap();
    assert_eq!(src.size().unwrap(), 100);
    FileStore::remove_dir_all(fencer.as_ref(), &base).unwrap();
}
