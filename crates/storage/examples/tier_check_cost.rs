//! What one periodic tier check costs when nothing is due: `regions` regions (one date-tiered
//! family placing windows by age, `files` store files each, on local files with an ARCHIVE
//! volume), then `check_round` over all of them many times. Prints the time per round, per
//! region and per file. Nothing moves: every file is in the hot window.
//!
//! `cargo run --example tier_check_cost -- [regions] [files]`
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use strata_model::ops::Put;
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_storage::clock::ManualClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::region::CompactionOptions;
use strata_storage::tier_check::check_round;
use strata_storage::tiers::{StorageType, Volume, Volumes};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

const NOW: i64 = 1_800_000_000_000;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>().unwrap());
    let regions = args.next().unwrap_or(100);
    let files = args.next().unwrap_or(10);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let volumes = Arc::new(
        Volumes::new(
            &data,
            StorageType::Hdd,
            vec![Volume {
                kind: StorageType::Archive,
                path: tmp.path().join("archive"),
            }],
        )
        .unwrap(),
    );
    let wal = Arc::new(Wal::open(tmp.path().join("wal"), WalOptions::default()).unwrap());
    let mut family = FamilyDescriptor::new("f");
    family.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        storage_policy_enable: true,
        hot_window_storage_policy: StoragePolicy::Hot,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let table = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family);
    let clock = Arc::new(ManualClock::new(NOW));
    let mut open = Vec::new();
    for id in 1..=regions {
        let region = Region::open(RegionConfig {
            dir: data.join("t").join(id.to_string()),
            table: table.clone(),
            info: RegionInfo {
                table: "t".into(),
                region_id: id,
                start_row: Bytes::new(),
                end_row: Bytes::new(),
            },
            wal: wal.clone(),
            cache: None,
            clock: clock.clone(),
            background: None,
            budget: None,
            volumes: Some(volumes.clone()),
        })
        .unwrap();
        let mut o = CompactionOptions::default();
        o.exploring.blocking_file_count = 1000;
        region.set_compaction_options(o).unwrap();
        for f in 0..files {
            let put = Put::new(Bytes::from(format!("row{f}"))).add_at(
                Bytes::from_static(b"f"),
                Bytes::from_static(b"q"),
                NOW,
                Bytes::from_static(b"v"),
            );
            region.put(&put).unwrap();
            region.flush().unwrap();
        }
        open.push(region);
    }
    assert_eq!(check_round(&open), 0, "nothing is due");
    let rounds = 2000u32;
    let started = Instant::now();
    for _ in 0..rounds {
        assert_eq!(check_round(&open), 0);
    }
    let round = started.elapsed() / rounds;
    let per_region = round.as_nanos() as f64 / regions as f64;
    println!(
        "{regions} regions × {files} files, nothing due: {:.1} µs per round, {:.0} ns per \
         region, {:.0} ns per file",
        round.as_nanos() as f64 / 1000.0,
        per_region,
        per_region / files as f64
    );
    for r in &open {
        r.close().unwrap();
    }
    wal.close().unwrap();
}
