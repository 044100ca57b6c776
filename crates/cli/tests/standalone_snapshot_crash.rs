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

/// Table `t` (family `f`) in three regions.
async fn create_t(conn: &Connection) {
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(100), key(200)])
        .await
        .unwrap();
}

/// Puts `value` into every row of `t`.
async fn fill(conn: &Connection, value: &str) {
    let table = conn.table("t").unwrap();
    for i in 0..ROWS {
        table
            .put(&Put::new(key(i)).add("f", "q", value.to_owned()))
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_killed_midway_is_whole_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = spawn(dir.path(), &[], Stdio::inherit());
    let mut child = Killed(child);
    let mut conn = Connection::connect(&addr).await.unwrap();
    create_t(&conn).await;
    fill(&conn, "v").await;
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

/// Every row's value in `table`, or `None` when the table does not exist.
async fn values(conn: &Connection, table: &str) -> Option<Vec<Vec<u8>>> {
    conn.admin().describe_table(table).await.ok()?;
    let t = conn.table(table).unwrap();
    let rows = t.scan_all(&Scan::default()).await.unwrap();
    Some(rows.iter().map(|r| r[0].value.to_vec()).collect())
}

/// Waits (bounded) until `table` holds `want`, as a resumed clone leaves it; `None` if the
/// table does not exist by then.
async fn settled(conn: &Connection, table: &str, want: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let info = conn.admin().describe_table(table).await;
        let got = match &info {
            Ok(i) if i.enabled => {
                let t = conn.table(table).unwrap();
                t.scan_all(&Scan::default())
                    .await
                    .ok()
                    .map(|rows| rows.iter().map(|r| r[0].value.to_vec()).collect::<Vec<_>>())
            }
            _ => None,
        };
        if got.as_deref() == Some(want) || std::time::Instant::now() > deadline {
            return info.ok().map(|_| got.unwrap_or_default());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clone_or_restore_killed_midway_is_finished_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = spawn(dir.path(), &[], Stdio::inherit());
    let mut child = Killed(child);
    let mut conn = Connection::connect(&addr).await.unwrap();
    create_t(&conn).await;
    fill(&conn, "v").await;
    conn.admin().snapshot("t", "s").await.unwrap();
    let all = |v: &str| vec![v.as_bytes().to_vec(); ROWS as usize];
    let (mut finished, mut absent, mut restored, mut kept) = (0, 0, 0, 0);
    for (round, delay_ms) in [2u64, 8, 20, 45, 90].into_iter().enumerate() {
        // A clone killed midway: after the restart, the table is whole and enabled, or
        // absent (killed before the clone was recorded).
        let clone = format!("c{round}");
        let admin = conn.admin();
        let c = clone.clone();
        let call = tokio::spawn(async move { admin.clone_snapshot("s", &c).await });
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        child.0.kill().unwrap();
        child.0.wait().unwrap();
        let _ = call.await;
        let (restarted, addr) = spawn(dir.path(), &[], Stdio::inherit());
        child = Killed(restarted);
        conn = Connection::connect(&addr).await.unwrap();
        match settled(&conn, &clone, &all("v")).await {
            Some(v) => {
                assert_eq!(v, all("v"), "clone {clone}");
                finished += 1;
            }
            None => absent += 1,
        }

        // A restore killed midway: the table is never lost; it holds the snapshot's rows
        // (restored) or its own (the restore had not begun).
        fill(&conn, "w").await;
        conn.admin().disable_table("t").await.unwrap();
        let admin = conn.admin();
        let call = tokio::spawn(async move { admin.restore_snapshot("s").await });
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        child.0.kill().unwrap();
        child.0.wait().unwrap();
        let _ = call.await;
        let (restarted, addr) = spawn(dir.path(), &[], Stdio::inherit());
        child = Killed(restarted);
        conn = Connection::connect(&addr).await.unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let enabled = conn.admin().enable_table("t").await;
            if enabled.is_ok()
                || conn
                    .admin()
                    .describe_table("t")
                    .await
                    .is_ok_and(|i| i.enabled)
            {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "round {round}: table t cannot be enabled: {enabled:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let v = values(&conn, "t").await.expect("the restored table exists");
        if v == all("v") {
            restored += 1;
        } else {
            assert_eq!(v, all("w"), "round {round}: the table is whole");
            kept += 1;
        }
    }
    println!(
        "clones killed midway: {finished} finished, {absent} absent; restores: {restored} \
         restored, {kept} not begun"
    );
    child.stop_gracefully();
}
