//! The region engine with its manifests and store files on a real S3-compatible service
//! (SeaweedFS from scripts/s3.sh) and its WAL on local files: writes, flushes, a major
//! compaction, a crash (nothing closed) and a replay of every acknowledged write by a new
//! process, warm gets served by the page cache without one GET, and a split.
#![allow(clippy::unwrap_used)]

mod region_common;
mod s3support;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use region_common::{put, value};
use strata_shared_storage::S3;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::vfs::{FileStore, Local};
use strata_storage::wal::Wal;
use strata_storage::Region;

fn open(s3: &Arc<S3>, root: &Path, info: RegionInfo, wal: &Arc<Wal>) -> Region {
    let table = region_common::table(None);
    region_common::open(s3.clone(), root, table, info, wal)
}

fn wal(dir: &Path) -> Arc<Wal> {
    Arc::new(
        Wal::open_with(
            dir.join("wal"),
            region_common::wal_options(),
            Arc::new(Local),
        )
        .unwrap(),
    )
}

#[test]
fn a_region_on_s3_flushes_compacts_recovers_and_serves_warm_gets_without_a_get() {
    let local = tempfile::tempdir().unwrap();
    let Some(first) = s3support::store(Some(&local.path().join("cache1"))) else {
        return;
    };
    let first = Arc::new(first);
    let root: PathBuf = s3support::unique_dir("region");
    let wal1 = wal(local.path());
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
    assert!(files[0].path.starts_with("s3://"), "{files:?}");
    // The store is the tier (it used to show the data directory's HDD).
    assert_eq!(files[0].tier, "S3", "{files:?}");
    // Acknowledged but only in the WAL.
    for row in 300..400 {
        put(&region, row);
    }
    // The process dies without closing anything; a new one (its own store, cold cache)
    // replays the WAL.
    std::mem::forget(region);
    std::mem::forget(wal1);
    let second = Arc::new(s3support::store(Some(&local.path().join("cache2"))).unwrap());
    let wal2 = wal(local.path());
    let region = open(&second, &root, RegionInfo::whole("t", 1), &wal2);
    for row in 0..400 {
        assert_eq!(
            value(&region, row),
            Some(format!("value-{row}")),
            "row {row}"
        );
    }
    let gets = || second.requests().get.load(Ordering::Relaxed);
    assert!(gets() > 0, "the cold reads went to S3");
    let warm = gets();
    for row in 0..300 {
        assert_eq!(
            value(&region, row),
            Some(format!("value-{row}")),
            "row {row}"
        );
    }
    assert_eq!(gets(), warm, "warm gets sent a GET to S3");
    // A split on S3: daughters reference the parent's files.
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
    second.remove_dir_all(&root).unwrap();
}
