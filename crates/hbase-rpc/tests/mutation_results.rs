//! What HBase's client sees of a mutation through the HBase RPC: the per-cell TTL it sends as
//! the `_ttl` attribute (`Mutation.setTTL`), and the result a conditional increment or append
//! returns (`CheckAndMutateResult.getResult`), through `Mutate` and through `Multi`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::net::SocketAddr;

use bytes::Bytes;
use prost::Message;
use strata_hbase_rpc::frame::{decode_reply, encode_request, read_frame};
use strata_hbase_rpc::pb;
use strata_hbase_rpc::region_name::region_name;
use strata_testkit::Single;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use pb::mutation_proto::column_value::QualifierValue;
use pb::mutation_proto::{ColumnValue, MutationType};

struct Conn {
    stream: TcpStream,
    next_id: u32,
}

impl Conn {
    /// A connection without a cell-block codec: cells travel inside the protobuf.
    async fn open(addr: SocketAddr, service: &str) -> Conn {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let header = pb::ConnectionHeader {
            user_info: Some(pb::UserInformation {
                effective_user: "test".into(),
                real_user: None,
            }),
            service_name: Some(service.into()),
            ..pb::ConnectionHeader::default()
        }
        .encode_to_vec();
        let mut hello = b"HBas\x00\x50".to_vec();
        hello.extend_from_slice(&(header.len() as u32).to_be_bytes());
        hello.extend_from_slice(&header);
        stream.write_all(&hello).await.unwrap();
        Conn { stream, next_id: 1 }
    }

    async fn call<R: Message + Default>(&mut self, method: &str, param: &impl Message) -> R {
        let id = self.next_id;
        self.next_id += 1;
        self.stream
            .write_all(&encode_request(id, method, param, &[]))
            .await
            .unwrap();
        let frame = read_frame(&mut self.stream, 1 << 30)
            .await
            .unwrap()
            .unwrap();
        let (header, message, _) = decode_reply(frame).unwrap();
        assert!(
            header.exception.is_none(),
            "{method}: {:?}",
            header.exception
        );
        R::decode(message).unwrap()
    }
}

fn region(id: u64) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: 1,
        value: region_name("t", b"", id),
    }
}

async fn create_table(addr: SocketAddr) {
    let mut master = Conn::open(addr, "MasterService").await;
    let _: pb::ProcedureResponse = master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: pb::TableSchema {
                    table_name: Some(pb::TableName {
                        namespace: Bytes::from_static(b"default"),
                        qualifier: Bytes::from_static(b"t"),
                    }),
                    column_families: vec![pb::ColumnFamilySchema {
                        name: Bytes::from_static(b"f"),
                        ..pb::ColumnFamilySchema::default()
                    }],
                    ..pb::TableSchema::default()
                },
                split_keys: vec![],
                nonce_group: None,
                nonce: None,
            },
        )
        .await;
}

/// The id of the table's one region, from meta.
async fn only_region(addr: SocketAddr) -> u64 {
    let mut client = Conn::open(addr, "ClientService").await;
    let resp: pb::ScanResponse = client
        .call(
            "Scan",
            &pb::ScanRequest {
                region: Some(pb::RegionSpecifier {
                    r#type: 1,
                    value: Bytes::from_static(b"hbase:meta,,1"),
                }),
                scan: Some(pb::Scan {
                    start_row: Some(Bytes::from_static(b"t,,")),
                    stop_row: Some(Bytes::from_static(b"t,~")),
                    ..pb::Scan::default()
                }),
                number_of_rows: Some(10),
                ..pb::ScanRequest::default()
            },
        )
        .await;
    let info = resp.results[0]
        .cell
        .iter()
        .find(|c| c.qualifier.as_deref() == Some(&b"regioninfo"[..]))
        .unwrap();
    let value = info.value.clone().unwrap();
    pb::RegionInfo::decode(&value[4..]).unwrap().region_id
}

/// A mutation of `f:q` in `row`: `value` (at `ts`, if given), with HBase's `_ttl` attribute
/// when `ttl` is given.
fn mutation(
    kind: MutationType,
    row: &str,
    value: &[u8],
    ts: Option<u64>,
    ttl: Option<i64>,
) -> pb::MutationProto {
    pb::MutationProto {
        row: Some(Bytes::copy_from_slice(row.as_bytes())),
        mutate_type: Some(kind as i32),
        column_value: vec![ColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier_value: vec![QualifierValue {
                qualifier: Some(Bytes::from_static(b"q")),
                value: Some(Bytes::copy_from_slice(value)),
                timestamp: ts,
                ..Default::default()
            }],
        }],
        attribute: ttl
            .map(|t| pb::NameBytesPair {
                name: "_ttl".into(),
                value: Some(Bytes::copy_from_slice(&t.to_be_bytes())),
            })
            .into_iter()
            .collect(),
        ..pb::MutationProto::default()
    }
}

async fn mutate(client: &mut Conn, id: u64, m: pb::MutationProto) -> pb::MutateResponse {
    mutate_if(client, id, m, None).await
}

async fn mutate_if(
    client: &mut Conn,
    id: u64,
    m: pb::MutationProto,
    condition: Option<pb::Condition>,
) -> pb::MutateResponse {
    client
        .call(
            "Mutate",
            &pb::MutateRequest {
                region: region(id),
                mutation: m,
                condition,
                nonce_group: None,
            },
        )
        .await
}

