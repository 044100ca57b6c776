//! Calls pipelined on one connection (written before any reply is read, as HBase's client
//! does from many threads): every call gets its own reply under its call id, whether it was
//! answered in place (a get from the memtable), on a blocking thread (a get that reads a
//! store file, with no cache to hold its block; a put, which waits for the WAL) or is slow
//! (a multi of many puts); and a ready reply is not held back behind a slow call sent first.
#![allow(missing_docs, clippy::unwrap_used)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use prost::Message;
use strata_hbase_rpc::cellblock::{self, Codec};
use strata_hbase_rpc::frame::{decode_reply, encode_request, read_frame};
use strata_hbase_rpc::pb;
use strata_hbase_rpc::region_name::region_name;
use strata_testkit::Single;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const KV_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";
const TABLE: &str = "pipelined";
/// Puts in the slow call.
const SLOW_PUTS: usize = 1000;

async fn open(addr: SocketAddr, service: &str, codec: Option<&str>) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let header = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: "test".into(),
            real_user: None,
        }),
        service_name: Some(service.into()),
        cell_block_codec_class: codec.map(str::to_string),
        ..pb::ConnectionHeader::default()
    }
    .encode_to_vec();
    let mut hello = b"HBas\x00\x50".to_vec();
    hello.extend_from_slice(&(header.len() as u32).to_be_bytes());
    hello.extend_from_slice(&header);
    stream.write_all(&hello).await.unwrap();
    stream
}

/// A reply: header, message, cell block.
type Reply = (pb::ResponseHeader, Bytes, Bytes);

async fn next_reply(stream: &mut TcpStream) -> Reply {
    let frame = read_frame(stream, 1 << 30).await.unwrap().unwrap();
    decode_reply(frame).unwrap()
}

/// One call, its reply, which must not be an exception.
async fn call<R: Message + Default>(
    stream: &mut TcpStream,
    method: &str,
    param: &impl Message,
) -> R {
    stream
        .write_all(&encode_request(1, method, param, &[]))
        .await
        .unwrap();
    let (header, message, _) = next_reply(stream).await;
    assert_eq!(header.call_id(), 1);
    assert!(
        header.exception.is_none(),
        "{method}: {:?}",
        header.exception
    );
    R::decode(message).unwrap()
}

fn spec(id: u64) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: 1,
        value: region_name(TABLE, b"", id),
    }
}

fn put(row: &str, value: &str) -> pb::MutationProto {
    pb::MutationProto {
        row: Some(Bytes::copy_from_slice(row.as_bytes())),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(Bytes::from_static(b"q")),
                value: Some(Bytes::copy_from_slice(value.as_bytes())),
                ..Default::default()
            }],
        }],
        ..pb::MutationProto::default()
    }
}

fn get_of(row: &str) -> pb::Get {
    pb::Get {
        row: Bytes::copy_from_slice(row.as_bytes()),
        ..pb::Get::default()
    }
}

fn get(id: u64, row: &str) -> pb::GetRequest {
    pb::GetRequest {
        region: spec(id),
        get: get_of(row),
    }
}

fn mutate(id: u64, row: &str, value: &str) -> pb::MutateRequest {
    pb::MutateRequest {
        region: spec(id),
        mutation: put(row, value),
        ..pb::MutateRequest::default()
    }
}

fn multi(id: u64, actions: Vec<pb::Action>) -> pb::MultiRequest {
    pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: spec(id),
            atomic: None,
            action: actions,
            condition: None,
        }],
        ..pb::MultiRequest::default()
    }
}

fn action(index: usize, get: Option<pb::Get>, mutation: Option<pb::MutationProto>) -> pb::Action {
    pb::Action {
        index: Some(index as u32),
        mutation,
        get,
    }
}

/// The values of a reply's cell block (a Get's or a Multi's results, in order).
fn values(reply: &Reply) -> Vec<String> {
    cellblock::decode(Codec::KeyValue, &reply.2)
        .unwrap()
        .iter()
        .map(|c| String::from_utf8_lossy(&c.value).into_owned())
        .collect()
}

/// A one-process Strata without block or row cache (every store-file read goes to disk, so
/// gets of flushed rows cannot be answered in place), with its HBase RPC listener.
fn start(dir: &std::path::Path) -> Single {
    let mut config = strata_testkit::config(dir);
    config.server.block_cache_bytes = 0;
    config.server.row_cache_bytes = 0;
    Single::start_with(config).unwrap()
}

