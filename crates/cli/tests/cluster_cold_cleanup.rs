//! The master's region-directory sweep on the cold bucket, as real processes on etcd
//! (`STRATA_ETCD_ENDPOINTS`), the MiniDFSCluster of `scripts/hdfs.sh` (`STRATA_HDFS_URL`) and
//! the SeaweedFS of `scripts/s3.sh` (`STRATA_S3_ENDPOINT`, `STRATA_S3_BUCKET`, `AWS_*`): the
//! files of a `COLD` family live in the bucket (`--cold-root`); once a split parent's daughters
//! compacted their references away its objects leave the bucket, and so do a dropped table's,
//! while another table's stay and are read back. The sweep alone, on hundreds of directories
//! on HDFS and in the bucket, deletes exactly those no record names (its cost is printed).
//! Skipped without the engines unless `STRATA_REQUIRE_ETCD`, `…_HDFS` or `…_S3` is set.
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
    // Complete: a copy in flight shows as a `.tmp` object until it is renamed.
    wait("the other table's file reaches the bucket", || {
        let found = objects(&store, &kept_dir);
        !found.is_empty()
            && found
                .iter()
                .all(|p| p.extension().is_none_or(|e| e != "tmp"))
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
fn the_sweep_deletes_exactly_the_directories_no_record_names_on_hdfs_and_in_the_bucket() {
    use std::io::Write;
    use std::sync::Arc;
    use strata_cluster::kv::{Kv, Op, Txn};
    use strata_cluster::record::RegionRecord;
    use strata_cluster_node::janitor::Swept;
    use strata_cluster_node::region_sweep::{sweep_region_dirs, Place};
    use strata_shared_storage::{Hdfs, HdfsOptions};

    let Some(e) = engines() else { return };
    let Some((endpoint, bucket)) = s3() else {
        return;
    };
    let name = format!("sweep-{}-{}", std::process::id(), now_ms());
    let hdfs = Hdfs::connect(HdfsOptions::new(&e.hdfs), Duration::from_secs(20)).unwrap();
    let mut o = S3Options::new(&bucket, None);
    o.endpoint = Some(endpoint);
    let s3 = S3::connect(o, Duration::from_secs(20)).unwrap();
    let root = PathBuf::from(format!("/e2e/{name}"));
    let places = [
        Place {
            files: Arc::new(hdfs),
            root: root.clone(),
        },
        Place {
            files: Arc::new(s3),
            root: root.clone(),
        },
    ];
    let kv = strata_cluster::etcd::EtcdKv::connect(
        std::slice::from_ref(&e.etcd),
        Duration::from_secs(5),
    )
    .unwrap();
    let layout = strata_cluster::layout::Layout::new(&format!("/strata/{name}"));
    // 100 regions with records and 100 without, on both stores.
    let per_kind = 100u32;
    let setup = Instant::now();
    for seq in 0..2 * per_kind {
        let region = format!("t,1-1.{seq:08x}");
        if seq < per_kind {
            kv.txn(Txn {
                compares: Vec::new(),
                success: vec![Op::put(
                    layout.region(&region),
                    RegionRecord::new(Vec::new(), Vec::new()).encode(),
                )],
            })
            .unwrap();
        }
        // A directory on HDFS (a file there costs a block's allocation and close), an object
        // in the bucket (where a directory is its objects).
        let dir = region_dir(&root, &region).join("f");
        places[0].files.create_dir_all(&dir).unwrap();
        let mut file = places[1].files.create(&dir.join("1.sst")).unwrap();
        file.write_all(b"x").unwrap();
        file.close().unwrap();
    }
    eprintln!("set up in {:.1} s", setup.elapsed().as_secs_f64());
    let started = Instant::now();
    let swept = sweep_region_dirs(&places, &kv, &layout).unwrap();
    let first = started.elapsed();
    assert_eq!(
        swept,
        Swept {
            kept: 2 * per_kind as usize,
            removed: 2 * per_kind as usize
        }
    );
    let started = Instant::now();
    let again = sweep_region_dirs(&places, &kv, &layout).unwrap();
    let steady = started.elapsed();
    // SeaweedFS may go on listing an emptied prefix for a while (RFC 0011): deleting it
    // again deletes nothing.
    assert!(again.removed <= per_kind as usize, "{again:?}");
    assert_eq!(again.kept, 2 * per_kind as usize);
    for seq in 0..2 * per_kind {
        let region = format!("t,1-1.{seq:08x}");
        let dir = region_dir(&root, &region).join("f");
        let on_hdfs = places[0].files.exists(&dir).unwrap();
        let in_bucket = places[1].files.len(&dir.join("1.sst")).unwrap().is_some();
        assert_eq!(
            (on_hdfs, in_bucket),
            (seq < per_kind, seq < per_kind),
            "{region}"
        );
    }
    let listed = 4 * per_kind;
    eprintln!(
        "sweep of {listed} region directories (HDFS and S3, half deleted): {:.0} ms, \
         {:.0} µs per directory listed; again: {:.0} ms, {:.0} µs per directory",
        first.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e6 / f64::from(listed),
        steady.as_secs_f64() * 1e3,
        steady.as_secs_f64() * 1e6 / f64::from(listed),
    );
    for place in &places {
        place.files.remove_dir_all(&root).unwrap();
    }
    kv.txn(Txn {
        compares: Vec::new(),
        success: vec![Op::DeletePrefix(layout.regions())],
    })
    .ok();
}
