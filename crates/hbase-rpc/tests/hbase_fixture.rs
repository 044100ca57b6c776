//! HBase's own bytes decoded with Strata's codec: `tests/fixtures/hbase-2.6/` holds the TCP
//! streams of real exchanges between the unchanged Java `hbase-client` 2.6.4 and a real HBase
//! 2.6.4 server, recorded by `scripts/hbase-wire-fixture.sh` (its program:
//! `scripts/hbase-wire-fixture/src/strata/hbase/WireFixture.java`). The client found the
//! server through the RPC registry, created table `wirefix` (family `f`), put `row1`/`f:q` =
//! `value-1` at 1000 and `row2`/`f:q` = `value-2` at 2000, got `row1`, scanned the table and
//! created the table again (`TableExistsException`).
//!
//! Files: `NN-<port>-c2s.bin` (client to server) and `-s2c.bin` per connection, in the order
//! they were opened: 00 the registry preamble, 01 `ClientMetaService`, 02 `ClientService`
//! (meta lookups, puts, get, scan), 03 `MasterService` (on the master's port).
#![allow(missing_docs, clippy::unwrap_used)]

use bytes::{BufMut, Bytes, BytesMut};
use prost::Message;
use strata_hbase_rpc::cellblock::{self, Codec};
use strata_hbase_rpc::convert::mutation_from_pb;
use strata_hbase_rpc::frame::{self, Call};
use strata_hbase_rpc::pb;
use strata_hbase_rpc::region_name::{parse_region_name, region_name, RegionRef};
use strata_hbase_rpc::schema::table_from_pb;
use strata_model::cell::{Cell, CellType};
use strata_model::ops::Mutation;

/// The fixtures' directory, from the package's directory at run time (a test binary built in
/// another checkout of the same target directory still reads this checkout's files).
fn dir() -> String {
    let package = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
    format!("{package}/tests/fixtures/hbase-2.6")
}

fn stream(name: &str) -> Bytes {
    Bytes::from(std::fs::read(format!("{}/{name}", dir())).unwrap())
}

/// Splits a stream into its length-prefixed frames; every byte must belong to one.
fn frames(mut s: Bytes) -> Vec<Bytes> {
    let mut out = Vec::new();
    while !s.is_empty() {
        assert!(s.len() >= 4, "stray bytes at the end of the stream");
        let len = u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as usize;
        assert!(s.len() >= 4 + len, "a frame runs past the stream");
        let _ = s.split_to(4);
        out.push(s.split_to(len));
    }
    out
}

struct Client {
    header: pb::ConnectionHeader,
    calls: Vec<Call>,
}

/// A client-to-server stream: preamble, connection header, calls.
fn client(name: &str) -> Client {
    let mut s = stream(name);
    let preamble: [u8; 6] = s.split_to(6).as_ref().try_into().unwrap();
    frame::check_preamble(&preamble).unwrap();
    let mut fs = frames(s).into_iter();
    let header = frame::decode_connection_header(&fs.next().unwrap()).unwrap();
    let calls = fs.map(|f| frame::decode_call(f).unwrap()).collect();
    Client { header, calls }
}

type Reply = (pb::ResponseHeader, Bytes, Bytes);

fn replies(name: &str) -> Vec<Reply> {
    frames(stream(name))
        .into_iter()
        .map(|f| frame::decode_reply(f).unwrap())
        .collect()
}

fn reply_to<'a>(replies: &'a [Reply], call: &Call) -> &'a Reply {
    replies
        .iter()
        .find(|r| r.0.call_id == call.header.call_id)
        .unwrap()
}

fn cells(block: &Bytes) -> Vec<Cell> {
    cellblock::decode(Codec::KeyValue, block).unwrap()
}

/// Our encoder gives HBase's bytes back for the cells decoded from them.
fn reencodes(block: &Bytes) {
    let mut out = BytesMut::new();
    cellblock::encode(Codec::KeyValue, &cells(block), &mut out);
    assert_eq!(&out[..], &block[..], "cell block re-encoded differently");
}

fn put(row: &str, ts: i64, value: &str) -> Cell {
    Cell::put(row.to_string(), "f", "q", ts, value.to_string())
}

