//! `strata standalone --root hdfs://…` while the NameNode is down (on a MiniDFSCluster of its
//! own, `support/own_hdfs.rs`; skipped without `STRATA_HDFS_URL` unless `STRATA_REQUIRE_HDFS`):
//! no request hangs, puts are still acknowledged (the WAL's hflush needs the DataNodes only),
//! every failure is UNAVAILABLE, a flush fails and changes nothing, the server writes and
//! flushes again once the NameNode is back, and every acknowledged write is there, also after
//! a SIGKILL and a restart.
#![allow(clippy::unwrap_used)]

#[path = "support/own_hdfs.rs"]
mod own_hdfs;
mod support;

use own_hdfs::{assert_present, put, row, OwnHdfs};
use support::Killed;

use std::process::Stdio;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection};
use strata_model::ops::Get;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_namenode_down_nothing_hangs_and_every_acknowledged_write_survives() {
    let Some(hdfs) = OwnHdfs::start() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let mut flags = hdfs.standalone_flags();
    // Each HDFS operation waits at most 5 s, so writes fail fast while the NameNode is away.
    flags.extend(["--store-timeout-secs".into(), "5".into()]);
    let (child, addr) = support::spawn(scratch.path(), &flags, Stdio::inherit());
    let server = Killed(child);
    // No client retries: each answer is what the server said.
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
    conn.admin().flush("t").await.unwrap();
    for _ in 0..20 {
        table.put(&put(next)).await.unwrap();
        acked.push(next);
        next += 1;
    }

    // The NameNode dies. A WAL sync (SYNC_WAL) is an hflush, which needs the DataNodes only
    // while the segment's block has room, so puts are still acknowledged, as in HBase.
    hdfs.run(&["stop-namenode", "0"]);
    let down = Instant::now();
    let mut failures = Vec::new();
    for _ in 0..3 {
        match tokio::time::timeout(Duration::from_secs(40), table.put(&put(next))).await {
            Ok(Ok(())) => acked.push(next),
            Ok(Err(e)) => failures.push(e.code),
            Err(_) => panic!("a put hung with the NameNode down"),
        }
        next += 1;
    }
    assert!(failures.is_empty(), "{failures:?}");
    // Reads of what is in memory and in the flushed file still answer.
    match tokio::time::timeout(Duration::from_secs(40), table.get(&Get::new(row(0)))).await {
        Ok(Ok(cells)) => assert_eq!(cells.first().unwrap().value, Bytes::from("v0")),
        Ok(Err(e)) => assert_eq!(e.code, ErrorCode::Unavailable, "{e}"),
        Err(_) => panic!("a get hung with the NameNode down"),
    }
    // A flush needs the NameNode to create its file: it fails, and changes nothing.
    let flushed = tokio::time::timeout(Duration::from_secs(60), conn.admin().flush("t")).await;
    let flushed = flushed.expect("a flush hung with the NameNode down");
    let err = flushed.expect_err("a flush succeeded with the NameNode down");
    assert_eq!(err.code, ErrorCode::Unavailable, "{err}");
    eprintln!(
        "NameNode down {:?}: {} puts failed; flush: {err}",
        down.elapsed(),
        failures.len()
    );

    // It comes back: writes and flushes succeed again within a bounded time.
    hdfs.run(&["restart-namenode", "0"]);
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
                    "still failing 90 s after the NameNode returned: {e}"
                );
                next += 1;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    eprintln!(
        "writes again {:?} after the NameNode returned",
        back.elapsed()
    );
    for _ in 0..50 {
        table.put(&put(next)).await.unwrap();
        acked.push(next);
        next += 1;
    }
    // A flush goes through the coordination store too, which stopped when its journal write
    // failed and resumes on its own schedule (a new snapshot and segment, attempted at most
    // every second, failing while the NameNode is still in safe mode): UNAVAILABLE until then.
    loop {
        match conn.admin().flush("t").await {
            Ok(()) => break,
            Err(e) => {
                assert_eq!(e.code, ErrorCode::Unavailable, "{e}");
                assert!(
                    back.elapsed() < Duration::from_secs(90),
                    "flushes still failing 90 s after the NameNode returned: {e}"
                );
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    eprintln!(
        "flushes again {:?} after the NameNode returned",
        back.elapsed()
    );
    assert_present(&table, &acked).await;

    // SIGKILL and restart: every acknowledged write is durable.
    drop(server);
    let (child, addr) = support::spawn(scratch.path(), &flags, Stdio::inherit());
    let _server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    assert_present(&conn.table("t").unwrap(), &acked).await;
}
