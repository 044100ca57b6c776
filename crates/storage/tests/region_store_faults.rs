//! The region engine over a fault-injecting store (`vfs::Faulty`): an injected error (ENOSPC,
//! EIO) at a sync, a write, a rename or a read fails the operation cleanly — no acknowledged
//! write lost, no torn file served, nothing half-installed — and the engine works again once
//! the fault clears; a crash after the faults replays everything acknowledged.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use region_support::{put, table, Env};
use strata_model::ops::Get;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::tiers::Volumes;
use strata_storage::vfs::{Fault, FaultOp, Faulty, Local};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

struct Faults {
    files: Arc<Faulty<Local>>,
    logs: Arc<Faulty<Local>>,
}

fn open(env: &Env, faults: &Faults) -> strata_storage::Result<Region> {
    let wal = Arc::new(Wal::open_with(
        env.root.join("wal"),
        WalOptions::default(),
        faults.logs.clone(),
    )?);
    let volumes = Volumes::single(&env.root).with_files(faults.files.clone());
    Region::open(RegionConfig {
        dir: env
            .root
            .join("t")
            .join(strata_storage::region::region_dir_name(1)),
        table: env.table.clone(),
        info: env.info.clone(),
        wal,
        cache: None,
        clock: env.clock.clone(),
        background: None,
        budget: None,
        volumes: Some(Arc::new(volumes)),
    })
}

fn value(region: &Region, row: u32) -> Option<Bytes> {
    region
        .get(&Get::new(Bytes::from(format!("r{row:04}"))))
        .unwrap()
        .first()
        .map(|c| c.value.clone())
}

fn write(region: &Region, rows: std::ops::Range<u32>) {
    for row in rows {
        put(
            region,
            &format!("r{row:04}"),
            "f",
            "q",
            1_000 + i64::from(row),
            "v",
        );
    }
}

fn assert_all(region: &Region, rows: std::ops::Range<u32>) {
    for row in rows {
        assert_eq!(
            value(region, row),
            Some(Bytes::from_static(b"v")),
            "row {row}"
        );
    }
}

fn leftovers(dir: &Path) -> Vec<String> {
    walk(dir)
        .into_iter()
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn injected_faults_fail_operations_cleanly_and_the_engine_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let faults = Faults {
        files: Arc::new(Faulty::new(Local)),
        logs: Arc::new(Faulty::new(Local)),
    };
    let region = open(&env, &faults).unwrap();
    write(&region, 0..100);

    // A flush whose store-file sync hits a full disk fails; the memtable keeps its cells.
    faults.files.inject(FaultOp::Sync, Fault::ENOSPC, None);
    assert!(region.flush().is_err());
    assert!(region.file_listing().is_empty());
    assert_all(&region, 0..100);
    faults.files.clear();
    region.flush().unwrap();
    assert_eq!(region.file_listing().len(), 1);

    // A compaction whose output write fails installs nothing and leaves no temporary file.
    write(&region, 100..200);
    region.flush().unwrap();
    write(&region, 200..300);
    region.flush().unwrap();
    faults.files.inject(FaultOp::Write, Fault::EIO, None);
    assert!(region.compact(MajorRequest::User).is_err());
    faults.files.clear();
    assert_eq!(region.file_listing().len(), 3);
    assert_all(&region, 0..300);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    region.compact(MajorRequest::User).unwrap();
    assert_eq!(region.file_listing().len(), 1);

    // A namespace change (directory, rename of a store file or manifest) fails once: the flush
    // fails, the next one writes the same snapshot.
    write(&region, 300..400);
    faults.files.inject(FaultOp::Namespace, Fault::EIO, Some(1));
    assert!(region.flush().is_err());
    region.flush().unwrap();
    assert_all(&region, 0..400);

    // A WAL append that fails is not acknowledged; appends work again after the fault.
    faults.logs.inject(FaultOp::Append, Fault::EIO, Some(1));
    let failed = region.put(
        &strata_model::ops::Put::new(Bytes::from_static(b"r9999")).add_at(
            "f",
            "q",
            1,
            Bytes::from_static(b"v"),
        ),
    );
    assert!(failed.is_err());
    write(&region, 400..500);

    // Crash: nothing closed. Everything acknowledged is back; the failed put is not.
    std::mem::forget(region);
    let region = open(&env, &faults).unwrap();
    assert_all(&region, 0..500);
    assert_eq!(value(&region, 9999), None);

    // A read error is an error, never wrong or missing data; reads work after it clears.
    region.flush().unwrap();
    drop(region);
    let region = open(&env, &faults).unwrap();
    faults.files.inject(FaultOp::Read, Fault::EIO, None);
    assert!(region.get(&Get::new(Bytes::from_static(b"r0001"))).is_err());
    faults.files.clear();
    assert_all(&region, 0..500);
}