#[test]
fn registry_preamble_and_answer() {
    assert_eq!(&stream("00-16020-c2s.bin")[..], frame::REGISTRY_PREAMBLE);
    let r = replies("00-16020-s2c.bin");
    assert_eq!(r.len(), 1);
    let (header, message, block) = &r[0];
    assert_eq!(header.call_id, Some(u32::MAX));
    assert!(block.is_empty());
    let answer = pb::GetConnectionRegistryResponse::decode(message.clone()).unwrap();
    assert_eq!(answer.cluster_id.len(), 36, "a UUID: {}", answer.cluster_id);
}

#[test]
fn client_meta_service_calls() {
    let c = client("01-16020-c2s.bin");
    assert_eq!(c.header.service_name(), "ClientMetaService");
    let methods: Vec<_> = c.calls.iter().map(|c| c.header.method_name()).collect();
    assert!(methods.contains(&"GetClusterId"), "{methods:?}");
    assert!(methods.contains(&"GetMetaRegionLocations"), "{methods:?}");
    let r = replies("01-16020-s2c.bin");
    assert_eq!(r.len(), c.calls.len());
    for call in &c.calls {
        let (header, message, _) = reply_to(&r, call);
        assert!(header.exception.is_none());
        match call.header.method_name() {
            "GetClusterId" => {
                let id = pb::GetClusterIdResponse::decode(message.clone()).unwrap();
                assert_eq!(id.cluster_id().len(), 36);
            }
            "GetMetaRegionLocations" => {
                let m = pb::GetMetaRegionLocationsResponse::decode(message.clone()).unwrap();
                let loc = &m.meta_locations[0];
                let info = &loc.region_info;
                assert_eq!(info.region_id, 1);
                assert_eq!(loc.server_name.as_ref().unwrap().port, Some(16020));
            }
            _ => {}
        }
    }
}

