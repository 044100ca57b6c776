//! The master's region-directory sweep on the cold bucket, as real processes on etcd
//! (`STRATA_ETCD_ENDPOINTS`), the MiniDFSCluster of `scripts/hdfs.sh` (`STRATA_HDFS_URL`) and
//! the SeaweedFS of `scripts/s3.sh` (`STRATA_S3_ENDPOINT`, `STRATA_S3_BUCKET`, `AWS_*`): the
//! files of a `COLD` family live in the bucket (`--cold-root`); once a split parent's daughters
//! compacted their references away its objects leave the bucket, and so do a dropped table's,
//! while another table's stay and are read back. Skipped without the engines unless
//! `STRATA_REQUIRE_ETCD`, `…_HDFS` or `…_S3` is set.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/cluster_admin.rs"]
mod cluster_admin;
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use cluster::{engines, Cluster};
use cluster_admin::{blocking, etcd, options, region_dir, regions};
use strata_client::{Connection, Table};
use strata_model::ops::{Put, Scan};
use strata_model::schema::{FamilyDescriptor, StoragePolicy, TableDescriptor, TableName};
use strata_shared_storage::{S3Options, S3};
use strata_storage::vfs::FileStore;
use support::{key, now_ms, s3};

/// Every object under `dir`.
fn objects(store: &S3, dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in store.list(dir).unwrap() {
        let path = dir.join(&entry.name);
        if entry.is_dir {
            found.extend(objects(store, &path));
        } else {
            found.push(path);
        }
    }
    found
}

async fn cell_count(table: &Table) -> Option<usize> {
    let rows = table.scan_all(&Scan::default()).await.ok()?;
    Some(rows.iter().map(Vec::len).sum())
}

/// Waits (at most 90 s) until `done`; answers the time it took.
async fn wait(what: &str, mut done: impl FnMut() -> bool) -> Duration {
    let started = Instant::now();
    while !blocking(&mut done) {
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "{what}: not within 90 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    started.elapsed()
}

/// Creates table `name` with a `COLD` family `f` and writes `rows` rows, flushed.
async fn cold_table(conn: &Connection, name: &str, rows: u64) -> Table {
    let mut family = FamilyDescriptor::new("f");
    family.storage_policy = StoragePolicy::Cold;
    let t = TableDescriptor::new(TableName::parse(name).unwrap()).with_family(family);
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table(name).unwrap();
    for i in 0..rows {
        let put = Put::new(key(i)).add("f", "q", Bytes::from(vec![b'x'; 100]));
        table.put(&put).await.unwrap();
    }
    conn.admin().flush(name).await.unwrap();
    table
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn split_parents_and_dropped_tables_leave_the_bucket_and_live_tables_stay() {
    let Some(e) = engines() else { return };
    let Some((endpoint, bucket)) = s3() else {
        return;
    };
    let prefix = format!("e2e/cluster-cleanup-{}-{}", std::process::id(), now_ms());
    let cold = format!("s3://{bucket}/{prefix}");
    let master_args = [
        "--janitor-secs",
        "1",
        "--cold-root",
        &cold,
        "--s3-endpoint",
        &endpoint,
    ]
    .map(String::from);
    let server_args = [
        "--cold-root",
        &cold,
        "--s3-endpoint",
        &endpoint,
        "--s3-cache-mib",
        "16",
        "--tier-check-secs",
        "1",
    ]
    .map(String::from);
    let cluster = Cluster::start_full(&e, "cleanup", 1, &master_args, &server_args);
    let conn = Connection::connect_any(&cluster.addrs(), options())
        .await
        .unwrap();
    let store = blocking(|| {
        let mut o = S3Options::new(&bucket, None);
        o.endpoint = Some(endpoint.clone());
        S3::connect(o, Duration::from_secs(20)).unwrap()
    });
    let bucket_root = PathBuf::from(format!("/{prefix}"));
    let (kv, layout) = etcd(&e, &cluster.name);

    let kept = cold_table(&conn, "kept", 50).await;
    let t = cold_table(&conn, "t", 100).await;
    let parent = blocking(|| regions(&kv, &layout, "t")).remove(0).0;
    let parent_dir = region_dir(&bucket_root, &parent);
    let moved = wait("the flushed file reaches the bucket", || {
        !objects(&store, &parent_dir).is_empty()
    })
    .await;
    eprintln!(
        "flushed file in the bucket after {:.1} s",
        moved.as_secs_f64()
    );
    let kept_dir = bucket_root.join("tables/default/kept");
    wait("the other table's file reaches the bucket", || {
        !objects(&store, &kept_dir).is_empty()
    })
    .await;
    let kept_objects = objects(&store, &kept_dir);

    // Split: the daughters read the parent's objects through references until they compact
    // (the region server's upkeep does), then the parent goes, record and files.
    conn.admin().split("t", Some(key(50))).await.unwrap();
    let split = Instant::now();
    let took = wait("the split parent's objects leave the bucket", || {
        objects(&store, &parent_dir).is_empty()
    })
    .await;
    eprintln!(
        "split parent's objects deleted from the bucket {:.1} s after the split",
        took.as_secs_f64()
    );
    assert!(
        blocking(|| regions(&kv, &layout, "t"))
            .iter()
            .all(|(r, _)| *r != parent),
        "the parent's record was deleted first"
    );
    assert!(split.elapsed() >= took);
    assert_eq!(cell_count(&t).await, Some(100));
    let table_dir = bucket_root.join("tables/default/t");
    wait("the daughters' compacted files reach the bucket", || {
        !objects(&store, &table_dir).is_empty()
    })
    .await;
    // Several sweeps later the daughters' objects are all still there.
    let daughters = objects(&store, &table_dir);
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(objects(&store, &table_dir), daughters);
    assert_eq!(cell_count(&t).await, Some(100));

    // Drop: every object of the table leaves the bucket.
    let dropped = Instant::now();
    conn.admin().disable_table("t").await.unwrap();
    conn.admin().delete_table("t").await.unwrap();
    wait("the dropped table's objects leave the bucket", || {
        objects(&store, &table_dir).is_empty()
    })
    .await;
    eprintln!(
        "dropped table's objects deleted from the bucket {:.1} s after the disable and drop \
         requests",
        dropped.elapsed().as_secs_f64()
    );

    // The live table lost nothing.
    assert_eq!(objects(&store, &kept_dir), kept_objects);
    assert_eq!(cell_count(&kept).await, Some(50));
    conn.admin().disable_table("kept").await.unwrap();
    conn.admin().delete_table("kept").await.unwrap();
    blocking(move || {
        let _ = store.remove_dir_all(&bucket_root);
        drop((kv, store));
    });
}

#[test]
fn a_master_cold_root_needs_a_data_root() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "master",
            "--etcd",
            "127.0.0.1:1",
            "--cold-root",
            "s3://bucket/cold",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--cold-root needs --root"), "{err}");
}
