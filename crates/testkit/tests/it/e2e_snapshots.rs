//! Snapshots through the admin service on a cluster of one (RFC 0025): take, list, clone,
//! restore, delete and their refusals; an online snapshot under a writer holds every write
//! acknowledged before it began; files a snapshot or a clone reads survive compactions, a
//! drop of the source table and the archive cleaner's rounds, and the archive empties once
//! nothing references it.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::{b, table};
use bytes::Bytes;
use strata_client::{Admin, Connection, NamespaceDescriptor};
use strata_model::ops::{Put, Scan};
use strata_proto::pb::ErrorCode;
use strata_testkit::Single;

async fn start(dir: &Path) -> (Single, Connection) {
    let mut config = crate::support::config(dir);
    config.janitor_every = Duration::from_millis(300);
    let server = Single::start_with(config).unwrap();
    let conn = Connection::connect(&server.address()).await.unwrap();
    (server, conn)
}

/// Every (row, value) of `name`, in row order.
async fn contents(conn: &Connection, name: &str) -> Vec<(Bytes, Bytes)> {
    let rows = conn
        .table(name)
        .unwrap()
        .scan_all(&Scan::default())
        .await
        .unwrap();
    rows.into_iter()
        .flatten()
        .map(|c| (c.row.clone(), c.value.clone()))
        .collect()
}

async fn fill(conn: &Connection, name: &str, rows: u32, value: &str) {
    let t = conn.table(name).unwrap();
    for i in 0..rows {
        let row = format!("r{i:03}");
        t.put(&Put::new(b(&row)).add(b("f"), b("q"), b(value)))
            .await
            .unwrap();
    }
}

async fn code<T: std::fmt::Debug>(
    r: impl std::future::Future<Output = Result<T, strata_client::Error>>,
) -> ErrorCode {
    r.await.unwrap_err().code
}

