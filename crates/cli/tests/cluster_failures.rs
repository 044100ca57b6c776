//! Failures of a cluster with data, as real processes on a real etcd (`STRATA_ETCD_ENDPOINTS`)
//! and the MiniDFSCluster of `scripts/hdfs.sh` (`STRATA_HDFS_URL`), while clients write and
//! read rows spread over every region:
//!
//! - a region server stopped (SIGSTOP) past its lease is replaced, then woken (SIGCONT): it
//!   serves nothing and accepts no write, registers again as a new incarnation (a new name at
//!   the same address; the process stays up), and its old WAL was fenced and split away;
//! - the active master killed (SIGKILL) while moves and a create-table are in flight: the
//!   standby finishes them, and the new table serves every region;
//! - every region server restarted in turn, each drained first with the shell's
//!   `decommission` (HBase's graceful rolling restart);
//! - the whole cluster killed at once (SIGKILL of the master and every region server) and
//!   started again: the new master recovers the dead servers' WALs onto the new servers.
//!
//! In each, every acknowledged write must read back. Skipped with a message when either engine
//! is missing, unless `STRATA_REQUIRE_ETCD` or `STRATA_REQUIRE_HDFS` is set.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use cluster::{engines, start, Engines};

use support::Killed;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection, Table};
use strata_cluster::etcd::EtcdKv;
use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::master::{submit_request, take_result, AdminRequest};
use strata_cluster::status::ClusterStatus;
use strata_model::ops::{Get, Put, RowMutations};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb;
use tokio::runtime::Runtime;

fn signal(child: &Killed, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill {sig} failed");
}

/// One test's cluster: its own etcd prefix and HDFS directory.
struct Cluster {
    e: Engines,
    name: String,
    root: String,
    kv: EtcdKv,
    layout: Layout,
    masters: Vec<(Killed, String)>,
    servers: Vec<(Killed, String)>,
    next_master: u32,
}

impl Cluster {
    fn new(e: Engines, tag: &str) -> Cluster {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let name = format!("{tag}-{}-{nanos}", std::process::id());
        let root = format!("{}/e2e/{name}", e.hdfs);
        let kv = EtcdKv::connect(std::slice::from_ref(&e.etcd), Duration::from_secs(5)).unwrap();
        let layout = Layout::new(&format!("/strata/{name}"));
        Cluster {
            e,
            name,
            root,
            kv,
            layout,
            masters: Vec::new(),
            servers: Vec::new(),
            next_master: 0,
        }
    }