/// Creates the table and returns its one region's id, with rows `cold*` flushed to a store
/// file and rows `hot*` in the memtable.
async fn table_with_cold_and_hot_rows(addr: SocketAddr, single: &Single) -> u64 {
    let mut master = open(addr, "MasterService", None).await;
    let _: pb::ProcedureResponse = call(
        &mut master,
        "CreateTable",
        &pb::CreateTableRequest {
            table_schema: pb::TableSchema {
                table_name: Some(pb::TableName {
                    namespace: Bytes::from_static(b"default"),
                    qualifier: Bytes::from_static(TABLE.as_bytes()),
                }),
                column_families: vec![pb::ColumnFamilySchema {
                    name: Bytes::from_static(b"f"),
                    ..pb::ColumnFamilySchema::default()
                }],
                ..pb::TableSchema::default()
            },
            ..pb::CreateTableRequest::default()
        },
    )
    .await;
    let server = single.region_server().clone();
    let id = server
        .region_for(TABLE, b"")
        .expect("the table's region is open")
        .region
        .info()
        .region_id;
    let mut client = open(addr, "ClientService", Some(KV_CODEC)).await;
    for i in 0..10 {
        let _: pb::MutateResponse = call(
            &mut client,
            "Mutate",
            &mutate(id, &format!("cold{i}"), &format!("c{i}")),
        )
        .await;
    }
    let mut admin = open(addr, "AdminService", None).await;
    let _: pb::FlushRegionResponse = call(
        &mut admin,
        "FlushRegion",
        &pb::FlushRegionRequest {
            region: spec(id),
            ..pb::FlushRegionRequest::default()
        },
    )
    .await;
    for i in 0..10 {
        let _: pb::MutateResponse = call(
            &mut client,
            "Mutate",
            &mutate(id, &format!("hot{i}"), &format!("h{i}")),
        )
        .await;
    }
    // Plain puts on a local WAL with nothing else in flight are applied on the listener's
    // worker (RFC 0013 Decision 10), their answers as the usual path's.
    let in_place = server
        .counters()
        .writes_in_place
        .load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(in_place, 20);
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_calls_get_their_replies_and_ready_ones_do_not_wait() {
    let dir = tempfile::tempdir().unwrap();
    let single = start(dir.path());
    let addr = single.hbase_rpc();
    tokio::time::timeout(Duration::from_secs(60), async {
        let id = table_with_cold_and_hot_rows(addr, &single).await;
        let slow = multi(
            id,
            (0..SLOW_PUTS)
                .map(|i| action(i, None, Some(put(&format!("slow{i:04}"), "s"))))
                .collect(),
        );
        let gets = multi(
            id,
            vec![
                action(0, Some(get_of("hot1")), None),
                action(1, Some(get_of("cold2")), None),
                action(2, Some(get_of("absent")), None),
            ],
        );
        // Every call in one write, the slow one first; ids out of order on purpose.
        let mut pipeline = BytesMut::new();
        pipeline.extend_from_slice(&encode_request(70, "Multi", &slow, &[]));
        pipeline.extend_from_slice(&encode_request(71, "Get", &get(id, "hot3"), &[]));
        pipeline.extend_from_slice(&encode_request(12, "Get", &get(id, "cold4"), &[]));
        pipeline.extend_from_slice(&encode_request(9, "Mutate", &mutate(id, "new", "n"), &[]));
        pipeline.extend_from_slice(&encode_request(13, "Multi", &gets, &[]));
        pipeline.extend_from_slice(&encode_request(14, "Get", &get(id, "absent"), &[]));
        let mut client = open(addr, "ClientService", Some(KV_CODEC)).await;
        client.write_all(&pipeline).await.unwrap();

        let mut order = Vec::new();
        let mut replies = HashMap::new();
        for _ in 0..6 {
            let reply = next_reply(&mut client).await;
            let call_id = reply.0.call_id();
            assert!(
                reply.0.exception.is_none(),
                "#{call_id}: {:?}",
                reply.0.exception
            );
            order.push(call_id);
            assert!(
                replies.insert(call_id, reply).is_none(),
                "two replies for #{call_id}"
            );
        }
        let mut ids = order.clone();
        ids.sort_unstable();
        assert_eq!(
            ids,
            [9, 12, 13, 14, 70, 71],
            "one reply per call, by its id"
        );
        let at = |id: u32| order.iter().position(|&o| o == id).unwrap();
        assert!(
            at(71) < at(70),
            "the cached get is answered before the slow multi sent ahead of it: {order:?}"
        );

        let slow = pb::MultiResponse::decode(replies[&70].1.clone()).unwrap();
        let results = &slow.region_action_result[0].result_or_exception;
        assert_eq!(results.len(), SLOW_PUTS);
        assert!(results.iter().all(|r| r.exception.is_none()));
        assert_eq!(values(&replies[&71]), ["h3"]);
        assert_eq!(values(&replies[&12]), ["c4"]);
        let put = pb::MutateResponse::decode(replies[&9].1.clone()).unwrap();
        assert_eq!(put.processed, Some(true));
        let multi_gets = pb::MultiResponse::decode(replies[&13].1.clone()).unwrap();
        let counts: Vec<i32> = multi_gets.region_action_result[0]
            .result_or_exception
            .iter()
            .map(|r| r.result.as_ref().unwrap().associated_cell_count())
            .collect();
        assert_eq!(counts, [1, 1, 0]);
        assert_eq!(values(&replies[&13]), ["h1", "c2"]);
        let absent = pb::GetResponse::decode(replies[&14].1.clone()).unwrap();
        assert_eq!(absent.result.unwrap().associated_cell_count(), 0);
        assert!(values(&replies[&14]).is_empty());

        // The writes of the pipeline are all there.
        let check: pb::GetResponse = call(&mut client, "Get", &get(id, "new")).await;
        assert_eq!(check.result.unwrap().associated_cell_count(), 1);
        let last = format!("slow{:04}", SLOW_PUTS - 1);
        let check: pb::GetResponse = call(&mut client, "Get", &get(id, &last)).await;
        assert_eq!(check.result.unwrap().associated_cell_count(), 1);
    })
    .await
    .expect("the pipeline is answered in time");
    single.stop().unwrap();
}
