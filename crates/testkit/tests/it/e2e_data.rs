//! Every data operation through the client against a standalone server, and bad input.
#![allow(clippy::unwrap_used)]

use crate::support::{b, start_linked, table, Link};
use bytes::Bytes;
use strata_model::ops::{
    Append, CheckAndMutate, Condition, Delete, Filter, Get, Increment, Put, RowMutations, Scan,
    TimeRange,
};
use strata_proto::pb::ErrorCode;

fn values(cells: &[strata_model::cell::Cell]) -> Vec<(Bytes, Bytes)> {
    cells
        .iter()
        .map(|c| (c.qualifier.clone(), c.value.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_round_trips_through_the_server() {
    every_operation_round_trips(Link::Grpc).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_round_trips_through_the_framed_protocol() {
    every_operation_round_trips(Link::Frames).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_round_trips_in_process() {
    every_operation_round_trips(Link::InProcess).await;
}

async fn every_operation_round_trips(link: Link) {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn, local_calls) = start_linked(dir.path(), link).await;
    let admin = conn.admin();
    admin
        .create_table(&table("t", &["f", "g"]), &[b("m")])
        .await
        .unwrap();
    let t = conn.table("t").unwrap();

    // put / get with versions and time ranges, on both regions.
    for (row, ts) in [("a", 1), ("a", 2), ("a", 3), ("z", 5)] {
        t.put(&Put::new(b(row)).add_at(b("f"), b("q"), ts, Bytes::from(format!("v{ts}"))))
            .await
            .unwrap();
    }
    let got = t.get(&Get::new(b("a")).with_max_versions(3)).await.unwrap();
    assert_eq!(
        got.iter().map(|c| c.timestamp).collect::<Vec<_>>(),
        [3, 2, 1]
    );
    let ranged = t
        .get(&Get::new(b("a")).with_time_range(TimeRange::new(1, 3).unwrap()))
        .await
        .unwrap();
    assert_eq!(values(&ranged), [(b("q"), b("v2"))]);
    assert!(t.exists(&Get::new(b("z"))).await.unwrap());
    assert!(!t.exists(&Get::new(b("nope"))).await.unwrap());

    // multi-get across regions keeps request order.
    let many = t
        .get_many(&[Get::new(b("z")), Get::new(b("nope")), Get::new(b("a"))])
        .await
        .unwrap();
    assert_eq!(many.len(), 3);
    assert_eq!(many[0][0].value, b("v5"));
    assert!(many[1].is_empty());
    assert_eq!(many[2][0].value, b("v3"));

    // increments and appends return new values.
    let inc = t
        .increment(&Increment::new(b("c")).add(b("f"), b("n"), 5))
        .await
        .unwrap();
    assert_eq!(inc[0].value.as_ref(), 5i64.to_be_bytes());
    let inc = t
        .increment(&Increment::new(b("c")).add(b("f"), b("n"), -2))
        .await
        .unwrap();
    assert_eq!(inc[0].value.as_ref(), 3i64.to_be_bytes());
    t.append(&Append::new(b("c")).add(b("g"), b("s"), b("ab")))
        .await
        .unwrap();
    let app = t
        .append(&Append::new(b("c")).add(b("g"), b("s"), b("cd")))
        .await
        .unwrap();
    assert_eq!(app[0].value, b("abcd"));

    // deletes: version, column, family, whole row.
    t.delete(&Delete::new(b("a")).version_at(b("f"), b("q"), 3))
        .await
        .unwrap();
    let after = t.get(&Get::new(b("a"))).await.unwrap();
    assert_eq!(after[0].value, b("v2"));
    t.delete(&Delete::new(b("a")).column(b("f"), b("q")))
        .await
        .unwrap();
    assert!(t.get(&Get::new(b("a"))).await.unwrap().is_empty());
    // Two appends within one millisecond give the second the first's timestamp + 1 (as
    // HBase does); wait so a delete stamped "now" is past both.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    t.delete(&Delete::new(b("c")).family(b("g"))).await.unwrap();
    assert_eq!(t.get(&Get::new(b("c"))).await.unwrap().len(), 1);
    t.delete(&Delete::new(b("c"))).await.unwrap();
    assert!(t.get(&Get::new(b("c"))).await.unwrap().is_empty());

    // atomic row mutations and check-and-mutate.
    let rm = RowMutations::new(b("r"))
        .with(Put::new(b("r")).add(b("f"), b("x"), b("1")))
        .unwrap()
        .with(Put::new(b("r")).add(b("g"), b("y"), b("2")))
        .unwrap();
    t.mutate_row(&rm).await.unwrap();
    assert_eq!(t.get(&Get::new(b("r"))).await.unwrap().len(), 2);
    let swap = |expected: &str, new: &str| {
        CheckAndMutate::new(
            Condition::equals(b("f"), b("x"), b(expected)),
            RowMutations::new(b("r"))
                .with(Put::new(b("r")).add(b("f"), b("x"), b(new)))
                .unwrap(),
        )
    };
    assert!(!t.check_and_mutate(&swap("nope", "3")).await.unwrap());
    assert!(t.check_and_mutate(&swap("1", "3")).await.unwrap());
    let x = t
        .get(&Get::new(b("r")).with_column(b("f"), b("x")))
        .await
        .unwrap();
    assert_eq!(x[0].value, b("3"));

    // batch with one bad row: the others apply.
    let rows: Vec<RowMutations> = ["b1", "b2", "y1"]
        .iter()
        .map(|r| {
            let fam = if *r == "b2" { "nosuch" } else { "f" };
            RowMutations::new(b(r))
                .with(Put::new(b(r)).add(b(fam), b("q"), b(r)))
                .unwrap()
        })
        .collect();
    let results = t.batch(&rows).await.unwrap();
    assert!(results[0].is_ok() && results[2].is_ok());
    assert_eq!(
        results[1].as_ref().unwrap_err().code,
        ErrorCode::NoSuchFamily
    );

    // scans: forward, reversed, limit, prefix, filter, across the region boundary.
    let rows = |r: Vec<Vec<strata_model::cell::Cell>>| {
        r.iter().map(|c| c[0].row.clone()).collect::<Vec<_>>()
    };
    let all = rows(t.scan_all(&Scan::default()).await.unwrap());
    assert_eq!(all, [b("b1"), b("r"), b("y1"), b("z")]);
    let rev = rows(
        t.scan_all(&Scan {
            reversed: true,
            ..Scan::default()
        })
        .await
        .unwrap(),
    );
    assert_eq!(rev, [b("z"), b("y1"), b("r"), b("b1")]);
    let limited = rows(
        t.scan_all(&Scan {
            limit: Some(2),
            caching: Some(1),
            ..Scan::default()
        })
        .await
        .unwrap(),
    );
    assert_eq!(limited, [b("b1"), b("r")]);
    let prefixed = rows(t.scan_all(&Scan::with_prefix(b("y"))).await.unwrap());
    assert_eq!(prefixed, [b("y1")]);
    let filtered = rows(
        t.scan_all(&Scan {
            filter: Some(strata_model::ops::parse_filter("RowFilter(>=, 'binary:s')").unwrap()),
            ..Scan::default()
        })
        .await
        .unwrap(),
    );
    assert_eq!(filtered, [b("y1"), b("z")]);
    let mut par = t.parallel_scan(&Scan::default(), 2, true).await.unwrap();
    let mut seen = Vec::new();
    while let Some(row) = par.next_row().await.unwrap() {
        seen.push(row[0].row.clone());
    }
    assert_eq!(seen, [b("b1"), b("r"), b("y1"), b("z")]);
    let _ = Filter::FirstKeyOnly;
    assert_went(link, &local_calls);

    server.stop().unwrap();
}

/// In process, the calls reached the service without a socket; over the network, none did.
fn assert_went(link: Link, local_calls: &std::sync::atomic::AtomicUsize) {
    let calls = local_calls.load(std::sync::atomic::Ordering::Relaxed);
    match link {
        Link::InProcess => assert!(calls > 0, "no data call went in process"),
        Link::Grpc | Link::Frames => assert_eq!(calls, 0),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_clear_errors_and_changes_nothing() {
    bad_input_gets_clear_errors(Link::Grpc).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_clear_errors_through_the_framed_protocol() {
    bad_input_gets_clear_errors(Link::Frames).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_clear_errors_in_process() {
    bad_input_gets_clear_errors(Link::InProcess).await;
}

async fn bad_input_gets_clear_errors(link: Link) {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn, local_calls) = start_linked(dir.path(), link).await;
    let admin = conn.admin();
    admin.create_table(&table("t", &["f"]), &[]).await.unwrap();
    let t = conn.table("t").unwrap();

    let missing = conn.table("missing").unwrap();
    let err = missing.get(&Get::new(b("r"))).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::TableNotFound, "{err}");

    let err = t
        .put(&Put::new(b("r")).add(b("nosuch"), b("q"), b("v")))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoSuchFamily, "{err}");

    let long_row = Bytes::from(vec![b'x'; 32_768]);
    let err = t
        .put(&Put::new(long_row).add(b("f"), b("q"), b("v")))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");

    let big = Bytes::from(vec![0u8; (10 << 20) + 1]);
    let err = t
        .put(&Put::new(b("r")).add(b("f"), b("q"), big))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
    assert!(err.message.contains("exceeds"), "{err}");

    let err = admin
        .create_table(&table("t", &["f"]), &[])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::TableExists);
    let err = admin.delete_table("t").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::TableEnabled);
    let err = admin
        .create_table(&table("u", &["f"]), &[b("b"), b("b")])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(!admin.table_exists("u").await.unwrap());

    // Nothing was written, and the server still serves.
    assert!(t.get(&Get::new(b("r"))).await.unwrap().is_empty());
    t.put(&Put::new(b("r")).add(b("f"), b("q"), b("ok")))
        .await
        .unwrap();
    assert_eq!(t.get(&Get::new(b("r"))).await.unwrap()[0].value, b("ok"));
    assert_went(link, &local_calls);
    server.stop().unwrap();
}
