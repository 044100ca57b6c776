//! A multi-row batch through the data service: each row lands in the region holding it, in
//! whatever order the rows come (runs of one region, alternating regions, a region's rows
//! split by another's), and a row no open region holds fails alone.

#![allow(clippy::unwrap_used)]

use bytes::Bytes;
use strata_model::ops::{Get, Put, RowMutations};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::convert::row_mutations_to_pb;
use strata_proto::pb;
use strata_proto::pb::data_server::Data;
use strata_server::{DataService, RegionServer, ServerConfig};
use strata_storage::manifest::RegionInfo;
use tonic::Request;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_rows_land_in_their_regions_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let config = ServerConfig::new(dir.path(), "test:0").with_memory_budget(64 << 20);
    let server = RegionServer::open(config).unwrap();
    let table = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    // Rows below "b" and from "t" on are served by no region here.
    for (id, start, end) in [(1, "b", "m"), (2, "m", "t")] {
        let info = RegionInfo {
            table: "t".into(),
            region_id: id,
            start_row: Bytes::from(start),
            end_row: Bytes::from(end),
        };
        server.open_region(&table, &info).unwrap();
    }
    let service = DataService::new(server.clone());
    let rows = [
        "b", "c", "m", "n", "l", "a", "s", "t", "d", "m0", "zz", "ll",
    ];
    let request = pb::BatchRequest {
        table: "t".into(),
        rows: rows
            .iter()
            .map(|r| {
                let rm = RowMutations::new(Bytes::from(*r))
                    .with(Put::new(Bytes::from(*r)).add("f", "q", Bytes::from(format!("v-{r}"))))
                    .unwrap();
                row_mutations_to_pb(&rm)
            })
            .collect(),
    };
    let results = service
        .batch(Request::new(request))
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(results.len(), rows.len());
    for (row, result) in rows.iter().zip(&results) {
        let served = *row >= "b" && *row < "t";
        match &result.outcome {
            Some(pb::batch_result::Outcome::Ok(_)) => assert!(served, "{row} was applied"),
            Some(pb::batch_result::Outcome::Error(e)) => {
                assert!(!served, "{row} failed: {}", e.message);
                assert!(
                    e.message.contains(row),
                    "the error names {row}: {}",
                    e.message
                );
            }
            None => panic!("{row} has no outcome"),
        }
        if served {
            let id = if *row < "m" { 1 } else { 2 };
            let hosted = server.region_for("t", row.as_bytes()).unwrap();
            assert_eq!(hosted.region.info().region_id, id, "{row}'s region");
            let cells = hosted
                .get(&Get::new(Bytes::copy_from_slice(row.as_bytes())))
                .unwrap();
            assert_eq!(cells.len(), 1, "{row} written once");
            assert_eq!(cells[0].value, Bytes::from(format!("v-{row}")));
        }
    }
}
