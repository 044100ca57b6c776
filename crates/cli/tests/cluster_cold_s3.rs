//! `strata regionserver --root hdfs://… --cold-root s3://…` as real processes on etcd
//! (`STRATA_ETCD_ENDPOINTS`), the MiniDFSCluster of `scripts/hdfs.sh` (`STRATA_HDFS_URL`) and
//! the SeaweedFS of `scripts/s3.sh` (`STRATA_S3_ENDPOINT`, `STRATA_S3_BUCKET`, `AWS_*`): a
//! date-tiered family whose windows go cold after ten seconds is written and flushed once;
//! with no further write or compaction, the region server's periodic tier check
//! (`--tier-check-secs 1`) moves the window from HDFS to the bucket; after a SIGKILL of that
//! server another one opens the region and reads every cell back from the bucket. Skipped
//! without the engines unless `STRATA_REQUIRE_ETCD`, `…_HDFS` or `…_S3` is set.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use cluster::{engines, Cluster};
use support::{key, now_ms, s3};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection, Table};
use strata_model::ops::{Put, Scan};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_shared_storage::{Hdfs, HdfsOptions, S3Options, S3};
use strata_storage::vfs::FileStore;

/// Every object under `dir`, with its size.
fn objects(store: &S3, dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut found = Vec::new();
    for entry in store.list(dir).unwrap() {
        let path = dir.join(&entry.name);
        if entry.is_dir {
            found.extend(objects(store, &path));
        } else {
            found.push((path, entry.len));
        }
    }
    found
}

async fn cell_count(table: &Table) -> Option<usize> {
    let rows = table.scan_all(&Scan::default()).await.ok()?;
    Some(rows.iter().map(Vec::len).sum())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_window_moves_from_hdfs_to_the_bucket_and_another_server_reads_it() {
    let Some(e) = engines() else { return };
    let Some((endpoint, bucket)) = s3() else {
        return;
    };
    let prefix = format!("e2e/cluster-cold-{}-{}", std::process::id(), now_ms());
    let server_args: Vec<String> = [
        "--cold-root",
        &format!("s3://{bucket}/{prefix}"),
        "--s3-endpoint",
        &endpoint,
        "--s3-cache-mib",
        "16",
        "--tier-check-secs",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut cluster = Cluster::start_with(&e, "cold", 1, &server_args);
    let options = ClientOptions {
        retry_max: Duration::from_millis(500),
        retries: 100,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&cluster.addrs(), options.clone())
        .await
        .unwrap();
    let mut family = FamilyDescriptor::new("f");
    family.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        base_window_ms: 1000,
        storage_policy_enable: true,
        hot_window_age_ms: 5000,
        hot_window_storage_policy: StoragePolicy::Hot,
        warm_window_age_ms: 10_000,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family);
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table("t").unwrap();
    let now = now_ms();
    for i in 0..100u64 {
        let put = Put::new(key(i)).add_at("f", "q", now, Bytes::from(vec![b'x'; 100]));
        table.put(&put).await.unwrap();
    }
    conn.admin().flush("t").await.unwrap();
    let flushed = Instant::now();

    // No write, flush or compaction from here (the region server's compaction check comes
    // every 10,000 s by default): only the periodic tier check can move the window, once it
    // is past its cold age (ten seconds).
    let mut o = S3Options::new(&bucket, None);
    o.endpoint = Some(endpoint.clone());
    let store = S3::connect(o, Duration::from_secs(20)).unwrap();
    let root = PathBuf::from(format!("/{prefix}"));
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        objects(&store, &root),
        Vec::new(),
        "moved before it was cold"
    );
    let hdfs = Hdfs::connect(HdfsOptions::new(&e.hdfs), Duration::from_secs(20)).unwrap();
    let hdfs_root = cluster.root.strip_prefix(&e.hdfs).unwrap().to_owned();
    // Moved once the copy is in the bucket and the original gone from HDFS (it is deleted
    // after the manifest edit; before it, a crash would leave the copy for the next open to
    // delete).
    let moved = loop {
        let found = objects(&store, &root);
        let sst = found.iter().find(|(p, _)| {
            p.extension().is_some_and(|x| x == "sst") && p.to_string_lossy().contains("/f/")
        });
        if let Some((path, len)) = sst {
            let rel = path.strip_prefix(&root).unwrap();
            let original = Path::new(&hdfs_root).join(rel);
            if hdfs.len(&original).unwrap().is_none() {
                break (path.clone(), *len);
            }
        }
        assert!(
            flushed.elapsed() < Duration::from_secs(60),
            "nothing moved to the bucket: {found:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    eprintln!(
        "the flushed window reached the bucket {:.1} s after the flush ({} bytes, {})",
        flushed.elapsed().as_secs_f64(),
        moved.1,
        moved.0.display()
    );
    assert!(moved.1 > 0);
    assert_eq!(cell_count(&table).await, Some(100));

    // The server dies; another one, with the same cold root, opens the region.
    drop(cluster.servers.remove(0));
    let killed = Instant::now();
    cluster.add_server();
    let conn = Connection::connect_any(&cluster.addrs(), options)
        .await
        .unwrap();
    let table = conn.table("t").unwrap();
    loop {
        if cell_count(&table).await == Some(100) {
            break;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(60),
            "the region did not serve its cells again within 60 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        objects(&store, &root).contains(&moved),
        "still in the bucket"
    );
    conn.admin().disable_table("t").await.unwrap();
    conn.admin().delete_table("t").await.unwrap();
    store.remove_dir_all(&root).unwrap();
}

#[test]
fn a_cold_root_needs_a_data_root() {
    // A region server and a master alike: without --root they hold no data to move or sweep.
    for (command, message) in [
        ("regionserver", "--cold-root need --root"),
        ("master", "--cold-root needs --root"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args([
                command,
                "--etcd",
                "127.0.0.1:1",
                "--cold-root",
                "s3://bucket/cold",
            ])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{command}: {err}");
    }
}
