//! Get latency with store files on S3 (cold: each get's page first fetched from the bucket;
//! warm: served by the local page cache) against a local root, in one run.
//!
//! ```sh
//! eval "$(scripts/s3.sh start)"
//! cargo run -p strata-shared-storage --example s3_get_latency
//! ```
//!
//! One region, `ROWS` rows of 1 KB (default 50,000) flushed and compacted into one store
//! file, reopened by a new store (an empty page cache) with no block cache in memory, so
//! every get reads its block from the store. The sampled rows are 200 rows (about 200 KB)
//! apart, so each cold get touches a page no earlier get fetched.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_shared_storage::{S3Options, S3};
use strata_storage::clock::SystemClock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::tiers::{StorageType, Volumes};
use strata_storage::vfs::{FileStore, Local};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

fn open(files: Arc<dyn FileStore>, root: &Path, wal: &Arc<Wal>) -> Region {
    let volumes = Volumes::new(root, StorageType::Hdd, Vec::new())
        .unwrap()
        .with_files(files);
    Region::open(RegionConfig {
        dir: root.join("t").join("1"),
        table: TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(FamilyDescriptor::new("cf")),
        info: RegionInfo {
            table: "t".into(),
            region_id: 1,
            start_row: Bytes::new(),
            end_row: Bytes::new(),
        },
        wal: wal.clone(),
        cache: None,
        clock: Arc::new(SystemClock),
        background: None,
        budget: None,
        volumes: Some(Arc::new(volumes)),
    })
    .unwrap()
}

fn row(i: u32) -> Bytes {
    Bytes::from(format!("row{i:08}"))
}

fn timed(region: &Region, rows: &[u32]) -> Vec<Duration> {
    rows.iter()
        .map(|&i| {
            let started = Instant::now();
            let cells = region.get(&Get::new(row(i))).unwrap();
            let took = started.elapsed();
            assert_eq!(cells.len(), 1, "row {i}");
            took
        })
        .collect()
}

fn summary(mut d: Vec<Duration>) -> String {
    d.sort();
    let at = |q: f64| d[((d.len() as f64 * q) as usize).min(d.len() - 1)];
    let mean = d.iter().sum::<Duration>() / d.len() as u32;
    format!(
        "{:.0} µs | {:.0} µs | {:.0} µs",
        mean.as_secs_f64() * 1e6,
        at(0.5).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6
    )
}

/// Loads the region on `files`, then reopens it on `reopen()` and times cold and warm gets.
fn run(
    name: &str,
    files: Arc<dyn FileStore>,
    reopen: &dyn Fn() -> Arc<dyn FileStore>,
    root: &Path,
    rows: u32,
    gets: &dyn Fn() -> u64,
) {
    let scratch = tempfile::tempdir().unwrap();
    let wal = Arc::new(
        Wal::open_with(
            scratch.path().join("wal"),
            WalOptions::default(),
            Arc::new(Local),
        )
        .unwrap(),
    );
    let region = open(files, root, &wal);
    let value = Bytes::from(vec![b'v'; 1000]);
    for i in 0..rows {
        region
            .put(&Put::new(row(i)).add(
                Bytes::from_static(b"cf"),
                Bytes::from_static(b"q"),
                value.clone(),
            ))
            .unwrap();
    }
    region.flush().unwrap();
    region.compact(MajorRequest::User).unwrap();
    region.close().unwrap();
    let region = open(reopen(), root, &wal);
    let sample: Vec<u32> = (0..rows).step_by(200).collect();
    let before = gets();
    let cold = timed(&region, &sample);
    let cold_gets = gets() - before;
    let before = gets();
    let warm = timed(&region, &sample);
    let warm_gets = gets() - before;
    println!(
        "| {name} cold | {} | {} | {cold_gets} |",
        sample.len(),
        summary(cold)
    );
    println!(
        "| {name} warm | {} | {} | {warm_gets} |",
        sample.len(),
        summary(warm)
    );
    region.close().unwrap();
    wal.close().unwrap();
}

fn main() {
    let rows: u32 = std::env::var("ROWS").map_or(50_000, |v| v.parse().unwrap());
    let endpoint = std::env::var("STRATA_S3_ENDPOINT")
        .expect("STRATA_S3_ENDPOINT (eval \"$(scripts/s3.sh start)\")");
    let bucket = std::env::var("STRATA_S3_BUCKET").unwrap_or_else(|_| "strata".into());
    println!("| root | gets | mean | p50 | p99 | S3 GETs |");
    println!("|---|---:|---:|---:|---:|---:|");
    let local = tempfile::tempdir().unwrap();
    run(
        "local",
        Arc::new(Local),
        &|| Arc::new(Local),
        local.path(),
        rows,
        &|| 0,
    );
    let caches = tempfile::tempdir().unwrap();
    let connect = |cache: &str| {
        let mut o = S3Options::new(&bucket, Some(caches.path().join(cache)));
        o.endpoint = Some(endpoint.clone());
        Arc::new(S3::connect(o, Duration::from_secs(20)).unwrap())
    };
    let reader = connect("reader");
    let root = Path::new("/bench").join(format!("get-latency-{}", std::process::id()));
    let reader_files: Arc<dyn FileStore> = reader.clone();
    run(
        "S3",
        connect("writer"),
        &|| reader_files.clone(),
        &root,
        rows,
        &|| reader.requests().get.load(Ordering::Relaxed),
    );
    reader.remove_dir_all(&root).unwrap();
}
