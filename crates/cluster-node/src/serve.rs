//! Running a region server with data: the coordination state machine on a thread, the data
//! service (gRPC and the framed protocol on one port) and the admin service on a tokio
//! runtime, and the **gate** between them that refuses every data request once the lease's
//! self-fencing deadline has passed, whatever the coordination thread is doing (it may be
//! blocked in a slow open or an etcd call).
//!
//! ```text
//!  etcd ◀──lease, orders, acks──▶ tick thread ──open/close──▶ StorageHost ──▶ RegionServer
//!                                     │ deadline                                 ▲
//!                                     ▼                                          │
//!  client ─gRPC or frames─▶ gate (now < deadline?) ──▶ DataService ───────────────┘
//!         ──gRPC──▶ ClusterAdmin (locate, create, drop: etcd)
//! ```
//!
//! An upkeep thread compacts split daughters' references away and requests the split of
//! regions past their table's split size ([`crate::upkeep`]).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_cluster::etcd::EtcdKv;
use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::node::TICK;
use strata_cluster::regionserver::{RegionServer as Coordination, RegionServerConfig};
use strata_proto::pb::ErrorCode;
use strata_server::{DataService, RegionServer, ServerConfig};

use crate::admin::ClusterAdmin;
use crate::counted::{CountedHost, CountedKv, KvCounts, OrderCounts};
use crate::hbase;
use crate::host::StorageHost;
use crate::http::{RegionServerView, Served};
use crate::names::server_dir;

/// How often a region server looks for daughters to compact and regions to split (and
/// whether its compaction check is due).
const UPKEEP_PERIOD: Duration = Duration::from_secs(2);

/// Whether data requests may be served: until the lease's deadline, on the clock the
/// coordination thread ticks with.
#[derive(Debug)]
pub struct Gate {
    start: Instant,
    /// Milliseconds since `start` before which requests are served; 0 = closed.
    deadline_ms: AtomicU64,
}

impl Gate {
    /// A closed gate whose clock starts now.
    pub fn new() -> Arc<Gate> {
        Arc::new(Gate {
            start: Instant::now(),
            deadline_ms: AtomicU64::new(0),
        })
    }

    /// Milliseconds on the gate's clock.
    pub fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Serves until `deadline` (ms on the gate's clock); 0 closes.
    pub fn set(&self, deadline: u64) {
        self.deadline_ms.store(deadline, Ordering::SeqCst);
    }

    /// The deadline, 0 when closed.
    pub fn deadline(&self) -> u64 {
        self.deadline_ms.load(Ordering::SeqCst)
    }

    /// Whether a request may be served now.
    pub fn is_open(&self) -> bool {
        let d = self.deadline();
        d > 0 && self.now() < d
    }
}

/// What a region server with data needs.
pub struct NodeConfig {
    /// etcd endpoints.
    pub etcd: Vec<String>,
    /// The cluster's keys.
    pub layout: Layout,
    /// The region server's storage settings (`data_dir` is the shared root, `storage` its
    /// stores); its WAL directory is set from the server's name.
    pub server: ServerConfig,
    /// Lease and open settings.
    pub coordination: RegionServerConfig,
    /// Where gRPC listens (port 0 picks one).
    pub listen: SocketAddr,
    /// How often every open region gets a compaction check (periodic majors, TTL drops, tier
    /// moves on idle regions); zero turns it off. Standalone's period,
    /// [`strata_server::host::COMPACTION_CHECK_EVERY`], unless set otherwise.
    pub compaction_check_every: Duration,
}

/// The optional endpoints of a region server besides gRPC (RFC 0018).
#[derive(Clone, Debug, Default)]
pub struct Endpoints {
    /// Where the HTTP endpoint (`/metrics`, web UI) listens; `None`: no endpoint.
    pub http: Option<SocketAddr>,
    /// Where HBase's native RPC listens (for HBase's Java client); `None`: no listener.
    pub hbase_rpc: Option<SocketAddr>,
    /// How long an HBase RPC scan call may skip rows before it answers with a heartbeat
    /// (`None`: the listener's default).
    pub hbase_rpc_scan_time_limit: Option<Duration>,
    /// The host name HBase clients are told to connect to (`None`: the listener's IP).
    pub hbase_rpc_advertised_host: Option<String>,
    /// Largest HBase RPC request accepted, in bytes (`None`: the listener's default).
    pub hbase_rpc_max_frame_bytes: Option<usize>,
}

/// A running region server: its name and address, and a handle to stop it.
pub struct Node {
    /// `host:port:startcode`.
    pub name: String,
    /// Where gRPC listens.
    pub addr: SocketAddr,
    /// Where the HTTP endpoint listens, if it runs.
    pub http: Option<SocketAddr>,
    /// Where the HBase RPC listener listens, if it runs.
    pub hbase_rpc: Option<SocketAddr>,
    gate: Arc<Gate>,
    data: DataService,
}

impl Node {
    /// Whether data requests are served now.
    pub fn serving(&self) -> bool {
        self.gate.is_open()
    }

