//! Concurrent writers and readers on a few hot rows, through the region server's API: no read
//! returns a counter older than one already acknowledged (to any client, and so to the
//! same client) or older than one this client read before.

#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_model::ops::{CheckAndMutate, Condition, Get, Increment, Put, RowMutations};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_server::{RegionServer, ServerConfig};
use strata_storage::manifest::RegionInfo;

const ROWS: usize = 4;
const CLIENTS: usize = 6;
const RUN: Duration = Duration::from_millis(2500);

fn counter(cells: &[strata_model::cell::Cell]) -> i64 {
    cells.first().map_or(0, |c| {
        i64::from_be_bytes(c.value.as_ref().try_into().expect("8-byte counter"))
    })
}

fn row(i: usize) -> Bytes {
    Bytes::from(format!("hot{i}"))
}

#[test]
fn no_read_is_older_than_an_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let config = ServerConfig::new(dir.path(), "test:0").with_memory_budget(64 << 20);
    let server = RegionServer::open(config).unwrap();
    let table = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f").with_row_cache(true))
        .with_memstore_flushsize(1 << 20);
    let info = RegionInfo {
        table: "t".into(),
        region_id: 1,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    };
    server.open_region(&table, &info).unwrap();
    // Highest counter acknowledged to any client, per row.
    let acked: Arc<Vec<AtomicI64>> = Arc::new((0..ROWS).map(|_| AtomicI64::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (server, acked, stop) = (server.clone(), acked.clone(), stop.clone());
            std::thread::spawn(move || client(c, &server, &acked, &stop))
        })
        .collect();
    // Flushes move the rows between memtable and files while clients run.
    let deadline = Instant::now() + RUN;
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(300));
        server.flush_region(1).unwrap();
    }
    stop.store(true, Ordering::SeqCst);
    let (mut reads, mut writes) = (0u64, 0u64);
    for h in clients {
        let (r, w) = h.join().expect("client panicked");
        reads += r;
        writes += w;
    }
    let stats = server.row_cache_stats();
    assert!(
        reads > 1000 && writes > 100,
        "reads {reads}, writes {writes}"
    );
    assert!(stats.hits > 100, "the cache was exercised: {stats:?}");
    assert!(stats.invalidations >= writes, "{stats:?}");
}

/// One client: mostly reads, some increments and compare-and-set puts; returns (reads,
/// writes).
fn client(c: usize, server: &RegionServer, acked: &[AtomicI64], stop: &AtomicBool) -> (u64, u64) {
    let mut seen = [0i64; ROWS];
    let (mut reads, mut writes) = (0, 0);
    let mut i = c;
    while !stop.load(Ordering::SeqCst) {
        i = i
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let r = (i >> 33) % ROWS;
        let hosted = server.region_for("t", &row(r)).unwrap();
        match (i >> 40) % 10 {
            0 => {
                let inc = Increment::new(row(r)).add("f", "n", 1);
                let rm = RowMutations::new(row(r)).with(inc).unwrap();
                let v = counter(&hosted.mutate_row(&rm).unwrap().cells);
                acked[r].fetch_max(v, Ordering::SeqCst);
                seen[r] = seen[r].max(v);
                writes += 1;
            }
            1 => {
                // Compare-and-set. The new cell is stamped after the one it replaces: an
                // increment may have stamped that one ahead of the clock, and a put stamped
                // below it would be shadowed.
                let cells = hosted.get(&Get::new(row(r))).unwrap();
                let current = counter(&cells);
                let ts = cells.first().map_or(1, |c| c.timestamp + 1);
                let expected = (current != 0).then(|| Bytes::from(current.to_be_bytes().to_vec()));
                let condition = match expected {
                    Some(e) => Condition::equals("f", "n", e),
                    None => Condition::absent("f", "n"),
                };
                let put =
                    Put::new(row(r)).add_at("f", "n", ts, (current + 1).to_be_bytes().to_vec());
                let cam =
                    CheckAndMutate::new(condition, RowMutations::new(row(r)).with(put).unwrap());
                if hosted.check_and_mutate(&cam).unwrap() {
                    acked[r].fetch_max(current + 1, Ordering::SeqCst);
                    seen[r] = seen[r].max(current + 1);
                }
                writes += 1;
            }
            _ => {
                let floor = acked[r].load(Ordering::SeqCst);
                let v = counter(&hosted.get(&Get::new(row(r))).unwrap());
                assert!(
                    v >= floor,
                    "row {r}: read {v} after {floor} was acknowledged"
                );
                assert!(
                    v >= seen[r],
                    "row {r}: read {v} after this client saw {}",
                    seen[r]
                );
                seen[r] = v;
                reads += 1;
            }
        }
    }
    (reads, writes)
}
