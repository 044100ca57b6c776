//! The ARCHIVE tier on a real S3-compatible bucket (SeaweedFS from scripts/s3.sh) behind a
//! local data directory (`--cold-root`): a window past its cold age is copied to the bucket by
//! the tier mover and deleted locally; its first gets fetch pages from the bucket, the same
//! gets again send no GET (the page cache); a new process reads it from the bucket; an object
//! a crashed move left unlisted in the bucket is deleted when the region opens.
#![allow(clippy::unwrap_used)]

mod s3support;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use strata_model::ops::{Get, Put};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_shared_storage::S3;
use strata_storage::clock::ManualClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::tiers::{StorageType, Volume, Volumes};
use strata_storage::vfs::{FileStore, Local};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

const DAY: i64 = 86_400_000;
const NOW: i64 = 1_800_000_000_000;

fn open(root: &Path, s3: &Arc<S3>, bucket_dir: &Path, wal: &Arc<Wal>) -> Region {
    let mut family = FamilyDescriptor::new("cf");
    family.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        storage_policy_enable: true,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let remote: Arc<dyn FileStore> = s3.clone();
    let volumes = Volumes::new(root, StorageType::Hdd, Vec::new())
        .unwrap()
        .with_remote(
            Volume {
                kind: StorageType::Archive,
                path: bucket_dir.to_owned(),
            },
            remote,
        )
        .unwrap();
    Region::open(RegionConfig {
        dir: root.join("t").join("1"),
        table: TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family),
        info: RegionInfo {
            table: "t".into(),
            region_id: 1,
            start_row: Bytes::new(),
            end_row: Bytes::new(),
        },
        wal: wal.clone(),
        cache: None,
        clock: Arc::new(ManualClock::new(NOW)),
        background: None,
        budget: None,
        volumes: Some(Arc::new(volumes)),
    })
    .unwrap()
}

fn row(i: u32) -> Bytes {
    Bytes::from(format!("row{i:06}"))
}

fn get_all(region: &Region, rows: u32) {
    for i in (0..rows).step_by(50) {
        assert_eq!(region.get(&Get::new(row(i))).unwrap().len(), 1, "row {i}");
    }
}

#[test]
fn a_cold_window_moves_to_the_bucket_and_warm_gets_send_no_get() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(s3) = s3support::store(Some(&tmp.path().join("cache"))) else {
        return;
    };
    let s3 = Arc::new(s3);
    let bucket_dir = s3support::unique_dir("cold-tier");
    let root = tmp.path().join("data");
    let wal = Arc::new(
        Wal::open_with(
            tmp.path().join("wal"),
            WalOptions::default(),
            Arc::new(Local),
        )
        .unwrap(),
    );
    let region = open(&root, &s3, &bucket_dir, &wal);
    let rows = 2000;
    for i in 0..rows {
        let put = Put::new(row(i)).add_at(
            Bytes::from_static(b"cf"),
            Bytes::from_static(b"q"),
            NOW - 90 * DAY,
            Bytes::from(vec![b'v'; 500]),
        );
        region.put(&put).unwrap();
    }
    region.flush().unwrap();
    // The flush wrote locally (only the mover writes to the bucket); the mover copies it.
    let local = region.file_listing().remove(0);
    assert_eq!(local.tier, "HDD");
    assert_eq!(region.move_tiers().unwrap(), 1);
    let cold = region.file_listing().remove(0);
    assert_eq!(cold.tier, "ARCHIVE");
    assert!(cold.path.starts_with("s3://"), "{cold:?}");
    assert!(
        !Path::new(&local.path).exists(),
        "the local copy is deleted"
    );
    let key = bucket_dir.join("t/1/cf").join(&cold.name);
    assert_eq!(s3.len(&key).unwrap(), Some(cold.size));

    let gets = || s3.requests().get.load(Ordering::Relaxed);
    let before = gets();
    get_all(&region, rows);
    assert!(
        gets() > before,
        "the first gets fetch pages from the bucket"
    );
    let before = gets();
    get_all(&region, rows);
    assert_eq!(gets(), before, "warm gets are served by the page cache");
    region.close().unwrap();

    // A move that crashed before its manifest edit left an object the manifest does not list.
    let stray = bucket_dir.join("t/1/cf/00000000000000ff-1.sst");
    s3.write_atomic(&stray, b"unlisted").unwrap();
    // A new process (an empty page cache) reads the window from the bucket.
    let fresh = Arc::new(s3support::store(Some(&tmp.path().join("cache2"))).unwrap());
    let region = open(&root, &fresh, &bucket_dir, &wal);
    assert_eq!(fresh.len(&stray).unwrap(), None, "the leftover is deleted");
    get_all(&region, rows);
    assert_eq!(region.move_tiers().unwrap(), 0);
    region.close().unwrap();
    wal.close().unwrap();
    s3.remove_dir_all(&bucket_dir).unwrap();
}
