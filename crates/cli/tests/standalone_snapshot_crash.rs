//! `strata standalone` killed (SIGKILL) at different instants of a `snapshot`: after a
//! restart the snapshot either exists whole (a clone of it holds every row written before
//! it) or not at all (its name is free and nothing of it is left under `.snapshots/`), and
//! the table itself is intact (RFC 0025).
#![allow(clippy::unwrap_used)]

mod support;

use std::process::Stdio;
use std::time::Duration;

use strata_client::Connection;
use strata_model::ops::{Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use support::{key, spawn, Killed};

const ROWS: u64 = 300;

async fn rows(conn: &Connection, table: &str) -> usize {
    let t = conn.table(table).unwrap();
    t.scan_all(&Scan::default()).await.unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_killed_midway_is_whole_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = spawn(dir.path(), &[], Stdio::inherit());
    let mut child = Killed(child);
    let mut conn = Connection::connect(&addr).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(100), key(200)])
        .await
        .unwrap();
    let table = conn.table("t").unwrap();
    for i in 0..ROWS {
        table
            .put(&Put::new(key(i)).add("f", "q", "v"))
            .await
            .unwrap();
    }
    let (mut whole, mut absent) = (0, 0);
    for (round, delay_ms) in [0u64, 3, 10, 25, 60, 150].into_iter().enumerate() {
        let name = format!("s{round}");
        let admin = conn.admin();
        let snap = name.clone();
        let call = tokio::spawn(async move { admin.snapshot("t", &snap).await });
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        child.0.kill().unwrap();
        child.0.wait().unwrap();
        let _ = call.await;

        let (restarted, addr) = spawn(dir.path(), &[], Stdio::inherit());
        child = Killed(restarted);
        let conn2 = Connection::connect(&addr).await.unwrap();
        let admin = conn2.admin();
        assert_eq!(
            rows(&conn2, "t").await,
            ROWS as usize,
            "the table after round {round}"
        );
        let listed = admin.list_snapshots(None).await.unwrap();
        if listed.iter().any(|s| s.name == name) {
            whole += 1;
            let clone = format!("c{round}");
            admin.clone_snapshot(&name, &clone).await.unwrap();
            assert_eq!(rows(&conn2, &clone).await, ROWS as usize, "clone of {name}");
        } else {
            absent += 1;
            assert!(
                !dir.path().join(".snapshots").join(&name).exists(),
                "{name}: an unfinished snapshot's directory was left"
            );
            // The name is free again.
            admin.snapshot("t", &name).await.unwrap();
        }
        conn = conn2;
    }
    println!("snapshots killed midway: {whole} whole, {absent} absent");
    child.stop_gracefully();
}
