//! The HBase RPC listener over real sockets, as a raw client: the registry, a table's life,
//! writes and reads, scanners, and every kind of bad input (each answered with a clear
//! exception or a closed connection, changing nothing, other connections unaffected).
#![allow(missing_docs, clippy::unwrap_used)]

use std::net::SocketAddr;

use bytes::{Bytes, BytesMut};
use prost::Message;
use strata_hbase_rpc::cellblock::{self, Codec};
use strata_hbase_rpc::frame::{self, decode_reply, encode_request, read_frame};
use strata_hbase_rpc::region_name::region_name;
use strata_hbase_rpc::{pb, HBaseRpcConfig};
use strata_model::cell::{Cell, CellType};
use strata_testkit::Single;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const KV_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";

struct Cluster {
    _dir: tempfile::TempDir,
    single: Single,
    rpc: Rpc,
}

/// The listener's address, as the tests spell it.
struct Rpc(SocketAddr);

impl Rpc {
    fn addr(&self) -> SocketAddr {
        self.0
    }
}

async fn cluster(max_frame_bytes: usize) -> Cluster {
    cluster_with(HBaseRpcConfig {
        max_frame_bytes,
        ..HBaseRpcConfig::default()
    })
    .await
}

async fn cluster_with(rpc_config: HBaseRpcConfig) -> Cluster {
    let dir = tempfile::tempdir().unwrap();
    let mut config = strata_testkit::config(dir.path());
    config.endpoints.hbase_rpc_max_frame_bytes = Some(rpc_config.max_frame_bytes);
    config.endpoints.hbase_rpc_scan_time_limit = Some(rpc_config.scan_time_limit);
    let single = Single::start_with(config).unwrap();
    let rpc = Rpc(single.hbase_rpc());
    Cluster {
        _dir: dir,
        single,
        rpc,
    }
}

impl Cluster {
    async fn stop(self) {
        self.single.stop().unwrap();
    }
}

struct Conn {
    stream: TcpStream,
    next_id: u32,
}

/// A reply: header, message bytes, cell block.
type Reply = (pb::ResponseHeader, Bytes, Bytes);

impl Conn {
    async fn open(addr: SocketAddr, service: &str, codec: Option<&str>) -> Conn {
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
        Conn { stream, next_id: 1 }
    }

    async fn call_with(&mut self, method: &str, param: &impl Message, block: &[u8]) -> Reply {
        let id = self.next_id;
        self.next_id += 1;
        self.stream
            .write_all(&encode_request(id, method, param, block))
            .await
            .unwrap();
        let frame = read_frame(&mut self.stream, 1 << 30)
            .await
            .unwrap()
            .unwrap();
        let reply = decode_reply(frame).unwrap();
        assert_eq!(reply.0.call_id(), id);
        reply
    }

    async fn call<R: Message + Default>(&mut self, method: &str, param: &impl Message) -> R {
        let (header, message, _) = self.call_with(method, param, &[]).await;
        assert!(
            header.exception.is_none(),
            "{method}: {:?}",
            header.exception
        );
        R::decode(message).unwrap()
    }

    async fn exception(&mut self, method: &str, param: &impl Message, block: &[u8]) -> String {
        let (header, _, _) = self.call_with(method, param, block).await;
        header
            .exception
            .and_then(|e| e.exception_class_name)
            .unwrap_or_else(|| panic!("{method}: no exception"))
    }
}

/// Reads until the server closes; returns the exception class of a reply, if one came.
async fn closing_reply(stream: &mut TcpStream) -> Option<String> {
    let mut all = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_to_end(&mut all),
    )
    .await
    .expect("the server closes the connection");
    if all.len() < 4 {
        return None;
    }
    let (header, _, _) = decode_reply(Bytes::copy_from_slice(&all[4..])).unwrap();
    header.exception.and_then(|e| e.exception_class_name)
}

fn table(name: &str) -> pb::TableName {
    pb::TableName {
        namespace: Bytes::from_static(b"default"),
        qualifier: Bytes::copy_from_slice(name.as_bytes()),
    }
}

fn region(table: &str, start: &[u8], id: u64) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: 1,
        value: region_name(table, start, id),
    }
}

