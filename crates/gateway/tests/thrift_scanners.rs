//! Scanners through the Thrift1 gateway: leases expire abandoned scanners, a client vanishing
//! mid-scan releases its scanner while another client keeps scanning, every scanner variant
//! returns the right rows.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use strata_gateway::protocol::{Struct, TType, Value};

async fn load(c: &mut Client, n: usize) {
    create_table(c, "t", &[("cf", 3)]).await;
    let batches = (0..n)
        .map(|i| {
            Value::Struct(
                Struct::new()
                    .with(1, b(&format!("row{i:04}")))
                    .with(2, list(vec![mutation("cf:a", Some(&i.to_string()))])),
            )
        })
        .collect();
    let r = c
        .call(
            "mutateRows",
            args(vec![(1, b("t")), (2, Value::list(TType::Struct, batches))]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
}

async fn open(c: &mut Client, method: &str, a: Vec<(i16, Value)>) -> i32 {
    let r = c.call(method, args(a)).await;
    match r.success() {
        Some(Value::I32(id)) => *id,
        _ => panic!("{method}: {r:?}"),
    }
}

async fn drain(c: &mut Client, id: i32) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let r = c
            .call(
                "scannerGetList",
                args(vec![(1, Value::I32(id)), (2, Value::I32(7))]),
            )
            .await;
        let got = rows(r.success().unwrap());
        if got.is_empty() {
            return out;
        }
        out.extend(got.into_iter().map(|(row, _)| row));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scanner_variants() {
    let h = Harness::default().await;
    let mut c = h.client().await;
    load(&mut c, 30).await;
    let none = || list(vec![]);
    let id = open(
        &mut c,
        "scannerOpen",
        vec![(1, b("t")), (2, b("row0025")), (3, none())],
    )
    .await;
    assert_eq!(drain(&mut c, id).await.len(), 5);
    let id = open(
        &mut c,
        "scannerOpenWithStop",
        vec![
            (1, b("t")),
            (2, b("row0003")),
            (3, b("row0010")),
            (4, none()),
        ],
    )
    .await;
    assert_eq!(drain(&mut c, id).await.len(), 7);
    let id = open(
        &mut c,
        "scannerOpenWithPrefix",
        vec![(1, b("t")), (2, b("row001")), (3, list(vec![b("cf")]))],
    )
    .await;
    assert_eq!(drain(&mut c, id).await.len(), 10);
    let id = open(
        &mut c,
        "scannerOpenTs",
        vec![(1, b("t")), (2, b("")), (3, none()), (4, Value::I64(1))],
    )
    .await;
    assert!(
        drain(&mut c, id).await.is_empty(),
        "nothing older than ts 1"
    );
    let id = open(
        &mut c,
        "scannerOpenWithStopTs",
        vec![
            (1, b("t")),
            (2, b("")),
            (3, b("row0002")),
            (4, none()),
            (5, Value::I64(i64::MAX)),
        ],
    )
    .await;
    assert_eq!(drain(&mut c, id).await, vec!["row0000", "row0001"]);
    let scan = Struct::new()
        .with(1, b("row0009"))
        .with(2, b("row0004"))
        .with(9, Value::Bool(true))
        .with(5, Value::I32(2));
    let id = open(
        &mut c,
        "scannerOpenWithScan",
        vec![(1, b("t")), (2, Value::Struct(scan))],
    )
    .await;
    let got = drain(&mut c, id).await;
    assert_eq!(
        got,
        vec!["row0009", "row0008", "row0007", "row0006", "row0005"]
    );
    // scannerGet returns one row at a time, then an empty list.
    let id = open(
        &mut c,
        "scannerOpenWithStop",
        vec![(1, b("t")), (2, b("")), (3, b("row0001")), (4, none())],
    )
    .await;
    let r = c.call("scannerGet", args(vec![(1, Value::I32(id))])).await;
    assert_eq!(rows(r.success().unwrap()).len(), 1);
    let r = c.call("scannerGet", args(vec![(1, Value::I32(id))])).await;
    assert!(rows(r.success().unwrap()).is_empty());
    // Drained scanners stay open until closed; closing twice is IllegalArgument.
    assert_eq!(
        c.call("scannerClose", args(vec![(1, Value::I32(id))]))
            .await,
        Reply::Result(Struct::new())
    );
    assert_eq!(
        c.call("scannerClose", args(vec![(1, Value::I32(id))]))
            .await
            .exception()
            .unwrap()
            .0,
        2
    );
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_scanners_expire() {
    let h = Harness::start(Duration::from_millis(1000), 1 << 20).await;
    let mut c = h.client().await;
    load(&mut c, 20).await;
    let none = || list(vec![]);
    let kept = open(
        &mut c,
        "scannerOpen",
        vec![(1, b("t")), (2, b("")), (3, none())],
    )
    .await;
    let abandoned = open(
        &mut c,
        "scannerOpen",
        vec![(1, b("t")), (2, b("")), (3, none())],
    )
    .await;
    assert_eq!(h.gateway().open_scanners(), 2);
    // Using a scanner renews its lease.
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let r = c
            .call("scannerGet", args(vec![(1, Value::I32(kept))]))
            .await;
        assert_eq!(
            rows(r.success().unwrap_or_else(|| panic!("{r:?}"))).len(),
            1
        );
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(h.gateway().open_scanners(), 1);
    let r = c
        .call("scannerGet", args(vec![(1, Value::I32(abandoned))]))
        .await;
    assert_eq!(r.exception().unwrap().0, 2, "expired: {r:?}");
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_vanishing_mid_scan() {
    let h = Harness::default().await;
    let mut loader = h.client().await;
    load(&mut loader, 200).await;
    let none = || list(vec![]);
    let mut other = h.framed_client().await;
    let theirs = open(
        &mut other,
        "scannerOpen",
        vec![(1, b("t")), (2, b("")), (3, none())],
    )
    .await;
    for round in 0..5 {
        let mut gone = h.client().await;
        let id = open(
            &mut gone,
            "scannerOpen",
            vec![(1, b("t")), (2, b("")), (3, none())],
        )
        .await;
        let r = gone
            .call(
                "scannerGetList",
                args(vec![(1, Value::I32(id)), (2, Value::I32(10))]),
            )
            .await;
        assert_eq!(rows(r.success().unwrap()).len(), 10);
        // Vanish in the middle of a request: half a message, then the socket closes.
        let msg = strata_gateway::protocol::encode_message(
            "scannerGetList",
            strata_gateway::protocol::MessageKind::Call,
            99,
            &args(vec![(1, Value::I32(id)), (2, Value::I32(10))]),
        );
        gone.send_raw(&msg[..msg.len() / 2]).await.unwrap();
        drop(gone);
        let r = other
            .call(
                "scannerGetList",
                args(vec![(1, Value::I32(theirs)), (2, Value::I32(10))]),
            )
            .await;
        let got = rows(r.success().unwrap());
        assert_eq!(got[0].0, format!("row{:04}", round * 10));
    }
    // The vanished clients' scanners were released; the survivor's is still open.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(h.gateway().open_scanners(), 1);
    h.stop().await;
}
