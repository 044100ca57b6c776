//! Table administration through the Thrift1 gateway: column descriptors carrying family
//! settings, AlreadyExists / IllegalArgument on createTable, regions, getRegionInfo,
//! getRowOrBefore, tables with their enabled flags.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use common::*;
use strata_gateway::protocol::{Struct, TType, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn descriptors_regions_and_row_or_before() {
    let h = Harness::default().await;
    let mut c = h.client().await;
    let fam = Struct::new()
        .with(1, b("cf:"))
        .with(2, Value::I32(7))
        .with(3, b("SNAPPY"))
        .with(4, Value::Bool(true))
        .with(5, b("ROWCOL"))
        .with(8, Value::Bool(true))
        .with(9, Value::I32(86400));
    let r = c
        .call(
            "createTable",
            args(vec![
                (1, b("d")),
                (2, Value::list(TType::Struct, vec![Value::Struct(fam)])),
            ]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    let r = c
        .call(
            "createTable",
            args(vec![(1, b("d")), (2, Value::list(TType::Struct, vec![]))]),
        )
        .await;
    assert_eq!(
        r.exception().unwrap().0,
        2,
        "no families is IllegalArgument"
    );
    let dup = Value::Struct(Struct::new().with(1, b("cf:")));
    let r = c
        .call(
            "createTable",
            args(vec![
                (1, b("d")),
                (2, Value::list(TType::Struct, vec![dup])),
            ]),
        )
        .await;
    assert_eq!(
        r.exception().unwrap().0,
        3,
        "existing table is AlreadyExists: {r:?}"
    );
    let r = c
        .call("getColumnDescriptors", args(vec![(1, b("d"))]))
        .await;
    let Some(Value::Map { entries, .. }) = r.success() else {
        panic!("{r:?}")
    };
    assert_eq!(text(&entries[0].0), "cf:");
    let Value::Struct(d) = &entries[0].1 else {
        panic!()
    };
    assert_eq!(d.get(2), Some(&Value::I32(7)));
    assert_eq!(text(d.get(3).unwrap()), "SNAPPY");
    assert_eq!(d.get(4), Some(&Value::Bool(true)));
    assert_eq!(text(d.get(5).unwrap()), "ROWCOL");
    assert_eq!(d.get(8), Some(&Value::Bool(true)));
    assert_eq!(d.get(9), Some(&Value::I32(86400)));
    let r = c.call("getTableRegions", args(vec![(1, b("d"))])).await;
    let Some(Value::List { items, .. }) = r.success() else {
        panic!("{r:?}")
    };
    assert_eq!(items.len(), 1);
    let r = c
        .call(
            "getRegionInfo",
            args(vec![(1, b("d,somerow,99999999999999"))]),
        )
        .await;
    assert!(matches!(r.success(), Some(Value::Struct(_))), "{r:?}");
    for row in ["a", "c", "e"] {
        let m = args(vec![
            (1, b("d")),
            (2, b(row)),
            (3, list(vec![mutation("cf:q", Some(row))])),
        ]);
        c.call("mutateRow", m).await;
    }
    let r = c
        .call(
            "getRowOrBefore",
            args(vec![(1, b("d")), (2, b("d")), (3, b("cf"))]),
        )
        .await;
    assert_eq!(cells(r.success().unwrap())[0].0, "c");
    let r = c
        .call("getTableNamesWithIsTableEnabled", Struct::new())
        .await;
    let Some(Value::Map { entries, .. }) = r.success() else {
        panic!("{r:?}")
    };
    assert_eq!(entries, &vec![(b("d"), Value::Bool(true))]);
    h.stop().await;
}

/// Thrift1 has no namespace calls; a table in a namespace that does not exist is refused
/// with an IOError naming it, and is created once the namespace exists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_in_a_missing_namespace_is_an_io_error() {
    let h = Harness::default().await;
    let mut c = h.client().await;
    let fam = || {
        Value::list(
            TType::Struct,
            vec![Value::Struct(Struct::new().with(1, b("f:")))],
        )
    };
    let r = c
        .call("createTable", args(vec![(1, b("nons:t")), (2, fam())]))
        .await;
    let (field, message) = r.exception().unwrap();
    assert_eq!(field, 1, "an IOError: {r:?}");
    assert_eq!(message, "NAMESPACE_NOT_FOUND: nons");
    let names = c.call("getTableNames", args(vec![])).await;
    assert_eq!(names.success(), Some(&list(vec![])), "nothing was created");
    let addr = h.server.as_ref().unwrap().address();
    let conn = strata_client::Connection::connect(&addr).await.unwrap();
    conn.admin()
        .create_namespace(&strata_client::NamespaceDescriptor::new("nons"))
        .await
        .unwrap();
    let r = c
        .call("createTable", args(vec![(1, b("nons:t")), (2, fam())]))
        .await;
    assert_eq!(r, Reply::Result(Struct::new()));
    let names = c.call("getTableNames", args(vec![])).await;
    assert_eq!(names.success(), Some(&list(vec![b("nons:t")])));
    h.stop().await;
}
