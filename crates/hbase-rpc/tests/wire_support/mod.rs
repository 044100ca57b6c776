//! What the HBase RPC wire tests share: a one-process Strata with its HBase RPC listener, a
//! raw client connection, and the requests the tests send.
#![allow(dead_code, missing_docs, clippy::unwrap_used)]

use std::net::SocketAddr;

use bytes::Bytes;
use prost::Message;
use strata_hbase_rpc::frame::{decode_reply, encode_request, read_frame};
use strata_hbase_rpc::region_name::region_name;
use strata_hbase_rpc::{pb, HBaseRpcConfig};
use strata_testkit::Single;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub const KV_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";

pub struct Cluster {
    pub _dir: tempfile::TempDir,
    pub single: Single,
    pub rpc: Rpc,
}

/// The listener's address, as the tests spell it.
pub struct Rpc(pub SocketAddr);

impl Rpc {
    pub fn addr(&self) -> SocketAddr {
        self.0
    }
}

pub async fn cluster(max_frame_bytes: usize) -> Cluster {
    cluster_with(HBaseRpcConfig {
        max_frame_bytes,
        ..HBaseRpcConfig::default()
    })
    .await
}

pub async fn cluster_with(rpc_config: HBaseRpcConfig) -> Cluster {
    cluster_configured(rpc_config, |_| {}).await
}

/// A cluster whose settings `change` adjusts first.
pub async fn cluster_configured(
    rpc_config: HBaseRpcConfig,
    change: impl FnOnce(&mut strata_cluster_node::single::SingleConfig),
) -> Cluster {
    let dir = tempfile::tempdir().unwrap();
    let mut config = strata_testkit::config(dir.path());
    change(&mut config);
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
    pub async fn stop(self) {
        self.single.stop().unwrap();
    }
}

pub struct Conn {
    pub stream: TcpStream,
    pub next_id: u32,
}

/// A reply: header, message bytes, cell block.
pub type Reply = (pb::ResponseHeader, Bytes, Bytes);

impl Conn {
    pub async fn open(addr: SocketAddr, service: &str, codec: Option<&str>) -> Conn {
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

    pub async fn call_with(&mut self, method: &str, param: &impl Message, block: &[u8]) -> Reply {
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

    pub async fn call<R: Message + Default>(&mut self, method: &str, param: &impl Message) -> R {
        let (header, message, _) = self.call_with(method, param, &[]).await;
        assert!(
            header.exception.is_none(),
            "{method}: {:?}",
            header.exception
        );
        R::decode(message).unwrap()
    }

    pub async fn exception(&mut self, method: &str, param: &impl Message, block: &[u8]) -> String {
        let (header, _, _) = self.call_with(method, param, block).await;
        header
            .exception
            .and_then(|e| e.exception_class_name)
            .unwrap_or_else(|| panic!("{method}: no exception"))
    }
}

/// Reads until the server closes; returns the exception class of a reply, if one came.
pub async fn closing_reply(stream: &mut TcpStream) -> Option<String> {
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

/// HBase's request to create table `name` with one family `f`, unsplit.
pub fn create_table_request(name: &str) -> pb::CreateTableRequest {
    pb::CreateTableRequest {
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
    }
}

pub fn table(name: &str) -> pb::TableName {
    pb::TableName {
        namespace: Bytes::from_static(b"default"),
        qualifier: Bytes::copy_from_slice(name.as_bytes()),
    }
}

pub fn region(table: &str, start: &[u8], id: u64) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: 1,
        value: region_name(table, start, id),
    }
}

pub async fn create_table(addr: SocketAddr, name: &str) {
    let mut master = Conn::open(addr, "MasterService", None).await;
    let _: pb::ProcedureResponse = master
        .call("CreateTable", &create_table_request(name))
        .await;
}

/// The id of the one region of a single-region table, from meta (read on a connection
/// without a codec, so cells come inside the protobuf).
pub async fn only_region(addr: SocketAddr, name: &str) -> u64 {
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

pub fn put(row: &str, value: &str) -> pb::MutationProto {
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

pub fn get(name: &str, id: u64, row: &str) -> pb::GetRequest {
    pb::GetRequest {
        region: region(name, b"", id),
        get: pb::Get {
            row: Bytes::copy_from_slice(row.as_bytes()),
            ..pb::Get::default()
        },
    }
}

/// Opens a scanner on region `id` of `t` and reads it to its end, `rows` per call; returns
/// every response.
pub async fn scan_all(
    client: &mut Conn,
    id: u64,
    scan: pb::Scan,
    rows: u32,
) -> Vec<pb::ScanResponse> {
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

/// The serving regions of `name`: (start row, id), by start row.
pub fn serving(c: &Cluster, name: &str) -> Vec<(Bytes, u64)> {
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
