//! The catalog at scale on a real etcd: create and assign N regions (default 100,000, as 100
//! tables of 1,000) through the procedures onto 3 region servers, fail the master over and time
//! the new leader's catalog load, and count etcd requests at rest.
//!
//! `scripts/etcd.sh start` then
//! `STRATA_ETCD_ENDPOINTS=127.0.0.1:2379 cargo bench -p strata-cluster --bench catalog`
//! (`STRATA_BENCH_REGIONS` changes N; a multiple of 1,000).

use std::cell::Cell;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_cluster::etcd::EtcdKv;
use strata_cluster::host::RegionHost;
use strata_cluster::kv::{
    Event, KeyValue, Kv, KvResult, LeaseId, Page, Revision, Txn, TxnOutcome, WatchId,
};
use strata_cluster::layout::Layout;
use strata_cluster::master::{AdminRequest, Master, MasterConfig};
use strata_cluster::regionserver::{RegionServer, RegionServerConfig};
use strata_cluster::wal::MemWal;

/// Counts the requests that reach etcd (watch polls read a local stream and are not counted).
struct Counting {
    inner: EtcdKv,
    requests: Cell<u64>,
}

impl Counting {
    fn count(&self) {
        self.requests.set(self.requests.get() + 1);
    }
}

impl Kv for Counting {
    fn grant(&self, ttl: i64) -> KvResult<(LeaseId, i64)> {
        self.count();
        self.inner.grant(ttl)
    }
    fn keep_alive(&self, lease: LeaseId) -> KvResult<Option<i64>> {
        self.count();
        self.inner.keep_alive(lease)
    }
    fn revoke(&self, lease: LeaseId) -> KvResult<()> {
        self.count();
        self.inner.revoke(lease)
    }
    fn get(&self, key: &str) -> KvResult<Option<KeyValue>> {
        self.count();
        self.inner.get(key)
    }
    fn range(&self, prefix: &str, after: Option<&str>, limit: usize) -> KvResult<Page> {
        self.count();
        self.inner.range(prefix, after, limit)
    }
    fn txn(&self, txn: Txn) -> KvResult<TxnOutcome> {
        self.count();
        self.inner.txn(txn)
    }
    fn watch(&self, prefix: &str, start: Revision) -> KvResult<WatchId> {
        self.count();
        self.inner.watch(prefix, start)
    }
    fn poll(&self, watch: WatchId) -> KvResult<Vec<Event>> {
        self.inner.poll(watch)
    }
    fn cancel(&self, watch: WatchId) {
        self.inner.cancel(watch);
    }
}

struct NullHost;

impl RegionHost for NullHost {
    fn open(&self, _: &str, _: u64) -> Result<(), String> {
        Ok(())
    }
    fn close(&self, _: &str) -> Result<(), String> {
        Ok(())
    }
    fn abort(&self) {}
    fn try_open(&self, region: &str, epoch: u64) -> Option<Result<(), String>> {
        Some(self.open(region, epoch))
    }

    fn try_close(&self, region: &str) -> Option<Result<(), String>> {
        Some(self.close(region))
    }

    fn cancel_open(&self, _region: &str) {}

    fn try_split(
        &self,
        _region: &str,
        _epoch: u64,
        _daughters: &(String, String),
        _row: Option<&[u8]>,
    ) -> Option<Result<Vec<u8>, String>> {
        Some(Err("the bench host cannot split".into()))
    }

    fn try_merge(&self, _low: &str, _high: &str, _merged: &str) -> Option<Result<(), String>> {
        Some(Err("the bench host cannot merge".into()))
    }

    fn requests(&self) -> Vec<(String, strata_cluster::load::Accesses)> {
        Vec::new()
    }

    fn region_metrics(&self) -> Vec<(String, strata_cluster::region_metrics::RegionMetrics)> {
        Vec::new()
    }
}

type BenchMaster = Master<Counting, MemWal>;
type BenchServer = RegionServer<Counting, NullHost>;

fn counting(eps: &[String]) -> Counting {
    Counting {
        inner: EtcdKv::connect(eps, Duration::from_secs(30)).expect("etcd reachable"),
        requests: Cell::new(0),
    }
}

fn tick_all(start: Instant, masters: &mut [&mut BenchMaster], servers: &mut [BenchServer]) {
    let now = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    for m in masters.iter_mut() {
        m.tick(now);
    }
    for s in servers.iter_mut() {
        s.tick(now);
    }
}

fn requests(masters: &[&BenchMaster], servers: &[BenchServer]) -> (u64, u64) {
    let m = masters.iter().map(|m| m.kv().requests.get()).sum();
    let s = servers.iter().map(|s| s.kv().requests.get()).sum();
    (m, s)
}

