//! `strata standalone` as a real process: a graceful restart keeps all data, and after a
//! SIGKILL in the middle of a write load no acknowledged write is lost.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strata_client::Connection;
use strata_model::ops::{Get, Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

fn spawn(dir: &Path) -> (Child, String) {
    support::spawn(dir, &[], Stdio::inherit())
}

fn key(i: u64) -> Bytes {
    Bytes::from(format!("row{i:08}"))
}

async fn create(conn: &Connection) {
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(500), key(1000)])
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_loses_no_acknowledged_write_and_restart_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, addr) = spawn(dir.path());
    let conn = Connection::connect(&addr).await.unwrap();
    create(&conn).await;
    let t = conn.table("t").unwrap();

    // Writers record the highest row each has had acknowledged; the server is killed
    // while they run.
    let acked: Arc<Vec<AtomicU64>> = Arc::new((0..4).map(|_| AtomicU64::new(0)).collect());
    let mut writers = Vec::new();
    for w in 0..4u64 {
        let t = t.clone();
        let acked = acked.clone();
        writers.push(tokio::spawn(async move {
            for n in 1.. {
                let i = n * 4 + w;
                let put = Put::new(key(i)).add("f", "q", Bytes::from(format!("v{i}")));
                if t.put(&put).await.is_err() {
                    return;
                }
                acked[w as usize].store(n, Ordering::SeqCst);
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    for w in writers {
        w.abort();
        let _ = w.await;
    }
    let acked: Vec<u64> = acked.iter().map(|a| a.load(Ordering::SeqCst)).collect();
    assert!(
        acked.iter().all(|&n| n > 10),
        "too few writes before the kill: {acked:?}"
    );

    let (mut child, addr) = spawn(dir.path());
    let conn = Connection::connect(&addr).await.unwrap();
    let t = conn.table("t").unwrap();
    for (w, &last) in acked.iter().enumerate() {
        for n in 1..=last {
            let i = n * 4 + w as u64;
            let got = t.get(&Get::new(key(i))).await.unwrap();
            assert_eq!(
                got.first().map(|c| c.value.clone()),
                Some(Bytes::from(format!("v{i}"))),
                "acknowledged row {i} lost"
            );
        }
    }
    let rows = t.scan_all(&Scan::default()).await.unwrap().len() as u64;

    // A graceful stop (SIGTERM) and restart keeps every row.
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success());
    let (mut child, addr) = spawn(dir.path());
    let conn = Connection::connect(&addr).await.unwrap();
    let t = conn.table("t").unwrap();
    assert_eq!(
        t.scan_all(&Scan::default()).await.unwrap().len() as u64,
        rows
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_second_process_on_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, _addr) = spawn(dir.path());
    let out = support::standalone(dir.path(), &[]).output().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in use by another Strata process"), "{err}");
}