async fn create_table(addr: SocketAddr, name: &str) {
    let mut master = Conn::open(addr, "MasterService", None).await;
    let _: pb::ProcedureResponse = master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: pb::TableSchema {
                    table_name: Some(table(name)),
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

/// The id of the one region of a single-region table, from meta (read on a connection
/// without a codec, so cells come inside the protobuf).
async fn only_region(addr: SocketAddr, name: &str) -> u64 {
    let mut client = Conn::open(addr, "ClientService", None).await;
    let resp: pb::ScanResponse = client
        .call(
            "Scan",
            &pb::ScanRequest {
                region: Some(pb::RegionSpecifier {
                    r#type: 1,
                    value: Bytes::from_static(b"hbase:meta,,1"),
                }),
                scan: Some(pb::Scan {
                    start_row: Some(Bytes::from(format!("{name},,"))),
                    stop_row: Some(Bytes::from(format!("{name},~"))),
                    ..pb::Scan::default()
                }),
                number_of_rows: Some(10),
                ..pb::ScanRequest::default()
            },
        )
        .await;
    let cells = &resp.results[0].cell;
    let info = cells
        .iter()
        .find(|c| c.qualifier.as_deref() == Some(&b"regioninfo"[..]))
        .unwrap();
    let value = info.value.clone().unwrap();
    assert!(value.starts_with(b"PBUF"));
    pb::RegionInfo::decode(&value[4..]).unwrap().region_id
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
                timestamp: Some(5),
                ..Default::default()
            }],
        }],
        ..pb::MutationProto::default()
    }
}

fn get(name: &str, id: u64, row: &str) -> pb::GetRequest {
    pb::GetRequest {
        region: region(name, b"", id),
        get: pb::Get {
            row: Bytes::copy_from_slice(row.as_bytes()),
            ..pb::Get::default()
        },
    }
}

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

/// Opens a scanner on region `id` of `t` and reads it to its end, `rows` per call; returns
/// every response.
async fn scan_all(client: &mut Conn, id: u64, scan: pb::Scan, rows: u32) -> Vec<pb::ScanResponse> {
    let open = pb::ScanRequest {
        region: Some(region("t", b"", id)),
        scan: Some(scan),
        number_of_rows: Some(rows),
        client_handles_partials: Some(true),
        client_handles_heartbeats: Some(true),
        ..pb::ScanRequest::default()
    };
    let mut resp: pb::ScanResponse = client.call("Scan", &open).await;
    let scanner = resp.scanner_id.unwrap();
    let mut out = Vec::new();
    let mut seq = 0;
    while resp.more_results_in_region == Some(true) {
        out.push(resp);
        assert!(out.len() < 1000, "the scan does not end");
        resp = client
            .call(
                "Scan",
                &pb::ScanRequest {
                    scanner_id: Some(scanner),
                    number_of_rows: Some(rows),
                    next_call_seq: Some(seq),
                    client_handles_partials: Some(true),
                    client_handles_heartbeats: Some(true),
                    ..pb::ScanRequest::default()
                },
            )
            .await;
        seq += 1;
    }
    out.push(resp);
    out
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

/// The serving regions of `name`: (start row, id), by start row.
fn serving(c: &Cluster, name: &str) -> Vec<(Bytes, u64)> {
    let mut out: Vec<(Bytes, u64)> = c
        .single
        .region_server()
        .hosted_regions()
        .iter()
        .map(|h| h.region.info())
        .filter(|info| info.table == name)
        .map(|info| (info.start_row.clone(), info.region_id))
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merge_table_regions_by_encoded_name() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    let mut master = Conn::open(addr, "MasterService", None).await;
    let _: pb::ProcedureResponse = master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: pb::TableSchema {
                    table_name: Some(table("mt")),
                    column_families: vec![pb::ColumnFamilySchema {
                        name: Bytes::from_static(b"f"),
                        ..pb::ColumnFamilySchema::default()
                    }],
                    ..pb::TableSchema::default()
                },
                split_keys: vec![Bytes::from_static(b"g"), Bytes::from_static(b"p")],
                nonce_group: None,
                nonce: None,
            },
        )
        .await;
    let regions = serving(&c, "mt");
    assert_eq!(regions.len(), 3);
    // What `Admin.mergeRegionsAsync` sends: the regions' encoded names.
    let encoded = |(start, id): &(Bytes, u64)| {
        let name = region_name("mt", start, *id);
        let text = std::str::from_utf8(&name).unwrap();
        let enc = text.trim_end_matches('.').rsplit('.').next().unwrap();
        pb::RegionSpecifier {
            r#type: 2,
            value: Bytes::copy_from_slice(enc.as_bytes()),
        }
    };
    let merge =
        |specs: Vec<pb::RegionSpecifier>, forcible: Option<bool>| pb::MergeTableRegionsRequest {
            region: specs,
            forcible,
            nonce_group: None,
            nonce: None,
        };
    // Refused, nothing changed: one region, regions not adjacent, forcible, unknown.
    for (req, want) in [
        (merge(vec![encoded(&regions[0])], None), "two regions"),
        (
            merge(vec![encoded(&regions[0]), encoded(&regions[2])], None),
            "adjacent",
        ),
        (
            merge(vec![encoded(&regions[0]), encoded(&regions[1])], Some(true)),
            "forcible",
        ),
        (
            merge(
                vec![
                    encoded(&regions[0]),
                    pb::RegionSpecifier {
                        r#type: 2,
                        value: Bytes::from_static(b"0123456789abcdef0123456789abcdef"),
                    },
                ],
                None,
            ),
            "no region",
        ),
    ] {
        let (header, _, _) = master.call_with("MergeTableRegions", &req, &[]).await;
        let e = format!("{:?}", header.exception.expect("an exception"));
        assert!(e.contains(want), "{e}");
    }
    assert_eq!(serving(&c, "mt"), regions);
    // The upper two, by encoded name, then the rest by full name.
    let _: pb::ProcedureResponse = master
        .call(
            "MergeTableRegions",
            &merge(vec![encoded(&regions[2]), encoded(&regions[1])], None),
        )
        .await;
    let two = serving(&c, "mt");
    assert_eq!(two.len(), 2, "{two:?}");
    assert_eq!(two[1].0, Bytes::from_static(b"g"));
    let by_name = |(start, id): &(Bytes, u64)| region("mt", start, *id);
    let _: pb::ProcedureResponse = master
        .call(
            "MergeTableRegions",
            &merge(vec![by_name(&two[0]), by_name(&two[1])], None),
        )
        .await;
    assert_eq!(serving(&c, "mt").len(), 1);
    c.stop().await;
}

