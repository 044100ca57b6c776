//! The region engine with its WAL, manifests and store files on a real HDFS: writes, flushes,
//! a major compaction, a split, and a crash (the process's HDFS client gone without closing
//! its WAL) after which a new client fences the old WAL and replays every acknowledged write.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, StoragePolicy, TableDescriptor, TableName};
use strata_shared_storage::Hdfs;
use strata_storage::clock::SystemClock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::tiers::{StorageType, Volumes};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

fn table() -> TableDescriptor {
    let mut fd = FamilyDescriptor::new("cf");
    fd.storage_policy = StoragePolicy::AllSsd;
    TableDescriptor::new(TableName::parse("t").unwrap()).with_family(fd)
}

fn whole(id: u64) -> RegionInfo {
    RegionInfo {
        table: "t".into(),
        region_id: id,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    }
}

fn open(hdfs: &Arc<Hdfs>, root: &Path, info: RegionInfo, wal: &Arc<Wal>) -> Region {
    let id = info.region_id;
    let volumes = Volumes::new(root, StorageType::Hdd, Vec::new())
        .unwrap()
        .with_files(hdfs.clone());
    Region::open(RegionConfig {
        dir: root
            .join("t")
            .join(strata_storage::region::region_dir_name(id)),
        table: table(),
        info,
        wal: wal.clone(),
        cache: None,
        clock: Arc::new(SystemClock),
        background: None,
        budget: None,
        volumes: Some(Arc::new(volumes)),
    })
    .unwrap()
}

fn wal(hdfs: &Arc<Hdfs>, root: &Path) -> Arc<Wal> {
    // Small segments, so recovery reads several (rolled and closed, and the open one).
    let options = WalOptions {
        segment_size: 64 << 10,
        ..WalOptions::default()
    };
    Arc::new(Wal::open_with(root.join("wal"), options, hdfs.clone()).unwrap())
}

fn put(region: &Region, row: u32) {
    region
        .put(&Put::new(Bytes::from(format!("row{row:05}"))).add(
            Bytes::from_static(b"cf"),
            Bytes::from_static(b"q"),
            Bytes::from(format!("value-{row}-{}", "x".repeat(1000))),
        ))
        .unwrap();
}

fn value(region: &Region, row: u32) -> Option<String> {
    let cells = region
        .get(&Get::new(Bytes::from(format!("row{row:05}"))))
        .unwrap();
    cells
        .first()
        .map(|c| String::from_utf8_lossy(&c.value).into_owned())
        .map(|v| v.split('-').take(2).collect::<Vec<_>>().join("-"))
}

#[test]
fn a_region_on_hdfs_flushes_compacts_and_recovers_after_its_writer_dies() {
    let Some(first) = support::client() else {
        return;
    };
    let root: PathBuf = support::unique_dir("region");
    let wal1 = wal(&first, &root);
    let region = open(&first, &root, whole(1), &wal1);
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
    let region = open(&second, &root, whole(1), &wal2);
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
