//! `strata standalone --root hdfs://…` as a real process on the MiniDFSCluster of
//! `scripts/hdfs.sh` (`STRATA_HDFS_URL`; skipped without it unless `STRATA_REQUIRE_HDFS`):
//! SIGKILL under writers loses no acknowledged write, a second process on the same root is
//! refused, and the WAL's and a family's storage policies place their blocks on SSD.
#![allow(clippy::unwrap_used)]

mod support;

use support::{key, Killed};

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_client::Connection;
use strata_model::ops::Put;
use strata_model::schema::{FamilyDescriptor, StoragePolicy, TableDescriptor, TableName};
use strata_shared_storage::{Hdfs, HdfsOptions};
use strata_storage::vfs::FileStore;

struct Cluster {
    url: String,
    http: String,
}

fn hdfs() -> Option<Cluster> {
    let Ok(url) = std::env::var("STRATA_HDFS_URL") else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_HDFS").is_none(),
            "STRATA_REQUIRE_HDFS is set but STRATA_HDFS_URL is not"
        );
        eprintln!("skipped: no HDFS (scripts/hdfs.sh start, then set STRATA_HDFS_URL)");
        return None;
    };
    let http = std::env::var("STRATA_HDFS_HTTP").unwrap_or_else(|_| "127.0.0.1:9870".into());
    Some(Cluster { url, http })
}

fn unique_root(c: &Cluster, name: &str) -> (String, String) {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let path = format!("/e2e/{name}-{}-{nanos}", std::process::id());
    (format!("{}{path}", c.url), path)
}

fn args(c: &Cluster, root: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = ["--root", root, "--hdfs-http", &c.http]
        .iter()
        .map(|s| s.to_string())
        .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn spawn(scratch: &Path, args: &[String]) -> (Child, String) {
    support::spawn(scratch, args, Stdio::inherit())
}

fn client(c: &Cluster) -> Hdfs {
    let mut o = HdfsOptions::new(&c.url);
    o.http_addr.clone_from(&c.http);
    Hdfs::connect(o, Duration::from_secs(20)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_on_hdfs_loses_no_acknowledged_write_and_a_second_process_is_refused() {
    let Some(c) = hdfs() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let (root, _) = unique_root(&c, "sigkill");
    let flags = args(&c, &root, &[]);
    let (child, addr) = spawn(scratch.path(), &flags);
    let server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(500), key(1000)])
        .await
        .unwrap();

    // A second process on the same root is refused while the first holds it.
    let out = support::standalone(scratch.path(), &flags)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in use by another Strata process"), "{err}");

    let table = conn.table("t").unwrap();
    let (acked, writers) = support::start_writers(&table, 4);
    tokio::time::sleep(Duration::from_millis(3000)).await;
    conn.admin().flush("t").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    // SIGKILL: the WAL stays open, its lease held by a dead client.
    drop(server);
    let acked = support::stop_writers(&acked, writers).await;
    assert!(acked.iter().all(|&n| n > 5), "too few writes: {acked:?}");

    // The restart takes over the dead process's lock and fences its WAL before replaying it.
    let (child, addr) = spawn(scratch.path(), &flags);
    let _server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    let table = conn.table("t").unwrap();
    support::assert_acknowledged(&table, &acked).await;
    let files = conn.admin().list_files("t").await.unwrap();
    assert!(!files.is_empty());
    assert!(
        files.iter().all(|f| f.path.starts_with("hdfs://")),
        "{files:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_and_a_family_land_on_the_storage_types_their_policies_name() {
    let Some(c) = hdfs() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let (root, path) = unique_root(&c, "policies");
    let flags = args(&c, &root, &["--wal-storage-policy", "ALL_SSD"]);
    let (child, addr) = spawn(scratch.path(), &flags);
    let mut server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    let mut family = FamilyDescriptor::new("f");
    family.storage_policy = StoragePolicy::Cold;
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family);
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table("t").unwrap();
    for i in 0..200 {
        let put = Put::new(key(i)).add("f", "q", Bytes::from(vec![b'x'; 100]));
        table.put(&put).await.unwrap();
    }
    conn.admin().flush("t").await.unwrap();
    let files = conn.admin().list_files("t").await.unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].tier, "COLD", "{files:?}");

    let hdfs = client(&c);
    let store_file = files[0]
        .path
        .strip_prefix(&c.url)
        .unwrap_or(&files[0].path)
        .to_owned();
    let where_file = hdfs.webhdfs().block_locations(&store_file).unwrap();
    assert!(where_file.contains("\"ARCHIVE\""), "{where_file}");
    let wal_dir = Path::new(&path).join("wal");
    let segment = FileStore::list(&hdfs, &wal_dir)
        .unwrap()
        .into_iter()
        .filter(|e| !e.is_dir && e.len > 0)
        .map(|e| wal_dir.join(e.name))
        .next()
        .unwrap();
    let policy = hdfs
        .webhdfs()
        .storage_policy(wal_dir.to_str().unwrap())
        .unwrap();
    assert!(policy.contains("ALL_SSD"), "{policy}");
    // Closed segments have final block locations; the open one is under construction, so
    // roll by restarting gracefully, then check every segment's blocks.
    let _ = segment;
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(server.0.wait().unwrap().success());
    let mut checked = 0;
    for e in FileStore::list(&hdfs, &wal_dir).unwrap() {
        if e.is_dir || e.len == 0 {
            continue;
        }
        let p = wal_dir.join(&e.name);
        let locations = hdfs.webhdfs().block_locations(p.to_str().unwrap()).unwrap();
        if locations.contains("\"storageTypes\"") {
            assert!(locations.contains("\"SSD\""), "{}: {locations}", e.name);
            checked += 1;
        }
    }
    assert!(checked > 0, "no WAL segment with blocks");
}
