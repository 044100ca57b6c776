//! The HBase RPC listener over real sockets, as a raw client: the registry, a table's life,
//! writes and reads, scanners, and every kind of bad input (each answered with a clear
//! exception or a closed connection, changing nothing, other connections unaffected).
#![allow(missing_docs, clippy::unwrap_used)]

mod wire_support;

use bytes::{Bytes, BytesMut};
use prost::Message;
use strata_hbase_rpc::cellblock::{self, Codec};
use strata_hbase_rpc::frame::{self, encode_request};
use strata_hbase_rpc::{pb, HBaseRpcConfig};
use strata_model::cell::{Cell, CellType};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use wire_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registry_meta_and_data_round_trip() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    let mut registry = Conn::open(addr, "ClientMetaService", None).await;
    let id: pb::GetClusterIdResponse = registry.call("GetClusterId", &pb::Empty {}).await;
    let expected = strata_cluster_node::hbase::cluster_id(&strata_cluster::layout::Layout::new(
        strata_cluster_node::single::CLUSTER,
    ));
    assert_eq!(id.cluster_id, Some(expected));
    let meta: pb::GetMetaRegionLocationsResponse =
        registry.call("GetMetaRegionLocations", &pb::Empty {}).await;
    assert_eq!(
        meta.meta_locations[0].server_name.as_ref().unwrap().port,
        Some(u32::from(addr.port()))
    );

    create_table(addr, "t").await;
    let mut client = Conn::open(addr, "ClientService", Some(KV_CODEC)).await;
    let id = only_region(addr, "t").await;

    // A put with cells in the protobuf, a put with cells in a cell block, then a get.
    let _: pb::MutateResponse = client
        .call(
            "Mutate",
            &pb::MutateRequest {
                region: region("t", b"", id),
                mutation: put("a", "1"),
                condition: None,
                nonce_group: None,
            },
        )
        .await;
    let mut block = BytesMut::new();
    let cell = Cell {
        row: Bytes::from_static(b"b"),
        family: Bytes::from_static(b"f"),
        qualifier: Bytes::from_static(b"q"),
        timestamp: 7,
        cell_type: CellType::Put,
        seq: 0,
        value: Bytes::from_static(b"2"),
        ttl: None,
    };
    cellblock::encode(Codec::KeyValue, std::slice::from_ref(&cell), &mut block);
    let (header, _, _) = client
        .call_with(
            "Mutate",
            &pb::MutateRequest {
                region: region("t", b"", id),
                mutation: pb::MutationProto {
                    row: Some(Bytes::from_static(b"b")),
                    mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
                    associated_cell_count: Some(1),
                    ..pb::MutationProto::default()
                },
                condition: None,
                nonce_group: None,
            },
            &block,
        )
        .await;
    assert!(header.exception.is_none(), "{:?}", header.exception);
    let (_, message, block) = client.call_with("Get", &get("t", id, "b"), &[]).await;
    let result = pb::GetResponse::decode(message).unwrap().result.unwrap();
    assert_eq!(result.associated_cell_count, Some(1));
    assert_eq!(
        cellblock::decode(Codec::KeyValue, &block).unwrap()[0].value,
        cell.value
    );

    // A scanner: open with one row, next, then the region is exhausted and the scanner gone.
    let open: pb::ScanResponse = client
        .call(
            "Scan",
            &pb::ScanRequest {
                region: Some(region("t", b"", id)),
                scan: Some(pb::Scan::default()),
                number_of_rows: Some(1),
                ..pb::ScanRequest::default()
            },
        )
        .await;
    assert_eq!(open.cells_per_result, vec![1]);
    assert_eq!(open.more_results_in_region, Some(true));
    let scanner = open.scanner_id.unwrap();
    let next: pb::ScanResponse = client
        .call(
            "Scan",
            &pb::ScanRequest {
                scanner_id: Some(scanner),
                number_of_rows: Some(10),
                next_call_seq: Some(0),
                ..pb::ScanRequest::default()
            },
        )
        .await;
    assert_eq!(next.cells_per_result, vec![1]);
    assert_eq!(next.more_results_in_region, Some(false));
    let gone = client
        .exception(
            "Scan",
            &pb::ScanRequest {
                scanner_id: Some(scanner),
                number_of_rows: Some(10),
                next_call_seq: Some(1),
                ..pb::ScanRequest::default()
            },
            &[],
        )
        .await;
    assert_eq!(gone, "org.apache.hadoop.hbase.UnknownScannerException");
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_and_changes_nothing() {
    let c = cluster(4096).await;
    let addr = c.rpc.addr();
    create_table(addr, "t").await;
    let mut client = Conn::open(addr, "ClientService", Some(KV_CODEC)).await;
    let id = only_region(addr, "t").await;

    // Preamble: wrong magic, wrong version, unknown auth: a fatal exception, then closed.
    for preamble in [&b"GET / "[..], b"HBas\x01\x50", b"HBas\x00\x52"] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(preamble).await.unwrap();
        assert_eq!(
            closing_reply(&mut s).await.as_deref(),
            Some("org.apache.hadoop.hbase.ipc.FatalConnectionException"),
            "{preamble:?}"
        );
    }
    // An unknown service, an unknown codec.
    let mut s = Conn::open(addr, "NoSuchService", None).await;
    assert_eq!(
        closing_reply(&mut s.stream).await.as_deref(),
        Some("org.apache.hadoop.hbase.ipc.UnknownServiceException")
    );
    let mut s = Conn::open(addr, "ClientService", Some("com.example.Codec")).await;
    assert_eq!(
        closing_reply(&mut s.stream).await.as_deref(),
        Some("org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException")
    );
    // An unknown method.
    let e = client.exception("Nope", &pb::Empty {}, &[]).await;
    assert_eq!(e, "org.apache.hadoop.hbase.DoNotRetryIOException");
    // A bogus cell block: refused, nothing written.
    let bogus = [0u8, 0, 0, 40, 1, 2, 3];
    let e = client
        .exception(
            "Mutate",
            &pb::MutateRequest {
                region: region("t", b"", id),
                mutation: pb::MutationProto {
                    row: Some(Bytes::from_static(b"x")),
                    mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
                    associated_cell_count: Some(1),
                    ..pb::MutationProto::default()
                },
                condition: None,
                nonce_group: None,
            },
            &bogus,
        )
        .await;
    assert_eq!(e, "org.apache.hadoop.hbase.DoNotRetryIOException");
    let found: pb::GetResponse = client.call("Get", &get("t", id, "x")).await;
    assert_eq!(found.result.unwrap().associated_cell_count, Some(0));
    // A scanner that never existed; a region that does not exist.
    let e = client
        .exception(
            "Scan",
            &pb::ScanRequest {
                scanner_id: Some(987_654),
                number_of_rows: Some(1),
                ..pb::ScanRequest::default()
            },
            &[],
        )
        .await;
    assert_eq!(e, "org.apache.hadoop.hbase.UnknownScannerException");
    let e = client.exception("Get", &get("t", 999, "x"), &[]).await;
    assert_eq!(e, "org.apache.hadoop.hbase.NotServingRegionException");

    // A frame over the limit closes that connection only.
    let mut big = Conn::open(addr, "ClientService", Some(KV_CODEC)).await;
    big.stream
        .write_all(&(1u32 << 20).to_be_bytes())
        .await
        .unwrap();
    assert_eq!(
        closing_reply(&mut big.stream).await.as_deref(),
        Some("org.apache.hadoop.hbase.ipc.FatalConnectionException")
    );
    // A truncated frame (the client goes away mid-call) ends only that connection.
    let mut cut = Conn::open(addr, "ClientService", Some(KV_CODEC)).await;
    let call = encode_request(1, "Get", &get("t", id, "x"), &[]);
    cut.stream.write_all(&call[..call.len() - 2]).await.unwrap();
    drop(cut);
    // The first connection still works.
    let found: pb::GetResponse = client.call("Get", &get("t", id, "x")).await;
    assert!(found.result.is_some());
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_rows_come_back_as_partial_results() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    create_table(addr, "t").await;
    let id = only_region(addr, "t").await;
    let mut client = Conn::open(addr, "ClientService", None).await;
    // Row "w": 20 cells of 100 bytes; row "x": one small cell.
    let wide = pb::MutationProto {
        row: Some(Bytes::from_static(b"w")),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier_value: (0..20)
                .map(|i| pb::mutation_proto::column_value::QualifierValue {
                    qualifier: Some(Bytes::from(format!("q{i:02}"))),
                    value: Some(Bytes::from(vec![b'v'; 100])),
                    timestamp: Some(5),
                    ..Default::default()
                })
                .collect(),
        }],
        ..pb::MutationProto::default()
    };
    for m in [wide, put("x", "1")] {
        let _: pb::MutateResponse = client
            .call(
                "Mutate",
                &pb::MutateRequest {
                    region: region("t", b"", id),
                    mutation: m,
                    condition: None,
                    nonce_group: None,
                },
            )
            .await;
    }
    let scan = pb::Scan {
        max_result_size: Some(500),
        ..pb::Scan::default()
    };
    let responses = scan_all(&mut client, id, scan, 100).await;
    let results: Vec<&pb::Result> = responses.iter().flat_map(|r| &r.results).collect();
    // The wide row in several pieces, each partial but its last, then row "x" whole.
    assert!(results.len() > 3, "{} results", results.len());
    let (last, pieces) = results.split_last().unwrap();
    assert_eq!(last.cell[0].row.as_deref(), Some(&b"x"[..]));
    assert_ne!(last.partial, Some(true));
    let (end, partial) = pieces.split_last().unwrap();
    assert!(partial.iter().all(|r| r.partial == Some(true)));
    assert_ne!(end.partial, Some(true));
    let qualifiers: Vec<Bytes> = pieces
        .iter()
        .flat_map(|r| &r.cell)
        .map(|c| c.qualifier.clone().unwrap())
        .collect();
    let expected: Vec<Bytes> = (0..20).map(|i| Bytes::from(format!("q{i:02}"))).collect();
    assert_eq!(qualifiers, expected);
    // No response carries more than one piece of the wide row past the limit.
    for r in &responses {
        let bytes: usize = r
            .results
            .iter()
            .flat_map(|x| &x.cell)
            .map(|c| c.value.as_ref().map_or(0, Bytes::len))
            .sum();
        assert!(bytes <= 600, "{bytes} bytes in one response");
    }
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_skipping_many_rows_answers_with_heartbeats() {
    // A zero time limit: every call that skips a row answers at once.
    let c = cluster_with(HBaseRpcConfig {
        scan_time_limit: std::time::Duration::ZERO,
        ..HBaseRpcConfig::default()
    })
    .await;
    let addr = c.rpc.addr();
    create_table(addr, "t").await;
    let id = only_region(addr, "t").await;
    let mut client = Conn::open(addr, "ClientService", Some(KV_CODEC)).await;
    for i in 0..50 {
        let _: pb::MutateResponse = client
            .call(
                "Mutate",
                &pb::MutateRequest {
                    region: region("t", b"", id),
                    mutation: put(&format!("r{i:02}"), if i >= 40 { "m" } else { "v" }),
                    condition: None,
                    nonce_group: None,
                },
            )
            .await;
    }
    // Rows whose f:q is "m" (r40..r49): a value filter cannot seek, it reads every row.
    let comparator = pb::BinaryComparator {
        comparable: pb::ByteArrayComparable {
            value: Some(Bytes::from_static(b"m")),
        },
    };
    let filter = pb::SingleColumnValueFilter {
        column_family: Some(Bytes::from_static(b"f")),
        column_qualifier: Some(Bytes::from_static(b"q")),
        compare_op: 2,
        comparator: pb::Comparator {
            name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
            serialized_comparator: Some(comparator.encode_to_vec().into()),
        },
        filter_if_missing: Some(true),
        latest_version_only: Some(true),
    };
    let scan = pb::Scan {
        filter: Some(pb::Filter {
            name: "org.apache.hadoop.hbase.filter.SingleColumnValueFilter".into(),
            serialized_filter: Some(filter.encode_to_vec().into()),
        }),
        ..pb::Scan::default()
    };
    let responses = scan_all(&mut client, id, scan.clone(), 100).await;
    let heartbeats = responses
        .iter()
        .filter(|r| r.heartbeat_message == Some(true))
        .count();
    assert!(heartbeats >= 30, "{heartbeats} heartbeats");
    for r in responses
        .iter()
        .filter(|r| r.heartbeat_message == Some(true))
    {
        assert_eq!(r.more_results_in_region, Some(true));
    }
    let rows: u32 = responses.iter().flat_map(|r| &r.cells_per_result).sum();
    assert_eq!(rows, 10, "r40..r49, one cell each");
    // Without heartbeats the same scan answers in one call.
    let mut plain = Conn::open(addr, "ClientService", Some(KV_CODEC)).await;
    let resp: pb::ScanResponse = plain
        .call(
            "Scan",
            &pb::ScanRequest {
                region: Some(region("t", b"", id)),
                scan: Some(scan),
                number_of_rows: Some(100),
                ..pb::ScanRequest::default()
            },
        )
        .await;
    assert_eq!(resp.cells_per_result.len(), 10);
    assert_ne!(resp.heartbeat_message, Some(true));
    c.stop().await;
}

