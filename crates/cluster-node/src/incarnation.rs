//! One incarnation of a region server with data (see [`crate::serve`]): connects to etcd,
//! binds its listeners, opens the server's storage with a WAL directory of its own name,
//! registers under a lease and serves until it is stopped, loses its lease, or cannot write
//! its WAL.
//!
//! Ending on a lost lease or a failed WAL, it serves nothing from that instant (the gate is
//! closed first), forgets its regions without flushing them (their edits are in its WAL, which
//! the master fences and splits before reopening them elsewhere), closes its listeners and its
//! storage, and hands its lease to the next incarnation (which revokes it). A failed WAL also
//! revokes the lease here, at once if etcd answers: the server cannot acknowledge a write, so
//! its regions should move now rather than at the lease's expiry.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use strata_cluster::etcd::EtcdKv;
use strata_cluster::host::RegionHost;
use strata_cluster::kv::{Kv, LeaseId};
use strata_cluster::layout::Layout;
use strata_cluster::node::{BUSY_TICK, TICK};
use strata_cluster::regionserver::RegionServer as Coordination;
use strata_proto::pb::ErrorCode;
use strata_server::{DataService, RegionServer};

use crate::admin::ClusterAdmin;
use crate::counted::{CountedHost, CountedKv, KvCounts, OrderCounts};
use crate::hbase;
use crate::host::StorageHost;
use crate::http::{RegionServerView, Served};
use crate::names::server_dir;
use crate::serve::{
    advertised_address, host_of, micros_since_epoch, millis_since_epoch, Gate, Node, NodeConfig,
    Places,
};

/// How often a region server looks for daughters to compact and regions to split (and
/// whether its compaction check is due).
const UPKEEP_PERIOD: Duration = Duration::from_secs(2);

/// How an incarnation ended.
pub(crate) enum Ended {
    /// Stopped as asked: it left the cluster (the outcome of its clean shutdown).
    Stopped(Result<(), String>),
    /// It could not start (etcd unreachable, the root, a port, the advertised address).
    NotStarted(String),
    /// It lost its lease or its WAL: it serves nothing any more; `lease` is the one it held.
    Aborted { why: String, lease: Option<LeaseId> },
}

/// Stops a watcher (of the grants, of the throttles) when the incarnation ends, however it
/// ends.
struct Watcher(Arc<AtomicBool>, Option<std::thread::JoinHandle<()>>);

impl Drop for Watcher {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        if let Some(h) = self.1.take() {
            let _ = h.join();
        }
    }
}

/// The etcd client `serve::run_with` connects with.
pub(crate) fn connect(endpoints: &[String]) -> Result<EtcdKv, String> {
    EtcdKv::connect(endpoints, Duration::from_secs(5))
        .map_err(|e| format!("etcd {endpoints:?}: {e}"))
}

/// The callbacks of [`crate::serve::run_with`].
pub(crate) struct Callbacks<'a> {
    pub(crate) report: &'a mut dyn FnMut(&str),
    pub(crate) started: &'a mut dyn FnMut(&Node),
    pub(crate) on_expired: Arc<dyn Fn(&str) + Send + Sync>,
}

