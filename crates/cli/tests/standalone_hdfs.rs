//! `strata standalone --root hdfs://…` as a real process on the MiniDFSCluster of
//! `scripts/hdfs.sh` (`STRATA_HDFS_URL`; skipped without it unless `STRATA_REQUIRE_HDFS`):
//! SIGKILL under writers loses no acknowledged write, a second process on the same root is
//! refused, the WAL's and a family's storage policies place their blocks on SSD and ARCHIVE,
//! and date-tiered windows land by age: an old window's file on ARCHIVE, a young one's on SSD.
#![allow(clippy::unwrap_used)]

mod support;

use support::{key, Killed};

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_client::Connection;
use strata_model::ops::Put;
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
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
    // The region server's WAL is `wal/<server>/`, made with the WAL's storage policy.
    let wal_root = Path::new(&path).join("wal");
    let server_dir = FileStore::list(&hdfs, &wal_root)
        .unwrap()
        .into_iter()
        .find(|e| e.is_dir)
        .map(|e| wal_root.join(e.name))
        .expect("the region server's WAL directory");
    let policy = hdfs
        .webhdfs()
        .storage_policy(server_dir.to_str().unwrap())
        .unwrap();
    assert!(policy.contains("ALL_SSD"), "{policy}");
    // The segment being written has its blocks on SSD (a graceful stop deletes the server's
    // WAL once every region is flushed, so it is read while the server runs).
    let mut checked = 0;
    for e in FileStore::list(&hdfs, &server_dir).unwrap() {
        if e.is_dir || e.len == 0 {
            continue;
        }
        let p = server_dir.join(&e.name);
        let locations = hdfs.webhdfs().block_locations(p.to_str().unwrap()).unwrap();
        if locations.contains("\"storageTypes\"") {
            assert!(locations.contains("\"SSD\""), "{}: {locations}", e.name);
            checked += 1;
        }
    }
    assert!(checked > 0, "no WAL segment with blocks");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(server.0.wait().unwrap().success());
}

/// The storage types of the blocks of the file at `url` (an `hdfs://` URL of the cluster).
fn block_types(hdfs: &Hdfs, c: &Cluster, url: &str) -> String {
    let path = url.strip_prefix(&c.url).unwrap_or(url);
    hdfs.webhdfs().block_locations(path).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn date_tiered_windows_are_written_by_age_onto_the_storage_types_of_their_policies() {
    let Some(c) = hdfs() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let (root, _) = unique_root(&c, "by-age");
    let (child, addr) = spawn(scratch.path(), &args(&c, &root, &[]));
    let _server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    // Hot windows (a day) ALL_SSD, warm (a week) HOT, older COLD; the family's own HOT.
    let mut family = FamilyDescriptor::new("f");
    family.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        storage_policy_enable: true,
        hot_window_age_ms: 86_400_000,
        hot_window_storage_policy: StoragePolicy::AllSsd,
        warm_window_age_ms: 7 * 86_400_000,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family.clone());
    conn.admin().create_table(&t, &[]).await.unwrap();
    let u = TableDescriptor::new(TableName::parse("u").unwrap()).with_family(family);
    conn.admin().create_table(&u, &[]).await.unwrap();
    let table = conn.table("t").unwrap();
    let now = i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let old = now - 90 * 86_400_000;
    for i in 0..100u64 {
        let value = Bytes::from(vec![b'x'; 100]);
        let at = i64::try_from(i).unwrap();
        let put = Put::new(key(i)).add_at("f", "old", old + at, value.clone());
        table.put(&put).await.unwrap();
        let put = Put::new(key(i)).add_at("f", "new", now + at, value);
        table.put(&put).await.unwrap();
    }
    conn.admin().flush("t").await.unwrap();
    let flushed = conn.admin().list_files("t").await.unwrap();
    assert_eq!(flushed.len(), 1, "{flushed:?}");
    assert_eq!(flushed[0].tier, "ALL_SSD", "a flush holds the newest data");
    assert!(flushed[0].path.contains("/f/tier-all_ssd/"), "{flushed:?}");

    // A major compaction writes one file per window, each under its window's policy.
    conn.admin().compact("t", None, true).await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let files = loop {
        let files = conn.admin().list_files("t").await.unwrap();
        if files.len() == 2 {
            break files;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no windowed major compaction: {files:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let hdfs = client(&c);
    let cold = files
        .iter()
        .find(|f| f.time_range.unwrap().1 < now)
        .unwrap();
    let young = files
        .iter()
        .find(|f| f.time_range.unwrap().0 >= now)
        .unwrap();
    assert_eq!(cold.tier, "COLD", "{files:?}");
    assert!(cold.path.starts_with("hdfs://"), "{cold:?}");
    assert!(cold.path.contains("/f/tier-cold/"), "{cold:?}");
    let blocks = block_types(&hdfs, &c, &cold.path);
    assert!(blocks.contains("\"ARCHIVE\""), "{blocks}");
    assert!(!blocks.contains("\"DISK\""), "{blocks}");
    assert_eq!(young.tier, "ALL_SSD", "{files:?}");
    let blocks = block_types(&hdfs, &c, &young.path);
    assert!(blocks.contains("\"SSD\""), "{blocks}");

    // Every cell still reads, from both windows.
    let rows = table
        .scan_all(&strata_model::ops::Scan::default())
        .await
        .unwrap();
    assert_eq!(rows.len(), 100);
    assert_eq!(rows.iter().map(Vec::len).sum::<usize>(), 200);

    // Only old cells: the flush writes the hot directory (a flush's place); a minor
    // compaction request (one file: nothing to merge) runs the tier mover, which rewrites the
    // file into tier-cold, onto ARCHIVE blocks, and deletes the hot copy.
    let old_table = conn.table("u").unwrap();
    for i in 0..100u64 {
        let at = i64::try_from(i).unwrap();
        let put = Put::new(key(i)).add_at("f", "q", old + at, Bytes::from(vec![b'y'; 100]));
        old_table.put(&put).await.unwrap();
    }
    conn.admin().flush("u").await.unwrap();
    let flushed = conn.admin().list_files("u").await.unwrap();
    assert_eq!(flushed.len(), 1, "{flushed:?}");
    assert_eq!(flushed[0].tier, "ALL_SSD", "{flushed:?}");
    let hot_path = flushed[0].path.clone();
    conn.admin().compact("u", None, false).await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let moved = loop {
        let files = conn.admin().list_files("u").await.unwrap();
        if files.len() == 1 && files[0].tier == "COLD" {
            break files.into_iter().next().unwrap();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the old window did not move: {files:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        moved.name, flushed[0].name,
        "moved, not rewritten by a compaction"
    );
    assert!(moved.path.contains("/f/tier-cold/"), "{moved:?}");
    let blocks = block_types(&hdfs, &c, &moved.path);
    assert!(blocks.contains("\"ARCHIVE\""), "{blocks}");
    let hot = hot_path.strip_prefix(&c.url).unwrap().to_owned();
    assert_eq!(
        FileStore::len(&hdfs, Path::new(&hot)).unwrap(),
        None,
        "{hot}"
    );
    let rows = old_table
        .scan_all(&strata_model::ops::Scan::default())
        .await
        .unwrap();
    assert_eq!(rows.len(), 100);
}