#[test]
fn client_service_put_get_scan() {
    let c = client("02-16020-c2s.bin");
    assert_eq!(c.header.service_name(), "ClientService");
    assert_eq!(
        Codec::from_class(c.header.cell_block_codec_class()),
        Some(Codec::KeyValue)
    );
    assert_eq!(
        c.header.version_info.as_ref().unwrap().version,
        "2.6.4-hadoop3"
    );
    let r = replies("02-16020-s2c.bin");
    assert_eq!(r.len(), c.calls.len());

    // Puts: a single `Table.put` sends its cells inside the protobuf (no cell block);
    // Strata's converter reads HBase's mutation.
    let mut put_cells = Vec::new();
    for call in c
        .calls
        .iter()
        .filter(|c| c.header.method_name() == "Mutate")
    {
        let req = pb::MutateRequest::decode(call.param.clone()).unwrap();
        assert!(call.cell_block.is_empty());
        let m = &req.mutation;
        assert_eq!(
            m.mutate_type,
            Some(pb::mutation_proto::MutationType::Put as i32)
        );
        let Mutation::Put(p) = mutation_from_pb(m, &mut std::iter::empty()).unwrap() else {
            panic!("a put")
        };
        for cell in p.cells {
            put_cells.push(Cell::put(
                p.row.clone(),
                cell.family,
                cell.qualifier,
                cell.timestamp.unwrap(),
                cell.value,
            ));
        }
        // HBase's region name parses, and our naming gives HBase's MD5 for it.
        let name = &req.region.value;
        let RegionRef::User { table, region_id } = parse_region_name(name).unwrap() else {
            panic!("a user region")
        };
        assert_eq!(table, "wirefix");
        assert_eq!(&region_name(&table, b"", region_id)[..], &name[..]);
        let (header, message, _) = reply_to(&r, call);
        assert!(header.exception.is_none());
        // HBase answers a plain put with `processed: true`, as Strata does.
        assert_eq!(
            pb::MutateResponse::decode(message.clone())
                .unwrap()
                .processed,
            Some(true)
        );
    }
    assert_eq!(
        put_cells,
        vec![put("row1", 1000, "value-1"), put("row2", 2000, "value-2")]
    );

    // The Get and its answer: the cell in the reply's cell block. (Gets on hbase:meta, the
    // client's table-state reads, decode as well.)
    let gets: Vec<_> = c
        .calls
        .iter()
        .filter(|c| c.header.method_name() == "Get")
        .filter(|c| {
            let req = pb::GetRequest::decode(c.param.clone()).unwrap();
            parse_region_name(&req.region.value) != Ok(RegionRef::Meta)
        })
        .collect();
    assert_eq!(gets.len(), 1);
    let req = pb::GetRequest::decode(gets[0].param.clone()).unwrap();
    assert_eq!(&req.get.row[..], b"row1");
    let (header, message, block) = reply_to(&r, gets[0]);
    assert!(header.exception.is_none());
    assert_eq!(
        header.cell_block_meta.as_ref().unwrap().length() as usize,
        block.len()
    );
    let result = pb::GetResponse::decode(message.clone())
        .unwrap()
        .result
        .unwrap();
    assert_eq!(result.associated_cell_count, Some(1));
    assert!(result.cell.is_empty());
    reencodes(block);
    assert_eq!(cells(block), vec![put("row1", 1000, "value-1")]);

    // Scans: meta lookups (reversed, one row) and the table's scan.
    let mut table_rows = Vec::new();
    let mut meta_rows = 0;
    for call in c.calls.iter().filter(|c| c.header.method_name() == "Scan") {
        let req = pb::ScanRequest::decode(call.param.clone()).unwrap();
        let (header, message, block) = reply_to(&r, call);
        assert!(header.exception.is_none());
        let resp = pb::ScanResponse::decode(message.clone()).unwrap();
        let got = cells(block);
        assert_eq!(
            resp.cells_per_result.iter().sum::<u32>() as usize,
            got.len()
        );
        reencodes(block);
        let is_meta = req
            .region
            .as_ref()
            .is_some_and(|r| parse_region_name(&r.value) == Ok(RegionRef::Meta));
        if req.scan.is_some() {
            // What the client negotiates on every open.
            assert_eq!(req.client_handles_partials, Some(true));
            assert_eq!(req.client_handles_heartbeats, Some(true));
        }
        if is_meta {
            for cell in &got {
                assert_eq!(cell.cell_type, CellType::Put);
                if &cell.qualifier[..] == b"regioninfo" {
                    assert_eq!(&cell.value[..4], b"PBUF");
                    let info = pb::RegionInfo::decode(&cell.value[4..]).unwrap();
                    let table = String::from_utf8(info.table_name.qualifier.to_vec()).unwrap();
                    let name = region_name(&table, info.start_key(), info.region_id);
                    assert_eq!(&name[..], &cell.row[..], "our region name for meta's row");
                    meta_rows += 1;
                }
            }
        } else {
            table_rows.extend(got);
        }
    }
    assert!(meta_rows >= 1);
    assert_eq!(
        table_rows,
        vec![put("row1", 1000, "value-1"), put("row2", 2000, "value-2")]
    );
}

#[test]
fn master_service_schema_and_exception() {
    let c = client("03-16000-c2s.bin");
    assert_eq!(c.header.service_name(), "MasterService");
    let r = replies("03-16000-s2c.bin");
    assert_eq!(r.len(), c.calls.len());
    let creates: Vec<_> = c
        .calls
        .iter()
        .filter(|c| c.header.method_name() == "CreateTable")
        .collect();
    assert_eq!(creates.len(), 2);
    for call in &creates {
        let req = pb::CreateTableRequest::decode(call.param.clone()).unwrap();
        let t = table_from_pb(&req.table_schema).unwrap();
        assert_eq!(t.name.to_string(), "wirefix");
        assert_eq!(t.families.len(), 1);
    }
    let (first, message, _) = reply_to(&r, creates[0]);
    assert!(first.exception.is_none());
    assert!(pb::ProcedureResponse::decode(message.clone())
        .unwrap()
        .proc_id
        .is_some());
    let (second, _, _) = reply_to(&r, creates[1]);
    let e = second.exception.as_ref().unwrap();
    assert_eq!(
        e.exception_class_name(),
        "org.apache.hadoop.hbase.TableExistsException"
    );
    assert!(e.stack_trace().contains("wirefix"), "{}", e.stack_trace());
}

#[test]
fn stray_bytes_are_not_a_frame() {
    // The harness itself: a frame cut short is caught, not read past.
    let mut s = BytesMut::new();
    s.put_u32(10);
    s.put_slice(b"short");
    let r = std::panic::catch_unwind(|| frames(s.freeze()));
    assert!(r.is_err());
}