/// Runs one incarnation; `places` gets the addresses it bound (kept by the next one),
/// `predecessor` is the lease of the incarnation before it.
pub(crate) fn run<K: Kv + Send + Sync + 'static>(
    config: &NodeConfig,
    connect: &dyn Fn() -> Result<K, String>,
    places: &mut Places,
    predecessor: Option<LeaseId>,
    stop: &AtomicBool,
    calls: &mut Callbacks<'_>,
) -> Ended {
    // etcd first: while it is unreachable nothing else is started (and torn down) in vain.
    let clients = (|| Ok::<_, String>((connect()?, connect()?, connect()?)))();
    let (admin_kv, host_kv, coordination_kv) = match clients {
        Ok((a, h, c)) => (Arc::new(a), Arc::new(h), c),
        Err(e) => return Ended::NotStarted(e),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return Ended::NotStarted(e.to_string()),
    };
    let bound = runtime
        .block_on(tokio::net::TcpListener::bind(places.listen))
        .and_then(|l| Ok((l.local_addr()?, l)));
    let (addr, listener) = match bound {
        Ok(b) => b,
        Err(e) => return Ended::NotStarted(format!("listen on {}: {e}", places.listen)),
    };
    let advertised = match advertised_address(config.advertise.as_deref(), addr) {
        Ok(a) => a,
        Err(e) => return Ended::NotStarted(e),
    };
    places.listen = addr;
    let name = format!("{advertised}:{}", millis_since_epoch());
    let mut server_config = config.server.clone();
    server_config.advertised_address.clone_from(&advertised);
    server_config.wal_subdir = Some(server_dir(&name));
    server_config.archive_discarded = true;
    let root = server_config.data_dir.clone();
    let server = match RegionServer::open(server_config) {
        Ok(s) => s,
        Err(e) => return Ended::NotStarted(format!("open the server: {e}")),
    };

    let gate = Gate::new();
    let refuse = gate.clone();
    // Every data request, over gRPC or the framed protocol, is refused while the lease is
    // not held (no split brain).
    let data = DataService::new(server.clone())
        .with_guard(config.guard.clone())
        .with_admission(Arc::new(move || {
            if refuse.is_open() {
                Ok(())
            } else {
                Err(strata_proto::status(
                    ErrorCode::NotServingRegion,
                    "this region server is not serving (its lease is not held)",
                ))
            }
        }));
    let admin = ClusterAdmin::new(admin_kv.clone(), config.layout.clone(), server.clone())
        .with_tls(config.tls.clone())
        .with_guard(config.guard.clone());
    // The grants, kept current while this incarnation lives (a guard that is off needs none).
    let acl_stop = Arc::new(AtomicBool::new(false));
    let acl_watch = config.guard.is_on().then(|| {
        crate::acl::watch(
            admin_kv.clone(),
            config.layout.clone(),
            config.guard.clone(),
            acl_stop.clone(),
        )
    });
    let _acl = Watcher(acl_stop, acl_watch);
    // The throttles (RFC 0029), with or without `--auth`.
    let quota_stop = Arc::new(AtomicBool::new(false));
    let quota_watch = crate::quota::watch(
        admin_kv.clone(),
        config.layout.clone(),
        config.guard.clone(),
        quota_stop.clone(),
    );
    let _quotas = Watcher(quota_stop, Some(quota_watch));
    // Space quotas (RFC 0029): the states the master publishes, enforced here, and this
    // server's usage, reported for the master.
    let space_stop = Arc::new(AtomicBool::new(false));
    let space_watch = crate::quota_space::watch(
        admin_kv.clone(),
        config.layout.clone(),
        config.guard.clone(),
        server.clone(),
        space_stop.clone(),
    );
    let _space = Watcher(space_stop, Some(space_watch));
    let report_stop = Arc::new(AtomicBool::new(false));
    let space_report = crate::space_report::spawn(
        admin_kv.clone(),
        config.layout.clone(),
        name.clone(),
        server.clone(),
        config.space_quota_period,
        report_stop.clone(),
    );
    let _space_report = Watcher(report_stop, Some(space_report));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    // One port for both protocols: framed connections are served by the data service's
    // own connection tasks, the others go to tonic (RFC 0013, Decision 5).
    let (incoming, accepting) = {
        let _entered = runtime.enter();
        let tls = config.tls.as_ref().map(|t| t.data.clone());
        strata_server::frames::split_listener(listener, data.clone(), tls)
    };
    let router = tonic::transport::Server::builder()
        .add_service(data.clone().into_server())
        .add_service(data.clone().into_bulk_server())
        .add_service(admin.into_server());
    let serving = runtime.spawn(router.serve_with_incoming_shutdown(incoming, async {
        let _ = stop_rx.await;
    }));
    let listeners = Listeners {
        runtime,
        accepting,
        stop_tx,
        serving,
        http: None,
        hbase_rpc: None,
    };

    let kv_counts = Arc::new(KvCounts::default());
    let order_counts = Arc::new(OrderCounts::default());
    let served = Arc::new(Served::default());
    let storage_host = StorageHost::new(
        name.clone(),
        server.clone(),
        host_kv.clone(),
        config.layout.clone(),
        root,
    )
    .on_invalid_open(config.on_invalid_open.clone());
    let mut listeners = listeners;
    // HBase RPC binds first, so that /config names the port it bound, not the one asked for.
    if let Some(listen) = places.endpoints.hbase_rpc {
        match start_hbase_rpc(
            &listeners.runtime,
            listen,
            (
                places.endpoints.hbase_rpc_scan_time_limit,
                places.endpoints.hbase_rpc_max_frame_bytes,
                places.endpoints.hbase_rpc_kerberos.as_ref(),
            ),
            (&name, host_of(&advertised)),
            &server,
            &admin_kv,
            (&config.layout, config.tls.as_ref(), &config.guard),
            &gate,
        ) {
            Ok(rpc) => {
                places.endpoints.hbase_rpc = Some(rpc.addr());
                listeners.hbase_rpc = Some(rpc);
            }
            Err(e) => {
                listeners.close::<EtcdKv>(None);
                let _ = server.shutdown();
                return Ended::NotStarted(e);
            }
        }
    }
    if let Some(listen) = places.endpoints.http {
        let view = RegionServerView::new(
            name.clone(),
            server.clone(),
            gate.clone(),
            kv_counts.clone(),
            order_counts.clone(),
            served.clone(),
        );
        let settings = vec![
            ("server name".to_owned(), name.clone()),
            ("gRPC".to_owned(), addr.to_string()),
            ("advertised".to_owned(), advertised.clone()),
            (
                "HBase RPC".to_owned(),
                places
                    .endpoints
                    .hbase_rpc
                    .map_or_else(|| "disabled".to_owned(), |a| a.to_string()),
            ),
        ];
        let view: Arc<dyn strata_http::NodeView> = if places.endpoints.http_master_pages {
            // Heatmaps come from this process's region server (OneProcessView): no feed.
            let heat = crate::heat::ClusterHeatmap::shared();
            let master = crate::http::MasterView::new(
                admin_kv.clone(),
                config.layout.clone(),
                advertised.clone(),
                Arc::new(KvCounts::default()),
                heat,
            );
            Arc::new(crate::http::OneProcessView::new(view, master))
        } else {
            Arc::new(view)
        };
        match listeners
            .runtime
            .block_on(strata_http::HttpServer::start_node(
                listen,
                view,
                settings,
                config.tls.as_ref().map(|t| t.http.clone()),
            )) {
            Ok(http) => {
                places.endpoints.http = Some(http.addr());
                listeners.http = Some(http);
            }
            Err(e) => {
                listeners.close(Some((admin_kv.as_ref(), &config.layout, &name)));
                let _ = server.shutdown();
                return Ended::NotStarted(format!("HTTP endpoint on {listen}: {e}"));
            }
        }
    }
    let upkeep = crate::upkeep::Upkeep::new(
        storage_host.clone(),
        admin_kv.clone(),
        config.layout.clone(),
        name.clone(),
    )
    .with_compaction_checks(config.compaction_check_every);
    let mut rs = Coordination::new(
        CountedKv::new(coordination_kv, kv_counts),
        CountedHost::new(storage_host.clone(), order_counts),
        config.layout.clone(),
        name.clone(),
        advertised.clone(),
        config.coordination.clone(),
    )
    .succeeding(predecessor);
    let node = Node {
        name: name.clone(),
        addr,
        advertised,
        http: listeners.http.as_ref().map(strata_http::HttpServer::addr),
        hbase_rpc: listeners
            .hbase_rpc
            .as_ref()
            .map(strata_hbase_rpc::HBaseRpcServer::addr),
        gate: gate.clone(),
        data,
    };
    let watchdog = spawn_watchdog(gate.clone(), storage_host, calls.on_expired.clone());
    let dropped = watchdog.fired.clone();
    let upkeep_stop = Arc::new(AtomicBool::new(false));
    let upkeep = crate::upkeep::spawn(upkeep, UPKEEP_PERIOD, upkeep_stop.clone());
    if let Err(e) = &upkeep {
        (calls.report)(&format!("no upkeep thread (no automatic splits): {e}"));
    }

    let wal_failures = server.wal().stats().failed_batches;
    let outcome = tick_until_done(
        &mut rs,
        (&gate, &dropped),
        (&served, &node),
        &server,
        wal_failures,
        stop,
        calls,
    );
    watchdog.done.store(true, Ordering::SeqCst);
    upkeep_stop.store(true, Ordering::SeqCst);
    if let Ok(handle) = upkeep {
        let _ = handle.join();
    }
    // Regions a clean stop could not flush (a full disk, the storage away): their edits stay
    // in the WAL, which the master splits once the lease is given up; the stop then fails.
    let mut unflushed = Vec::new();
    let ended = match outcome {
        Ok(()) => {
            // A clean stop: flush every region (nothing to split), then leave.
            for region in rs.host().inner().regions() {
                if let Err(e) = RegionHost::close(rs.host(), &region) {
                    (calls.report)(&e);
                    unflushed.push(e);
                }
            }
            gate.set(0);
            None
        }
        Err(why) => {
            gate.set(0);
            rs.abort(&why);
            Some(why)
        }
    };
    listeners.close(Some((admin_kv.as_ref(), &config.layout, &name)));
    // Every region this incarnation still held stopped taking requests when the gate closed;
    // with the `region open` and `region closed` lines, the intervals in which it served each.
    tracing::info!(
        server = %name,
        until_us = gate.closed_unix_us().unwrap_or_else(micros_since_epoch),
        aborted = ended.is_some(),
        "incarnation stopped serving"
    );
    let lease = rs.lease_id();
    let closed = match &ended {
        None => {
            // The WAL is closed before the lease is given up: once the lease is gone the
            // master fences this server's WAL (recovering its HDFS leases), which would fail a
            // close still to come.
            let mut closed = server.shutdown().map_err(|e| e.to_string());
            if let Some(first) = unflushed.first() {
                closed = Err(format!(
                    "{} regions could not be flushed at the stop (their edits stay in the WAL \
                     and are replayed at the next start); the first: {first}",
                    unflushed.len()
                ));
            }
            rs.leave();
            (calls.report)("left the cluster");
            closed
        }
        Some(_) => {
            // Nothing may be flushed now: the regions may already be open elsewhere. What
            // an open finishing after the abort added is dropped too.
            for hosted in server.hosted_regions() {
                let _ = server.close_region(hosted.region.info().region_id, false);
            }
            let _ = server.shutdown();
            Ok(())
        }
    };
    drop(rs);
    drop((admin_kv, host_kv));
    match ended {
        None => Ended::Stopped(closed),
        Some(why) => Ended::Aborted { why, lease },
    }
}

