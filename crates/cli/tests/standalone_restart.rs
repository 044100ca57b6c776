//! `strata standalone` as a real process: a graceful restart keeps all data, and after a
//! SIGKILL in the middle of a write load no acknowledged write is lost.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use strata_client::Connection;
use strata_model::ops::Scan;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

fn spawn(dir: &Path) -> (Child, String) {
    support::spawn(dir, &[], Stdio::inherit())
}

use support::key;

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
    let (acked, writers) = support::start_writers(&t, 4);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let acked = support::stop_writers(&acked, writers).await;
    assert!(
        acked.iter().all(|&n| n > 10),
        "too few writes before the kill: {acked:?}"
    );

    let (mut child, addr) = spawn(dir.path());
    let conn = Connection::connect(&addr).await.unwrap();
    let t = conn.table("t").unwrap();
    support::assert_acknowledged(&t, &acked).await;
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