fn main() {
    let Ok(eps) = std::env::var("STRATA_ETCD_ENDPOINTS") else {
        eprintln!("set STRATA_ETCD_ENDPOINTS (scripts/etcd.sh start; scripts/etcd.sh endpoint)");
        return;
    };
    let eps: Vec<String> = eps.split(',').map(str::to_string).collect();
    let n: u32 = std::env::var("STRATA_BENCH_REGIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let tables = (n / 1000).max(1);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let layout = Layout::new(&format!("/strata-bench/{nanos}"));
    let wal = MemWal::new(0);
    let config = MasterConfig {
        ttl_secs: 3,
        ..MasterConfig::default()
    };
    let mut m1 = Master::new(
        counting(&eps),
        wal.clone(),
        layout.clone(),
        "m1:16000".into(),
        config.clone(),
    );
    let mut m2 = Master::new(
        counting(&eps),
        wal.clone(),
        layout.clone(),
        "m2:16000".into(),
        config,
    );
    let mut servers: Vec<BenchServer> = (0..3)
        .map(|i| {
            let name = format!("rs{i}:16020:1");
            let config = RegionServerConfig {
                ttl_secs: 3,
                margin_ms: 500,
                ..RegionServerConfig::default()
            };
            RegionServer::new(
                counting(&eps),
                NullHost,
                layout.clone(),
                name.clone(),
                name,
                config,
            )
        })
        .collect();
    let start = Instant::now();
    while !m1.is_active() || servers.iter().any(|s| s.deadline().is_none()) {
        tick_all(start, &mut [&mut m1, &mut m2], &mut servers);
        std::thread::sleep(Duration::from_millis(20));
    }

    // Create and assign.
    let t = Instant::now();
    for i in 0..tables {
        let splits = (1..1000)
            .map(|k| format!("row{k:06}").into_bytes())
            .collect();
        m1.submit(AdminRequest::CreateTable {
            table: format!("t{i:04}"),
            splits,
        })
        .expect("create");
    }
    let before = (m1.stats(), requests(&[&m1, &m2], &servers));
    let total = tables as usize * 1000;
    loop {
        tick_all(start, &mut [&mut m1, &mut m2], &mut servers);
        let now = u64::try_from(start.elapsed().as_millis()).unwrap_or(0);
        let served: usize = servers.iter().map(|s| s.served(now).len()).sum();
        if served == total && m1.procedures().is_empty() {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(1800),
            "assignment did not finish: {served} of {total}"
        );
    }
    let assign = t.elapsed();
    let after = (m1.stats(), requests(&[&m1, &m2], &servers));
    println!(
        "create + assign {total} regions on 3 servers: {assign:.2?} ({:.0} regions/s)",
        total as f64 / assign.as_secs_f64()
    );
    println!(
        "  master: {} txns, {} ops ({:.2} txns and {:.1} ops per region); etcd requests: master {}, servers {}",
        after.0.txns - before.0.txns,
        after.0.ops - before.0.ops,
        (after.0.txns - before.0.txns) as f64 / total as f64,
        (after.0.ops - before.0.ops) as f64 / total as f64,
        after.1 .0 - before.1 .0,
        after.1 .1 - before.1 .1
    );

    // At rest.
    let (m0, s0) = requests(&[&m1, &m2], &servers);
    let rest = Instant::now();
    while rest.elapsed() < Duration::from_secs(10) {
        tick_all(start, &mut [&mut m1, &mut m2], &mut servers);
        std::thread::sleep(Duration::from_millis(100));
    }
    let (m9, s9) = requests(&[&m1, &m2], &servers);
    let secs = rest.elapsed().as_secs_f64();
    println!(
        "at rest (2 masters, 3 servers, ticks every 100 ms): {:.1} etcd requests/s ({:.1} masters, {:.1} servers)",
        ((m9 - m0) + (s9 - s0)) as f64 / secs,
        (m9 - m0) as f64 / secs,
        (s9 - s0) as f64 / secs
    );

    // Failover: the standby loads the whole catalog, a few pages per tick.
    let (m0, s0) = requests(&[&m1, &m2], &servers);
    m1.resign();
    let t = Instant::now();
    let mut ticks = 0;
    while !m2.is_active() {
        tick_all(start, &mut [&mut m2], &mut servers);
        ticks += 1;
    }
    let failover = t.elapsed();
    let (m9, s9) = requests(&[&m1, &m2], &servers);
    println!(
        "failover: standby active {failover:.2?} after the leader resigned ({ticks} ticks to load {} regions); etcd requests meanwhile: masters {}, servers {}",
        m2.regions().len(),
        m9 - m0,
        s9 - s0
    );

    // Clean up the bench's keys.
    for i in 0..tables {
        m2.submit(AdminRequest::DropTable {
            table: format!("t{i:04}"),
        })
        .expect("drop");
    }
    let t = Instant::now();
    while !(m2.tables().is_empty() && m2.procedures().is_empty()) {
        tick_all(start, &mut [&mut m2], &mut servers);
    }
    println!("drop {total} regions: {:.2?}", t.elapsed());
}