/// Ticks the coordination until `stop` is set (`Ok`) or the incarnation must end (`Err`, the
/// reason): its lease lost, its WAL failed to write a batch, or the watchdog dropped its
/// regions (`dropped`; in the last two the lease is revoked). `started` is called with `node`
/// the first time the incarnation is registered (live under its lease): a client that reads
/// "serving on" finds the server in etcd.
fn tick_until_done<K: Kv, H: RegionHost>(
    rs: &mut Coordination<K, H>,
    (gate, dropped): (&Gate, &AtomicBool),
    (served, node): (&Served, &Node),
    server: &RegionServer,
    wal_failures: u64,
    stop: &AtomicBool,
    calls: &mut Callbacks<'_>,
) -> Result<(), String> {
    let mut live = false;
    let mut announced = false;
    let mut serving_count = 0;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        if server.wal().stats().failed_batches > wal_failures {
            // Requests fail fast from here; the lease goes at once so the master fences the
            // WAL and reopens the regions elsewhere (HBase aborts a server whose WAL sync
            // fails).
            gate.set(0);
            let why = "its WAL could not be written (the log store failed or timed out)";
            rs.abort(why);
            if let Some(lease) = rs.lease_id() {
                let _ = rs.kv().revoke(lease);
            }
            return Err(why.to_owned());
        }
        let now = gate.now();
        rs.tick(now);
        if let Some(why) = rs.aborted() {
            gate.set(0);
            return Err(why.to_string());
        }
        let is_live = rs.is_live(now);
        gate.set(if is_live {
            rs.deadline().unwrap_or(0)
        } else {
            0
        });
        // Checked after the gate is set, so a watchdog firing at any instant of the tick is
        // seen before the gate can stay open.
        if dropped.load(Ordering::SeqCst) {
            return Err(give_up_dropped(rs, gate));
        }
        if is_live != live {
            live = is_live;
            if live && !announced {
                announced = true;
                (calls.started)(node);
            }
            (calls.report)(if live { "registered" } else { "not registered" });
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
            (calls.report)(&format!("serving {n} regions"));
        }
        std::thread::sleep(if rs.busy(now) { BUSY_TICK } else { TICK });
    }
}

