//! A connection whose data calls go to the server's data service in this process (as
//! `strata standalone`'s Thrift gateway reaches its server): a caller that gives up does not
//! cancel a write halfway, and the link is set once.
#![allow(clippy::unwrap_used)]

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Waker};
use std::time::Duration;

use crate::support::{b, start_linked, table, Link};
use strata_model::ops::{Get, Put};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_caller_gives_up_still_applies_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn, calls) = start_linked(dir.path(), Link::InProcess).await;
    conn.admin()
        .create_table(&table("t", &["f"]), &[])
        .await
        .unwrap();
    let t = conn.table("t").unwrap();
    // Learn the region's location first, so that the first poll below reaches the service.
    assert!(t.get(&Get::new(b("r"))).await.unwrap().is_empty());
    let before = calls.load(Ordering::Relaxed);

    // Puts of 64 cells, each written by a future polled once and dropped: as when a client's
    // attempt timeout fires while the server still writes.
    for i in 0..20 {
        let mut put = Put::new(b(&format!("r{i:02}")));
        for q in 0..64 {
            put = put.add(b("f"), b(&format!("q{q:02}")), b("v"));
        }
        poll_once_and_drop(t.put(&put));
    }

    // Every row shows up, with all of its cells (a write is never cut halfway).
    for i in 0..20 {
        assert_eq!(cells_of(&t, &format!("r{i:02}")).await, 64, "row r{i:02}");
    }
    // The writes and the gets after them, all in process.
    assert!(calls.load(Ordering::Relaxed) - before >= 40);
    server.stop().unwrap();
}

fn poll_once_and_drop<F: Future>(call: F) {
    let mut call = Box::pin(call);
    let _ = call.as_mut().poll(&mut Context::from_waker(Waker::noop()));
}

/// The cells of `row`, once it has any (waits up to 10 s).
async fn cells_of(t: &strata_client::Table, row: &str) -> usize {
    let get = Get::new(b(row));
    for _ in 0..200 {
        let cells = t.get(&get).await.unwrap().len();
        if cells > 0 {
            return cells;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_serves_one_server_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn, _) = start_linked(dir.path(), Link::InProcess).await;
    let again = strata_server::DataService::new(server.region_server().clone());
    let err = conn
        .serve_in_process(&server.addr().to_string(), Arc::new(again))
        .unwrap_err();
    assert!(err.is_invalid_argument(), "{err}");
    server.stop().unwrap();
}
