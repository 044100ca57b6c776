//! A region server whose coordination thread stays blocked past its lease's deadline has its
//! regions dropped by the watchdog. If the lease itself survives (the block ended before the
//! store's expiry, the deadline the watchdog saw was the tick before's, or etcd renewed every
//! lease when it elected a new leader), the server used to carry on registered, serving
//! nothing, while the regions' records still named it: no master moved them, and they stayed
//! unavailable (found by the fault harness after an etcd member was killed). Now the
//! incarnation ends, its lease is revoked, and a new incarnation registers.

#![allow(clippy::unwrap_used, missing_docs)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use strata_cluster::kv::{Event, KeyValue, Kv, KvResult, LeaseId, Page, Txn, TxnOutcome};
use strata_cluster::layout::Layout;
use strata_cluster::regionserver::RegionServerConfig;
use strata_cluster_node::serve::{run_on, Endpoints, NodeConfig};
use strata_embedded_kv::{EmbeddedKv, Options};
use strata_server::ServerConfig;

/// The embedded store, except that when armed, the first watch poll after a lease renewal
/// blocks for the armed time (the coordination thread's tick renews, then polls its orders).
#[derive(Clone)]
struct StallingKv {
    inner: EmbeddedKv,
    stall_ms: Arc<AtomicU64>,
    renewed: Arc<AtomicBool>,
    stalled: Arc<AtomicBool>,
}

impl Kv for StallingKv {
    fn grant(&self, ttl_secs: i64) -> KvResult<(LeaseId, i64)> {
        self.inner.grant(ttl_secs)
    }
    fn keep_alive(&self, lease: LeaseId) -> KvResult<Option<i64>> {
        let kept = self.inner.keep_alive(lease);
        self.renewed.store(true, Ordering::SeqCst);
        kept
    }
    fn revoke(&self, lease: LeaseId) -> KvResult<()> {
        self.inner.revoke(lease)
    }
    fn get(&self, key: &str) -> KvResult<Option<KeyValue>> {
        self.inner.get(key)
    }
    fn range(&self, prefix: &str, after: Option<&str>, limit: usize) -> KvResult<Page> {
        self.inner.range(prefix, after, limit)
    }
    fn txn(&self, txn: Txn) -> KvResult<TxnOutcome> {
        self.inner.txn(txn)
    }
    fn watch(&self, prefix: &str, start: i64) -> KvResult<u64> {
        self.inner.watch(prefix, start)
    }
    fn poll(&self, watch: u64) -> KvResult<Vec<Event>> {
        if self.renewed.swap(false, Ordering::SeqCst) {
            let ms = self.stall_ms.swap(0, Ordering::SeqCst);
            if ms > 0 {
                std::thread::sleep(Duration::from_millis(ms));
                self.stalled.store(true, Ordering::SeqCst);
            }
        }
        self.inner.poll(watch)
    }
    fn cancel(&self, watch: u64) {
        self.inner.cancel(watch);
    }
}

#[test]
fn a_server_whose_regions_the_watchdog_dropped_registers_again() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = EmbeddedKv::open(
        strata_storage::vfs::Storage::local(),
        &dir.path().join("kv"),
        Options::default(),
    )
    .unwrap();
    let kv = StallingKv {
        inner: store,
        stall_ms: Arc::default(),
        renewed: Arc::default(),
        stalled: Arc::default(),
    };
    let layout = Layout::new("/watchdog");
    let config = NodeConfig {
        etcd: Vec::new(),
        layout: layout.clone(),
        server: ServerConfig::new(dir.path().join("data"), "127.0.0.1:0")
            .with_memory_budget(64 << 20),
        // 3 s leases renewed every second, a deadline 0.5 s before the store's expiry.
        coordination: RegionServerConfig {
            ttl_secs: 3,
            ..RegionServerConfig::default()
        },
        listen: "127.0.0.1:0".parse().unwrap(),
        advertise: None,
        compaction_check_every: Duration::ZERO,
        on_invalid_open: None,
        tls: None,
        guard: strata_access::Guard::off(),
        space_quota_period: Duration::from_secs(10),
    };
    let (names_tx, names) = mpsc::channel::<String>();
    let expired = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let server = {
        let (kv, stop, expired) = (kv.clone(), stop.clone(), expired.clone());
        std::thread::spawn(move || {
            run_on(
                config,
                &Endpoints::default(),
                move || Ok(kv.clone()),
                &stop,
                |_| {},
                move |node| {
                    let _ = names_tx.send(node.name.clone());
                },
                move |why| expired.lock().unwrap().push(why.to_owned()),
            )
        })
    };
    let first = names.recv_timeout(Duration::from_secs(30)).unwrap();
    let registered = |name: &str| kv.inner.get(&layout.server(name)).unwrap().is_some();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !registered(&first) {
        assert!(Instant::now() < deadline, "{first} never registered");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Blocked right after a renewal for 2.2 s: past the deadline the gate holds (the renewal
    // before's, ~1.5 s away, plus the watchdog's 0.5 s of grace), short of the renewed one
    // (2.5 s) and of the store's expiry (3 s). The lease survives the block.
    kv.stall_ms.store(2_200, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(20);
    let second = loop {
        if let Ok(name) = names.try_recv() {
            break name;
        }
        assert!(
            Instant::now() < deadline,
            "no new incarnation within 20 s (stalled: {}, watchdog: {:?}, {first} registered: {})",
            kv.stalled.load(Ordering::SeqCst),
            expired.lock().unwrap(),
            registered(&first),
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(kv.stalled.load(Ordering::SeqCst));
    assert_eq!(expired.lock().unwrap().len(), 1, "the watchdog fired");
    assert_ne!(first, second);
    assert!(!registered(&first), "the old incarnation's lease is gone");
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap().unwrap();
}
