//! Increments and appends with HBase's nonces (RFC 0032): HBase's client sends an increment
//! or append again with the same nonce after a timeout; the server applies it once and
//! answers the repeat with the current values, through `Mutate` and through `Multi`. Another
//! nonce group, or no nonce, is another operation.
#![allow(missing_docs, clippy::unwrap_used)]

mod wire_support;

use bytes::Bytes;
use strata_hbase_rpc::pb;
use wire_support::{cluster, create_table, only_region, region, Conn};

use pb::mutation_proto::column_value::QualifierValue;
use pb::mutation_proto::{ColumnValue, MutationType};

/// An increment of `f:n` by `by`, or an append of `by`'s bytes to `f:s`, with `nonce`.
fn op(kind: MutationType, row: &str, value: Vec<u8>, nonce: Option<u64>) -> pb::MutationProto {
    let qualifier = if kind == MutationType::Increment {
        "n"
    } else {
        "s"
    };
    pb::MutationProto {
        row: Some(Bytes::copy_from_slice(row.as_bytes())),
        mutate_type: Some(kind as i32),
        column_value: vec![ColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier_value: vec![QualifierValue {
                qualifier: Some(Bytes::copy_from_slice(qualifier.as_bytes())),
                value: Some(Bytes::from(value)),
                ..Default::default()
            }],
        }],
        nonce,
        ..pb::MutationProto::default()
    }
}

fn increment(by: i64, nonce: Option<u64>) -> pb::MutationProto {
    op(
        MutationType::Increment,
        "row",
        by.to_be_bytes().to_vec(),
        nonce,
    )
}

fn counter(result: Option<&pb::Result>) -> i64 {
    let value = result.unwrap().cell[0].value.clone().unwrap();
    i64::from_be_bytes(value.as_ref().try_into().unwrap())
}

async fn mutate(
    client: &mut Conn,
    id: u64,
    m: pb::MutationProto,
    group: Option<u64>,
) -> pb::MutateResponse {
    let req = pb::MutateRequest {
        region: region("t", b"", id),
        mutation: m,
        condition: None,
        nonce_group: group,
    };
    client.call("Mutate", &req).await
}

async fn multi(client: &mut Conn, id: u64, m: pb::MutationProto, group: u64) -> pb::Result {
    multi_with(client, id, m, group, None, None).await.0
}

/// A `Multi` of one region action holding `m`: atomic if `atomic`, under `condition`; its
/// first result and whether it was applied.
async fn multi_with(
    client: &mut Conn,
    id: u64,
    m: pb::MutationProto,
    group: u64,
    atomic: Option<bool>,
    condition: Option<pb::Condition>,
) -> (pb::Result, Option<bool>) {
    let req = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region("t", b"", id),
            atomic,
            action: vec![pb::Action {
                index: Some(0),
                mutation: Some(m),
                get: None,
            }],
            condition,
        }],
        nonce_group: Some(group),
        condition: None,
    };
    let resp: pb::MultiResponse = client.call("Multi", &req).await;
    let ra = &resp.region_action_result[0];
    assert!(ra.exception.is_none(), "{:?}", ra.exception);
    let r = &ra.result_or_exception[0];
    assert!(r.exception.is_none(), "{:?}", r.exception);
    (r.result.clone().unwrap(), ra.processed)
}

