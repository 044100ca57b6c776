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
//!
//! **Incarnations.** A server that loses its lease (etcd unreachable past the deadline, or the
//! process paused) or whose WAL cannot be written (a write or sync that fails, a timeout
//! of the log store included: `RootOptions::wal_timeout` bounds one on HDFS) stops serving at once: the gate closes, its regions are dropped without a flush
//! (their edits are in its WAL, which the master fences and splits), its listeners close.
//! The process stays up: after a back-off it starts a new **incarnation** on the same
//! addresses, with a new start code (so a new name and a new WAL directory) and no region,
//! and registers as a new server once etcd answers, revoking the lost lease first so the
//! master recovers the old incarnation's regions at once (RFC 0012, "Incarnations"). Only
//! the first incarnation's start failing is an error of [`run`].

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::node::Backoff;
use strata_cluster::regionserver::RegionServerConfig;
use strata_server::ServerConfig;

use crate::incarnation::{self, Callbacks, Ended};

/// Whether data requests may be served: until the lease's deadline, on the clock the
/// coordination thread ticks with.
#[derive(Debug)]
pub struct Gate {
    start: Instant,
    /// Milliseconds since `start` before which requests are served; 0 = closed.
    deadline_ms: AtomicU64,
    /// When requests were refused from, the last time the gate closed after being open (its
    /// deadline if that had already passed), in microseconds since the Unix epoch: the
    /// servers' logs of the regions they served are compared across processes by wall time.
    /// 0: it never closed after opening.
    closed_unix_us: AtomicU64,
}

impl Gate {
    /// A closed gate whose clock starts now.
    pub fn new() -> Arc<Gate> {
        Arc::new(Gate {
            start: Instant::now(),
            deadline_ms: AtomicU64::new(0),
            closed_unix_us: AtomicU64::new(0),
        })
    }

