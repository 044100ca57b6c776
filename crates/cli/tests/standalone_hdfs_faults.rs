//! `strata standalone --root hdfs://…` under HDFS faults:
//! - a NameNode that cannot be reached at start is a clear error naming the URL within
//!   seconds (no HDFS needed);
//! - the DataNode dying mid-write (on a MiniDFSCluster of its own, `support/own_hdfs.rs`;
//!   skipped without `STRATA_HDFS_URL` unless `STRATA_REQUIRE_HDFS`): writes fail with
//!   UNAVAILABLE, the server serves again once the DataNode is back, and every
//!   acknowledged write is there, also after a SIGKILL and a restart.
#![allow(clippy::unwrap_used)]

#[path = "support/own_hdfs.rs"]
mod own_hdfs;
mod support;

use own_hdfs::{assert_present, put, OwnHdfs};

use support::Killed;

use std::process::Stdio;
use std::time::{Duration, Instant};

use strata_client::{ClientOptions, Connection};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;

#[test]
fn an_unreachable_namenode_fails_the_start_within_seconds_naming_the_url() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("hdfs://127.0.0.1:{port}");
    let scratch = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child =
        support::standalone(scratch.path(), &["--root".into(), format!("{url}/strata")])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("still starting after 30 s with an unreachable NameNode");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = started.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(!status.success());
    assert!(took < Duration::from_secs(15), "took {took:?}");
    assert!(err.contains(&url), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_datanode_dying_mid_write_fails_writes_and_the_server_serves_again_once_it_returns() {
    let Some(hdfs) = OwnHdfs::start() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let flags = hdfs.standalone_flags();
    let (child, addr) = support::spawn(scratch.path(), &flags, Stdio::inherit());
    let server = Killed(child);
    // No client retries: each put's own answer is what the server said.
    let options = ClientOptions {
        retries: 0,
        operation_timeout: Duration::from_secs(30),
        ..ClientOptions::default()
    };
    let conn = Connection::connect_with(&addr, options).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table("t").unwrap();
    let mut acked = Vec::new();
    let mut next = 0u32;
    for _ in 0..50 {
        table.put(&put(next)).await.unwrap();
        acked.push(next);
        next += 1;
    }

    // The DataNode dies: the WAL's block pipeline breaks mid-write.
    hdfs.run(&["stop-datanode", "0"]);
    let mut failures = Vec::new();
    for _ in 0..5 {
        match tokio::time::timeout(Duration::from_secs(40), table.put(&put(next))).await {
            Ok(Ok(())) => acked.push(next),
            Ok(Err(e)) => failures.push(e.code),
            Err(_) => panic!("a put hung with the DataNode down"),
        }
        next += 1;
    }
    assert!(
        !failures.is_empty() && failures.iter().all(|c| *c == ErrorCode::Unavailable),
        "{failures:?}"
    );

    // It comes back: writes succeed again within a bounded time.
    hdfs.run(&["restart-datanode", "0"]);
    let back = Instant::now();
    loop {
        match table.put(&put(next)).await {
            Ok(()) => {
                acked.push(next);
                next += 1;
                break;
            }
            Err(e) => {
                // Unavailable while the storage is away; NOT_SERVING_REGION while the region
                // server, which gave its regions up, registers again and reopens them. Both
                // are retried by clients.
                assert!(
                    matches!(e.code, ErrorCode::Unavailable | ErrorCode::NotServingRegion),
                    "{e}"
                );
                assert!(
                    back.elapsed() < Duration::from_secs(90),
                    "still failing 90 s after the DataNode returned: {e}"
                );
                next += 1;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    eprintln!(
        "writes again {:?} after the DataNode returned",
        back.elapsed()
    );
    for _ in 0..50 {
        table.put(&put(next)).await.unwrap();
        acked.push(next);
        next += 1;
    }
    conn.admin().flush("t").await.unwrap();
    assert_present(&table, &acked).await;

    // SIGKILL and restart: every acknowledged write is durable.
    drop(server);
    let (child, addr) = support::spawn(scratch.path(), &flags, Stdio::inherit());
    let _server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    assert_present(&conn.table("t").unwrap(), &acked).await;
}
