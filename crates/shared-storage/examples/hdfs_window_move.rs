//! Moving an aged date-tiered window on HDFS (RFC 0010, "On HDFS: policy directories"): the
//! time and bytes of rewriting a window's file from `tier-all_ssd` (SSD blocks) into
//! `tier-cold` (ARCHIVE blocks), and get latency from the file before and after the move.
//!
//! ```sh
//! scripts/hdfs.sh start
//! STRATA_HDFS_URL=hdfs://127.0.0.1:9000 cargo run --release -p strata-shared-storage \
//!     --example hdfs_window_move                    # ROWS=50000 by default
//! ```
//!
//! One region (no block cache in memory, so every get reads its block from HDFS), `ROWS` rows
//! of 1 KB whose cells are 90 days old, flushed: the flush writes the hot policy's directory.
//! 250 gets on rows 200 apart, twice; then `move_tiers` on a clock that says the window is
//! cold; the same gets again.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_model::ops::{Get, Put};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_shared_storage::{Hdfs, HdfsOptions};
use strata_storage::clock::ManualClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::tiers::Volumes;
use strata_storage::vfs::{FileStore, Local};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

const DAY: i64 = 86_400_000;

fn open(hdfs: &Arc<Hdfs>, root: &Path, wal: &Arc<Wal>, clock: &Arc<ManualClock>) -> Region {
    let mut family = FamilyDescriptor::new("cf");
    family.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        storage_policy_enable: true,
        hot_window_age_ms: DAY,
        hot_window_storage_policy: StoragePolicy::AllSsd,
        warm_window_age_ms: 7 * DAY,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let files: Arc<dyn FileStore> = hdfs.clone();
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
        clock: clock.clone(),
        background: None,
        budget: None,
        volumes: Some(Arc::new(Volumes::single(root).with_files(files))),
    })
    .unwrap()
}

fn row(i: u32) -> Bytes {
    Bytes::from(format!("row{i:08}"))
}

fn summary(region: &Region, rows: &[u32]) -> String {
    let mut d: Vec<Duration> = rows
        .iter()
        .map(|&i| {
            let started = Instant::now();
            let cells = region.get(&Get::new(row(i))).unwrap();
            let took = started.elapsed();
            assert_eq!(cells.len(), 1, "row {i}");
            took
        })
        .collect();
    d.sort();
    let at = |q: f64| d[((d.len() as f64 * q) as usize).min(d.len() - 1)];
    let mean = d.iter().sum::<Duration>() / d.len() as u32;
    format!(
        "{} | {:.0} µs | {:.0} µs | {:.0} µs",
        d.len(),
        mean.as_secs_f64() * 1e6,
        at(0.5).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6
    )
}

/// The storage types the blocks of the region's only file are on.
fn blocks(hdfs: &Hdfs, region: &Region) -> String {
    let file = region.file_listing().remove(0);
    let url = file.path;
    let path = &url[url.find("://").unwrap() + 3..];
    let path = &path[path.find('/').unwrap()..];
    let json = hdfs.webhdfs().block_locations(path).unwrap();
    let mut types: Vec<&str> = ["\"SSD\"", "\"DISK\"", "\"ARCHIVE\"", "\"RAM_DISK\""]
        .into_iter()
        .filter(|t| json.contains(t))
        .collect();
    types.dedup();
    format!("{} ({})", file.tier, types.join(", ").replace('"', ""))
}

fn main() {
    let rows: u32 = std::env::var("ROWS").map_or(50_000, |v| v.parse().unwrap());
    let url = std::env::var("STRATA_HDFS_URL").expect("STRATA_HDFS_URL (scripts/hdfs.sh start)");
    let mut options = HdfsOptions::new(&url);
    if let Ok(http) = std::env::var("STRATA_HDFS_HTTP") {
        options.http_addr = http;
    }
    let hdfs = Arc::new(Hdfs::connect(options, Duration::from_secs(20)).unwrap());
    let now = i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let clock = Arc::new(ManualClock::new(now));
    let root = Path::new("/bench").join(format!("window-move-{}-{now}", std::process::id()));
    let scratch = tempfile::tempdir().unwrap();
    let wal = Arc::new(
        Wal::open_with(
            scratch.path().join("wal"),
            WalOptions::default(),
            Arc::new(Local),
        )
        .unwrap(),
    );

    // Written while the window is hot (the clock 90 days back), so the flush places it on SSD.
    let old = now - 90 * DAY;
    clock.set(old + 1000);
    let region = open(&hdfs, &root, &wal, &clock);
    let value = Bytes::from(vec![b'v'; 1000]);
    for i in 0..rows {
        region
            .put(&Put::new(row(i)).add_at(
                Bytes::from_static(b"cf"),
                Bytes::from_static(b"q"),
                old,
                value.clone(),
            ))
            .unwrap();
    }
    region.flush().unwrap();
    let size = region.file_listing()[0].size;
    let sample: Vec<u32> = (0..rows).step_by(200).collect();
    println!("| file | gets | mean | p50 | p99 |");
    println!("|---|---:|---:|---:|---:|");
    let before = blocks(&hdfs, &region);
    println!("| {before}, first | {} |", summary(&region, &sample));
    println!("| {before}, again | {} |", summary(&region, &sample));

    clock.set(now);
    let started = Instant::now();
    assert_eq!(region.move_tiers().unwrap(), 1);
    let took = started.elapsed();
    let after = blocks(&hdfs, &region);
    println!("| {after}, first | {} |", summary(&region, &sample));
    println!("| {after}, again | {} |", summary(&region, &sample));
    println!();
    println!(
        "moved {:.1} MiB in {:.2} s ({:.1} MiB/s): {before} -> {after}",
        size as f64 / (1 << 20) as f64,
        took.as_secs_f64(),
        size as f64 / (1 << 20) as f64 / took.as_secs_f64()
    );
    region.close().unwrap();
    wal.close().unwrap();
    FileStore::remove_dir_all(hdfs.as_ref(), &root).unwrap();
}
