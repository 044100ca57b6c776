//! A cluster with data (a master and region servers as processes, the root a local directory
//! they share) on an etcd of the test's own (`support/own_etcd.rs`):
//!
//! - a region server bound to every interface announces its `--advertise` address (in its
//!   name, its etcd record and the locations clients get), and one without it is refused;
//! - etcd stopped past the leases and started again with its data: every region server stops
//!   serving, stays up and registers again as a new incarnation, the master stays up, every
//!   region is served again within 10 s of etcd's return, and no acknowledged write is lost.
//!
//! Skipped without `STRATA_ETCD_ENDPOINTS` (no etcd on the machine) unless
//! `STRATA_REQUIRE_ETCD`.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/own_etcd.rs"]
mod own_etcd;
mod support;

use cluster::start;
use own_etcd::OwnEtcd;
use support::Killed;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection, Table};
use strata_cluster::etcd::EtcdKv;
use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::record::{RegionRecord, RegionState};
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use tokio::runtime::Runtime;

struct Cluster {
    etcd: String,
    name: String,
    root: tempfile::TempDir,
    layout: Layout,
    master: Option<Killed>,
    servers: Vec<(Killed, String)>,
}

impl Cluster {
    fn new(etcd: &OwnEtcd, tag: &str) -> Cluster {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let name = format!("{tag}-{}-{nanos}", std::process::id());
        Cluster {
            etcd: etcd.endpoint(),
            layout: Layout::new(&format!("/strata/{name}")),
            name,
            root: tempfile::tempdir().unwrap(),
            master: None,
            servers: Vec::new(),
        }
    }