    /// Milliseconds on the gate's clock.
    pub fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Serves until `deadline` (ms on the gate's clock); 0 closes.
    pub fn set(&self, deadline: u64) {
        let before = self.deadline_ms.swap(deadline, Ordering::SeqCst);
        if deadline == 0 && before > 0 {
            // The wall clock now, less how long ago the deadline passed (if it did).
            let late_ms = self.now().saturating_sub(before);
            let at = micros_since_epoch().saturating_sub(late_ms * 1000);
            self.closed_unix_us.store(at.max(1), Ordering::SeqCst);
        }
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

    /// When the gate last closed after being open, in microseconds since the Unix epoch: no
    /// request was admitted from then on (until it opened again).
    pub fn closed_unix_us(&self) -> Option<u64> {
        match self.closed_unix_us.load(Ordering::SeqCst) {
            0 => None,
            us => Some(us),
        }
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
    /// Where gRPC listens (port 0 picks one; later incarnations keep the port picked).
    pub listen: SocketAddr,
    /// The address clients and the master reach this server at, `HOST[:PORT]` (without a
    /// port: the one bound); `None`: the address bound, which must then not be a wildcard.
    pub advertise: Option<String>,
    /// How often every open region gets a compaction check (periodic majors, TTL drops, tier
    /// moves on idle regions); zero turns it off. Standalone's period,
    /// [`strata_server::host::COMPACTION_CHECK_EVERY`], unless set otherwise.
    pub compaction_check_every: Duration,
    /// Called with the reason when a region cannot open because of its configuration (a
    /// store file on a volume not declared, a schema the engine refuses), which no retry
    /// mends; `None`: such an open fails like any other and the master tries again.
    pub on_invalid_open: Option<InvalidOpen>,
    /// TLS on every listener (data, HBase RPC, HTTP) and for connections to other region
    /// servers; `None`: plaintext.
    pub tls: Option<strata_tls::ProcessTls>,
    /// Who may do what (RFC 0026): checked by every front end of every incarnation, kept
    /// current from the grants in the coordination store; off without `--auth`.
    pub guard: std::sync::Arc<strata_access::Guard>,
    /// How often the region server reports its usage for space quotas (RFC 0029), and (in a
    /// cluster of one) how often the master decides the quotas' states.
    pub space_quota_period: Duration,
}

/// See [`NodeConfig::on_invalid_open`].
pub type InvalidOpen = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

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
    /// Largest HBase RPC request accepted, in bytes (`None`: the listener's default).
    pub hbase_rpc_max_frame_bytes: Option<usize>,
    /// Kerberos on HBase RPC (SASL GSSAPI): the service principal's keytab (`None`: none).
    pub hbase_rpc_kerberos: Option<strata_hbase_rpc::KerberosConfig>,
    /// The HTTP endpoint also shows the master's pages (tables, their regions and heatmaps):
    /// for a process that runs the master too (a cluster of one).
    pub http_master_pages: bool,
}

/// A running region server: its name and address, and a handle to stop it.
pub struct Node {
    /// `host:port:startcode`, the advertised address and the start code.
    pub name: String,
    /// Where gRPC listens.
    pub addr: SocketAddr,
    /// `host:port` as registered in etcd (the advertised address).
    pub advertised: String,
    /// Where the HTTP endpoint listens, if it runs.
    pub http: Option<SocketAddr>,
    /// Where the HBase RPC listener listens, if it runs.
    pub hbase_rpc: Option<SocketAddr>,
    pub(crate) gate: Arc<Gate>,
    pub(crate) data: strata_server::DataService,
}

impl Node {
    /// Whether data requests are served now.
    pub fn serving(&self) -> bool {
        self.gate.is_open()
    }

    /// The lease gate, open while this incarnation is registered and its lease current.
    pub fn gate(&self) -> Arc<Gate> {
        self.gate.clone()
    }

    /// The data service (behind the lease gate), for front ends in the same process.
    pub fn data(&self) -> &strata_server::DataService {
        &self.data
    }
}

/// Runs a region server until `stop` is set (then it flushes and closes its regions and
/// leaves the cluster). Losing its lease or its WAL ends an incarnation, not the process (see
/// the module documentation); `report` gets one line per change, `started` is called each
/// time an incarnation listens and is registered under its lease (found by clients).
///
/// A watchdog thread drops every region (without a flush) if the lease's deadline passes
/// while the coordination thread has not noticed (it is blocked), and calls `on_expired`
/// with the reason; the gate refuses requests from that instant either way.
///
/// # Errors
/// The first incarnation could not start (etcd, the root, the port, an advertised address
/// missing for a wildcard listener), or the last one's clean shutdown failed.
pub fn run(
    config: NodeConfig,
    stop: &AtomicBool,
    report: impl FnMut(&str),
    started: impl FnMut(&Node),
    on_expired: impl Fn(&str) + Send + Sync + 'static,
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

/// [`run`], with the optional `endpoints` (HTTP, HBase RPC) started by each incarnation once
/// it listens.
///
/// # Errors
/// As [`run`]; an endpoint's address cannot be bound.
pub fn run_with(
    config: NodeConfig,
    endpoints: &Endpoints,
    stop: &AtomicBool,
    report: impl FnMut(&str),
    started: impl FnMut(&Node),
    on_expired: impl Fn(&str) + Send + Sync + 'static,
) -> Result<(), String> {
    let etcd = config.etcd.clone();
    run_on(
        config,
        endpoints,
        move || crate::incarnation::connect(&etcd),
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
    mut started: impl FnMut(&Node),
    on_expired: impl Fn(&str) + Send + Sync + 'static,
) -> Result<(), String> {
    let mut calls = Callbacks {
        report: &mut report,
        started: &mut started,
        on_expired: Arc::new(on_expired),
    };
    let mut places = Places {
        listen: config.listen,
        endpoints: endpoints.clone(),
    };
    let mut predecessor = None;
    let mut backoff = Backoff::default();
    let mut first = true;
    loop {
        let ended = incarnation::run(
            &config,
            &connect,
            &mut places,
            predecessor,
            stop,
            &mut calls,
        );
        match ended {
            Ended::Stopped(outcome) => return outcome,
            Ended::NotStarted(why) if first => return Err(why),
            Ended::NotStarted(why) => {
                (calls.report)(&format!("cannot start a new incarnation yet: {why}"));
            }
            Ended::Aborted { why, lease } => {
                (calls.report)(&format!(
                    "gave up its regions ({why}); registers again as a new server"
                ));
                predecessor = lease.or(predecessor);
                backoff.reset();
            }
        }
        first = false;
        backoff.sleep(stop);
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
    }
}

/// Where an incarnation listens: what the first one bound, kept by the next ones (so clients
/// and the master find the server where they did).
pub(crate) struct Places {
    pub(crate) listen: SocketAddr,
    pub(crate) endpoints: Endpoints,
}

/// The address announced for a server bound to `bound`: `advertise` (`HOST[:PORT]`, IPv6 in
/// brackets with a port; without a port or with port 0, the bound port), else the bound
/// address itself.
///
/// # Errors
/// No `advertise` while bound to a wildcard address (nobody could reach what it would
/// announce), or an empty host.
pub fn advertised_address(advertise: Option<&str>, bound: SocketAddr) -> Result<String, String> {
    let Some(advertise) = advertise.map(str::trim) else {
        if bound.ip().is_unspecified() {
            return Err(format!(
                "listening on {bound} (every interface) needs an advertised address \
                 (--advertise HOST[:PORT]): the one clients and the master reach this server at"
            ));
        }
        return Ok(bound.to_string());
    };
    let with_port = |host: &str, port: u16| {
        let port = if port == 0 { bound.port() } else { port };
        match host.parse::<IpAddr>() {
            Ok(ip) => SocketAddr::new(ip, port).to_string(),
            Err(_) => format!("{host}:{port}"),
        }
    };
    if let Ok(addr) = advertise.parse::<SocketAddr>() {
        return Ok(with_port(&addr.ip().to_string(), addr.port()));
    }
    if let Ok(ip) = advertise.trim_matches(['[', ']']).parse::<IpAddr>() {
        return Ok(with_port(&ip.to_string(), 0));
    }
    let (host, port) = match advertise.rsplit_once(':') {
        Some((host, port)) => (
            host,
            port.parse::<u16>()
                .map_err(|_| format!("advertised address {advertise}: bad port {port}"))?,
        ),
        None => (advertise, 0),
    };
    if host.is_empty() || host.contains(['/', ' ', ':']) {
        return Err(format!(
            "advertised address {advertise}: expected HOST[:PORT]"
        ));
    }
    Ok(with_port(host, port))
}

/// The host part of `host:port` (brackets of an IPv6 address removed).
pub(crate) fn host_of(address: &str) -> &str {
    address
        .rsplit_once(':')
        .map_or(address, |(h, _)| h)
        .trim_matches(['[', ']'])
}

pub(crate) fn millis_since_epoch() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// The wall clock in microseconds since the Unix epoch, as the region servers' logs of the
/// regions they serve give times (`since_us`, `until_us`).
pub(crate) fn micros_since_epoch() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_gate_closed_after_its_deadline_says_it_refused_from_the_deadline() {
        let gate = Gate::new();
        assert_eq!(gate.closed_unix_us(), None);
        gate.set(0);
        assert_eq!(
            gate.closed_unix_us(),
            None,
            "a gate never open never closed"
        );
        let opened = micros_since_epoch();
        gate.set(gate.now() + 1);
        let deadline_by = micros_since_epoch() + 1000;
        std::thread::sleep(Duration::from_millis(50));
        gate.set(0);
        let closed = gate.closed_unix_us().unwrap();
        // Within the gate clock's millisecond rounding of its deadline, long before the 50 ms.
        assert!(
            closed >= opened.saturating_sub(2000) && closed <= deadline_by + 2000,
            "refused from its deadline, not from when it was seen to pass"
        );
        let before = micros_since_epoch();
        gate.set(gate.now() + 60_000);
        gate.set(0);
        let closed = gate.closed_unix_us().unwrap();
        assert!(
            closed >= before && closed <= micros_since_epoch(),
            "closed now"
        );
    }

    #[test]
    fn the_advertised_address_takes_the_bound_port_unless_it_names_one() {
        let any = bound("0.0.0.0:16020");
        assert_eq!(
            advertised_address(Some("10.1.2.3"), any).unwrap(),
            "10.1.2.3:16020"
        );
        assert_eq!(
            advertised_address(Some("10.1.2.3:26020"), any).unwrap(),
            "10.1.2.3:26020"
        );
        assert_eq!(
            advertised_address(Some("rs1.example:0"), any).unwrap(),
            "rs1.example:16020"
        );
        assert_eq!(
            advertised_address(Some("rs1.example"), any).unwrap(),
            "rs1.example:16020"
        );
        assert_eq!(
            advertised_address(Some("::1"), bound("[::]:5")).unwrap(),
            "[::1]:5"
        );
        assert_eq!(
            advertised_address(Some("[fd00::7]:9"), any).unwrap(),
            "[fd00::7]:9"
        );
        assert_eq!(
            advertised_address(None, bound("127.0.0.1:7")).unwrap(),
            "127.0.0.1:7"
        );
        assert_eq!(host_of("[fd00::7]:9"), "fd00::7");
        assert_eq!(host_of("rs1.example:9"), "rs1.example");
    }

    #[test]
    fn a_wildcard_listener_without_an_advertised_address_or_a_bad_one_is_refused() {
        let e = advertised_address(None, bound("0.0.0.0:16020")).unwrap_err();
        assert!(e.contains("--advertise"), "{e}");
        assert!(advertised_address(Some(":16020"), bound("0.0.0.0:1")).is_err());
        assert!(advertised_address(Some("h:port"), bound("0.0.0.0:1")).is_err());
        assert!(advertised_address(Some("a b:1"), bound("0.0.0.0:1")).is_err());
    }
}
