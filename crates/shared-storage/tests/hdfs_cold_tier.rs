//! The ARCHIVE tier as a bucket behind an HDFS root (`--root hdfs://… --cold-root s3://…`),
//! on the MiniDFSCluster of `scripts/hdfs.sh` and the SeaweedFS of `scripts/s3.sh`: the WAL,
//! manifests and every other window stay on HDFS (in the family's directory or a policy
//! directory), a window past its cold age goes to the bucket; one that ages later is moved by
//! a periodic tier check round; a new process reads every cell, and an object a crashed move
//! left unlisted in the bucket is deleted when the region opens. Skipped without either engine
//! unless `STRATA_REQUIRE_HDFS` / `STRATA_REQUIRE_S3` is set.
#![allow(clippy::unwrap_used)]

mod s3support;
mod support;

use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use strata_model::ops::{Put, Scan};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_shared_storage::{Hdfs, S3};
use strata_storage::clock::{Clock, ManualClock};
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::tier_check::check_round;
use strata_storage::tiers::{StorageType, Volume, Volumes};
use strata_storage::vfs::FileStore;
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

const DAY: i64 = 86_400_000;
const NOW: i64 = 1_800_000_000_000;

struct Stores {
    hdfs: Arc<Hdfs>,
    s3: Arc<S3>,
    root: PathBuf,
    bucket_dir: PathBuf,
}

fn open(st: &Stores, clock: &Arc<ManualClock>, wal: &Arc<Wal>) -> Region {
    // STORAGE_POLICY HOT; windows younger than a day ALL_SSD, than a week HOT, older COLD.
    let mut family = FamilyDescriptor::new("cf");
    family.versions = 1;
    family.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        storage_policy_enable: true,
        hot_window_age_ms: DAY,
        hot_window_storage_policy: StoragePolicy::AllSsd,
        warm_window_age_ms: 7 * DAY,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let remote: Arc<dyn FileStore> = st.s3.clone();
    let volumes = Volumes::new(&st.root, StorageType::Hdd, Vec::new())
        .unwrap()
        .with_files(st.hdfs.clone())
        .with_remote(
            Volume {
                kind: StorageType::Archive,
                path: st.bucket_dir.clone(),
            },
            remote,
        )
        .unwrap();
    let region = Region::open(RegionConfig {
        dir: st.root.join("t").join("1"),
        table: TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family),
        info: RegionInfo {
            table: "t".into(),
            region_id: 1,
            start_row: Bytes::new(),
            end_row: Bytes::new(),
        },
        wal: wal.clone(),
        cache: None,
        clock: clock.clone(),
        background: None,
        budget: None,
        volumes: Some(Arc::new(volumes)),
    })
    .unwrap();
    let mut o = strata_storage::region::CompactionOptions::default();
    o.exploring.major.period_ms = 0;
    region.set_compaction_options(o).unwrap();
    region
}

fn put(region: &Region, row: u32, ts: i64) {
    let put = Put::new(Bytes::from(format!("row{row:05}"))).add_at(
        Bytes::from_static(b"cf"),
        Bytes::from(format!("q{ts}")),
        ts,
        Bytes::from(vec![b'v'; 200]),
    );
    region.put(&put).unwrap();
}

fn cells(region: &Region) -> usize {
    let mut scanner = region.scan(&Scan::default()).unwrap();
    let mut n = 0;
    while let Some(row) = scanner.next_row().unwrap() {
        n += row.len();
    }
    n
}

/// (tier, whether its URL is in the bucket) of each file, oldest window first.
fn placements(region: &Region) -> Vec<(String, bool)> {
    let mut files = region.file_listing();
    files.sort_by_key(|f| f.time_range.map(|(_, max)| max));
    files
        .into_iter()
        .map(|f| (f.tier, f.path.starts_with("s3://")))
        .collect()
}

#[test]
fn cold_windows_of_an_hdfs_root_move_to_the_bucket() {
    let Some(hdfs) = support::client() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let Some(s3) = s3support::store(Some(&tmp.path().join("cache"))) else {
        return;
    };
    let st = Stores {
        hdfs,
        s3: Arc::new(s3),
        root: support::unique_dir("cold-root"),
        bucket_dir: s3support::unique_dir("hdfs-cold"),
    };
    let clock = Arc::new(ManualClock::new(NOW));
    let wal = Arc::new(
        Wal::open_with(st.root.join("wal"), WalOptions::default(), st.hdfs.clone()).unwrap(),
    );
    let region = open(&st, &clock, &wal);
    for row in 0..100 {
        put(&region, row, NOW - 90 * DAY);
        put(&region, row, NOW - 3 * DAY);
        put(&region, row, NOW);
    }
    region.flush().unwrap();
    region.compact(MajorRequest::User).unwrap();
    // The cold window was written on HDFS (only the mover writes to the bucket) and moved.
    assert_eq!(region.move_tiers().unwrap(), 1);
    let want = |t: &[(&str, bool)]| -> Vec<(String, bool)> {
        t.iter().map(|(s, b)| ((*s).to_owned(), *b)).collect()
    };
    assert_eq!(
        placements(&region),
        want(&[("ARCHIVE", true), ("HOT", false), ("ALL_SSD", false)])
    );
    let cold = region
        .file_listing()
        .into_iter()
        .find(|f| f.tier == "ARCHIVE")
        .unwrap();
    let key = st.bucket_dir.join("t/1/cf").join(&cold.name);
    assert_eq!(st.s3.len(&key).unwrap(), Some(cold.size));
    let family_dir = st.root.join("t/1/cf");
    assert_eq!(st.hdfs.len(&family_dir.join(&cold.name)).unwrap(), None);
    assert_eq!(cells(&region), 300);

    // Five days later the HOT window is past its cold age too (and the newest one past its
    // hot age): a tier check round, with no write and no compaction, moves them.
    clock.set(clock.now_ms() + 5 * DAY);
    assert_eq!(check_round(std::slice::from_ref(&region)), 1);
    let now = placements(&region);
    assert_eq!(now[..2], want(&[("ARCHIVE", true), ("ARCHIVE", true)]));
    assert_ne!(now[2].0, "ALL_SSD", "{now:?}");
    assert!(now.iter().all(|(t, s3)| (t == "ARCHIVE") == *s3), "{now:?}");
    assert_eq!(region.move_tiers().unwrap(), 0);
    assert_eq!(cells(&region), 300);
    region.close().unwrap();
    wal.close().unwrap();

    // A move that crashed before its manifest edit left an unlisted object; a new process
    // (new clients, an empty page cache) deletes it and reads every cell.
    let stray = st.bucket_dir.join("t/1/cf/00000000000000ff-1.sst");
    st.s3.write_atomic(&stray, b"unlisted").unwrap();
    let st = Stores {
        hdfs: support::client().unwrap(),
        s3: Arc::new(s3support::store(Some(&tmp.path().join("cache2"))).unwrap()),
        ..st
    };
    let wal = Arc::new(
        Wal::open_with(st.root.join("wal"), WalOptions::default(), st.hdfs.clone()).unwrap(),
    );
    let region = open(&st, &clock, &wal);
    assert_eq!(st.s3.len(&stray).unwrap(), None, "the leftover is deleted");
    assert_eq!(cells(&region), 300);
    assert_eq!(region.move_tiers().unwrap(), 0);
    region.close().unwrap();
    wal.close().unwrap();
    st.hdfs.remove_dir_all(&st.root).unwrap();
    st.s3.remove_dir_all(&st.bucket_dir).unwrap();
}
