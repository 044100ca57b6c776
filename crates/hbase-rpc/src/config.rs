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
    /// A caller is the name its TLS client certificate or its Kerberos ticket proves.
    pub guard: std::sync::Arc<strata_access::Guard>,
    /// Kerberos (SASL GSSAPI, HBase's `hbase.security.authentication=kerberos`): the service
    /// principal's keys; a client's principal of the principal's realm is its user (`alice@R`
    /// is `alice`). `None`: Kerberos clients are told to fall back to SIMPLE (access control
    /// off) or refused (on).
    pub kerberos: Option<strata_gss::Acceptor>,
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
            kerberos: None,
        }
    }
}

/// Where a listener's Kerberos keys come from (`--kerberos-keytab`, `--kerberos-principal`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KerberosConfig {
    /// The keytab holding the service principal's keys.
    pub keytab: std::path::PathBuf,
    /// The service principal, HBase's `hbase/_HOST@REALM`: `_HOST` is replaced by the host
    /// clients are told ([`KerberosConfig::host_name`]), which is the host HBase's client puts
    /// in the principal it asks a ticket for.
    pub principal: String,
}

impl KerberosConfig {
    /// The host name `_HOST` stands for, given the host clients are told (a name or an IP):
    /// the name, in lower case; `localhost` for a loopback IP (the canonical name HBase's
    /// client finds for it); this machine's host name for another IP.
    pub fn host_name(advertised: &str) -> String {
        match advertised.parse::<std::net::IpAddr>() {
            Ok(ip) if ip.is_loopback() => "localhost".to_owned(),
            Ok(_) => std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|h| h.trim().to_lowercase())
                .unwrap_or_else(|_| advertised.to_owned()),
            Err(_) => advertised.to_lowercase(),
        }
    }

    /// The service principal with `_HOST` replaced for `advertised`, and its keys.
    ///
    /// # Errors
    /// The principal does not parse or has no realm, the keytab cannot be read or holds no
    /// key of the principal, or the system's GSSAPI library is missing.
    pub fn acceptor(&self, advertised: &str) -> Result<strata_gss::Acceptor, String> {
        let principal = strata_gss::Principal::parse(&self.principal)?
            .with_host(&Self::host_name(advertised))
            .to_string();
        strata_gss::Acceptor::from_keytab(&principal, &self.keytab).map_err(|e| {
            format!(
                "Kerberos principal {principal}, keytab {}: {e}",
                self.keytab.display()
            )
        })
    }
}