/// An incarnation's listeners and the runtime they run on.
struct Listeners {
    runtime: tokio::runtime::Runtime,
    accepting: strata_server::frames::Accepting,
    stop_tx: tokio::sync::oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<Result<(), tonic::transport::Error>>,
    http: Option<strata_http::HttpServer>,
    hbase_rpc: Option<strata_hbase_rpc::HBaseRpcServer>,
}

impl Listeners {
    /// Stops accepting and closes every listener; withdraws the HBase RPC address of server
    /// `name` from etcd if given.
    fn close<K: Kv>(self, withdraw: Option<(&K, &Layout, &str)>) {
        self.accepting.stop();
        let _ = self.stop_tx.send(());
        let _ = self.runtime.block_on(self.serving);
        if let Some(http) = self.http {
            self.runtime.block_on(http.shutdown());
        }
        if let Some(listener) = self.hbase_rpc {
            self.runtime.block_on(listener.shutdown());
            if let Some((kv, layout, name)) = withdraw {
                let _ = hbase::withdraw(kv, layout, name);
            }
        }
        self.runtime.shutdown_timeout(Duration::from_secs(1));
    }
}

/// Starts the HBase RPC listener of server `name` (announced on host `host`) on `listen` and
/// publishes its address.
#[allow(clippy::too_many_arguments)]
fn start_hbase_rpc<K: Kv + Send + Sync + 'static>(
    runtime: &tokio::runtime::Runtime,
    listen: SocketAddr,
    (scan_time_limit, max_frame_bytes, kerberos): (
        Option<Duration>,
        Option<usize>,
        Option<&strata_hbase_rpc::KerberosConfig>,
    ),
    (name, host): (&str, &str),
    server: &Arc<RegionServer>,
    kv: &Arc<K>,
    (layout, tls, guard): (
        &Layout,
        Option<&strata_tls::ProcessTls>,
        &Arc<strata_access::Guard>,
    ),
    gate: &Arc<Gate>,
) -> Result<strata_hbase_rpc::HBaseRpcServer, String> {
    let bound = std::net::TcpListener::bind(listen)
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("HBase RPC on {listen}: {e}"))?;
    let addr = format!("{host}:{}", bound.port());
    let me = hbase::identity(name, &addr)
        .ok_or_else(|| format!("HBase RPC: bad server name {name} or address {addr}"))?;
    let directory = Arc::new(hbase::EtcdDirectory::new(
        kv.clone(),
        layout.clone(),
        Some(gate.clone()),
        me.clone(),
    ));
    let ops = crate::hbase_ops::ClusterOps::new(
        ClusterAdmin::new(kv.clone(), layout.clone(), server.clone())
            .with_tls(tls.cloned())
            .with_guard(guard.clone()),
        directory.clone(),
        kv.clone(),
        layout.clone(),
        runtime.handle().clone(),
    );
    let kerberos = kerberos
        .map(|k| k.acceptor(host))
        .transpose()
        .map_err(|e| format!("HBase RPC on {listen}: {e}"))?;
    let mut config = strata_hbase_rpc::HBaseRpcConfig {
        listen: bound,
        advertised_host: Some(host.to_owned()),
        tls: tls.map(|t| t.raw.clone()),
        guard: guard.clone(),
        kerberos,
        ..strata_hbase_rpc::HBaseRpcConfig::default()
    };
    if let Some(limit) = scan_time_limit {
        config.scan_time_limit = limit;
    }
    if let Some(bytes) = max_frame_bytes {
        config.max_frame_bytes = bytes;
    }
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

