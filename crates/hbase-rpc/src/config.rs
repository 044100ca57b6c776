//! Settings of the HBase RPC listener.

use std::net::SocketAddr;
use std::time::Duration;

/// Settings of an [`HBaseRpcServer`](crate::HBaseRpcServer).
#[derive(Clone, Debug)]
pub struct HBaseRpcConfig {
    /// Where to listen (port 0 picks a free port). One listener serves every service: the
    /// registry, the region server's `ClientService` and `AdminService`, and the master's
    /// `MasterService` (a connection names its service in its header).
    pub listen: SocketAddr,
    /// The host name clients are told to connect to (meta's `info:server`, the active
    /// master); default: the listen address's IP.
    pub advertised_host: Option<String>,
    /// Largest request frame accepted; a longer one closes the connection (HBase's
    /// `hbase.ipc.max.request.size`, 256 MiB by default).
    pub max_frame_bytes: usize,
    /// How long an idle scanner lives (HBase's `hbase.client.scanner.timeout.period`).
    pub scanner_lease: Duration,
    /// Most scanners open at once.
    pub max_open_scanners: usize,
    /// How long a scan call of a client that handles heartbeats may spend skipping rows
    /// before it answers with a heartbeat (HBase: half the smaller of the scanner lease and
    /// the RPC timeout, 30 s by default).
    pub scan_time_limit: Duration,
    /// TLS for every connection (HBase 2.6's `hbase.rpc.tls.enabled`); `None`: plaintext.
    /// A plaintext client is answered with a `FatalConnectionException` naming TLS.
    pub tls: Option<strata_tls::ServerTls>,
    /// Who may do what (RFC 0026): the process's guard, shared with its other front ends.
    /// A caller is the name its TLS client certificate proves.
    pub guard: std::sync::Arc<strata_access::Guard>,
}

impl HBaseRpcConfig {
    /// The default port: HBase's region-server port (Strata's gRPC keeps 16000).
    pub const DEFAULT_PORT: u16 = 16020;
    /// The default frame limit.
    pub const DEFAULT_MAX_FRAME_BYTES: usize = 256 << 20;
}

impl Default for HBaseRpcConfig {
    fn default() -> Self {
        HBaseRpcConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], Self::DEFAULT_PORT)),
            advertised_host: None,
            max_frame_bytes: Self::DEFAULT_MAX_FRAME_BYTES,
            scanner_lease: Duration::from_secs(60),
            max_open_scanners: 10_000,
            scan_time_limit: Duration::from_secs(30),
            tls: None,
            guard: strata_access::Guard::off(),
        }
    }
}