/// Archived store files under the root.
fn archived(root: &Path) -> usize {
    fn walk(dir: &Path) -> usize {
        std::fs::read_dir(dir).map_or(0, |entries| {
            entries
                .flatten()
                .map(|e| {
                    if e.file_type().unwrap().is_dir() {
                        walk(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
    }
    walk(&root.join("archive"))
}

async fn names(admin: &Admin, pattern: Option<&str>) -> Vec<String> {
    admin
        .list_snapshots(pattern)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_clone_restore_and_delete() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let admin = conn.admin();
    admin
        .create_table(&table("t", &["f"]), &[b("r025")])
        .await
        .unwrap();
    fill(&conn, "t", 50, "v1").await;
    let taken = admin.snapshot("t", "s1").await.unwrap();
    assert_eq!((taken.name.as_str(), taken.table.as_str()), ("s1", "t"));
    let at_s1 = contents(&conn, "t").await;
    assert_eq!(at_s1.len(), 50);

    // Refusals change nothing.
    assert_eq!(
        code(admin.snapshot("t", "s1")).await,
        ErrorCode::SnapshotExists
    );
    assert_eq!(
        code(admin.snapshot("nosuch", "s2")).await,
        ErrorCode::TableNotFound
    );
    assert_eq!(
        code(admin.snapshot("t", ".bad")).await,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(admin.clone_snapshot("nosuch", "c")).await,
        ErrorCode::SnapshotNotFound
    );
    assert_eq!(
        code(admin.clone_snapshot("s1", "t")).await,
        ErrorCode::TableExists
    );
    assert_eq!(
        code(admin.clone_snapshot("s1", "nons:c")).await,
        ErrorCode::NamespaceNotFound
    );
    assert_eq!(
        code(admin.restore_snapshot("s1")).await,
        ErrorCode::TableEnabled
    );
    assert_eq!(
        code(admin.delete_snapshot("nosuch")).await,
        ErrorCode::SnapshotNotFound
    );
    assert_eq!(names(&admin, None).await, ["s1"]);
    let listed: Vec<String> = admin
        .list_tables()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.descriptor.name.to_string())
        .collect();
    assert_eq!(listed, ["t"]);

    // Writes after the snapshot, compacted away: the snapshot's files go to the archive.
    fill(&conn, "t", 60, "v2").await;
    admin.flush("t").await.unwrap();
    admin.compact("t", None, true).await.unwrap();

    // A clone reads the snapshot's content, in a namespace too.
    admin.clone_snapshot("s1", "c1").await.unwrap();
    assert_eq!(contents(&conn, "c1").await, at_s1);
    admin
        .create_namespace(&NamespaceDescriptor::new("ns"))
        .await
        .unwrap();
    admin.clone_snapshot("s1", "ns:c2").await.unwrap();
    assert_eq!(contents(&conn, "ns:c2").await, at_s1);
    let regions = admin.regions("c1").await.unwrap();
    assert_eq!(regions.len(), 2, "the snapshot's boundaries");

    // The clone is a table of its own.
    fill(&conn, "c1", 5, "c").await;
    assert_eq!(contents(&conn, "t").await.len(), 60);

    // A second snapshot, and listing by pattern and by table.
    admin.snapshot("c1", "s2.c1").await.unwrap();
    assert_eq!(names(&admin, None).await, ["s1", "s2.c1"]);
    assert_eq!(names(&admin, Some("s2.*")).await, ["s2.c1"]);
    assert_eq!(names(&admin, Some("s")).await, Vec::<String>::new());
    let of_t: Vec<String> = admin
        .list_table_snapshots("t")
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(of_t, ["s1"]);

    // A snapshot of a clone (its links) cloned again; a snapshot just after a split (its
    // daughters may still reference their parent's files) cloned.
    admin.clone_snapshot("s2.c1", "c1b").await.unwrap();
    assert_eq!(contents(&conn, "c1b").await, contents(&conn, "c1").await);
    admin.split("c1b", Some(b("r012"))).await.unwrap();
    admin.snapshot("c1b", "s3.split").await.unwrap();
    admin.clone_snapshot("s3.split", "c1c").await.unwrap();
    assert_eq!(contents(&conn, "c1c").await, contents(&conn, "c1").await);
    assert_eq!(admin.regions("c1c").await.unwrap().len(), 3);
    for t in ["c1b", "c1c"] {
        admin.disable_table(t).await.unwrap();
        admin.delete_table(t).await.unwrap();
    }
    admin.delete_snapshot("s3.split").await.unwrap();

    // Restore: the table disabled first, left disabled, then the snapshot's content.
    admin.disable_table("t").await.unwrap();
    admin.restore_snapshot("s1").await.unwrap();
    assert!(!admin.describe_table("t").await.unwrap().enabled);
    admin.enable_table("t").await.unwrap();
    assert_eq!(contents(&conn, "t").await, at_s1);

    // Drop the source; clean the archive for a while: the clones and the snapshot still read.
    admin.disable_table("t").await.unwrap();
    admin.delete_table("t").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(contents(&conn, "ns:c2").await, at_s1);
    admin.clone_snapshot("s1", "c3").await.unwrap();
    assert_eq!(contents(&conn, "c3").await, at_s1);
    admin.compact("c3", None, true).await.unwrap();
    assert_eq!(contents(&conn, "c3").await, at_s1);

    // Deleting the snapshots and the tables leaves an archive the cleaner empties.
    admin.delete_snapshot("s1").await.unwrap();
    admin.delete_snapshot("s2.c1").await.unwrap();
    assert!(names(&admin, None).await.is_empty());
    assert_eq!(
        code(admin.delete_snapshot("s1")).await,
        ErrorCode::SnapshotNotFound
    );
    for t in ["c1", "ns:c2", "c3"] {
        admin.disable_table(t).await.unwrap();
        admin.delete_table(t).await.unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while archived(dir.path()) > 0 {
        assert!(
            Instant::now() < deadline,
            "archive not emptied: {}",
            archived(dir.path())
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(!dir.path().join(".snapshots/s1").exists());
    server.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_online_snapshot_holds_every_write_acknowledged_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let admin = conn.admin();
    admin
        .create_table(&table("w", &["f"]), &[b("k0500")])
        .await
        .unwrap();
    let acked = Arc::new(AtomicU64::new(0));
    let writer = {
        let (conn, acked) = (conn.clone(), acked.clone());
        tokio::spawn(async move {
            let t = conn.table("w").unwrap();
            for i in 1..=1000u64 {
                let row = format!("k{i:04}");
                t.put(&Put::new(b(&row)).add(b("f"), b("q"), b("x")))
                    .await
                    .unwrap();
                acked.store(i, Ordering::SeqCst);
            }
        })
    };
    while acked.load(Ordering::SeqCst) < 200 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let before = acked.load(Ordering::SeqCst);
    admin.snapshot("w", "online").await.unwrap();
    let after = acked.load(Ordering::SeqCst);
    writer.await.unwrap();
    admin.clone_snapshot("online", "w2").await.unwrap();
    let rows: Vec<Bytes> = contents(&conn, "w2")
        .await
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    for i in 1..=before {
        let row = Bytes::from(format!("k{i:04}"));
        assert!(
            rows.binary_search(&row).is_ok(),
            "acknowledged write {i} missing"
        );
    }
    // At most the one write in flight when the call returned is in it beyond those.
    assert!(
        rows.len() as u64 <= after + 1,
        "{} rows, {after} acknowledged",
        rows.len()
    );
    server.stop().unwrap();
}