    /// The data service (behind the lease gate), for front ends in the same process.
    pub fn data(&self) -> &DataService {
        &self.data
    }
}

fn millis_since_epoch() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

fn connect(endpoints: &[String]) -> Result<EtcdKv, String> {
    EtcdKv::connect(endpoints, Duration::from_secs(5))
        .map_err(|e| format!("etcd {endpoints:?}: {e}"))
}

/// Runs a region server until `stop` is set (then it flushes and closes its regions and
/// leaves the cluster) or until it loses its lease (then it stops serving at once and
/// returns the reason: the process should exit). `report` gets one line per change; `started`
/// is called once it listens.
///
/// A watchdog thread calls `on_expired` if the deadline passes while the coordination thread
/// has not noticed (it is blocked): the process must then stop, as its regions may already be
/// reassigned. The gate refuses requests from that instant either way.
///
/// # Errors
/// Startup failed (etcd, the root, the port), or the server aborted (the reason).
pub fn run(
    config: NodeConfig,
    stop: &AtomicBool,
    report: impl FnMut(&str),
    started: impl FnOnce(&Node),
    on_expired: impl FnOnce(&str) + Send + 'static,
) -> Result<(), String> {
    run_with(
        config,
        &Endpoints::default(),
        stop,
        report,
        started,
        on_expired,
    )
}

/// [`run`], with the optional `endpoints` (HTTP) started once the server listens.
///
/// # Errors
/// As [`run`]; an endpoint's address cannot be bound.
pub fn run_with(
    config: NodeConfig,
    endpoints: &Endpoints,
    stop: &AtomicBool,
    report: impl FnMut(&str),
    started: impl FnOnce(&Node),
    on_expired: impl FnOnce(&str) + Send + 'static,
) -> Result<(), String> {
    let etcd = config.etcd.clone();
    run_on(
        config,
        endpoints,
        move || connect(&etcd),
        stop,
        report,
        started,
        on_expired,
    )
}

/// [`run_with`] on any coordination store: `connect` gives a handle of it each time it is
/// called (`config.etcd` is not read). A one-process Strata passes clones of its embedded
/// store.
///
/// # Errors
/// As [`run`].
pub fn run_on<K: Kv + Send + Sync + 'static>(
    config: NodeConfig,
    endpoints: &Endpoints,
    connect: impl Fn() -> Result<K, String>,
    stop: &AtomicBool,
    mut report: impl FnMut(&str),
    started: impl FnOnce(&Node),
    on_expired: impl FnOnce(&str) + Send + 'static,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(config.listen))
        .map_err(|e| format!("listen on {}: {e}", config.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let name = format!("{addr}:{}", millis_since_epoch());
    let mut server_config = config.server;
    server_config.advertised_address = addr.to_string();
    server_config.wal_subdir = Some(server_dir(&name));
    let root = server_config.data_dir.clone();
    let server = RegionServer::open(server_config).map_err(|e| format!("open the server: {e}"))?;

    let gate = Gate::new();
    let refuse = gate.clone();
    // Every data request, over gRPC or the framed protocol, is refused while the lease is
    // not held (no split brain).
    let data = DataService::new(server.clone()).with_admission(Arc::new(move || {
        if refuse.is_open() {
            Ok(())
        } else {
            Err(strata_proto::status(
                ErrorCode::NotServingRegion,
                "this region server is not serving (its lease is not held)",
            ))
        }
    }));
    // etcd clients own a runtime, which must not be dropped on the gRPC runtime's threads:
    // these handles are the last ones, dropped on this thread at the end.
    let admin_kv = Arc::new(connect()?);
    let host_kv = Arc::new(connect()?);
    let admin = ClusterAdmin::new(admin_kv.clone(), config.layout.clone(), server.clone());
    let layout = config.layout.clone();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    // One port for both protocols: framed connections are served by the data service's
    // own connection tasks, the others go to tonic (RFC 0013, Decision 5).
    let (incoming, accepting) = {
        let _entered = runtime.enter();
        strata_server::frames::split_listener(listener, data.clone())
    };
    let router = tonic::transport::Server::builder()
        .add_service(data.clone().into_server())
        .add_service(admin.into_server());
    let serving = runtime.spawn(router.serve_with_incoming_shutdown(incoming, async {
        let _ = stop_rx.await;
    }));

    let kv_counts = Arc::new(KvCounts::default());
    let order_counts = Arc::new(OrderCounts::default());
    let served = Arc::new(Served::default());
    let storage_host =
        StorageHost::new(server.clone(), host_kv.clone(), config.layout.clone(), root);
    let upkeep = crate::upkeep::Upkeep::new(
        storage_host.clone(),
        admin_kv.clone(),
        config.layout.clone(),
        name.clone(),
    )
    .with_compaction_checks(config.compaction_check_every);
    let host = CountedHost::new(storage_host, order_counts.clone());
    let http = match endpoints.http {
        Some(listen) => {
            let view = RegionServerView::new(
                name.clone(),
                server.clone(),
                gate.clone(),
                kv_counts.clone(),
                order_counts,
                served.clone(),
            );
            let settings = vec![
                ("server name".to_owned(), name.clone()),
                ("gRPC".to_owned(), addr.to_string()),
            ];
            let started = runtime
                .block_on(strata_http::HttpServer::start_node(
                    listen,
                    Arc::new(view),
                    settings,
                ))
                .map_err(|e| format!("HTTP endpoint on {listen}: {e}"))?;
            Some(started)
        }
        None => None,
    };
    let hbase_rpc = match endpoints.hbase_rpc {
        Some(listen) => Some(start_hbase_rpc(
            &runtime,
            listen,
            endpoints,
            &name,
            &server,
            &admin_kv,
            &config.layout,
            &gate,
        )?),
        None => None,
    };
    let mut rs = Coordination::new(
        CountedKv::new(connect()?, kv_counts),
        host,
        config.layout,
        name.clone(),
        addr.to_string(),
        config.coordination,
    );
    let node = Node {
        name: name.clone(),
        addr,
        http: http.as_ref().map(strata_http::HttpServer::addr),
        hbase_rpc: hbase_rpc
            .as_ref()
            .map(strata_hbase_rpc::HBaseRpcServer::addr),
        gate: gate.clone(),
        data: data.clone(),
    };
    started(&node);
    let watchdog = spawn_watchdog(gate.clone(), on_expired);
    let upkeep_stop = Arc::new(AtomicBool::new(false));
    let upkeep = crate::upkeep::spawn(upkeep, UPKEEP_PERIOD, upkeep_stop.clone());
    if let Err(e) = &upkeep {
        report(&format!("no upkeep thread (no automatic splits): {e}"));
    }

    let mut live = false;
    let mut serving_count = 0;
    let outcome = loop {
        if stop.load(Ordering::Relaxed) {
            break Ok(());
        }
        let now = gate.now();
        rs.tick(now);
        if let Some(why) = rs.aborted() {
            gate.set(0);
            break Err(why.to_string());
        }
        let is_live = rs.is_live(now);
        gate.set(if is_live {
            rs.deadline().unwrap_or(0)
        } else {
            0
        });
        if is_live != live {
            live = is_live;
            report(if live { "registered" } else { "not registered" });
        }
        let now_served = rs.served(now);
        let n = now_served.len();
        {
            let mut published = served.regions.lock();
            if *published != now_served {
                *published = now_served;
                served.changes.fetch_add(1, Ordering::Relaxed);
            }
        }
        if n != serving_count {
            serving_count = n;
            report(&format!("serving {n} regions"));
        }
        std::thread::sleep(TICK);
    };
    watchdog.store(true, Ordering::SeqCst);
    upkeep_stop.store(true, Ordering::SeqCst);
    if let Ok(handle) = upkeep {
        let _ = handle.join();
    }
    if outcome.is_ok() {
        // A clean stop: flush every region (nothing to split), then leave.
        for region in rs.host().inner().regions() {
            if let Err(e) = strata_cluster::host::RegionHost::close(rs.host(), &region) {
                report(&e);
            }
        }
        gate.set(0);
        rs.leave();
        report("left the cluster");
    } else {
        rs.abort("stopped");
    }
    accepting.stop();
    let _ = stop_tx.send(());
    let _ = runtime.block_on(serving);
    if let Some(http) = http {
        runtime.block_on(http.shutdown());
    }
    if let Some(listener) = hbase_rpc {
        runtime.block_on(listener.shutdown());
        if let Err(e) = hbase::withdraw(admin_kv.as_ref(), &layout, &name) {
            report(&format!("could not withdraw the HBase RPC address: {e}"));
        }
    }
    let closed = server.shutdown().map_err(|e| e.to_string());
    runtime.shutdown_timeout(Duration::from_secs(1));
    drop(rs);
    drop((admin_kv, host_kv));
    outcome?;
    closed
}

/// Starts the HBase RPC listener of server `name` on `listen` and publishes its address.
#[allow(clippy::too_many_arguments)]
fn start_hbase_rpc<K: Kv + Send + Sync + 'static>(
    runtime: &tokio::runtime::Runtime,
    listen: SocketAddr,
    endpoints: &Endpoints,
    name: &str,
    server: &Arc<RegionServer>,
    kv: &Arc<K>,
    layout: &Layout,
    gate: &Arc<Gate>,
) -> Result<strata_hbase_rpc::HBaseRpcServer, String> {
    let bound = std::net::TcpListener::bind(listen)
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("HBase RPC on {listen}: {e}"))?;
    let addr = bound.to_string();
    let me = hbase::identity(name, &addr)
        .ok_or_else(|| format!("HBase RPC: bad server name {name} or address {addr}"))?;
    let directory = Arc::new(hbase::EtcdDirectory::new(
        kv.clone(),
        layout.clone(),
        Some(gate.clone()),
        me.clone(),
    ));
    let ops = crate::hbase_ops::ClusterOps::new(
        ClusterAdmin::new(kv.clone(), layout.clone(), server.clone()),
        directory.clone(),
        kv.clone(),
        layout.clone(),
        runtime.handle().clone(),
    );
    let mut config = strata_hbase_rpc::HBaseRpcConfig {
        listen: bound,
        ..strata_hbase_rpc::HBaseRpcConfig::default()
    };
    if let Some(limit) = endpoints.hbase_rpc_scan_time_limit {
        config.scan_time_limit = limit;
    }
    if let Some(bytes) = endpoints.hbase_rpc_max_frame_bytes {
        config.max_frame_bytes = bytes;
    }
    config
        .advertised_host
        .clone_from(&endpoints.hbase_rpc_advertised_host);
    let listener = runtime
        .block_on(strata_hbase_rpc::HBaseRpcServer::start_cluster(
            config,
            Some(server.clone()),
            directory,
            Arc::new(ops),
            hbase::cluster_id(layout),
            me.start_code,
        ))
        .map_err(|e| format!("HBase RPC on {listen}: {e}"))?;
    hbase::publish(kv.as_ref(), layout, name, &listener.advertised())?;
    Ok(listener)
}

/// Calls `on_expired` if the gate's deadline passes while it is set (the coordination thread
/// clears it when it notices first). Setting the returned flag ends the watchdog.
fn spawn_watchdog(
    gate: Arc<Gate>,
    on_expired: impl FnOnce(&str) + Send + 'static,
) -> Arc<AtomicBool> {
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        while !flag.load(Ordering::SeqCst) {
            let d = gate.deadline();
            if d > 0 && gate.now() >= d + TICK.as_millis() as u64 * 5 {
                on_expired("the lease's deadline passed while the coordination thread was blocked");
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    done
}