/// `row`'s `f:n` does not exist (HBase's `checkAndMutate(...).ifNotExists`) when `absent`,
/// else equals 1 as a counter.
fn condition(absent: bool) -> pb::Condition {
    let expected = if absent {
        Vec::new()
    } else {
        1i64.to_be_bytes().to_vec()
    };
    pb::Condition {
        row: Bytes::from_static(b"row"),
        family: Some(Bytes::from_static(b"f")),
        qualifier: Some(Bytes::from_static(b"n")),
        compare_type: Some(pb::CompareType::Equal as i32),
        comparator: Some(pb::Comparator {
            name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
            serialized_comparator: Some(Bytes::from(prost::Message::encode_to_vec(
                &pb::BinaryComparator {
                    comparable: pb::ByteArrayComparable {
                        value: Some(Bytes::from(expected)),
                    },
                },
            ))),
        }),
        time_range: None,
        filter: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_nonce_is_applied_once() {
    let c = cluster(64 << 20).await;
    create_table(c.rpc.addr(), "t").await;
    let id = only_region(c.rpc.addr(), "t").await;
    let mut client = Conn::open(c.rpc.addr(), "ClientService", None).await;

    // The first attempt applies; its repeat answers the current value and changes nothing.
    let first = mutate(&mut client, id, increment(5, Some(42)), Some(7)).await;
    assert_eq!(counter(first.result.as_ref()), 5);
    let repeat = mutate(&mut client, id, increment(5, Some(42)), Some(7)).await;
    assert_eq!(counter(repeat.result.as_ref()), 5, "not applied again");
    // The same nonce in another group (another client) is another operation.
    let other = mutate(&mut client, id, increment(5, Some(42)), Some(8)).await;
    assert_eq!(counter(other.result.as_ref()), 10);
    // Without a nonce (HBase's NO_NONCE is 0) every attempt applies.
    for (nonce, want) in [(None, 15), (Some(0), 20)] {
        let r = mutate(&mut client, id, increment(5, nonce), Some(7)).await;
        assert_eq!(counter(r.result.as_ref()), want);
    }

    // Through Multi: the request's nonce group, each action's nonce.
    assert_eq!(
        counter(Some(
            &multi(&mut client, id, increment(1, Some(43)), 7).await
        )),
        21
    );
    assert_eq!(
        counter(Some(
            &multi(&mut client, id, increment(1, Some(43)), 7).await
        )),
        21
    );
    // A Multi repeat of a Mutate's nonce: the same operation.
    assert_eq!(
        counter(Some(
            &multi(&mut client, id, increment(5, Some(42)), 7).await
        )),
        21
    );

    // An append likewise.
    let append = || op(MutationType::Append, "row", b"x".to_vec(), Some(44));
    for _ in 0..2 {
        let r = mutate(&mut client, id, append(), Some(7)).await;
        let value = r.result.unwrap().cell[0].value.clone().unwrap();
        assert_eq!(value.as_ref(), b"x");
    }
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn atomic_and_conditional_repeats_are_applied_once() {
    let c = cluster(64 << 20).await;
    create_table(c.rpc.addr(), "t").await;
    let id = only_region(c.rpc.addr(), "t").await;
    let mut client = Conn::open(c.rpc.addr(), "ClientService", None).await;

    // A condition that does not hold applies nothing, and its repeat tests it again.
    let (_, applied) = multi_with(
        &mut client,
        id,
        increment(1, Some(50)),
        7,
        None,
        Some(condition(false)),
    )
    .await;
    assert_eq!(applied, Some(false));
    // Holding (the counter is absent), applied once; the repeat reports it applied.
    for _ in 0..2 {
        let (r, applied) = multi_with(
            &mut client,
            id,
            increment(1, Some(51)),
            7,
            None,
            Some(condition(true)),
        )
        .await;
        assert_eq!((counter(Some(&r)), applied), (1, Some(true)));
    }
    // The same through Mutate with a condition (the counter now equals 1).
    for _ in 0..2 {
        let req = pb::MutateRequest {
            region: region("t", b"", id),
            mutation: increment(1, Some(52)),
            condition: Some(condition(false)),
            nonce_group: Some(7),
        };
        let r: pb::MutateResponse = client.call("Mutate", &req).await;
        assert_eq!((counter(r.result.as_ref()), r.processed), (2, Some(true)));
    }
    // An atomic region action (`mutateRow`).
    for _ in 0..2 {
        let (r, _) = multi_with(&mut client, id, increment(3, Some(53)), 7, Some(true), None).await;
        assert_eq!(counter(Some(&r)), 5);
    }
    c.stop().await;
}
