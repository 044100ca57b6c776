//! Helpers for region tests: a region in a temporary directory with its own WAL.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::{Get, Mutation, Put, RowMutations};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_sstable::cache::BlockCache;
use strata_storage::background::Background;
use strata_storage::clock::ManualClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::tiers::Volumes;
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

pub struct Env {
    pub root: PathBuf,
    pub clock: Arc<ManualClock>,
    pub table: TableDescriptor,
    pub info: RegionInfo,
}

pub fn table(families: &[&str]) -> TableDescriptor {
    let mut t = TableDescriptor::new(TableName::parse("t").unwrap());
    for f in families {
        let mut fd = FamilyDescriptor::new(*f);
        fd.versions = 3;
        t = t.with_family(fd);
    }
    t
}

impl Env {
    pub fn new(root: &Path, table: TableDescriptor) -> Env {
        Env {
            root: root.to_owned(),
            clock: Arc::new(ManualClock::new(1_000_000)),
            table,
            info: RegionInfo {
                table: "t".into(),
                region_id: 1,
                start_row: Bytes::new(),
                end_row: Bytes::new(),
            },
        }
    }

    /// Opens (or reopens) the WAL and the region.
    pub fn open(&self) -> Region {
        self.open_on(None).unwrap()
    }

    /// Opens (or reopens) the WAL and the region with the store files on `volumes` (whose
    /// root must be `self.root`).
    pub fn open_on(&self, volumes: Option<Arc<Volumes>>) -> strata_storage::Result<Region> {
        self.open_with(volumes, None)
    }

    /// Opens (or reopens) the WAL and the region with the store files on `volumes` and its
    /// flushes and compactions on `background`.
    pub fn open_with(
        &self,
        volumes: Option<Arc<Volumes>>,
        background: Option<Arc<Background>>,
    ) -> strata_storage::Result<Region> {
        self.open_full(volumes, background, None)
    }

    /// Opens (or reopens) the WAL and the region with its store files read through `cache`.
    pub fn open_cached(&self, cache: Arc<BlockCache>) -> Region {
        self.open_full(None, None, Some(cache)).unwrap()
    }

    fn open_full(
        &self,
        volumes: Option<Arc<Volumes>>,
        background: Option<Arc<Background>>,
        cache: Option<Arc<BlockCache>>,
    ) -> strata_storage::Result<Region> {
        let wal = Arc::new(Wal::open(self.root.join("wal"), WalOptions::default()).unwrap());
        Region::open(RegionConfig {
            dir: self
                .root
                .join("t")
                .join(strata_storage::region::region_dir_name(1)),
            table: self.table.clone(),
            info: self.info.clone(),
            wal,
            cache,
            clock: self.clock.clone(),
            background,
            budget: None,
            volumes,
        })
    }
}

/// A row mutation putting `v` at `ts` into `f:q` of `row`.
pub fn put_row(row: &str, q: &str, ts: i64, v: &str) -> RowMutations {
    RowMutations::from(Mutation::Put(
        Put::new(Bytes::copy_from_slice(row.as_bytes())).add_at(
            "f",
            q.to_owned(),
            ts,
            v.to_owned(),
        ),
    ))
}

/// An owned string (for comparing with what `get` returns).
pub fn s(x: &str) -> String {
    x.to_owned()
}

pub fn put(region: &Region, row: &str, family: &str, q: &str, ts: i64, v: &str) {
    region
        .put(&Put::new(Bytes::copy_from_slice(row.as_bytes())).add_at(
            Bytes::copy_from_slice(family.as_bytes()),
            Bytes::copy_from_slice(q.as_bytes()),
            ts,
            Bytes::copy_from_slice(v.as_bytes()),
        ))
        .unwrap();
}

/// (family, qualifier, ts, value) of a get's cells.
pub fn get(region: &Region, g: Get) -> Vec<(String, String, i64, String)> {
    region.get(&g).unwrap().into_iter().map(show).collect()
}

pub fn show(c: Cell) -> (String, String, i64, String) {
    (
        String::from_utf8_lossy(&c.family).into_owned(),
        String::from_utf8_lossy(&c.qualifier).into_owned(),
        c.timestamp,
        String::from_utf8_lossy(&c.value).into_owned(),
    )
}

/// An hour and a day in milliseconds.
pub const H: i64 = 3_600_000;
pub const DAY: i64 = 24 * H;

/// Table `t` with one date-tiered family `f` (one version): windows younger than a day HOT,
/// than a week HOT, older COLD (ARCHIVE); the clock at day 100.
pub fn cold_archive_env(root: &Path) -> Env {
    let mut f = FamilyDescriptor::new("f");
    f.versions = 1;
    f.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        storage_policy_enable: true,
        hot_window_age_ms: DAY,
        hot_window_storage_policy: StoragePolicy::Hot,
        warm_window_age_ms: 7 * DAY,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f);
    let env = Env::new(root, t);
    env.clock.set(100 * DAY);
    env
}
