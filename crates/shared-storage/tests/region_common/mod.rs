//! What the region tests on HDFS and on S3 share: table `t` with one family `cf`, a region
//! opened with its store files on a shared store, and rows of about 1 KB written and read
//! back.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, StoragePolicy, TableDescriptor, TableName};
use strata_storage::clock::SystemClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::tiers::{StorageType, Volumes};
use strata_storage::vfs::FileStore;
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

/// Table `t` with family `cf` on storage policy `policy` (`None`: the default).
pub fn table(policy: Option<StoragePolicy>) -> TableDescriptor {
    let mut fd = FamilyDescriptor::new("cf");
    if let Some(policy) = policy {
        fd.storage_policy = policy;
    }
    TableDescriptor::new(TableName::parse("t").unwrap()).with_family(fd)
}

/// Region `info` of `table` under `root`, its store files on `files`, without a block cache
/// (every read of a block reaches the store).
pub fn open(
    files: Arc<dyn FileStore>,
    root: &Path,
    table: TableDescriptor,
    info: RegionInfo,
    wal: &Arc<Wal>,
) -> Region {
    let id = info.region_id;
    let volumes = Volumes::new(root, StorageType::Hdd, Vec::new())
        .unwrap()
        .with_files(files);
    Region::open(RegionConfig {
        dir: root
            .join("t")
            .join(strata_storage::region::region_dir_name(id)),
        table,
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

/// Small WAL segments, so that recovery reads several (rolled and closed, and the open one).
pub fn wal_options() -> WalOptions {
    WalOptions {
        segment_size: 64 << 10,
        ..WalOptions::default()
    }
}

/// Writes row `row` (`row00042`) with a value of about 1 KB.
pub fn put(region: &Region, row: u32) {
    region
        .put(&Put::new(Bytes::from(format!("row{row:05}"))).add(
            Bytes::from_static(b"cf"),
            Bytes::from_static(b"q"),
            Bytes::from(format!("value-{row}-{}", "x".repeat(1000))),
        ))
        .unwrap();
}

/// Row `row`'s value as `value-N`, if the row is there.
pub fn value(region: &Region, row: u32) -> Option<String> {
    let cells = region
        .get(&Get::new(Bytes::from(format!("row{row:05}"))))
        .unwrap();
    cells
        .first()
        .map(|c| String::from_utf8_lossy(&c.value).into_owned())
        .map(|v| v.split('-').take(2).collect::<Vec<_>>().join("-"))
}