#[test]
fn request_frames_carry_the_method() {
    let framed = encode_request(3, "Get", &pb::Empty {}, &[]);
    let call = frame::decode_call(framed.slice(4..)).unwrap();
    assert_eq!(call.header.method_name(), "Get");
}

/// With a slow threshold of zero every client call is slow: each is logged and kept for the
/// web UI's slow-operation page with its operation, table and first row (HBase's
/// `responseTooSlow`), whichever path answered it (a put applied in place, a multi on a
/// blocking thread, a get answered in place, a scan); admin calls are not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_calls_reach_the_slow_operation_log() {
    use strata_server::observe::Op;
    let c = cluster_configured(
        HBaseRpcConfig {
            max_frame_bytes: HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES,
            ..HBaseRpcConfig::default()
        },
        |config| config.server.slow_op_threshold = std::time::Duration::ZERO,
    )
    .await;
    let addr = c.rpc.addr();
    create_table(addr, "slow").await;
    let id = only_region(addr, "slow").await;
    let observer = c.single.region_server().observer();
    let before = observer.slow_ops().len();
    let mut client = Conn::open(addr, "ClientService", Some(KV_CODEC)).await;
    let _: pb::MutateResponse = client
        .call(
            "Mutate",
            &pb::MutateRequest {
                region: region("slow", b"", id),
                mutation: put("row-1", "1"),
                condition: None,
                nonce_group: None,
            },
        )
        .await;
    let actions = ["row-2", "row-3"]
        .iter()
        .enumerate()
        .map(|(i, row)| pb::Action {
            index: Some(i as u32),
            mutation: Some(put(row, "2")),
            get: None,
        })
        .collect();
    let _: pb::MultiResponse = client
        .call(
            "Multi",
            &pb::MultiRequest {
                region_action: vec![pb::RegionAction {
                    region: region("slow", b"", id),
                    atomic: None,
                    action: actions,
                    condition: None,
                }],
                nonce_group: None,
                condition: None,
            },
        )
        .await;
    let _: pb::GetResponse = client.call("Get", &get("slow", id, "row-3")).await;
    // A get of a region the server does not have fails, and is logged as failed.
    let refused = client
        .exception("Get", &get("slow", id + 1000, "row-9"), &[])
        .await;
    assert!(refused.contains("NotServingRegion"), "{refused}");

    let ops = observer.slow_ops();
    let ours: Vec<_> = ops[..ops.len() - before]
        .iter()
        .rev()
        .map(|s| (s.op, s.table.as_str(), s.row.as_str(), s.ok))
        .collect();
    assert_eq!(
        ours,
        vec![
            (Op::Mutate, "slow", "row-1", true),
            (Op::Batch, "slow", "row-2", true),
            (Op::Get, "slow", "row-3", true),
            (Op::Get, "slow", "row-9", false),
        ]
    );
    assert!(ops.iter().all(|s| s.request_bytes > 0));
    c.stop().await;
}