    fn args(&self, cmd: &str) -> Vec<String> {
        [
            cmd,
            "--etcd",
            &self.etcd,
            "--cluster",
            &self.name,
            "--ttl",
            "2",
            "--root",
            self.root.path().to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    fn start_master(&mut self) {
        let mut args = self.args("master");
        args.extend(["--advertise".into(), "127.0.0.1:17990".into()]);
        self.master = Some(start(&args, "active").0);
    }

    /// Starts a region server with `extra` flags (default: `--listen 127.0.0.1:0`); returns
    /// the address it announces.
    fn start_server(&mut self, extra: &[&str]) -> String {
        let mut args = self.args("regionserver");
        args.extend(
            ["--memtable-mib", "32", "--block-cache-mib", "8"]
                .iter()
                .map(|s| s.to_string()),
        );
        if extra.is_empty() {
            args.extend(["--listen".into(), "127.0.0.1:0".into()]);
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let (child, line) = start(&args, "serving on ");
        let announced = line
            .split(" as ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no announced address in {line}"))
            .to_string();
        self.servers.push((child, announced.clone()));
        announced
    }

    fn kv(&self) -> EtcdKv {
        EtcdKv::connect(std::slice::from_ref(&self.etcd), Duration::from_secs(2)).unwrap()
    }

    /// Registered servers' names, by reading etcd (`None` while it does not answer).
    fn registered(&self) -> Option<Vec<String>> {
        let kv = EtcdKv::connect(std::slice::from_ref(&self.etcd), Duration::from_secs(2)).ok()?;
        let prefix = self.layout.servers();
        let page = strata_cluster::kv::range_all(&kv, &prefix, 1000).ok()?;
        Some(
            page.kvs
                .iter()
                .filter_map(|kv| kv.key.strip_prefix(&prefix).map(str::to_owned))
                .collect(),
        )
    }

    /// Region → the name of the live server it is open on (open regions only).
    fn placement(&self) -> Option<BTreeMap<String, String>> {
        let kv = EtcdKv::connect(std::slice::from_ref(&self.etcd), Duration::from_secs(2)).ok()?;
        let prefix = self.layout.regions();
        let page = strata_cluster::kv::range_all(&kv, &prefix, 1000).ok()?;
        Some(
            page.kvs
                .iter()
                .filter_map(|kv| {
                    let rec = RegionRecord::decode(&kv.value).ok()?;
                    match (rec.state, rec.server) {
                        (RegionState::Open, Some(s)) => {
                            Some((kv.key.strip_prefix(&prefix)?.to_string(), s))
                        }
                        _ => None,
                    }
                })
                .collect(),
        )
    }

    /// Whether every one of `regions` regions is open on a registered server and answers a
    /// read through a new connection.
    fn all_served(&self, rt: &Runtime, regions: usize) -> bool {
        let (Some(live), Some(open)) = (self.registered(), self.placement()) else {
            return false;
        };
        if open.len() != regions || !open.values().all(|s| live.contains(s)) {
            return false;
        }
        let addrs: Vec<String> = live
            .iter()
            .filter_map(|n| n.rsplit_once(':').map(|(a, _)| a.to_string()))
            .collect();
        let probe = ClientOptions {
            operation_timeout: Duration::from_secs(2),
            retries: 2,
            ..ClientOptions::default()
        };
        rt.block_on(async {
            let Ok(conn) = Connection::connect_any(&addrs, probe).await else {
                return false;
            };
            let Ok(table) = conn.table("t") else {
                return false;
            };
            for r in ["000", "250", "500", "750"] {
                if table.get(&Get::new(r)).await.is_err() {
                    return false;
                }
            }
            true
        })
    }

    fn forget(&self) {
        let _ = self.kv().txn(strata_cluster::kv::Txn {
            compares: vec![],
            success: vec![strata_cluster::kv::Op::DeletePrefix(
                self.layout.root().to_string(),
            )],
        });
    }
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn options() -> ClientOptions {
    ClientOptions {
        retry_max: Duration::from_millis(500),
        retries: 100,
        ..ClientOptions::default()
    }
}

async fn create_table(conn: &Connection) -> Table {
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(
            &t,
            &[Bytes::from("250"), Bytes::from("500"), Bytes::from("750")],
        )
        .await
        .unwrap();
    conn.table("t").unwrap()
}

#[test]
fn a_server_on_every_interface_announces_its_advertised_address() {
    let Some(etcd) = OwnEtcd::start() else { return };
    let mut c = Cluster::new(&etcd, "advertise");
    c.start_master();

    // Every interface without access control: refused unless --insecure says so (RFC 0026).
    let mut args = c.args("regionserver");
    args.extend(["--listen".into(), "0.0.0.0:0".into()]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(&args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("not a loopback address") && err.contains("--insecure"),
        "{err}"
    );
    // No advertised address for a wildcard listener: a clear error, nothing registered.
    args.push("--insecure".into());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(&args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("--advertise"), "{err}");
    assert_eq!(c.registered(), Some(vec![]));

    let announced = c.start_server(&[
        "--listen",
        "0.0.0.0:0",
        "--advertise",
        "127.0.0.1",
        "--insecure",
    ]);
    let port = announced.strip_prefix("127.0.0.1:").unwrap();
    assert!(port.parse::<u16>().unwrap() > 0, "{announced}");
    // It listens before it registers (at its first tick).
    let waiting = Instant::now();
    let names = loop {
        let names = c.registered().unwrap_or_default();
        if !names.is_empty() || waiting.elapsed() > Duration::from_secs(10) {
            break names;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].starts_with(&format!("{announced}:")), "{names:?}");
    let record = c.kv().get(&c.layout.server(&names[0])).unwrap().unwrap();
    assert_eq!(String::from_utf8_lossy(&record.value), announced);

    // Clients reach it, and are told to, at that address.
    let rt = runtime();
    rt.block_on(async {
        let conn = Connection::connect_any(std::slice::from_ref(&announced), options())
            .await
            .unwrap();
        let table = create_table(&conn).await;
        for r in ["100", "600"] {
            table
                .put(&Put::new(Bytes::from(r)).add("f", "q", Bytes::from("v")))
                .await
                .unwrap();
            let got = table.get(&Get::new(r)).await.unwrap();
            assert_eq!(got.first().map(|c| c.value.clone()), Some(Bytes::from("v")));
        }
    });
    let open = c.placement().unwrap();
    assert_eq!(open.len(), 4, "{open:?}");
    assert!(open.values().all(|s| s == &names[0]), "{open:?}");
    c.forget();
}

#[test]
fn every_region_is_served_again_soon_after_etcd_returns_from_an_outage() {
    let Some(etcd) = OwnEtcd::start() else { return };
    let mut c = Cluster::new(&etcd, "outage");
    c.start_master();
    let addrs: Vec<String> = (0..3).map(|_| c.start_server(&[])).collect();
    let rt = runtime();
    let conn = rt
        .block_on(Connection::connect_any(&addrs, options()))
        .unwrap();
    let table = rt.block_on(create_table(&conn));
    let before = c.registered().unwrap();

    // Writers: unique rows, each acknowledged one recorded.
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let writers: Vec<_> = (0..3u64)
        .map(|w| {
            let (table, stop, acked) = (table.clone(), stop.clone(), acked.clone());
            rt.spawn(async move {
                let mut k = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    k += 1;
                    let row = format!("{:03}-{w}-{k:08}", (k * 7919 + w * 331) % 1000);
                    let put = Put::new(Bytes::from(row.clone())).add("f", "q", Bytes::from("v"));
                    match tokio::time::timeout(Duration::from_secs(5), table.put(&put)).await {
                        Ok(Ok(())) => acked.lock().unwrap().push(row),
                        _ => tokio::time::sleep(Duration::from_millis(100)).await,
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    let acked_before = acked.lock().unwrap().len();
    assert!(acked_before > 0);

    etcd.run(&["stop"]);
    // Past every lease (TTL 2 s): nothing may be served, every process stays up.
    std::thread::sleep(Duration::from_secs(6));
    for (child, addr) in &mut c.servers {
        assert!(
            child.0.try_wait().unwrap().is_none(),
            "the region server at {addr} exited without etcd"
        );
    }
    assert!(
        c.master.as_mut().unwrap().0.try_wait().unwrap().is_none(),
        "the master exited without etcd"
    );
    let refused = rt.block_on(async {
        let probe = ClientOptions {
            operation_timeout: Duration::from_secs(2),
            retries: 0,
            ..ClientOptions::default()
        };
        let mut refused = 0;
        for addr in &addrs {
            if let Ok(conn) = Connection::connect_with(addr, probe.clone()).await {
                let t = conn.table("t").unwrap();
                let put = Put::new(Bytes::from("500-outage")).add("f", "q", Bytes::from("x"));
                if t.put(&put).await.is_err() {
                    refused += 1;
                }
            } else {
                refused += 1;
            }
        }
        refused
    });
    assert_eq!(refused, addrs.len(), "a server without etcd took a write");

    etcd.run(&["resume"]);
    let back = Instant::now();
    while !c.all_served(&rt, 4) {
        assert!(
            back.elapsed() < Duration::from_secs(10),
            "regions not all served 10 s after etcd returned: {:?} on {:?}",
            c.placement(),
            c.registered()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let recovered = back.elapsed();
    let after = c.registered().unwrap();
    assert_eq!(after.len(), 3, "{after:?}");
    for name in &after {
        assert!(
            !before.contains(name),
            "{name} registered under its old name (not a new incarnation)"
        );
    }
    for (child, addr) in &mut c.servers {
        assert!(child.0.try_wait().unwrap().is_none(), "{addr} exited");
    }

    std::thread::sleep(Duration::from_secs(2));
    stop.store(true, Ordering::SeqCst);
    rt.block_on(async {
        for w in writers {
            let _ = tokio::time::timeout(Duration::from_secs(10), w).await;
        }
    });
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() > acked_before,
        "no write acknowledged after the outage"
    );
    let fresh: Vec<String> = after
        .iter()
        .filter_map(|n| n.rsplit_once(':').map(|(a, _)| a.to_string()))
        .collect();
    rt.block_on(async {
        let conn = Connection::connect_any(&fresh, options()).await.unwrap();
        let table = conn.table("t").unwrap();
        for row in &acked {
            let got = table.get(&Get::new(row.clone())).await.unwrap();
            assert!(!got.is_empty(), "acknowledged write {row} lost");
        }
        assert!(
            table.get(&Get::new("500-outage")).await.unwrap().is_empty(),
            "a write refused during the outage is there"
        );
    });
    eprintln!(
        "etcd stopped 6 s: every region served again {:.2} s after it returned; {} acknowledged \
         writes ({acked_before} before) all read back",
        recovered.as_secs_f64(),
        acked.len()
    );
    c.forget();
}
