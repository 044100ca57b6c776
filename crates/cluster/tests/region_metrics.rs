//! A region server publishes its regions' statistics (`metrics/<server>`, under its lease) with
//! its load reports, rewriting the key only when a figure changed; the key goes with the lease.
#![allow(clippy::unwrap_used)]

use std::cell::RefCell;
use std::rc::Rc;

use strata_cluster::host::RegionHost;
use strata_cluster::kv::{KeyValue, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::load::Accesses;
use strata_cluster::mem::{MemKv, MemStore, Perfect, SharedStore};
use strata_cluster::node::Unbacked;
use strata_cluster::region_metrics::{RegionMetrics, ServerMetrics};
use strata_cluster::regionserver::{RegionServer, RegionServerConfig};

/// A host that holds no data and reports the statistics the test sets.
#[derive(Default)]
struct Reporting {
    inner: Unbacked,
    metrics: RefCell<Vec<(String, RegionMetrics)>>,
}

impl RegionHost for Reporting {
    fn open(&self, region: &str, epoch: u64) -> Result<(), String> {
        self.inner.open(region, epoch)
    }
    fn close(&self, region: &str) -> Result<(), String> {
        self.inner.close(region)
    }
    fn abort(&self) {
        self.inner.abort();
    }
    fn try_open(&self, region: &str, epoch: u64) -> Option<Result<(), String>> {
        self.inner.try_open(region, epoch)
    }
    fn try_close(&self, region: &str) -> Option<Result<(), String>> {
        self.inner.try_close(region)
    }
    fn cancel_open(&self, region: &str) {
        self.inner.cancel_open(region);
    }
    fn try_split(
        &self,
        region: &str,
        epoch: u64,
        daughters: &(String, String),
        row: Option<&[u8]>,
    ) -> Option<Result<Vec<u8>, String>> {
        self.inner.try_split(region, epoch, daughters, row)
    }
    fn try_merge(&self, low: &str, high: &str, merged: &str) -> Option<Result<(), String>> {
        self.inner.try_merge(low, high, merged)
    }
    fn requests(&self) -> Vec<(String, Accesses)> {
        self.inner.requests()
    }
    fn region_metrics(&self) -> Vec<(String, RegionMetrics)> {
        self.metrics.borrow().clone()
    }
}

const NAME: &str = "h:1:1";

fn server(store: &SharedStore) -> RegionServer<MemKv, Reporting> {
    RegionServer::new(
        MemKv::new(store.clone(), Rc::new(Perfect)),
        Reporting::default(),
        Layout::new("/t"),
        NAME.to_owned(),
        "h:1".to_owned(),
        RegionServerConfig::default(),
    )
}

fn published(store: &SharedStore) -> Option<KeyValue> {
    let kv = MemKv::new(store.clone(), Rc::new(Perfect));
    kv.get(&Layout::new("/t").metrics(NAME)).unwrap()
}

/// Ticks every 500 ms (renewing the lease) from `from` to `to`, the store's clock following.
fn run(rs: &mut RegionServer<MemKv, Reporting>, store: &SharedStore, from: u64, to: u64) {
    let mut now = from;
    while now <= to {
        store.borrow_mut().advance(now);
        rs.tick(now);
        now += 500;
    }
}

#[test]
fn statistics_are_published_when_they_change_and_go_with_the_lease() {
    let store = MemStore::new(1);
    let mut rs = server(&store);
    let region = RegionMetrics {
        stores: 1,
        store_files: 2,
        store_bytes: 4096,
        memtable_bytes: 100,
        reads: 7,
        writes: 3,
        last_major_compaction_ms: 1_700_000_000_000,
    };
    rs.host()
        .metrics
        .borrow_mut()
        .push(("t,0000000000000001".into(), region));
    run(&mut rs, &store, 0, 500);
    assert!(rs.is_live(500));
    let first = published(&store).expect("no metrics published with the first load report");
    assert_ne!(first.lease, 0, "the metrics key is not leased");
    let report = ServerMetrics::decode(&first.value).unwrap();
    assert_eq!(report.regions.get("t,0000000000000001"), Some(&region));

    // Two more load reports with nothing changed: the load key is rewritten, this one not.
    run(&mut rs, &store, 1_000, 10_500);
    assert_eq!(published(&store).unwrap().mod_revision, first.mod_revision);

    // A figure changes: the next report carries it.
    rs.host().metrics.borrow_mut()[0].1.writes = 4;
    run(&mut rs, &store, 11_000, 16_000);
    let second = published(&store).unwrap();
    assert!(second.mod_revision > first.mod_revision);
    let report = ServerMetrics::decode(&second.value).unwrap();
    assert_eq!(report.regions["t,0000000000000001"].writes, 4);

    // The server stops renewing: its lease expires and the statistics go with it.
    store.borrow_mut().advance(60_000);
    assert!(published(&store).is_none());
}
