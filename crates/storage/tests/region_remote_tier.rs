//! The ARCHIVE tier on a store of its own (`--cold-root s3://…`; here a second local store
//! standing in for the bucket): flushes and compactions write on the data directory, the tier
//! mover copies windows past their cold age across stores, switches the manifest, then
//! deletes the local copy; reads, reopen and leftovers of interrupted moves. The same steps
//! against a real bucket: `crates/cli/tests/standalone_s3.rs`.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use region_support::*;
use strata_model::ops::{Get, Scan};
use strata_storage::clock::Clock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::region::CompactionOptions;
use strata_storage::tiers::{StorageType, Volume, Volumes};
use strata_storage::vfs::{FileStore, Local};
use strata_storage::Region;

fn open(env: &Env, bucket: &Path) -> strata_storage::Result<Region> {
    let remote: Arc<dyn FileStore> = Arc::new(Local);
    let volumes = Volumes::new(&env.root, StorageType::Hdd, Vec::new())
        .unwrap()
        .with_remote(
            Volume {
                kind: StorageType::Archive,
                path: bucket.to_owned(),
            },
            remote,
        )
        .unwrap();
    let r = env.open_on(Some(Arc::new(volumes)))?;
    let mut o = CompactionOptions::default();
    o.exploring.major.period_ms = 0;
    o.exploring.blocking_file_count = 1000;
    r.set_compaction_options(o).unwrap();
    Ok(r)
}

fn family_dir(root: &Path) -> PathBuf {
    root.join("t")
        .join(strata_storage::region::region_dir_name(1))
        .join("f")
}

fn ssts(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|it| {
            it.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn cells(r: &Region) -> usize {
    let mut scanner = r.scan(&Scan::default()).unwrap();
    let mut n = 0;
    while let Some(row) = scanner.next_row().unwrap() {
        n += row.len();
    }
    n
}

#[test]
fn cold_windows_move_to_the_remote_store_and_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, bucket) = (tmp.path().join("data"), tmp.path().join("bucket"));
    std::fs::create_dir_all(&data).unwrap();
    let env = cold_archive_env(&data);
    let r = open(&env, &bucket).unwrap();
    let now = env.clock.now_ms();
    for i in 0..10 {
        put(&r, &format!("row{i}"), "f", "old", now - 60 * DAY, "o");
        put(&r, &format!("row{i}"), "f", "new", now - H, "n");
    }
    r.flush().unwrap();
    // A major compaction places the old window on ARCHIVE: written locally first.
    r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    assert_eq!(ssts(&family_dir(&data)).len(), 2);
    assert!(ssts(&family_dir(&bucket)).is_empty());
    let listing = r.file_listing();
    assert!(listing.iter().all(|f| f.tier == "HDD"), "{listing:?}");

    // The mover copies it to the bucket, then deletes the local copy.
    assert_eq!(r.move_tiers().unwrap(), 1);
    let cold: Vec<_> = r
        .file_listing()
        .into_iter()
        .filter(|f| f.tier == "ARCHIVE")
        .collect();
    assert_eq!(cold.len(), 1);
    assert_eq!(cold[0].time_range.unwrap().1, now - 60 * DAY);
    assert!(cold[0].path.starts_with(&*bucket.to_string_lossy()));
    assert_eq!(ssts(&family_dir(&bucket)), vec![cold[0].name.clone()]);
    assert_eq!(ssts(&family_dir(&data)).len(), 1, "the local copy is gone");
    assert_eq!(cells(&r), 20);
    assert_eq!(r.move_tiers().unwrap(), 0);
    r.close().unwrap();

    // The manifest's ARCHIVE names the remote volume; reopening reads from it.
    let r = open(&env, &bucket).unwrap();
    assert_eq!(cells(&r), 20);
    assert_eq!(
        get(&r, Get::new("row3")).len(),
        2,
        "both windows of a row read"
    );
    r.close().unwrap();
}

#[test]
fn leftovers_of_a_move_to_the_remote_store_are_removed_on_open() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, bucket) = (tmp.path().join("data"), tmp.path().join("bucket"));
    std::fs::create_dir_all(&data).unwrap();
    let env = cold_archive_env(&data);
    let r = open(&env, &bucket).unwrap();
    let now = env.clock.now_ms();
    put(&r, "a", "f", "q", now - 60 * DAY, "x");
    r.flush().unwrap();
    let listed = r.file_listing().remove(0);
    assert_eq!(listed.tier, "HDD");
    r.close().unwrap();
    // A move that stopped after its copy reached the bucket (the manifest still names the
    // local file), and a copy that stopped before its rename.
    let remote = family_dir(&bucket);
    std::fs::create_dir_all(&remote).unwrap();
    std::fs::copy(&listed.path, remote.join(&listed.name)).unwrap();
    std::fs::write(remote.join(format!("{}.tmp", listed.name)), b"part").unwrap();

    let r = open(&env, &bucket).unwrap();
    assert!(ssts(&remote).is_empty(), "{:?}", ssts(&remote));
    assert_eq!(get(&r, Get::new("a")).len(), 1);
    assert_eq!(r.move_tiers().unwrap(), 1);
    assert_eq!(ssts(&remote), vec![listed.name.clone()]);
    assert!(!Path::new(&listed.path).exists());
    r.close().unwrap();

    // After the manifest switched, a local original whose deletion was interrupted goes.
    std::fs::write(&listed.path, b"stale").unwrap();
    let r = open(&env, &bucket).unwrap();
    assert!(!Path::new(&listed.path).exists());
    assert_eq!(get(&r, Get::new("a")).len(), 1);
    r.close().unwrap();
}

#[test]
fn a_second_archive_volume_is_refused() {
    let remote: Arc<dyn FileStore> = Arc::new(Local);
    let err = Volumes::new(
        "/d",
        StorageType::Hdd,
        vec![Volume {
            kind: StorageType::Archive,
            path: "/a".into(),
        }],
    )
    .unwrap()
    .with_remote(
        Volume {
            kind: StorageType::Archive,
            path: "/bucket".into(),
        },
        remote,
    )
    .unwrap_err();
    assert!(err.contains("two volumes of storage type ARCHIVE"), "{err}");
}
