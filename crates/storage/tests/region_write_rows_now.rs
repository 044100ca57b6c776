//! `Region::try_mutate_rows_now`: single-row writes of several regions applied in place
//! together, those sharing a WAL logged with one append; each row declined or refused on its
//! own, changing nothing.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::Arc;

use bytes::Bytes;
use region_support::*;
use strata_model::ops::{Get, Mutation, Put, RowMutations};
use strata_storage::background::Background;
use strata_storage::manifest::RegionInfo;
use strata_storage::region::{region_dir_name, Region, WriteNow};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Error, RegionConfig};

/// Regions `ids` of table `t`, rows split at "m" for two, sharing `wal`.
fn open_regions(env: &Env, wal: &Arc<Wal>, ids: &[u64], bg: &Arc<Background>) -> Vec<Region> {
    ids.iter()
        .map(|&id| {
            Region::open(RegionConfig {
                dir: env.root.join("t").join(region_dir_name(id)),
                table: env.table.clone(),
                info: RegionInfo {
                    table: "t".into(),
                    region_id: id,
                    start_row: Bytes::new(),
                    end_row: Bytes::new(),
                },
                wal: wal.clone(),
                cache: None,
                clock: env.clock.clone(),
                background: Some(bg.clone()),
                budget: None,
                volumes: None,
            })
            .unwrap()
        })
        .collect()
}

fn wal_at(env: &Env, name: &str) -> Arc<Wal> {
    Arc::new(Wal::open(env.root.join(name), WalOptions::default()).unwrap())
}

fn seq_of(outcome: &WriteNow) -> u64 {
    match outcome {
        WriteNow::Done(Ok(r)) | WriteNow::Pending(r) => r.seq,
        other => panic!("expected a write, got {other:?}"),
    }
}

#[test]
fn rows_of_regions_sharing_a_wal_are_logged_with_one_append_and_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let bg = Background::with_priority(1, 0);
    let wal = wal_at(&env, "wal");
    let regions = open_regions(&env, &wal, &[1, 2], &bg);
    let rows: Vec<RowMutations> = (0..6)
        .map(|i| put_row(&format!("r{i}"), "q", 5, &format!("v{i}")))
        .collect();
    let batch: Vec<_> = rows
        .iter()
        .enumerate()
        .map(|(i, rm)| (&regions[i % 2], rm))
        .collect();
    let before = wal.stats();
    let outcomes = Region::try_mutate_rows_now(&batch);
    let after = wal.stats();
    assert_eq!(after.writes - before.writes, 1, "one append for six rows");
    assert_eq!(after.appends - before.appends, 6);
    // Each region's rows take increasing sequence ids, in the order given.
    let seqs: Vec<u64> = outcomes.iter().map(seq_of).collect();
    assert!(seqs[0] < seqs[2] && seqs[2] < seqs[4], "{seqs:?}");
    assert!(seqs[1] < seqs[3] && seqs[3] < seqs[5], "{seqs:?}");
    // A pending row is visible once its wait returns.
    for (i, seq) in seqs.iter().enumerate() {
        regions[i % 2].wait_visible(*seq);
    }
    for (i, _) in rows.iter().enumerate() {
        let region = &regions[i % 2];
        assert_eq!(
            get(region, Get::new(format!("r{i}"))),
            vec![(s("f"), s("q"), 5, s(&format!("v{i}")))]
        );
        assert!(get(&regions[(i + 1) % 2], Get::new(format!("r{i}"))).is_empty());
    }
    // Acknowledged means logged: reopened without a flush, both regions replay their rows.
    drop(regions);
    drop(wal);
    let wal = wal_at(&env, "wal");
    let regions = open_regions(&env, &wal, &[1, 2], &bg);
    for i in 0..6 {
        assert_eq!(
            get(&regions[i % 2], Get::new(format!("r{i}"))),
            vec![(s("f"), s("q"), 5, s(&format!("v{i}")))]
        );
    }
    drop(regions);
    bg.shutdown();
}

#[test]
fn each_row_is_declined_or_refused_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let bg = Background::with_priority(1, 0);
    let wal = wal_at(&env, "wal");
    let other_wal = wal_at(&env, "other-wal");
    let mut regions = open_regions(&env, &wal, &[1], &bg);
    regions.extend(open_regions(&env, &other_wal, &[2], &bg));
    let held = regions[0]
        .row_locks()
        .lock(vec![Bytes::from_static(b"locked")]);
    let locked = put_row("locked", "q", 1, "v");
    let unknown = RowMutations::from(Mutation::Put(Put::new("a").add_at("nope", "q", 1, "v")));
    let good = put_row("good", "q", 1, "v");
    let twice = put_row("good", "q", 2, "w");
    let elsewhere = put_row("elsewhere", "q", 1, "v");
    let batch = [
        (&regions[0], &locked),
        (&regions[0], &unknown),
        (&regions[0], &good),
        // The same row again: its lock is held by the row before it, so it declines.
        (&regions[0], &twice),
        (&regions[1], &elsewhere),
    ];
    let (w0, o0) = (wal.stats(), other_wal.stats());
    let outcomes = Region::try_mutate_rows_now(&batch);
    assert!(
        matches!(outcomes[0], WriteNow::Declined),
        "{:?}",
        outcomes[0]
    );
    assert!(
        matches!(&outcomes[1], WriteNow::Done(Err(Error::NoSuchFamily(_)))),
        "{:?}",
        outcomes[1]
    );
    seq_of(&outcomes[2]);
    assert!(
        matches!(outcomes[3], WriteNow::Declined),
        "{:?}",
        outcomes[3]
    );
    seq_of(&outcomes[4]);
    // One append per WAL, each holding only its rows.
    assert_eq!(
        (
            wal.stats().writes - w0.writes,
            wal.stats().appends - w0.appends
        ),
        (1, 1)
    );
    assert_eq!(
        (
            other_wal.stats().writes - o0.writes,
            other_wal.stats().appends - o0.appends
        ),
        (1, 1)
    );
    assert!(
        get(&regions[0], Get::new("locked")).is_empty(),
        "declined changes nothing"
    );
    assert_eq!(
        get(&regions[0], Get::new("good")),
        vec![(s("f"), s("q"), 1, s("v"))]
    );
    assert_eq!(
        get(&regions[1], Get::new("elsewhere")),
        vec![(s("f"), s("q"), 1, s("v"))]
    );
    drop(held);
    drop(regions);
    bg.shutdown();
}
