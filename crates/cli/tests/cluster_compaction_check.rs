//! A cluster region server's periodic compaction check, as real processes on etcd
//! (`STRATA_ETCD_ENDPOINTS`) and the MiniDFSCluster of `scripts/hdfs.sh` (`STRATA_HDFS_URL`):
//! with `--compaction-check-secs 1`, an idle region whose older store file's cells all passed
//! their family's TTL drops that file from HDFS with no write, flush or compaction asked for.
//! Skipped without the engines unless `STRATA_REQUIRE_ETCD` or `…_HDFS` is set.
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
use strata_client::Connection;
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName, Ttl};
use strata_shared_storage::{Hdfs, HdfsOptions};
use strata_storage::vfs::FileStore;
use support::{key, now_ms};

/// The store files (`.sst`) under `dir`, recursively.
fn store_files(hdfs: &Hdfs, dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = hdfs.list(dir) else {
        return found;
    };
    for entry in entries {
        let path = dir.join(&entry.name);
        if entry.is_dir {
            found.extend(store_files(hdfs, &path));
        } else if entry.name.ends_with(".sst") {
            found.push(path);
        }
    }
    found.sort();
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_region_drops_a_file_past_its_ttl_without_any_write() {
    let Some(e) = engines() else { return };
    let args = ["--compaction-check-secs", "1"].map(String::from);
    let cluster = Cluster::start_with(&e, "ttl", 1, &args);
    let conn = Connection::connect_any(&cluster.addrs(), options())
        .await
        .unwrap();
    let mut family = FamilyDescriptor::new("f");
    family.ttl = Ttl::Seconds(60);
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family);
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table("t").unwrap();

    // Two files: the older one's cells expire 10 s from now, the newer one's in a minute.
    let old = now_ms() - 50_000;
    for i in 0..50u64 {
        let put = Put::new(key(i)).add_at("f", "q", old, Bytes::from_static(b"old"));
        table.put(&put).await.unwrap();
    }
    conn.admin().flush("t").await.unwrap();
    for i in 50..100u64 {
        let put = Put::new(key(i)).add("f", "q", Bytes::from_static(b"new"));
        table.put(&put).await.unwrap();
    }
    conn.admin().flush("t").await.unwrap();
    let flushed = Instant::now();

    let (kv, layout) = etcd(&e, &cluster.name);
    let region = blocking(|| regions(&kv, &layout, "t")).remove(0).0;
    let hdfs =
        blocking(|| Hdfs::connect(HdfsOptions::new(&e.hdfs), Duration::from_secs(20)).unwrap());
    let root = PathBuf::from(cluster.root.strip_prefix(&e.hdfs).unwrap());
    let dir = region_dir(&root, &region);
    let before = store_files(&hdfs, &dir);
    assert_eq!(before.len(), 2, "two flushes, two files: {before:?}");

    // No write from here: only the periodic check can drop the expired file.
    let after = loop {
        let now = store_files(&hdfs, &dir);
        if now.len() == 1 {
            break now;
        }
        assert!(
            flushed.elapsed() < Duration::from_secs(90),
            "the expired file is still there: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    eprintln!(
        "the expired file was dropped {:.1} s after the flushes ({:.1} s after its cells expired)",
        flushed.elapsed().as_secs_f64(),
        (now_ms() - old - 60_000) as f64 / 1000.0
    );
    assert_eq!(after[0], before[1], "the newer file stays");
    for i in [0u64, 49] {
        let row = table.get(&Get::new(key(i))).await.unwrap();
        assert!(row.is_empty(), "expired row {i} read back");
    }
    for i in [50u64, 99] {
        let row = table.get(&Get::new(key(i))).await.unwrap();
        assert_eq!(row.len(), 1, "row {i}");
    }
    conn.admin().disable_table("t").await.unwrap();
    conn.admin().delete_table("t").await.unwrap();
    // Their runtimes are dropped off the test's.
    blocking(move || drop((kv, hdfs)));
}
