//! The protocol against a real etcd, started by `scripts/etcd.sh` (its test flags make the
//! minimum lease TTL 1 s; the tests use 3 s to stay robust on a loaded machine).
//! `scripts/test.sh` starts it and sets `STRATA_ETCD_ENDPOINTS`; without that variable these
//! tests say so and do nothing. Each test works under its own key prefix.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_cluster::etcd::EtcdKv;
use strata_cluster::host::RegionHost;
use strata_cluster::kv::{EventKind, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::lease::Millis;
use strata_cluster::master::{AdminError, AdminRequest, Master, MasterConfig};
use strata_cluster::record::RegionState;
use strata_cluster::regionserver::{RegionServer, RegionServerConfig};
use strata_cluster::wal::MemWal;

fn endpoints() -> Option<Vec<String>> {
    match std::env::var("STRATA_ETCD_ENDPOINTS") {
        Ok(v) if !v.is_empty() => Some(v.split(',').map(str::to_string).collect()),
        _ => {
            eprintln!("STRATA_ETCD_ENDPOINTS unset: start etcd with scripts/etcd.sh (scripts/test.sh does)");
            None
        }
    }
}

fn connect(endpoints: &[String]) -> EtcdKv {
    EtcdKv::connect(endpoints, Duration::from_secs(5)).expect("etcd reachable")
}

fn layout(test: &str) -> Layout {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Layout::new(&format!(
        "/strata-test/{test}-{}-{nanos}",
        std::process::id()
    ))
}

struct Clock(Instant);

impl Clock {
    fn now(&self) -> Millis {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// A region host that records what is open and checks the fencing rule on every open.
struct TestHost {
    name: String,
    wal: MemWal,
    open: RefCell<BTreeSet<String>>,
}

impl RegionHost for TestHost {
    fn open(&self, region: &str, _epoch: u64) -> Result<(), String> {
        self.wal.take_recovered(region);
        self.open.borrow_mut().insert(region.to_string());
        Ok(())
    }

    fn close(&self, region: &str) -> Result<(), String> {
        self.wal.truncate(&self.name, region);
        self.open.borrow_mut().remove(region);
        Ok(())
    }

    fn abort(&self) {
        self.open.borrow_mut().clear();
    }

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
        Some(Err("the test host cannot split".into()))
    }

    fn try_merge(&self, _low: &str, _high: &str, _merged: &str) -> Option<Result<(), String>> {
        Some(Err("the test host cannot merge".into()))
    }

    fn requests(&self) -> Vec<(String, strata_cluster::load::Accesses)> {
        Vec::new()
    }

    fn region_metrics(&self) -> Vec<(String, strata_cluster::region_metrics::RegionMetrics)> {
        Vec::new()
    }
}

type EtcdMaster = Master<EtcdKv, MemWal>;
type EtcdServer = RegionServer<EtcdKv, TestHost>;

fn master(eps: &[String], layout: &Layout, name: &str, wal: &MemWal) -> EtcdMaster {
    let config = MasterConfig {
        ttl_secs: 3,
        ..MasterConfig::default()
    };
    Master::new(
        connect(eps),
        wal.clone(),
        layout.clone(),
        name.to_string(),
        config,
    )
}

fn server(eps: &[String], layout: &Layout, name: &str, wal: &MemWal) -> EtcdServer {
    let host = TestHost {
        name: name.to_string(),
        wal: wal.clone(),
        open: RefCell::new(BTreeSet::new()),
    };
    let config = RegionServerConfig {
        ttl_secs: 3,
        margin_ms: 300,
        ..RegionServerConfig::default()
    };
    RegionServer::new(
        connect(eps),
        host,
        layout.clone(),
        name.to_string(),
        name.to_string(),
        config,
    )
}

/// Ticks every node every 20 ms until `done` holds; panics after `limit`.
fn run_until(
    clock: &Clock,
    masters: &mut [&mut EtcdMaster],
    servers: &mut [&mut EtcdServer],
    limit: Duration,
    what: &str,
    mut done: impl FnMut(&[&mut EtcdMaster], &[&mut EtcdServer], Millis) -> bool,
) {
    let start = Instant::now();
    loop {
        let now = clock.now();
        for m in masters.iter_mut() {
            m.tick(now);
        }
        for s in servers.iter_mut() {
            s.tick(now);
        }
        if done(masters, servers, clock.now()) {
            return;
        }
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn leader_lease_expiry_elects_the_standby_and_the_old_leader_cannot_write() {
    let Some(eps) = endpoints() else { return };
    let layout = layout("election");
    let wal = MemWal::new(0);
    let clock = Clock(Instant::now());
    let mut m1 = master(&eps, &layout, "m1:16000", &wal);
    let mut m2 = master(&eps, &layout, "m2:16000", &wal);
    run_until(
        &clock,
        &mut [&mut m1],
        &mut [],
        Duration::from_secs(10),
        "m1 active",
        |m, _, _| m[0].is_active(),
    );
    run_until(
        &clock,
        &mut [&mut m1, &mut m2],
        &mut [],
        Duration::from_secs(2),
        "m2 standing by",
        |m, _, _| !m[1].is_active(),
    );
    let old_epoch = m1.epoch().expect("m1 active");

    // m1 stops renewing (frozen); m2 takes over once m1's lease expires.
    let frozen = Instant::now();
    run_until(
        &clock,
        &mut [&mut m2],
        &mut [],
        Duration::from_secs(10),
        "m2 active",
        |m, _, _| m[0].is_active(),
    );
    let takeover = frozen.elapsed();
    let new_epoch = m2.epoch().expect("m2 active");
    assert!(
        new_epoch > old_epoch,
        "epochs increase: {old_epoch} then {new_epoch}"
    );
    eprintln!("takeover {takeover:?} after the leader stopped renewing a 3 s lease");

    // The deposed m1 still believes it is active; its write is refused by the guard.
    assert!(m1.is_active());
    let stale = m1.submit(AdminRequest::CreateTable {
        table: "stale".into(),
        splits: vec![],
    });
    assert_eq!(stale, Err(AdminError::Unavailable));
    assert!(
        !m1.is_active(),
        "a refused guard makes the master step down"
    );
    run_until(
        &clock,
        &mut [&mut m2],
        &mut [],
        Duration::from_secs(10),
        "m2 active",
        |m, _, _| m[0].is_active(),
    );
    assert!(
        m2.tables().is_empty(),
        "the stale master's table must not exist"
    );
    let ok = m2.submit(AdminRequest::CreateTable {
        table: "fresh".into(),
        splits: vec![],
    });
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn registration_expiry_is_seen_by_a_watch_after_the_servers_own_deadline() {
    let Some(eps) = endpoints() else { return };
    let layout = layout("registration");
    let wal = MemWal::new(0);
    let clock = Clock(Instant::now());
    let watcher = connect(&eps);
    let mut rs = server(&eps, &layout, "h:16020:1", &wal);
    run_until(
        &clock,
        &mut [],
        &mut [&mut rs],
        Duration::from_secs(10),
        "registration",
        |_, s, now| s[0].is_live(now),
    );
    // From the current revision: a watch from an old one makes etcd replay its whole history.
    let now_rev = watcher
        .range(&layout.servers(), None, 1)
        .expect("range")
        .revision;
    let watch = watcher
        .watch(&layout.servers(), now_rev + 1)
        .expect("watch");

    // Keep renewing for a while: the deadline moves forward with each answered renewal.
    let first = rs.deadline().expect("registered");
    run_until(
        &clock,
        &mut [],
        &mut [&mut rs],
        Duration::from_secs(5),
        "renewals",
        |_, s, _| s[0].deadline().is_some_and(|d| d > first + 500),
    );

    // Stop renewing (a SIGSTOPped server): it stops serving at its deadline, etcd deletes the
    // registration later, and the watch reports the deletion.
    let deadline = rs.deadline().expect("registered");
    let deleted_at = loop {
        let events = watcher.poll(watch).expect("watch alive");
        if events.iter().any(|e| e.kind == EventKind::Delete) {
            break clock.now();
        }
        assert!(
            clock.now() < deadline + 10_000,
            "registration never expired"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(
        !rs.is_live(deleted_at),
        "past its deadline the server refuses to serve"
    );
    assert!(
        deleted_at >= deadline,
        "the server must stop ({deadline} ms) before its registration expires ({deleted_at} ms)"
    );
    eprintln!(
        "self-fencing deadline {} ms before etcd expired the registration",
        deleted_at - deadline
    );

    // Resumed, it finds its lease gone and aborts for good.
    rs.tick(clock.now());
    assert!(rs.aborted().is_some());
}

#[test]
fn a_new_leader_resumes_procedures_and_recovers_a_dead_server() {
    let Some(eps) = endpoints() else { return };
    let layout = layout("procedures");
    let wal = MemWal::new(200);
    let clock = Clock(Instant::now());
    let mut m1 = master(&eps, &layout, "m1:16000", &wal);
    let mut m2 = master(&eps, &layout, "m2:16000", &wal);
    let mut a = server(&eps, &layout, "a:16020:1", &wal);
    let mut b = server(&eps, &layout, "b:16020:1", &wal);
    run_until(
        &clock,
        &mut [&mut m1],
        &mut [&mut a, &mut b],
        Duration::from_secs(10),
        "m1 active",
        |m, s, now| m[0].is_active() && s.iter().all(|s| s.is_live(now)),
    );
    let splits = (1..20).map(|i| format!("r{i:03}").into_bytes()).collect();
    m1.submit(AdminRequest::CreateTable {
        table: "t".into(),
        splits,
    })
    .expect("create persisted");
    // m1 goes away before acting on it; m2 must finish the creation and assign every region.
    m1.resign();
    let served = |s: &[&mut EtcdServer], now| s.iter().map(|s| s.served(now).len()).sum::<usize>();
    run_until(
        &clock,
        &mut [&mut m2],
        &mut [&mut a, &mut b],
        Duration::from_secs(20),
        "20 regions open",
        |m, s, now| {
            m[0].procedures().is_empty()
                && m[0].regions().len() == 20
                && m[0]
                    .regions()
                    .iter()
                    .all(|(_, r)| r.state == RegionState::Open)
                && served(s, now) == 20
        },
    );
    let on_a: Vec<String> = a.served(clock.now()).into_iter().map(|(r, _)| r).collect();
    assert!(
        !on_a.is_empty() && on_a.len() < 20,
        "regions spread over both servers: {}",
        on_a.len()
    );

    // Server a dies (stops renewing): after its lease expires its WAL is fenced and its regions
    // reopen on b.
    for r in &on_a {
        wal.append("a:16020:1", r, 7)
            .expect("a's WAL takes writes while a lives");
    }
    run_until(
        &clock,
        &mut [&mut m2],
        &mut [&mut b],
        Duration::from_secs(20),
        "all 20 on b",
        |m, s, now| m[0].procedures().is_empty() && s[0].served(now).len() == 20,
    );
    assert!(
        wal.is_fenced("a:16020:1"),
        "a's WAL fenced before its regions reopened"
    );
    assert!(
        wal.append("a:16020:1", &on_a[0], 8).is_err(),
        "the fenced WAL refuses a zombie's append"
    );
    let regions = m2.regions();
    assert!(regions
        .iter()
        .all(|(_, r)| r.server.as_deref() == Some("b:16020:1") && r.state == RegionState::Open));
    assert!(m2.live_servers() == vec!["b:16020:1".to_string()]);

    // A move through the new leader, then a drop.
    let region = regions[0].0.clone();
    m2.submit(AdminRequest::Unassign {
        region: region.clone(),
    })
    .expect("unassign");
    run_until(
        &clock,
        &mut [&mut m2],
        &mut [&mut b],
        Duration::from_secs(10),
        "closed",
        |m, s, now| m[0].procedures().is_empty() && s[0].served(now).len() == 19,
    );
    m2.submit(AdminRequest::DropTable { table: "t".into() })
        .expect("drop");
    run_until(
        &clock,
        &mut [&mut m2],
        &mut [&mut b],
        Duration::from_secs(20),
        "dropped",
        |m, s, now| {
            m[0].procedures().is_empty() && m[0].tables().is_empty() && s[0].served(now).is_empty()
        },
    );
    assert!(m2.regions().is_empty());
    let ops = m2.stats();
    eprintln!("new leader's work: {ops:?}");
}
