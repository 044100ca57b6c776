//! Storage tiers through `strata standalone` as a real process: families placed on volumes
//! by STORAGE_POLICY, a SIGKILL, and a restart whose volumes changed (no acknowledged write is
//! lost); a missing volume is a clear startup error; dropping a table empties every volume.
//! (A WAL placed on a volume other than the data directory is refused in a cluster of one:
//! `standalone_process.rs`.)
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::Stdio;

use bytes::Bytes;
use strata_client::Connection;
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, StoragePolicy, TableDescriptor, TableName};

/// The server, killed when dropped (so a failing assertion leaves no process behind).
fn spawn(data: &Path, extra: &[String]) -> (support::Killed, String) {
    let (child, addr) = support::spawn(data, extra, Stdio::null());
    (support::Killed(child), addr)
}

fn key(i: u64) -> Bytes {
    Bytes::from(format!("row{i:05}"))
}

fn files_under(dir: &Path, ext: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                files_under(&p, ext)
            } else {
                usize::from(p.to_string_lossy().ends_with(ext))
            }
        })
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_and_wal_follow_their_policies_across_a_crash_and_a_changed_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, ssd, ram) = (
        tmp.path().join("data"),
        tmp.path().join("ssd"),
        tmp.path().join("ram"),
    );
    let vol = |kind: &str, p: &Path| format!("--volume={kind}={}", p.display());
    let first = [vol("SSD", &ssd), vol("RAM_DISK", &ram)];
    let (mut child, addr) = spawn(&data, &first);
    let conn = Connection::connect(&addr).await.unwrap();
    let mut fast = FamilyDescriptor::new("s");
    fast.storage_policy = StoragePolicy::AllSsd;
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(fast)
        .with_family(FamilyDescriptor::new("h"));
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table("t").unwrap();
    let put = |i: u64| {
        Put::new(key(i))
            .add("s", "q", Bytes::from(format!("s{i}")))
            .add("h", "q", Bytes::from(format!("h{i}")))
    };
    for i in 0..200 {
        table.put(&put(i)).await.unwrap();
    }
    conn.admin().flush("t").await.unwrap();
    let files = conn.admin().list_files("t").await.unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    for f in &files {
        let (tier, root) = if f.family == "s" {
            ("SSD", &ssd)
        } else {
            ("HDD", &data)
        };
        assert_eq!(f.tier, tier, "{f:?}");
        assert!(Path::new(&f.path).starts_with(root), "{f:?}");
        assert!(Path::new(&f.path).exists(), "{f:?}");
    }
    // Acknowledged, only in the WAL on the data directory, when the process dies.
    for i in 200..300 {
        table.put(&put(i)).await.unwrap();
    }
    assert!(files_under(&data.join("wal"), "") > 0);
    assert!(!ram.join("wal").exists());
    child.0.kill().unwrap();
    child.0.wait().unwrap();

    // The RAM disk volume is gone from the configuration: the previous start's WAL is split
    // and replayed, and every write is there.
    let second = [vol("SSD", &ssd)];
    let (mut child, addr) = spawn(&data, &second);
    let conn = Connection::connect(&addr).await.unwrap();
    let table = conn.table("t").unwrap();
    for i in 0..300 {
        let got = table.get(&Get::new(key(i))).await.unwrap();
        let values: Vec<Bytes> = got.into_iter().map(|c| c.value).collect();
        assert_eq!(
            values,
            [Bytes::from(format!("h{i}")), Bytes::from(format!("s{i}"))],
            "row {i}"
        );
    }
    child.0.kill().unwrap();
    child.0.wait().unwrap();

    // Without the SSD volume the region cannot find its files: the start fails and says
    // which volume to declare.
    let out = support::standalone(&data, &[]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("declare the SSD volume"), "{err}");

    // Dropping the table removes its files from every volume: into each volume's archive,
    // where the janitor deletes them once no snapshot reads them (RFC 0025).
    let (mut child, addr) = spawn(&data, &second);
    let conn = Connection::connect(&addr).await.unwrap();
    conn.admin().disable_table("t").await.unwrap();
    conn.admin().delete_table("t").await.unwrap();
    assert_eq!(files_under(&ssd.join("tables"), ".sst"), 0);
    assert_eq!(files_under(&data.join("tables"), ".sst"), 0);
    assert!(files_under(&ssd.join("archive"), ".sst") > 0);
    child.0.kill().unwrap();
    child.0.wait().unwrap();
}
