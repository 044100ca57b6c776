//! Running a region server with data: the coordination state machine on a thread, the gRPC
//! data and admin services on a tokio runtime, and the **gate** between them that refuses
//! every data request once the lease's self-fencing deadline has passed, whatever the
//! coordination thread is doing (it may be blocked in a slow open or an etcd call).
//!
//! ```text
//!  etcd ◀──lease, orders, acks──▶ tick thread ──open/close──▶ StorageHost ──▶ RegionServer
//!                                     │ deadline                                 ▲
//!                                     ▼                                          │
//!  client ──gRPC──▶ gate (now < deadline?) ──▶ DataService ─────────────────────┘
//!         ──gRPC──▶ ClusterAdmin (locate, create, drop: etcd)
//! ```

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_cluster::etcd::EtcdKv;
use strata_cluster::layout::Layout;
use strata_cluster::node::TICK;
use strata_cluster::regionserver::{RegionServer as Coordination, RegionServerConfig};
use strata_proto::pb::ErrorCode;
use strata_server::{DataService, RegionServer, ServerConfig};
use tonic::service::interceptor::InterceptedService;
use tonic::Request;

use crate::admin::ClusterAdmin;
use crate::host::StorageHost;
use crate::names::server_dir;

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
}

/// A running region server: its name and address, and a handle to stop it.
pub struct Node {
    /// `host:port:startcode`.
    pub name: String,
    /// Where gRPC listens.
    pub addr: SocketAddr,
    gate: Arc<Gate>,
}

impl Node {
    /// Whether data requests are served now.
    pub fn serving(&self) -> bool {
        self.gate.is_open()
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
    let data = InterceptedService::new(
        DataService::new(server.clone()).into_server(),
        move |req: Request<()>| {
            if refuse.is_open() {
                Ok(req)
            } else {
                Err(strata_proto::status(
                    ErrorCode::NotServingRegion,
                    "this region server is not serving (its lease is not held)",
                ))
            }
        },
    );
    // etcd clients own a runtime, which must not be dropped on the gRPC runtime's threads:
    // these handles are the last ones, dropped on this thread at the end.
    let admin_kv = Arc::new(connect(&config.etcd)?);
    let host_kv = Arc::new(connect(&config.etcd)?);
    let admin = ClusterAdmin::new(admin_kv.clone(), config.layout.clone(), server.clone());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let router = tonic::transport::Server::builder()
        .add_service(data)
        .add_service(admin.into_server());
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
    let serving = runtime.spawn(router.serve_with_incoming_shutdown(incoming, async {
        let _ = stop_rx.await;
    }));

    let host = StorageHost::new(server.clone(), host_kv.clone(), config.layout.clone(), root);
    let mut rs = Coordination::new(
        connect(&config.etcd)?,
        host,
        config.layout,
        name.clone(),
        addr.to_string(),
        config.coordination,
    );
    let node = Node {
        name: name.clone(),
        addr,
        gate: gate.clone(),
    };
    started(&node);
    let watchdog = spawn_watchdog(gate.clone(), on_expired);

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
        let n = rs.served(now).len();
        if n != serving_count {
            serving_count = n;
            report(&format!("serving {n} regions"));
        }
        std::thread::sleep(TICK);
    };
    watchdog.store(true, Ordering::SeqCst);
    if outcome.is_ok() {
        // A clean stop: flush every region (nothing to split), then leave.
        for region in rs.host().regions() {
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
    let _ = stop_tx.send(());
    let _ = runtime.block_on(serving);
    let closed = server.shutdown().map_err(|e| e.to_string());
    runtime.shutdown_timeout(Duration::from_secs(1));
    drop(rs);
    drop((admin_kv, host_kv));
    outcome?;
    closed
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