    fn args(&self, cmd: &str) -> Vec<String> {
        [
            cmd,
            "--etcd",
            &self.e.etcd,
            "--cluster",
            &self.name,
            "--ttl",
            "2",
            "--root",
            &self.root,
            "--hdfs-http",
            &self.e.http,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    /// Starts a master (advertised under a unique made-up address); waits until it runs.
    fn start_master(&mut self, marker: &str) {
        self.next_master += 1;
        let advertise = format!("127.0.0.1:{}", 17_000 + self.next_master);
        let mut args = self.args("master");
        args.extend(["--advertise".to_string(), advertise.clone()]);
        let (child, _) = start(&args, marker);
        self.masters.push((child, advertise));
    }

    /// Starts a region server; returns its address.
    fn start_server(&mut self) -> String {
        let mut args = self.args("regionserver");
        args.extend(
            [
                "--listen",
                "127.0.0.1:0",
                "--memtable-mib",
                "32",
                "--block-cache-mib",
                "8",
            ]
            .map(String::from),
        );
        let (child, line) = start(&args, "serving on ");
        let addr = line
            .split("serving on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string();
        self.servers.push((child, addr.clone()));
        addr
    }

    /// The cluster's status; an etcd read that fails (a loaded machine: the test's own client
    /// timed out) is retried for up to 10 s.
    fn status(&self) -> ClusterStatus {
        etcd_retry(|| ClusterStatus::read(&self.kv, &self.layout).map_err(|e| e.to_string()))
    }

    /// The name (`host:port:startcode`) of the live server at `addr`.
    fn server_name(&self, addr: &str) -> String {
        self.status()
            .servers
            .into_iter()
            .find(|s| s.rsplit_once(':').is_some_and(|(a, _)| a == addr))
            .unwrap_or_else(|| panic!("{addr} is not registered"))
    }

    /// Region name → the address of the server it is open on (open regions only).
    fn placement(&self) -> BTreeMap<String, String> {
        let prefix = self.layout.regions();
        etcd_retry(|| {
            strata_cluster::kv::range_all(&self.kv, &prefix, 1000).map_err(|e| e.to_string())
        })
        .kvs
        .iter()
        .filter_map(|kv| {
            let rec = strata_cluster::record::RegionRecord::decode(&kv.value).ok()?;
            let name = kv.key.strip_prefix(&prefix)?.to_string();
            match (rec.state, rec.server) {
                (strata_cluster::record::RegionState::Open, Some(s)) => {
                    Some((name, s.rsplit_once(':')?.0.to_string()))
                }
                _ => None,
            }
        })
        .collect()
    }

    /// Submits `req` to the active master; returns its answer.
    fn request(&self, req: &AdminRequest) -> String {
        let id = format!(
            "test-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        submit_request(&self.kv, &self.layout, &id, req).unwrap();
        let start = Instant::now();
        loop {
            if let Some(r) = take_result(&self.kv, &self.layout, &id).unwrap() {
                return r;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no answer to {req:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Runs `strata shell -n` on this cluster with `script`; returns (success, stdout+stderr).
    fn shell(&self, script: &str) -> (bool, String) {
        let args = ["-n", "--etcd", &self.e.etcd, "--cluster", &self.name];
        support::run_shell(&args, script)
    }

    /// Waits until every one of `regions` regions is open on a live server, nothing is in
    /// transition, and each answers a read (through a new connection to the live servers, so
    /// no cached location points at a stopped one); returns how long it took. Panics after
    /// `limit`.
    fn serving(&self, rt: &Runtime, regions: usize, limit: Duration) -> Duration {
        let start = Instant::now();
        loop {
            assert!(
                start.elapsed() < limit,
                "regions not all serving within {limit:?}: {}",
                self.status()
            );
            let s = self.status();
            let open = self.placement();
            let live: Vec<&str> = s
                .servers
                .iter()
                .filter_map(|n| n.rsplit_once(':').map(|(a, _)| a))
                .collect();
            if s.procedures.is_empty()
                && open.len() == regions
                && open.values().all(|a| live.contains(&a.as_str()))
            {
                let addrs: Vec<String> = live.iter().map(|a| a.to_string()).collect();
                let probe = ClientOptions {
                    operation_timeout: Duration::from_secs(5),
                    ..options()
                };
                // One probe is bounded by a second: a stopped server still counted live
                // (its lease not yet expired) holds a request until the operation timeout,
                // which would make the measured time a multiple of it, not the failover's.
                let all = rt.block_on(async {
                    let probe = async {
                        let Ok(conn) = Connection::connect_any(&addrs, probe).await else {
                            return false;
                        };
                        let table = conn.table("t").unwrap();
                        let mut all = true;
                        for start_row in ["000", "250", "500", "750"] {
                            all &= table.get(&Get::new(start_row)).await.is_ok();
                        }
                        all
                    };
                    tokio::time::timeout(Duration::from_secs(1), probe)
                        .await
                        .unwrap_or(false)
                });
                if all {
                    return start.elapsed();
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The table through a new connection to the servers live now (a client knows only the
    /// servers it was given: after a rolling restart none of the first ones is left).
    fn fresh_table(&self, rt: &Runtime) -> Table {
        let addrs: Vec<String> = self
            .status()
            .servers
            .iter()
            .filter_map(|n| n.rsplit_once(':').map(|(a, _)| a.to_string()))
            .collect();
        let conn = rt
            .block_on(Connection::connect_any(&addrs, options()))
            .unwrap();
        conn.table("t").unwrap()
    }

    /// Deletes the cluster's etcd keys (its files stay in the run's own HDFS directory).
    fn forget(&self) {
        let _ = self.kv.txn(strata_cluster::kv::Txn {
            compares: vec![],
            success: vec![strata_cluster::kv::Op::DeletePrefix(
                self.layout.root().to_string(),
            )],
        });
    }
}

/// Clients writing and reading rows spread over the four regions (split at 250, 500, 750).
/// Each writer puts `<hhh>-<w>-<k>` rows one at a time and keeps going after a failed put
/// (which may or may not have been applied, so only acknowledged puts are checked); every
/// tenth put it reads back an earlier acknowledged row of its own, which must be there.
struct Load {
    acked: Vec<Arc<Mutex<Vec<u64>>>>,
    stop: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    read_misses: Arc<Mutex<Vec<String>>>,
}

/// Runs an etcd read until it succeeds, for up to 10 s.
fn etcd_retry<T>(mut read: impl FnMut() -> Result<T, String>) -> T {
    let start = Instant::now();
    loop {
        match read() {
            Ok(v) => return v,
            Err(e) if start.elapsed() > Duration::from_secs(10) => panic!("etcd read: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

fn row(w: usize, k: u64) -> Bytes {
    let h = (k * 7919 + w as u64 * 331) % 1000;
    Bytes::from(format!("{h:03}-{w}-{k:08}"))
}

impl Load {
    fn start(rt: &Runtime, table: &Table, writers: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let read_misses = Arc::new(Mutex::new(Vec::new()));
        let mut acked = Vec::new();
        let mut tasks = Vec::new();
        for w in 0..writers {
            let mine = Arc::new(Mutex::new(Vec::new()));
            acked.push(mine.clone());
            let (table, stop, misses) = (table.clone(), stop.clone(), read_misses.clone());
            tasks.push(rt.spawn(async move {
                let mut k = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    k += 1;
                    let put = Put::new(row(w, k)).add("f", "q", Bytes::from(format!("v{k}")));
                    if table.put(&put).await.is_ok() {
                        mine.lock().unwrap().push(k);
                    } else {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    if k.is_multiple_of(10) {
                        let earlier = {
                            let a = mine.lock().unwrap();
                            a.get(a.len() / 2).copied()
                        };
                        if let Some(j) = earlier {
                            // A failed read (region moving) is retried by the client; a read
                            // that answers must hold the acknowledged value.
                            if let Ok(cells) = table.get(&Get::new(row(w, j))).await {
                                let want = Bytes::from(format!("v{j}"));
                                if cells.first().map(|c| &c.value) != Some(&want) {
                                    misses.lock().unwrap().push(format!("{w}/{j}"));
                                }
                            }
                        }
                    }
                }
            }));
        }
        Load {
            acked,
            stop,
            tasks,
            read_misses,
        }
    }

    fn count(&self) -> usize {
        self.acked.iter().map(|a| a.lock().unwrap().len()).sum()
    }

    /// Stops the clients and checks every acknowledged write reads back; returns their number.
    async fn finish(self, table: &Table) -> usize {
        self.stop.store(true, Ordering::SeqCst);
        // A client still retrying a put (its servers all restarted) is stopped: that put was not
        // acknowledged, so it is not checked.
        let stopping = Instant::now();
        while self.tasks.iter().any(|t| !t.is_finished())
            && stopping.elapsed() < Duration::from_secs(5)
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for t in self.tasks {
            t.abort();
            let _ = t.await;
        }
        let misses = self.read_misses.lock().unwrap().clone();
        assert!(
            misses.is_empty(),
            "reads missed acknowledged writes: {misses:?}"
        );
        let mut total = 0;
        for (w, acked) in self.acked.iter().enumerate() {
            let acked = acked.lock().unwrap().clone();
            for k in acked {
                let got = table.get(&Get::new(row(w, k))).await.unwrap();
                assert_eq!(
                    got.first().map(|c| c.value.clone()),
                    Some(Bytes::from(format!("v{k}"))),
                    "acknowledged write {w}/{k} lost"
                );
                total += 1;
            }
        }
        total
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

/// A put sent straight to `addr` for a row of every region, bypassing the client's routing.
async fn direct_puts(addr: &str) -> Vec<Result<(), String>> {
    let mut results = Vec::new();
    let client = pb::data_client::DataClient::connect(format!("http://{addr}")).await;
    let mut client = match client {
        Ok(c) => c,
        Err(e) => return vec![Err(format!("connect: {e}"))],
    };
    for r in ["000-stale", "250-stale", "500-stale", "750-stale"] {
        let mut rm = RowMutations::new(Bytes::from(r));
        rm.add(Put::new(Bytes::from(r)).add("f", "q", Bytes::from("stale")))
            .unwrap();
        let req = pb::MutateRequest {
            table: "t".into(),
            mutations: Some(strata_proto::convert::row_mutations_to_pb(&rm)),
        };
        let outcome = tokio::time::timeout(Duration::from_secs(5), client.mutate(req)).await;
        results.push(match outcome {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(status)) => Err(status.message().to_string()),
            Err(_) => Err("timed out".into()),
        });
    }
    results
}

/// The same puts over the framed protocol (a raw connection: preface, one frame per put,
/// each answered before the next is sent).
async fn direct_framed_puts(addr: &str) -> Vec<Result<(), String>> {
    use strata_proto::frame::{self, Method, PREFACE, RESPONSE_OK};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = match tokio::net::TcpStream::connect(addr).await {
        Ok(s) => s,
        Err(e) => return vec![Err(format!("connect: {e}"))],
    };
    if let Err(e) = stream.write_all(&PREFACE).await {
        return vec![Err(format!("preface: {e}"))];
    }
    let mut results = Vec::new();
    let mut input = bytes::BytesMut::new();
    for (id, r) in ["000-stale", "250-stale", "500-stale", "750-stale"]
        .into_iter()
        .enumerate()
    {
        let mut rm = RowMutations::new(Bytes::from(r));
        rm.add(Put::new(Bytes::from(r)).add("f", "q", Bytes::from("stale")))
            .unwrap();
        let req = pb::MutateRequest {
            table: "t".into(),
            mutations: Some(strata_proto::convert::row_mutations_to_pb(&rm)),
        };
        let mut out = bytes::BytesMut::new();
        frame::put_frame(&mut out, id as u32, Method::Mutate as u8, &req);
        let answer = async {
            stream.write_all(&out).await.map_err(|e| e.to_string())?;
            loop {
                if let Some(f) = frame::take_frame(&mut input).map_err(|e| e.to_string())? {
                    return Ok::<_, String>(f);
                }
                if stream
                    .read_buf(&mut input)
                    .await
                    .map_err(|e| e.to_string())?
                    == 0
                {
                    return Err("connection closed".to_string());
                }
            }
        };
        results.push(
            match tokio::time::timeout(Duration::from_secs(5), answer).await {
                Ok(Ok(f)) if f.kind == RESPONSE_OK => Ok(()),
                Ok(Ok(f)) => Err(format!("error frame for call {}", f.id)),
                Ok(Err(e)) => Err(e),
                Err(_) => Err("timed out".into()),
            },
        );
    }
    results
}

#[test]
fn a_region_server_stopped_past_its_lease_serves_nothing_when_woken() {
    let Some(e) = engines() else { return };
    let mut c = Cluster::new(e, "stop");
    c.start_master("active");
    let addrs: Vec<String> = (0..3).map(|_| c.start_server()).collect();
    let rt = runtime();
    let conn = rt
        .block_on(Connection::connect_any(&addrs, options()))
        .unwrap();
    let table = rt.block_on(create_table(&conn));
    let load = Load::start(&rt, &table, 4);
    std::thread::sleep(Duration::from_secs(2));

    let placement = c.placement();
    let victim = (0..c.servers.len())
        .max_by_key(|&i| placement.values().filter(|a| **a == c.servers[i].1).count())
        .unwrap();
    let victim_addr = c.servers[victim].1.clone();
    let victim_name = c.server_name(&victim_addr);
    let held = placement.values().filter(|a| **a == victim_addr).count();
    let before = load.count();
    assert!(held > 0 && before > 0, "{placement:?}, {before} writes");

    signal(&c.servers[victim].0, "-STOP");
    let stopped_at = Instant::now();
    c.serving(&rt, 4, Duration::from_secs(60));
    let failover = stopped_at.elapsed();
    assert!(
        !c.placement().values().any(|a| *a == victim_addr),
        "a region is still on the stopped server"
    );

    signal(&c.servers[victim].0, "-CONT");
    // Woken: every request it gets is refused (its lease is gone for good), and it registers
    // again under a new name.
    let refused = rt.block_on(direct_puts(&victim_addr));
    assert!(
        refused.iter().all(Result::is_err),
        "the woken server accepted a write for a region it lost: {refused:?}"
    );
    let refused = rt.block_on(direct_framed_puts(&victim_addr));
    assert!(
        refused.iter().all(Result::is_err),
        "the woken server accepted a framed write for a region it lost: {refused:?}"
    );
    let woke = Instant::now();
    let successor = loop {
        let again = c
            .status()
            .servers
            .into_iter()
            .find(|s| s.rsplit_once(':').is_some_and(|(a, _)| a == victim_addr));
        match again {
            Some(name) if name != victim_name => break name,
            _ => {}
        }
        assert!(
            c.servers[victim].0 .0.try_wait().unwrap().is_none(),
            "the woken server exited instead of registering again"
        );
        assert!(
            woke.elapsed() < Duration::from_secs(45),
            "the woken server did not register again"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    // Its WAL was fenced (HDFS lease recovery) and split away before its regions reopened:
    // nothing of it is left to append to, and nothing it wrote after waking is there.
    let root = strata_shared_storage::open_root(&c.root, Some(&c.e.http), Duration::from_secs(10))
        .unwrap();
    let wal_dir = root.path.join("wal");
    let left: Vec<String> = root
        .storage
        .files
        .list(&wal_dir)
        .unwrap_or_default()
        .into_iter()
        .map(|d| d.name)
        .filter(|n| n.starts_with(&victim_name.replace(':', ",")))
        .collect();
    assert!(
        left.is_empty(),
        "the stopped server's WAL is still there: {left:?}"
    );
    for r in ["000-stale", "250-stale", "500-stale", "750-stale"] {
        assert!(
            rt.block_on(table.get(&Get::new(r))).unwrap().is_empty(),
            "a write to the woken server reached the table"
        );
    }
    let status = c.status();
    // Its old name is gone (a `dead/` entry lasts only until a server registers at the same
    // address, as its successor did).
    assert!(!status.servers.contains(&victim_name), "{status}");
    assert!(status.servers.contains(&successor), "{status}");

    std::thread::sleep(Duration::from_secs(1));
    let after = load.count();
    let total = rt.block_on(load.finish(&c.fresh_table(&rt)));
    eprintln!(
        "SIGSTOP of the server holding {held} of 4 regions: serving elsewhere after {:.2} s; \
         woken, it refused every write and registered again; {total} acknowledged writes ({before} before) \
         all read back",
        failover.as_secs_f64()
    );
    assert!(after > before, "no write acknowledged after the failover");
    c.forget();
}

#[test]
fn the_standby_master_finishes_moves_when_the_active_one_is_killed() {
    let Some(e) = engines() else { return };
    let mut c = Cluster::new(e, "master");
    c.start_master("active");
    c.start_master("standing by");
    let addrs: Vec<String> = (0..3).map(|_| c.start_server()).collect();
    let rt = runtime();
    let conn = rt
        .block_on(Connection::connect_any(&addrs, options()))
        .unwrap();
    let table = rt.block_on(create_table(&conn));
    let load = Load::start(&rt, &table, 4);
    std::thread::sleep(Duration::from_secs(2));

    let active = c.status().masters[0].clone();
    let before = load.count();
    // The switch is kept in etcd: the standby must honour it too (no balancing moves below).
    let (ok, out) = c.shell("balance_switch false\n");
    assert!(
        ok && out.contains("Previous balancer state : true"),
        "{out}"
    );
    // Moves in flight: every region to the next server.
    let placement = c.placement();
    let names: Vec<String> = addrs.iter().map(|a| c.server_name(a)).collect();
    for (region, addr) in &placement {
        let i = addrs.iter().position(|a| a == addr).unwrap();
        let target = Some(names[(i + 1) % names.len()].clone());
        let answer = c.request(&AdminRequest::Move {
            region: region.clone(),
            target,
        });
        assert!(answer.starts_with("accepted"), "{answer}");
    }
    // A create-table in flight too: a second table of 16 regions, killed once its record
    // exists and before all its regions are open.
    let creating = {
        let conn = conn.clone();
        rt.spawn(async move {
            let t2 = TableDescriptor::new(TableName::parse("t2").unwrap())
                .with_family(FamilyDescriptor::new("f"));
            let splits: Vec<Bytes> = (1..16).map(|i| Bytes::from(format!("{i:02}"))).collect();
            conn.admin().create_table(&t2, &splits).await
        })
    };
    let waiting = Instant::now();
    let open_t2 = |c: &Cluster| {
        c.placement()
            .keys()
            .filter(|r| r.starts_with("t2,"))
            .count()
    };
    loop {
        let listed = c.status().tables.iter().any(|(name, _, _)| name == "t2");
        if listed && open_t2(&c) < 16 {
            break;
        }
        assert!(
            open_t2(&c) < 16 && waiting.elapsed() < Duration::from_secs(20),
            "the create of t2 was not seen in flight"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let t2_open_at_kill = open_t2(&c);
    let i = c.masters.iter().position(|(_, a)| *a == active).unwrap();
    let (killed, _) = c.masters.remove(i);
    let killed_at = Instant::now();
    drop(killed);
    let took = c.serving(&rt, 4 + 16, Duration::from_secs(60));
    // The create either answered or lost its answer with the master; either way the standby
    // finished it: every region of t2 serves a write and a read.
    let created = rt.block_on(creating).unwrap();
    if let Err(e) = &created {
        assert_eq!(e.code, pb::ErrorCode::Unavailable, "create of t2: {e}");
    }
    rt.block_on(async {
        let t2 = conn.table("t2").unwrap();
        for i in 0..16 {
            let row = Bytes::from(format!("{i:02}-row"));
            t2.put(&Put::new(row.clone()).add("f", "q", Bytes::from("v")))
                .await
                .unwrap();
            let got = t2.get(&Get::new(row)).await.unwrap();
            assert_eq!(got.first().map(|c| c.value.clone()), Some(Bytes::from("v")));
        }
    });
    let status = c.status();
    assert_eq!(status.masters.len(), 1, "{status}");
    assert_ne!(status.masters[0], active);
    let moved = c
        .placement()
        .iter()
        .filter(|(r, a)| placement.get(*r).is_some_and(|before| before != *a))
        .count();
    assert_eq!(moved, placement.len(), "every move finished: {status}");
    assert_eq!(status.balancer, Some(false), "{status}");
    // As HBase's shell, `balancer` prints false while the balancer is off.
    let (ok, out) = c.shell("balancer\n");
    assert!(ok && out.contains("false (the balancer is off"), "{out}");
    std::thread::sleep(Duration::from_secs(1));
    let after = load.count();
    let total = rt.block_on(load.finish(&c.fresh_table(&rt)));
    eprintln!(
        "kill -9 of the active master with {} moves and a create of 16 regions ({t2_open_at_kill} \
         open; answer: {}) in flight: all finished by the standby and serving {:.2} s after the \
         kill; {total} acknowledged writes ({before} before) all read back",
        placement.len(),
        if created.is_ok() { "ok" } else { "lost" },
        killed_at.elapsed().min(took).as_secs_f64()
    );
    assert!(after > before, "no write acknowledged after the kill");
    c.forget();
}

#[test]
fn a_rolling_restart_of_every_region_server_loses_nothing() {
    let Some(e) = engines() else { return };
    let mut c = Cluster::new(e, "rolling");
    c.start_master("active");
    let addrs: Vec<String> = (0..3).map(|_| c.start_server()).collect();
    let rt = runtime();
    let conn = rt
        .block_on(Connection::connect_any(&addrs, options()))
        .unwrap();
    let table = rt.block_on(create_table(&conn));
    let load = Load::start(&rt, &table, 4);
    std::thread::sleep(Duration::from_secs(2));
    let before = load.count();

    // Bad input is refused and changes nothing.
    let (ok, out) = c.shell("move 'nosuch,00000009'\n");
    assert!(!ok && out.contains("no region nosuch,00000009"), "{out}");
    let region = c.placement().keys().next().unwrap().clone();
    let (ok, out) = c.shell(&format!("move '{region}', '127.0.0.1:1'\n"));
    assert!(!ok && out.contains("no live region server"), "{out}");
    let (ok, out) = c.shell("decommission '127.0.0.1:1'\n");
    assert!(!ok && out.contains("no live region server"), "{out}");
    assert!(c.status().procedures.is_empty() && c.status().decommissioned.is_empty());
    // A region named as list_regions prints it (HBase's name) moves, and so does its encoded
    // name alone; the regions' servers' figures come from each server.
    let (ok, out) = c.shell("list_regions 't'\n");
    assert!(ok && out.contains(" 4 rows"), "{out}");
    let name = out
        .lines()
        .filter_map(|l| l.split('|').nth(1))
        .map(str::trim)
        .find(|n| n.starts_with("t,"))
        .unwrap()
        .to_string();
    let (ok, out) = c.shell(&format!("move '{name}'\n"));
    assert!(ok, "{out}");
    let encoded = name
        .trim_end_matches('.')
        .rsplit_once('.')
        .unwrap()
        .1
        .to_string();
    let (ok, out) = c.shell(&format!("move '{encoded}'\n"));
    assert!(ok, "{out}");

    let started = Instant::now();
    for round in 0..3 {
        let addr = c.servers[0].1.clone();
        let (ok, out) = c.shell(&format!("decommission '{addr}'\n"));
        assert!(ok, "{out}");
        // Drained: no region left on it.
        let drain = Instant::now();
        while c.placement().values().any(|a| *a == addr) || !c.status().procedures.is_empty() {
            assert!(
                drain.elapsed() < Duration::from_secs(60),
                "{addr} not drained: {}",
                c.status()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        // A clean stop (SIGTERM), then a new server in its place.
        let (old, _) = c.servers.remove(0);
        signal(&old, "-TERM");
        let mut old = old;
        let stop = Instant::now();
        while old.0.try_wait().unwrap().is_none() {
            assert!(
                stop.elapsed() < Duration::from_secs(30),
                "{addr} did not stop"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        c.start_server();
        c.serving(&rt, 4, Duration::from_secs(60));
        let (ok, out) = c.shell("status 'detailed'\n");
        assert!(ok, "{out}");
        assert!(out.contains("3 live servers"), "round {round}: {out}");
    }
    // The balancer spreads the regions over the new servers.
    let (ok, out) = c.shell("balancer\n");
    assert!(ok || out.contains("in progress"), "{out}");
    c.serving(&rt, 4, Duration::from_secs(60));
    let elapsed = started.elapsed();
    std::thread::sleep(Duration::from_secs(1));
    let after = load.count();
    let total = rt.block_on(load.finish(&c.fresh_table(&rt)));
    eprintln!(
        "rolling restart of 3 region servers (drain, stop, start) in {:.1} s; {total} \
         acknowledged writes ({before} before) all read back",
        elapsed.as_secs_f64()
    );
    assert!(after > before, "no write acknowledged during the restart");
    c.forget();
}

#[test]
fn a_whole_cluster_killed_at_once_restarts_with_every_acknowledged_write() {
    let Some(e) = engines() else { return };
    let mut c = Cluster::new(e, "whole");
    c.start_master("active");
    let addrs: Vec<String> = (0..3).map(|_| c.start_server()).collect();
    let rt = runtime();
    let conn = rt
        .block_on(Connection::connect_any(&addrs, options()))
        .unwrap();
    let table = rt.block_on(create_table(&conn));
    let load = Load::start(&rt, &table, 4);
    std::thread::sleep(Duration::from_secs(2));
    // Part of the data in store files, the rest only in the WALs.
    rt.block_on(conn.admin().flush("t")).unwrap();
    std::thread::sleep(Duration::from_secs(1));

    // Every process dies at once (SIGKILL): the master and all three region servers.
    let before = load.count();
    c.servers.clear();
    c.masters.clear();
    let killed_at = Instant::now();
    c.start_master("active");
    for _ in 0..3 {
        c.start_server();
    }
    // The new master finds three dead servers: it fences and splits their WALs and opens
    // every region on the new ones.
    let took = c.serving(&rt, 4, Duration::from_secs(90));
    let status = c.status();
    assert_eq!(status.servers.len(), 3, "{status}");
    let total = rt.block_on(load.finish(&c.fresh_table(&rt)));
    assert!(total >= before, "{total} < {before}");
    // The restarted cluster takes writes.
    let table = c.fresh_table(&rt);
    rt.block_on(async {
        for i in 0..8u32 {
            let row = Bytes::from(format!("{:03}-after", i * 125));
            table
                .put(&Put::new(row.clone()).add("f", "q", Bytes::from("after")))
                .await
                .unwrap();
            let got = table.get(&Get::new(row)).await.unwrap();
            assert_eq!(
                got.first().map(|c| c.value.clone()),
                Some(Bytes::from("after"))
            );
        }
    });
    eprintln!(
        "kill -9 of the whole cluster (1 master, 3 region servers) and a restart: every region \
         serving {:.2} s after the kill; {total} acknowledged writes all read back",
        killed_at.elapsed().min(took).as_secs_f64()
    );
    c.forget();
}
