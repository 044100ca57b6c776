//! The region engine with its WAL, manifests and store files on a real HDFS: writes, flushes,
//! a major compaction, a split, and a crash (the process's HDFS client gone without closing
//! its WAL) after which a new client fences the old WAL and replays every acknowledged write.
#![allow(clippy::unwrap_used)]

mod region_common;
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use region_common::{put, value};
use strata_model::schema::StoragePolicy;
use strata_shared_storage::Hdfs;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::wal::Wal;
use strata_storage::Region;

fn open(hdfs: &Arc<Hdfs>, root: &Path, info: RegionInfo, wal: &Arc<Wal>) -> Region {
    let table = region_common::table(Some(StoragePolicy::AllSsd));
    region_common::open(hdfs.clone(), root, table, info, wal)
}

fn wal(hdfs: &Arc<Hdfs>, root: &Path) -> Arc<Wal> {
    Arc::new(Wal::open_with(root.join("wal"), region_common::wal_options(), hdfs.clone()).unwrap())
}

#[test]
fn a_region_on_hdfs_flushes_compacts_and_recovers_after_its_writer_dies() {
    let Some(first) = support::client() else {
        return;
    };
    let root: PathBuf = support::unique_dir("region");
    let wal1 = wal(&first, &root);
    let region = open(&first, &root, RegionInfo::whole("t", 1), &wal1);
    for batch in 0..3 {
        for row in batch * 100..(batch + 1) * 100 {
            put(&region, row);
        }
        region.flush().unwrap();
    }
    region.compact(MajorRequest::User).unwrap();
    let files = region.file_listing();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].path.starts_with("hdfs://"), "{files:?}");
    assert_eq!(files[0].tier, "ALL_SSD");
    // Acknowledged but only in the WAL.
    for row in 300..400 {
        put(&region, row);
    }
    // The process dies: its HDFS client never closes the WAL. A new process (client) fences
    // the log (lease recovery) and replays it.
    std::mem::forget(region);
    std::mem::forget(wal1);
    let second = support::client().unwrap();
    let wal2 = wal(&second, &root);
    let region = open(&second, &root, RegionInfo::whole("t", 1), &wal2);
    for row in 0..400 {
        assert_eq!(
            value(&region, row),
            Some(format!("value-{row}")),
            "row {row}"
        );
    }
    // The family's directory carries its storage policy.
    let policy = second
        .webhdfs()
        .storage_policy(root.join("t/0000000000000001/cf").to_str().unwrap())
        .unwrap();
    assert!(policy.contains("ALL_SSD"), "{policy}");
    // A split on HDFS: daughters reference the parent's files.
    region.flush().unwrap();
    let (bottom, top) = region
        .split(Some(Bytes::from_static(b"row00200")), (2, 3))
        .unwrap();
    let low = open(&second, &root, bottom, &wal2);
    let high = open(&second, &root, top, &wal2);
    assert_eq!(value(&low, 10), Some("value-10".into()));
    assert_eq!(value(&high, 390), Some("value-390".into()));
    low.close().unwrap();
    high.close().unwrap();
    wal2.close().unwrap();
    strata_storage::vfs::FileStore::remove_dir_all(second.as_ref(), &root).unwrap();
}
