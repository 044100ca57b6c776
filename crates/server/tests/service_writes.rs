//! Single-row writes through the data service, in place or through the write queues: many
//! concurrent puts and increments to one region each get their own answer (increments are
//! gathered into mini-batches); an unknown family fails only its own request; a put whose row
//! is locked waits in its queue; the queues empty afterwards. A batch of one row goes in place
//! as a single-row write does. A multi-row batch's rows land in their regions in any order,
//! and a row no region holds fails alone.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_model::ops::{Get, Increment, Put, RowMutations};
use strata_proto::convert::row_mutations_to_pb;
use strata_proto::pb;
use strata_proto::pb::data_server::Data;
use strata_server::{DataService, RegionServer};
use strata_testkit::fixtures;
use tonic::{Code, Request};

fn start() -> (Arc<RegionServer>, DataService, tempfile::TempDir) {
    start_with(&[(1, "", "m"), (2, "m", "")])
}

/// A server holding regions (id, start row, end row) of table `t` (family `f`).
fn start_with(
    regions: &[(u64, &str, &str)],
) -> (Arc<RegionServer>, DataService, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let regions: Vec<_> = regions
        .iter()
        .map(|&(id, start, end)| fixtures::region("t", id, start, end))
        .collect();
    let config = fixtures::server_config(dir.path(), 64);
    let server = fixtures::server(config, &fixtures::table("t", &["f"]), &regions);
    let service = DataService::new(server.clone());
    (server, service, dir)
}

async fn mutate(service: &DataService, rm: RowMutations) -> Result<Vec<pb::Cell>, tonic::Status> {
    service
        .mutate(Request::new(pb::MutateRequest {
            table: "t".into(),
            mutations: Some(row_mutations_to_pb(&rm)),
        }))
        .await
        .map(|r| r.into_inner().cells)
}

/// A drainer forgets its queue just after answering its last row: wait (bounded) for that.
async fn queues_empty_soon(server: &RegionServer) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !server.writes().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "idle queues are forgotten"
        );
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
}