/// `row`'s `f:q` equals `expected` (HBase's `checkAndMutate(...).ifEquals`).
fn equals(row: &str, expected: &[u8]) -> pb::Condition {
    pb::Condition {
        row: Bytes::copy_from_slice(row.as_bytes()),
        family: Some(Bytes::from_static(b"f")),
        qualifier: Some(Bytes::from_static(b"q")),
        compare_type: Some(pb::CompareType::Equal as i32),
        comparator: Some(pb::Comparator {
            name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
            serialized_comparator: Some(Bytes::from(
                pb::BinaryComparator {
                    comparable: pb::ByteArrayComparable {
                        value: Some(Bytes::copy_from_slice(expected)),
                    },
                }
                .encode_to_vec(),
            )),
        }),
        time_range: None,
        filter: None,
    }
}

async fn values(client: &mut Conn, id: u64, row: &str) -> Vec<Bytes> {
    let resp: pb::GetResponse = client
        .call(
            "Get",
            &pb::GetRequest {
                region: region(id),
                get: pb::Get {
                    row: Bytes::copy_from_slice(row.as_bytes()),
                    ..pb::Get::default()
                },
            },
        )
        .await;
    resp.result
        .map(|r| r.cell.into_iter().filter_map(|c| c.value).collect())
        .unwrap_or_default()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttl_attribute_and_conditional_increment_results() {
    let dir = tempfile::tempdir().unwrap();
    let single = Single::start(dir.path());
    let addr = single.hbase_rpc();
    create_table(addr).await;
    let id = only_region(addr).await;
    let mut client = Conn::open(addr, "ClientService").await;

    // `_ttl` counts from the cell's timestamp: a minute-old cell with a 10 s TTL is gone at
    // once, one with an hour's TTL stays; `Long.MAX_VALUE` is HBase's "no TTL".
    let minute_ago = now_ms() - 60_000;
    let put = MutationType::Put;
    mutate(
        &mut client,
        id,
        mutation(put, "gone", b"v", Some(minute_ago), Some(10_000)),
    )
    .await;
    mutate(
        &mut client,
        id,
        mutation(put, "kept", b"v", Some(minute_ago), Some(3_600_000)),
    )
    .await;
    mutate(
        &mut client,
        id,
        mutation(put, "none", b"v", Some(minute_ago), Some(i64::MAX)),
    )
    .await;
    assert!(values(&mut client, id, "gone").await.is_empty());
    assert_eq!(
        values(&mut client, id, "kept").await,
        vec![Bytes::from_static(b"v")]
    );
    assert_eq!(
        values(&mut client, id, "none").await,
        vec![Bytes::from_static(b"v")]
    );
    // An expired newest version uncovers the older one, as in HBase.
    mutate(
        &mut client,
        id,
        mutation(put, "kept", b"new", Some(minute_ago + 1), Some(1)),
    )
    .await;
    assert_eq!(
        values(&mut client, id, "kept").await,
        vec![Bytes::from_static(b"v")]
    );

    // A conditional increment returns the new value (HBase's CheckAndMutateResult.getResult).
    let five = 5i64.to_be_bytes();
    mutate(&mut client, id, mutation(put, "n", &five, None, None)).await;
    let inc = mutation(
        MutationType::Increment,
        "n",
        &3i64.to_be_bytes(),
        None,
        None,
    );
    let resp = mutate_if(&mut client, id, inc.clone(), Some(equals("n", &five))).await;
    assert_eq!(resp.processed, Some(true));
    let cells = resp.result.unwrap().cell;
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].value.as_deref(), Some(&8i64.to_be_bytes()[..]));
    // A failed condition: nothing applied, an empty result.
    let resp = mutate_if(&mut client, id, inc, Some(equals("n", &five))).await;
    assert_eq!(resp.processed, Some(false));
    assert!(resp.result.unwrap_or_default().cell.is_empty());
    // A conditional put still answers with an empty result.
    let resp = mutate_if(
        &mut client,
        id,
        mutation(put, "n", b"x", None, None),
        Some(equals("n", &8i64.to_be_bytes())),
    )
    .await;
    assert_eq!(resp.processed, Some(true));
    assert!(resp.result.unwrap_or_default().cell.is_empty());

    // Through Multi (the async client's path): the first action's result carries the append.
    let append = mutation(MutationType::Append, "n", b"y", None, None);
    let resp: pb::MultiResponse = client
        .call(
            "Multi",
            &pb::MultiRequest {
                region_action: vec![pb::RegionAction {
                    region: region(id),
                    atomic: None,
                    action: vec![pb::Action {
                        index: Some(0),
                        mutation: Some(append),
                        get: None,
                    }],
                    condition: Some(equals("n", b"x")),
                }],
                nonce_group: None,
                condition: None,
            },
        )
        .await;
    let action = &resp.region_action_result[0];
    assert_eq!(action.processed, Some(true));
    let result = action.result_or_exception[0].result.as_ref().unwrap();
    assert_eq!(result.cell[0].value.as_deref(), Some(&b"xy"[..]));

    single.stop().unwrap();
}