/// Why an incarnation whose regions the watchdog dropped ends.
const DROPPED: &str = "the lease's deadline passed while the coordination thread was blocked: \
                       every region dropped";

/// Ends an incarnation whose regions the watchdog dropped. Its lease may well be alive (the
/// deadline is the server's own, shorter than the store's, and the watchdog compares with
/// the deadline of the tick before, not a renewal made in the blocked tick; etcd also renews
/// every lease when it elects a leader), so the regions' records would still name this
/// server while it serves none of them, and no master would move them. The lease is revoked,
/// so the master fences the WAL and reopens them elsewhere at once; the next incarnation
/// registers anew.
fn give_up_dropped<K: Kv, H: RegionHost>(rs: &mut Coordination<K, H>, gate: &Gate) -> String {
    gate.set(0);
    rs.abort(DROPPED);
    if let Some(lease) = rs.lease_id() {
        let _ = rs.kv().revoke(lease);
    }
    DROPPED.to_owned()
}

/// The watchdog of [`spawn_watchdog`]: setting `done` ends it; `fired` is set once it
/// dropped the regions.
struct Watchdog {
    done: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
}

/// If the gate's deadline passes while it is set (the coordination thread clears it when it
/// notices first, so it is blocked), drops every region of `host` without a flush, sets the
/// watchdog's `fired` (the coordination thread then ends the incarnation) and calls
/// `on_expired`.
fn spawn_watchdog<K: Kv + Send + Sync + 'static>(
    gate: Arc<Gate>,
    host: StorageHost<K>,
    on_expired: Arc<dyn Fn(&str) + Send + Sync>,
) -> Watchdog {
    let watchdog = Watchdog {
        done: Arc::new(AtomicBool::new(false)),
        fired: Arc::new(AtomicBool::new(false)),
    };
    let (done, fired) = (watchdog.done.clone(), watchdog.fired.clone());
    std::thread::spawn(move || {
        while !done.load(Ordering::SeqCst) {
            let d = gate.deadline();
            if d > 0 && gate.now() >= d + TICK.as_millis() as u64 * 5 {
                gate.set(0);
                host.abort();
                fired.store(true, Ordering::SeqCst);
                on_expired(DROPPED);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    watchdog
}
