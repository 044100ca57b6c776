//! Snapshots in cluster mode, as real processes on a real etcd and HDFS (see
//! `support/cluster.rs`; skipped without them unless `STRATA_REQUIRE_ETCD`/`HDFS`): a master
//! (its janitor every second) and two region servers on one HDFS root. A snapshot taken
//! through a region server is cloned after the table was overwritten and compacted, restored
//! into the table, and cloned again after the table was dropped (its files then read from the
//! archive on HDFS); once the snapshot and every table are gone, the archive empties.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection, Table};
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_storage::vfs::Storage;

use cluster::{engines, Cluster};
use support::key;

const ROWS: u64 = 100;

fn count_files(storage: &Storage, dir: &Path) -> usize {
    let Ok(entries) = storage.files.list(dir) else {
        return 0;
    };
    entries
        .iter()
        .map(|e| {
            if e.is_dir {
                count_files(storage, &dir.join(&e.name))
            } else {
                1
            }
        })
        .sum()
}

async fn fill(table: &Table, value: &str) {
    for i in 0..ROWS {
        table
            .put(&Put::new(key(i)).add("f", "q", Bytes::from(value.to_string())))
            .await
            .unwrap();
    }
}

/// Every row's value, which must all be `value`.
async fn check(table: &Table, value: &str) {
    for i in 0..ROWS {
        let row = table.get(&Get::new(key(i))).await.unwrap();
        let got: Vec<&[u8]> = row.iter().map(|c| c.value.as_ref()).collect();
        assert_eq!(got, [value.as_bytes()], "row {i}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshots_clone_restore_and_clean_on_hdfs() {
    let Some(e) = engines() else { return };
    let janitor = ["--janitor-secs", "1"].map(String::from);
    let c = Cluster::start_full(&e, "snapshots", 2, &janitor, &[]);
    let opened =
        strata_shared_storage::open_root(&c.root, Some(&e.http), Duration::from_secs(10)).unwrap();
    let (storage, root) = (opened.storage.clone(), opened.path.clone());
    let options = ClientOptions {
        retry_max: Duration::from_millis(500),
        retries: 40,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&c.addrs(), options).await.unwrap();
    let admin = conn.admin();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    admin.create_table(&t, &[key(50)]).await.unwrap();
    let table = conn.table("t").unwrap();
    fill(&table, "v1").await;

    let started = Instant::now();
    admin.snapshot("t", "s1").await.unwrap();
    println!("snapshot of 2 regions: {:?}", started.elapsed());
    fill(&table, "v2").await;
    admin.flush("t").await.unwrap();
    admin.compact("t", None, true).await.unwrap();

    admin.clone_snapshot("s1", "c1").await.unwrap();
    check(&conn.table("c1").unwrap(), "v1").await;
    check(&table, "v2").await;

    admin.disable_table("t").await.unwrap();
    admin.restore_snapshot("s1").await.unwrap();
    admin.enable_table("t").await.unwrap();
    check(&table, "v1").await;

    // The source dropped: the snapshot's files are read from the archive.
    admin.disable_table("t").await.unwrap();
    admin.delete_table("t").await.unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    admin.clone_snapshot("s1", "c2").await.unwrap();
    check(&conn.table("c2").unwrap(), "v1").await;
    assert!(count_files(&storage, &root.join("archive")) > 0);

    // Exported from HDFS to a local root, imported by a one-process Strata there, cloned.
    let local = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "snapshot",
            "export",
            "--snapshot",
            "s1",
            "--from",
            &c.root,
            "--to",
        ])
        .arg(local.path())
        .args(["--hdfs-http", &e.http])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let single = strata_testkit::Single::start(local.path());
    let conn_local = Connection::connect(&single.address()).await.unwrap();
    conn_local.admin().import_snapshot("s1").await.unwrap();
    conn_local.admin().clone_snapshot("s1", "t").await.unwrap();
    check(&conn_local.table("t").unwrap(), "v1").await;
    single.stop().unwrap();

    admin.delete_snapshot("s1").await.unwrap();
    for t in ["c1", "c2"] {
        admin.disable_table(t).await.unwrap();
        admin.delete_table(t).await.unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = count_files(&storage, &root.join("archive"));
        if left == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "{left} archived files left");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(count_files(&storage, &root.join(".snapshots")), 0);
}
