//! A region server ordered to open many regions at once runs at most `MAX_OPENS_IN_FLIGHT`
//! opens at a time (the others queue, taken up as running ones end), so its coordination thread is never
//! starved: 1,000 regions ordered onto one server used to start 1,000 open threads together
//! and the server lost its lease.

#![allow(clippy::unwrap_used, missing_docs)]

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use strata_cluster::host::RegionHost;
use strata_cluster::kv::{Event, KeyValue, Kv, KvError, KvResult, Page, Txn, TxnOutcome};
use strata_cluster::layout::Layout;
use strata_cluster_node::host::{StorageHost, MAX_OPENS_IN_FLIGHT};
use strata_server::{RegionServer, ServerConfig};

/// A store whose reads wait until the test opens the gate, then find nothing (so each open
/// fails quickly once let through). Nothing else is used by an open.
#[derive(Default)]
struct GatedKv {
    open: Mutex<bool>,
    opened: Condvar,
}

impl GatedKv {
    fn release(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

fn unused<T>() -> KvResult<T> {
    Err(KvError::Invalid("not used by an open".into()))
}

impl Kv for GatedKv {
    fn grant(&self, _: i64) -> KvResult<(i64, i64)> {
        unused()
    }
    fn keep_alive(&self, _: i64) -> KvResult<Option<i64>> {
        unused()
    }
    fn revoke(&self, _: i64) -> KvResult<()> {
        unused()
    }
    fn get(&self, _: &str) -> KvResult<Option<KeyValue>> {
        let open = self.open.lock().unwrap();
        let _open = self
            .opened
            .wait_timeout_while(open, Duration::from_secs(30), |o| !*o)
            .unwrap();
        Ok(None)
    }
    fn range(&self, _: &str, _: Option<&str>, _: usize) -> KvResult<Page> {
        unused()
    }
    fn txn(&self, _: Txn) -> KvResult<TxnOutcome> {
        unused()
    }
    fn watch(&self, _: &str, _: i64) -> KvResult<u64> {
        unused()
    }
    fn poll(&self, _: u64) -> KvResult<Vec<Event>> {
        unused()
    }
    fn cancel(&self, _: u64) {}
}

/// A storage host in a fresh directory whose opens wait for the gate of the returned store.
fn gated_host() -> (tempfile::TempDir, Arc<GatedKv>, StorageHost<GatedKv>) {
    let dir = tempfile::tempdir().unwrap();
    let config = ServerConfig::new(dir.path(), "127.0.0.1:1").with_memory_budget(64 << 20);
    let server = RegionServer::open(config).unwrap();
    let kv = Arc::new(GatedKv::default());
    let host = StorageHost::new(
        "127.0.0.1:1:1".to_owned(),
        server,
        kv.clone(),
        Layout::new("gated"),
        dir.path().to_path_buf(),
    );
    (dir, kv, host)
}

#[test]
fn many_open_orders_run_a_bounded_number_of_opens_at_once() {
    let (_dir, kv, host) = gated_host();
    let regions: Vec<String> = (0..200).map(|i| format!("t,{i:08x}")).collect();
    // One tick's worth of orders: every open is asked for, none can finish.
    for r in &regions {
        assert!(host.try_open(r, 1).is_none());
    }
    assert_eq!(
        host.opens_in_flight(),
        (MAX_OPENS_IN_FLIGHT, MAX_OPENS_IN_FLIGHT)
    );
    kv.release();
    // Later ticks: each open runs (and fails: no record) within the bound.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut outcomes = 0;
    let mut pending = regions.clone();
    while !pending.is_empty() {
        assert!(
            Instant::now() < deadline,
            "{} opens never ended",
            pending.len()
        );
        pending.retain(|r| match host.try_open(r, 1) {
            Some(outcome) => {
                assert!(outcome.is_err(), "{r} has no record");
                outcomes += 1;
                false
            }
            None => true,
        });
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(outcomes, regions.len());
    let (running, most) = host.opens_in_flight();
    assert_eq!(running, 0);
    assert_eq!(
        most, MAX_OPENS_IN_FLIGHT,
        "never more than the bound at once"
    );
}

#[test]
fn queued_opens_run_as_slots_free_without_waiting_for_the_next_ask() {
    let (_dir, kv, host) = gated_host();
    let regions: Vec<String> = (0..100).map(|i| format!("t,{i:08x}")).collect();
    for r in &regions {
        assert!(host.try_open(r, 1).is_none());
    }
    // A queued open cancelled before its turn is skipped.
    host.cancel_open(&regions[99]);
    kv.release();
    // Nobody asks again until every open has ended: the running ones took up the queue.
    let deadline = Instant::now() + Duration::from_secs(60);
    while host.opens_in_flight().0 > 0 {
        assert!(Instant::now() < deadline, "queued opens never ran");
        std::thread::sleep(Duration::from_millis(5));
    }
    for r in &regions[..99] {
        let outcome = host.try_open(r, 1).expect("ended without another ask");
        assert!(outcome.is_err(), "{r} has no record");
    }
    assert_eq!(host.opens_in_flight().1, MAX_OPENS_IN_FLIGHT);
}
