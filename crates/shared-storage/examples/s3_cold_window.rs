//! Moving a date-tiered window past its cold age to an S3 bucket (`--cold-root`, RFC 0011):
//! the time and bytes of copying the window's file from the local data directory to the
//! bucket, and get latency from the file before (local) and after the move (first from the
//! bucket, then from the page cache), with the GETs sent.
//!
//! ```sh
//! eval "$(scripts/s3.sh start)"
//! cargo build --workspace --examples && ./target/debug/examples/s3_cold_window   # ROWS=50000
//! ```
//!
//! One region on a local data directory with the ARCHIVE tier on the bucket, no block cache in
//! memory (every get reads its block from the store), `ROWS` rows of 1 KB whose cells are 90
//! days old, flushed while the clock says the window is hot. 250 gets on rows 200 apart,
//! twice; then `move_tiers` with the clock at today; the same gets again.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_model::ops::{Get, Put};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_shared_storage::{S3Options, S3};
use strata_storage::clock::ManualClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::tiers::{StorageType, Volume, Volumes};
use strata_storage::vfs::{FileStore, Local};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

const DAY: i64 = 86_400_000;

fn open(
    root: &Path,
    bucket: (&Arc<S3>, &Path),
    wal: &Arc<Wal>,
    clock: &Arc<ManualClock>,
) -> Region {
    let mut family = FamilyDescriptor::new("cf");
    family.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        storage_policy_enable: true,
        hot_window_age_ms: DAY,
        hot_window_storage_policy: StoragePolicy::Hot,
        warm_window_age_ms: 7 * DAY,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let remote: Arc<dyn FileStore> = bucket.0.clone();
    let volumes = Volumes::new(root, StorageType::Hdd, Vec::new())
        .unwrap()
        .with_remote(
            Volume {
                kind: StorageType::Archive,
                path: bucket.1.to_owned(),
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
        clock: clock.clone(),
        background: None,
        budget: None,
        volumes: Some(Arc::new(volumes)),
    })
    .unwrap()
}

fn row(i: u32) -> Bytes {
    Bytes::from(format!("row{i:08}"))
}

fn summary(region: &Region, rows: &[u32], s3: &S3) -> String {
    let before = s3.requests().get.load(Ordering::Relaxed);
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
    let gets = s3.requests().get.load(Ordering::Relaxed) - before;
    d.sort();
    let at = |q: f64| d[((d.len() as f64 * q) as usize).min(d.len() - 1)];
    let mean = d.iter().sum::<Duration>() / d.len() as u32;
    format!(
        "{} | {:.0} µs | {:.0} µs | {:.0} µs | {gets} |",
        d.len(),
        mean.as_secs_f64() * 1e6,
        at(0.5).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6
    )
}

fn main() {
    let rows: u32 = std::env::var("ROWS").map_or(50_000, |v| v.parse().unwrap());
    let endpoint = std::env::var("STRATA_S3_ENDPOINT")
        .expect("STRATA_S3_ENDPOINT (eval \"$(scripts/s3.sh start)\")");
    let bucket = std::env::var("STRATA_S3_BUCKET").unwrap_or_else(|_| "strata".into());
    let scratch = tempfile::tempdir().unwrap();
    let mut o = S3Options::new(&bucket, Some(scratch.path().join("cache")));
    o.endpoint = Some(endpoint);
    let s3 = Arc::new(S3::connect(o, Duration::from_secs(20)).unwrap());
    let now = i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let prefix = Path::new("/bench").join(format!("cold-window-{}-{now}", std::process::id()));
    let clock = Arc::new(ManualClock::new(now));
    let wal = Arc::new(
        Wal::open_with(
            scratch.path().join("wal"),
            WalOptions::default(),
            Arc::new(Local),
        )
        .unwrap(),
    );
    let root = scratch.path().join("data");

    // Written while the window is hot (the clock 90 days back): the flush writes locally.
    let old = now - 90 * DAY;
    clock.set(old + 1000);
    let region = open(&root, (&s3, &prefix), &wal, &clock);
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
    println!("| file | gets | mean | p50 | p99 | S3 GETs |");
    println!("|---|---:|---:|---:|---:|---:|");
    println!("| local (HDD), first | {}", summary(&region, &sample, &s3));
    println!("| local (HDD), again | {}", summary(&region, &sample, &s3));

    clock.set(now);
    let puts = s3.requests().put.load(Ordering::Relaxed);
    let started = Instant::now();
    assert_eq!(region.move_tiers().unwrap(), 1);
    let took = started.elapsed();
    let puts = s3.requests().put.load(Ordering::Relaxed) - puts;
    let file = region.file_listing().remove(0);
    assert_eq!(file.tier, "ARCHIVE");
    println!(
        "| bucket (ARCHIVE), cold | {}",
        summary(&region, &sample, &s3)
    );
    println!(
        "| bucket (ARCHIVE), warm | {}",
        summary(&region, &sample, &s3)
    );
    println!();
    println!(
        "moved {:.1} MiB in {:.2} s ({:.1} MiB/s, {puts} PUT requests) to {}",
        size as f64 / (1 << 20) as f64,
        took.as_secs_f64(),
        size as f64 / (1 << 20) as f64 / took.as_secs_f64(),
        file.path
    );
    region.close().unwrap();
    wal.close().unwrap();
    s3.remove_dir_all(&prefix).unwrap();
}
