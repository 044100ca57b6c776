//! Through the Thrift1 gateway: the `_ttl` attribute of `mutateRow(s)(Ts)` and `checkAndPut`,
//! which HBase's handler copies onto its `Put` (`Mutation.setTTL`'s attribute), gives the
//! written cells their own TTL, counted from their timestamp.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use common::*;
use strata_gateway::protocol::{Struct, TType, Value};

/// A call's attributes map holding `_ttl` = `ttl` ms (an 8-byte big-endian long).
fn ttl(ttl: i64) -> Value {
    Value::Map {
        key: TType::String,
        value: TType::String,
        entries: vec![(b("_ttl"), Value::binary(ttl.to_be_bytes().to_vec()))],
    }
}

async fn versions(c: &mut Client, row: &str) -> Vec<(String, i64)> {
    let r = c
        .call(
            "getVer",
            args(vec![
                (1, b("t")),
                (2, b(row)),
                (3, b("cf:a")),
                (4, Value::I32(5)),
            ]),
        )
        .await;
    cells(r.success().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ttl_attribute_expires_cells_from_their_timestamp() {
    let h = Harness::default().await;
    let mut c = h.client().await;
    create_table(&mut c, "t", &[("cf", 5)]).await;
    let put = |val: &str| list(vec![mutation("cf:a", Some(val))]);

    // Written at 1000 ms (1970): a 1 ms TTL is long past, no TTL keeps it.
    let r = c
        .call(
            "mutateRowTs",
            args(vec![
                (1, b("t")),
                (2, b("old")),
                (3, put("kept")),
                (4, Value::I64(1000)),
            ]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    let r = c
        .call(
            "mutateRowTs",
            args(vec![
                (1, b("t")),
                (2, b("old")),
                (3, put("gone")),
                (4, Value::I64(2000)),
                (5, ttl(1)),
            ]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    assert_eq!(versions(&mut c, "old").await, vec![("kept".into(), 1000)]);

    // Written now: an hour's TTL is alive; Long.MAX_VALUE is HBase's "none".
    let r = c
        .call(
            "mutateRow",
            args(vec![
                (1, b("t")),
                (2, b("now")),
                (3, put("v")),
                (4, ttl(3_600_000)),
            ]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    assert_eq!(versions(&mut c, "now").await.len(), 1);

    // mutateRowsTs: every row of the batch takes the call's TTL.
    let batch = |row: &str| {
        Value::Struct(
            Struct::new()
                .with(1, b(row))
                .with(2, list(vec![mutation("cf:a", Some("x"))])),
        )
    };
    let r = c
        .call(
            "mutateRowsTs",
            args(vec![
                (1, b("t")),
                (2, list(vec![batch("b1"), batch("b2")])),
                (3, Value::I64(3000)),
                (4, ttl(10)),
            ]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    assert!(versions(&mut c, "b1").await.is_empty());
    assert!(versions(&mut c, "b2").await.is_empty());
    let r = c
        .call(
            "mutateRows",
            args(vec![
                (1, b("t")),
                (2, list(vec![batch("b3")])),
                (3, ttl(i64::MAX)),
            ]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    assert_eq!(versions(&mut c, "b3").await.len(), 1);

    // checkAndPut's attributes (field 7) too.
    let r = c
        .call(
            "checkAndPut",
            args(vec![
                (1, b("t")),
                (2, b("cp")),
                (3, b("cf:a")),
                (6, mutation("cf:a", Some("v"))),
                (7, ttl(3_600_000)),
            ]),
        )
        .await;
    assert_eq!(r.success(), Some(&Value::Bool(true)));
    assert_eq!(versions(&mut c, "cp").await.len(), 1);

    // A malformed _ttl is refused and writes nothing.
    let bad = Value::Map {
        key: TType::String,
        value: TType::String,
        entries: vec![(b("_ttl"), b("soon"))],
    };
    let r = c
        .call(
            "mutateRow",
            args(vec![(1, b("t")), (2, b("bad")), (3, put("v")), (4, bad)]),
        )
        .await;
    assert!(r.exception().is_some(), "{r:?}");
    assert!(versions(&mut c, "bad").await.is_empty());
    h.stop().await;
}
