//! Through the Thrift1 gateway: what happybase's suite does not cover — timestamps, versions,
//! filter strings with sorted columns, checkAndPut, increments and appends, and the framed
//! transport.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use common::*;
use strata_gateway::protocol::{Struct, TType, Value};

fn ts_put(table: &str, row: &str, col: &str, val: &str, ts: i64) -> Struct {
    args(vec![
        (1, b(table)),
        (2, b(row)),
        (3, list(vec![mutation(col, Some(val))])),
        (4, Value::I64(ts)),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamps_and_versions() {
    let h = Harness::default().await;
    let mut c = h.client().await;
    create_table(&mut c, "t", &[("cf", 5)]).await;
    for (v, ts) in [("v1", 100), ("v2", 200), ("v3", 300)] {
        let r = c.call("mutateRowTs", ts_put("t", "r", "cf:a", v, ts)).await;
        assert_eq!(r, Reply::Result(Struct::new()));
    }
    let get_ver = |ts: Option<i64>, n: i32| {
        let mut a = vec![(1, b("t")), (2, b("r")), (3, b("cf:a"))];
        match ts {
            Some(ts) => a.extend([(4, Value::I64(ts)), (5, Value::I32(n))]),
            None => a.push((4, Value::I32(n))),
        }
        (if ts.is_some() { "getVerTs" } else { "getVer" }, args(a))
    };
    let (m, a) = get_ver(None, 10);
    let all = cells(c.call(m, a).await.success().unwrap());
    assert_eq!(
        all,
        vec![("v3".into(), 300), ("v2".into(), 200), ("v1".into(), 100)]
    );
    let (m, a) = get_ver(None, 2);
    assert_eq!(cells(c.call(m, a).await.success().unwrap()).len(), 2);
    // ...Ts reads see versions strictly older than the timestamp.
    let (m, a) = get_ver(Some(300), 10);
    let older = cells(c.call(m, a).await.success().unwrap());
    assert_eq!(older, vec![("v2".into(), 200), ("v1".into(), 100)]);
    let r = c
        .call(
            "getRowTs",
            args(vec![(1, b("t")), (2, b("r")), (3, Value::I64(201))]),
        )
        .await;
    assert_eq!(
        rows(r.success().unwrap()),
        vec![("r".into(), vec![("cf:a".into(), "v2".into())])]
    );
    // deleteAllTs removes versions at or before the timestamp only.
    let r = c
        .call(
            "deleteAllTs",
            args(vec![
                (1, b("t")),
                (2, b("r")),
                (3, b("cf:a")),
                (4, Value::I64(200)),
            ]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    let (m, a) = get_ver(None, 10);
    assert_eq!(
        cells(c.call(m, a).await.success().unwrap()),
        vec![("v3".into(), 300)]
    );
    // deleteAllRowTs below the newest version keeps it.
    c.call("mutateRowTs", ts_put("t", "r", "cf:b", "old", 50))
        .await;
    let r = c
        .call(
            "deleteAllRowTs",
            args(vec![(1, b("t")), (2, b("r")), (3, Value::I64(60))]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    let r = c.call("getRow", args(vec![(1, b("t")), (2, b("r"))])).await;
    assert_eq!(
        rows(r.success().unwrap()),
        vec![("r".into(), vec![("cf:a".into(), "v3".into())])]
    );
    // A zero or negative read timestamp is refused, not read as "everything".
    let (m, a) = get_ver(Some(0), 1);
    assert_eq!(c.call(m, a).await.exception().unwrap().0, 1);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_check_and_put_counters_appends() {
    let h = Harness::default().await;
    let mut c = h.framed_client().await;
    create_table(&mut c, "t", &[("cf", 3), ("g", 1)]).await;
    let batches = (0..10)
        .map(|i| {
            let v = if i % 2 == 0 { "even" } else { "odd" };
            Value::Struct(Struct::new().with(1, b(&format!("row{i}"))).with(
                2,
                list(vec![
                    mutation("cf:kind", Some(v)),
                    mutation("g:x", Some("1")),
                ]),
            ))
        })
        .collect();
    let r = c
        .call(
            "mutateRows",
            args(vec![(1, b("t")), (2, Value::list(TType::Struct, batches))]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    // A filter string in HBase's language, with sorted columns.
    let scan = Struct::new()
        .with(
            6,
            b("SingleColumnValueFilter('cf', 'kind', =, 'binary:odd')"),
        )
        .with(8, Value::Bool(true));
    let r = c
        .call(
            "scannerOpenWithScan",
            args(vec![(1, b("t")), (2, Value::Struct(scan))]),
        )
        .await;
    let Some(Value::I32(id)) = r.success() else {
        panic!("{r:?}")
    };
    let r = c
        .call(
            "scannerGetList",
            args(vec![(1, Value::I32(*id)), (2, Value::I32(100))]),
        )
        .await;
    let got = rows(r.success().unwrap());
    assert_eq!(got.len(), 5);
    assert_eq!(
        got[0],
        (
            "row1".into(),
            vec![("cf:kind".into(), "odd".into()), ("g:x".into(), "1".into())]
        )
    );
    c.call("scannerClose", args(vec![(1, Value::I32(*id))]))
        .await;
    // A bad filter string is an exception at open.
    let scan = Struct::new().with(6, b("NoSuchFilter('x')"));
    let r = c
        .call(
            "scannerOpenWithScan",
            args(vec![(1, b("t")), (2, Value::Struct(scan))]),
        )
        .await;
    assert_eq!(r.exception().unwrap().0, 1, "{r:?}");
    // checkAndPut: expected value, then absence.
    let cap = |expected: Option<&str>, col: &str, val: &str| {
        let mut a = vec![(1, b("t")), (2, b("row1")), (3, b(col))];
        if let Some(e) = expected {
            a.push((5, b(e)));
        }
        a.push((6, mutation("cf:status", Some(val))));
        args(a)
    };
    let r = c
        .call("checkAndPut", cap(Some("even"), "cf:kind", "wrong"))
        .await;
    assert_eq!(r.success(), Some(&Value::Bool(false)));
    let r = c
        .call("checkAndPut", cap(Some("odd"), "cf:kind", "checked"))
        .await;
    assert_eq!(r.success(), Some(&Value::Bool(true)));
    let r = c.call("checkAndPut", cap(None, "cf:status", "again")).await;
    assert_eq!(r.success(), Some(&Value::Bool(false)));
    let get = args(vec![(1, b("t")), (2, b("row1")), (3, b("cf:status"))]);
    assert_eq!(
        cells(c.call("get", get).await.success().unwrap())[0].0,
        "checked"
    );
    // Counters: atomicIncrement, increment, incrementRows.
    let inc = |n: i64| {
        args(vec![
            (1, b("t")),
            (2, b("ctr")),
            (3, b("cf:n")),
            (4, Value::I64(n)),
        ])
    };
    assert_eq!(
        c.call("atomicIncrement", inc(0)).await.success(),
        Some(&Value::I64(0))
    );
    assert_eq!(
        c.call("atomicIncrement", inc(5)).await.success(),
        Some(&Value::I64(5))
    );
    let tinc = |n: i64| {
        Value::Struct(
            Struct::new()
                .with(1, b("t"))
                .with(2, b("ctr"))
                .with(3, b("cf:n"))
                .with(4, Value::I64(n)),
        )
    };
    assert_eq!(
        c.call("increment", args(vec![(1, tinc(10))])).await,
        Reply::Result(Struct::new())
    );
    let r = c
        .call(
            "incrementRows",
            args(vec![(
                1,
                Value::list(TType::Struct, vec![tinc(1), tinc(2)]),
            )]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    assert_eq!(
        c.call("atomicIncrement", inc(-3)).await.success(),
        Some(&Value::I64(15))
    );
    // Append returns the new values.
    let app = Struct::new()
        .with(1, b("t"))
        .with(2, b("row1"))
        .with(3, list(vec![b("cf:status")]))
        .with(4, list(vec![b("+more")]));
    let r = c.call("append", args(vec![(1, Value::Struct(app))])).await;
    assert_eq!(cells(r.success().unwrap())[0].0, "checked+more");
    h.stop().await;
}
