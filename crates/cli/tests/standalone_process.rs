//! `strata standalone` as a real process is a cluster of one: the cluster's master and a
//! region server over the embedded coordination store. A split and a drop go through the one
//! master, a second process on the root is refused, and so is a WAL placed off the root.
//! (SIGKILL and restart: `standalone_restart.rs`; a root of an earlier release:
//! `standalone_upgrade.rs`.)
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use strata_client::Connection;
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

use support::key;

fn spawn(dir: &Path) -> (Child, String) {
    support::spawn(dir, &[], Stdio::inherit())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_split_and_drop_through_the_one_master() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = spawn(dir.path());
    let _child = support::Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    let admin = conn.admin();
    let t = TableDescriptor::new(TableName::parse("s").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    admin.create_table(&t, &[]).await.unwrap();
    let table = conn.table("s").unwrap();
    for i in 0..200 {
        let put = Put::new(key(i)).add("f", "q", bytes::Bytes::from(format!("v{i}")));
        table.put(&put).await.unwrap();
    }
    admin.split("s", Some(key(100))).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let regions = admin.regions("s").await.unwrap();
        if regions.len() == 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no split after 30 s: {regions:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for i in [0, 99, 100, 199] {
        let got = table.get(&Get::new(key(i))).await.unwrap();
        assert_eq!(got.len(), 1, "row {i} after the split");
    }
    // Every region's files are listed, whichever server holds it.
    admin.flush("s").await.unwrap();
    let files = admin.list_files("s").await.unwrap();
    let regions: std::collections::BTreeSet<u64> = files.iter().map(|f| f.region_id).collect();
    assert_eq!(regions.len(), 2, "{files:?}");
    assert!(
        files.iter().all(|f| f.family == "f" && f.cells > 0),
        "{files:?}"
    );
    assert!(
        admin.delete_table("s").await.is_err(),
        "an enabled table is not dropped"
    );
    admin.disable_table("s").await.unwrap();
    admin.delete_table("s").await.unwrap();
    assert!(table.get(&Get::new(key(1))).await.is_err());
}

#[test]
fn a_second_process_on_the_same_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (child, _addr) = spawn(dir.path());
    let _child = support::Killed(child);
    let out = support::standalone(dir.path(), &[]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in use by another Strata process"), "{err}");
}

#[test]
fn a_wal_placed_off_the_root_is_refused() {
    // The master replays a previous start's WAL from the root only.
    let dir = tempfile::tempdir().unwrap();
    let ram = dir.path().join("ram");
    let out = support::standalone(
        &dir.path().join("data"),
        &[
            format!("--volume=RAM_DISK={}", ram.display()),
            "--wal-storage-policy=LAZY_PERSIST".into(),
        ],
    )
    .output()
    .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("keeps its WAL on the data directory"), "{err}");
}