fn value_of(server: &RegionServer, row: &str, q: &str) -> Option<Bytes> {
    let hosted = server.region_for("t", row.as_bytes()).unwrap();
    let cells = hosted
        .get(&Get::new(Bytes::copy_from_slice(row.as_bytes())).with_column("f", q.to_owned()))
        .unwrap();
    cells.first().map(|c| c.value.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_puts_and_increments_each_get_their_answer() {
    let (server, service, _dir) = start();
    let mut tasks = Vec::new();
    for t in 0..16 {
        let service = service.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..200 {
                // Rows on both sides of the region boundary `m`.
                let row = format!("{}{t:02}-{i:03}", if i % 2 == 0 { "a" } else { "x" });
                let put = Put::new(Bytes::from(row.clone())).add("f", "q", format!("v{i}"));
                let rm = RowMutations::new(Bytes::from(row)).with(put).unwrap();
                assert!(mutate(&service, rm).await.unwrap().is_empty());
                let inc = Increment::new("counter").add("f", "n", 1);
                let rm = RowMutations::new("counter").with(inc).unwrap();
                let cells = mutate(&service, rm).await.unwrap();
                assert_eq!(cells.len(), 1, "an increment answers its new value");
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    for (t, i) in [(0, 0), (7, 101), (15, 199)] {
        let row = format!("{}{t:02}-{i:03}", if i % 2 == 0 { "a" } else { "x" });
        assert_eq!(value_of(&server, &row, "q").unwrap(), format!("v{i}"));
    }
    let n = value_of(&server, "counter", "n").unwrap();
    assert_eq!(i64::from_be_bytes(n.as_ref().try_into().unwrap()), 16 * 200);
    queues_empty_soon(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_write_fails_alone() {
    let (server, service, _dir) = start();
    let bad = RowMutations::new("b")
        .with(Put::new("b").add("nope", "q", "v"))
        .unwrap();
    let good = RowMutations::new("c")
        .with(Put::new("c").add("f", "q", "v"))
        .unwrap();
    let (bad, good) = tokio::join!(mutate(&service, bad), mutate(&service, good));
    assert_eq!(bad.unwrap_err().code(), Code::InvalidArgument);
    assert!(good.is_ok());
    assert_eq!(value_of(&server, "c", "q").unwrap(), "v");
    assert!(value_of(&server, "b", "q").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn puts_apply_in_place_and_a_locked_row_waits_in_its_queue() {
    use std::sync::atomic::Ordering;
    let (server, service, _dir) = start();
    let put = |row: &str, v: &str| {
        RowMutations::new(Bytes::copy_from_slice(row.as_bytes()))
            .with(Put::new(Bytes::copy_from_slice(row.as_bytes())).add("f", "q", v.to_owned()))
            .unwrap()
    };
    mutate(&service, put("a", "1")).await.unwrap();
    let counters = server.counters();
    assert_eq!(counters.writes_in_place.load(Ordering::Relaxed), 1);
    assert_eq!(counters.writes_queued.load(Ordering::Relaxed), 0);
    // Someone holds row "a": the put cannot go in place, so it waits in the queue (on the
    // blocking pool) until the row is free, and still gets its answer.
    let hosted = server.region_for("t", b"a").unwrap();
    let held = hosted
        .region
        .row_locks()
        .lock(vec![Bytes::from_static(b"a")]);
    let waiting = {
        let service = service.clone();
        tokio::spawn(async move { mutate(&service, put("a", "2")).await })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while counters.writes_queued.load(Ordering::Relaxed) == 0 {
        assert!(std::time::Instant::now() < deadline, "the put never queued");
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    assert_eq!(
        value_of(&server, "a", "q").unwrap(),
        "1",
        "not applied while locked"
    );
    drop(held);
    waiting.await.unwrap().unwrap();
    assert_eq!(value_of(&server, "a", "q").unwrap(), "2");
    queues_empty_soon(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// A batch's rows land in the region holding each, in whatever order they come (runs of one
/// region, alternating regions, a region's rows split by another's); a row no open region
/// holds fails alone.
async fn batch_rows_land_in_their_regions_in_any_order() {
    // Rows below "b" and from "t" on are served by no region here.
    let (server, service, _dir) = start_with(&[(1, "b", "m"), (2, "m", "t")]);
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

async fn batch(service: &DataService, rows: &[RowMutations]) -> Vec<pb::BatchResult> {
    let request = pb::BatchRequest {
        table: "t".into(),
        rows: rows.iter().map(row_mutations_to_pb).collect(),
    };
    service
        .batch(Request::new(request))
        .await
        .unwrap()
        .into_inner()
        .results
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// A batch of one row (happybase's `put`) is applied in place as a single-row write is; one
/// that cannot be (an increment, a row someone holds, an unknown family) goes the usual way
/// and gets the same answer it would have had there.
async fn a_one_row_batch_applies_in_place_or_the_usual_way() {
    use std::sync::atomic::Ordering;
    let (server, service, _dir) = start();
    let counters = server.counters();
    let in_place = || counters.writes_in_place.load(Ordering::Relaxed);
    let row = |r: &str| Bytes::copy_from_slice(r.as_bytes());
    let put = |r: &str, f: &'static str, v: &str| {
        RowMutations::new(row(r))
            .with(Put::new(row(r)).add(f, "q", v.to_owned()))
            .unwrap()
    };
    let ok = |results: &[pb::BatchResult]| {
        assert_eq!(results.len(), 1);
        matches!(results[0].outcome, Some(pb::batch_result::Outcome::Ok(_)))
    };

    assert!(ok(&batch(&service, &[put("a", "f", "1")]).await));
    assert_eq!(in_place(), 1, "the put went in place");
    assert_eq!(value_of(&server, "a", "q").unwrap(), "1");

    // An increment reads the row: the usual way, with its new value in the answer.
    let inc = RowMutations::new(row("n"))
        .with(Increment::new(row("n")).add("f", "q", 5))
        .unwrap();
    let results = batch(&service, &[inc]).await;
    assert_eq!(in_place(), 1, "the increment did not go in place");
    match &results[0].outcome {
        Some(pb::batch_result::Outcome::Ok(r)) => {
            assert_eq!(r.cells.len(), 1);
            assert_eq!(r.cells[0].value.as_ref(), 5i64.to_be_bytes());
        }
        other => panic!("increment failed: {other:?}"),
    }

    // An unknown family fails its row, nothing written, the call itself answered.
    let results = batch(&service, &[put("b", "nope", "x")]).await;
    assert!(!ok(&results), "an unknown family is refused");
    assert!(value_of(&server, "b", "q").is_none());
    assert_eq!(in_place(), 2, "refused in place, as a single-row write is");

    // A held row: the batch waits on the blocking pool until it is free, then applies.
    let hosted = server.region_for("t", b"a").unwrap();
    let held = hosted.region.row_locks().lock(vec![row("a")]);
    let waiting = {
        let service = service.clone();
        let rm = put("a", "f", "2");
        tokio::spawn(async move { batch(&service, &[rm]).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert_eq!(
        value_of(&server, "a", "q").unwrap(),
        "1",
        "not applied while held"
    );
    drop(held);
    assert!(ok(&waiting.await.unwrap()));
    assert_eq!(value_of(&server, "a", "q").unwrap(), "2");
    assert_eq!(in_place(), 2, "the held row went the usual way");

    // Two rows: the usual way, both applied.
    let results = batch(&service, &[put("c", "f", "3"), put("d", "f", "4")]).await;
    assert!(results
        .iter()
        .all(|r| matches!(r.outcome, Some(pb::batch_result::Outcome::Ok(_)))));
    assert_eq!(value_of(&server, "d", "q").unwrap(), "4");
    assert_eq!(in_place(), 2);
}