/// `Scan.setRaw(true)` (the `_raw_` attribute): the delete marker comes back before the put it
/// masks, typed with HBase's code, as `RawScanQueryMatcher` returns them; the same scan without
/// the attribute sees nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_scans_return_typed_delete_markers() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    create_table(addr, "t").await;
    let id = only_region(addr, "t").await;
    let mut client = Conn::open(addr, "ClientService", None).await;
    let delete = pb::MutationProto {
        row: Some(Bytes::from_static(b"r")),
        mutate_type: Some(pb::mutation_proto::MutationType::Delete as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(Bytes::from_static(b"q")),
                timestamp: Some(5),
                delete_type: Some(pb::mutation_proto::DeleteType::DeleteOneVersion as i32),
                ..Default::default()
            }],
        }],
        ..pb::MutationProto::default()
    };
    for m in [put("r", "v"), delete] {
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
    let cells = |responses: Vec<pb::ScanResponse>| -> Vec<(i32, u64)> {
        responses
            .iter()
            .flat_map(|r| &r.results)
            .flat_map(|r| &r.cell)
            .map(|c| (c.cell_type.unwrap(), c.timestamp.unwrap()))
            .collect()
    };
    let raw = pb::Scan {
        attribute: vec![pb::NameBytesPair {
            name: "_raw_".into(),
            value: Some(Bytes::from_static(&[0xFF])),
        }],
        ..pb::Scan::default()
    };
    let got = cells(scan_all(&mut client, id, raw, 100).await);
    assert_eq!(
        got,
        [
            (i32::from(CellType::Delete.code()), 5),
            (i32::from(CellType::Put.code()), 5)
        ]
    );
    assert!(cells(scan_all(&mut client, id, pb::Scan::default(), 100).await).is_empty());
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn region_loads_name_patterns_and_disabled_tables() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    create_table(addr, "rl_one").await;
    create_table(addr, "rl_two").await;

    // GetRegionLoad: the regions open here, of one table or of all.
    let mut admin = Conn::open(addr, "AdminService", None).await;
    let one: pb::GetRegionLoadResponse = admin
        .call(
            "GetRegionLoad",
            &pb::GetRegionLoadRequest {
                table_name: Some(table("rl_one")),
            },
        )
        .await;
    assert_eq!(one.region_loads.len(), 1);
    let load = &one.region_loads[0];
    assert!(load.region_specifier.value.starts_with(b"rl_one,"));
    assert_eq!((load.stores, load.storefiles), (Some(1), Some(0)));
    let all: pb::GetRegionLoadResponse = admin
        .call(
            "GetRegionLoad",
            &pb::GetRegionLoadRequest { table_name: None },
        )
        .await;
    assert_eq!(all.region_loads.len(), 2);

    // GetTableNames with a pattern: whole names, also as `default:t`; a pattern the regex
    // crate cannot read is refused.
    let mut master = Conn::open(addr, "MasterService", None).await;
    let names = |regex: &str| pb::GetTableNamesRequest {
        regex: Some(regex.into()),
        include_sys_tables: None,
        namespace: None,
    };
    let got: pb::GetTableNamesResponse = master.call("GetTableNames", &names("rl_t.*")).await;
    assert_eq!(got.table_names, vec![table("rl_two")]);
    let got: pb::GetTableNamesResponse = master
        .call("GetTableNames", &names("default:rl_(one|two)"))
        .await;
    assert_eq!(got.table_names.len(), 2);
    let got: pb::GetTableNamesResponse = master.call("GetTableNames", &names("one")).await;
    assert!(got.table_names.is_empty());
    assert_eq!(
        master
            .exception("GetTableNames", &names("(r)\\1"), &[])
            .await,
        "org.apache.hadoop.hbase.DoNotRetryIOException"
    );

    // A disabled table's region stays in meta with a server, CLOSED; a request to it is
    // NotServingRegionException (the client then finds the table disabled).
    let id = only_region(addr, "rl_one").await;
    let _: pb::ProcedureResponse = master
        .call(
            "DisableTable",
            &pb::TableNameRequest {
                table_name: table("rl_one"),
                ..pb::TableNameRequest::default()
            },
        )
        .await;
    assert_eq!(only_region(addr, "rl_one").await, id);
    let mut client = Conn::open(addr, "ClientService", None).await;
    let get = pb::GetRequest {
        region: region("rl_one", b"", id),
        get: pb::Get {
            row: Bytes::from_static(b"r"),
            ..pb::Get::default()
        },
    };
    assert_eq!(
        client.exception("Get", &get, &[]).await,
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
    c.stop().await;
}

/// `ClearRegionBlockCache` (what `Admin.clearBlockCache(table)` sends each server): the named
/// regions' cached blocks leave the block cache and are counted; a region not open here is an
/// exception in the answer, not a failed call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_region_block_cache_counts_what_left_the_cache() {
    let c = cluster(HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES).await;
    let addr = c.rpc.addr();
    create_table(addr, "bc").await;
    let id = only_region(addr, "bc").await;
    let mut client = Conn::open(addr, "ClientService", None).await;
    for i in 0..50 {
        let _: pb::MutateResponse = client
            .call(
                "Mutate",
                &pb::MutateRequest {
                    region: region("bc", b"", id),
                    mutation: put(&format!("r{i:02}"), &"v".repeat(200)),
                    condition: None,
                    nonce_group: None,
                },
            )
            .await;
    }
    let mut admin = Conn::open(addr, "AdminService", None).await;
    let _: pb::FlushRegionResponse = admin
        .call(
            "FlushRegion",
            &pb::FlushRegionRequest {
                region: region("bc", b"", id),
                if_older_than_ts: None,
                write_flush_wal_marker: None,
            },
        )
        .await;
    let got: pb::GetResponse = client.call("Get", &get("bc", id, "r07")).await;
    assert!(got.result.is_some());
    let cache = c.single.region_server().block_cache().unwrap().clone();
    let before = cache.stats();

    let clear =
        |regions: Vec<pb::RegionSpecifier>| pb::ClearRegionBlockCacheRequest { region: regions };
    let answer: pb::ClearRegionBlockCacheResponse = admin
        .call(
            "ClearRegionBlockCache",
            &clear(vec![region("bc", b"", id), region("bc", b"", id + 1000)]),
        )
        .await;
    let stats = answer.stats;
    let blocks = u64::try_from(stats.evicted_blocks.unwrap()).unwrap();
    assert!(blocks >= 1, "{stats:?}");
    assert!(stats.bytes_evicted.unwrap() > 0, "{stats:?}");
    assert_eq!(
        u64::try_from(stats.max_cache_size.unwrap()).unwrap(),
        before.capacity
    );
    assert_eq!(cache.stats().entries, before.entries - blocks);
    assert_eq!(stats.exception.len(), 1, "{stats:?}");
    assert_eq!(stats.exception[0].region, region("bc", b"", id + 1000));
    assert_eq!(
        stats.exception[0].exception.name,
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
    // Nothing cached since: nothing left to evict.
    let again: pb::ClearRegionBlockCacheResponse = admin
        .call("ClearRegionBlockCache", &clear(vec![region("bc", b"", id)]))
        .await;
    assert_eq!(again.stats.evicted_blocks, Some(0));
    c.stop().await;
}
