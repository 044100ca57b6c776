//! [`GatewayConfig`]: the gateway's settings, plain data with defaults.

use std::net::SocketAddr;
use std::time::Duration;

/// Settings of a Thrift gateway.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatewayConfig {
    /// Where the Thrift service listens. Default `127.0.0.1:9090` (HBase's Thrift port);
    /// port 0 picks a free one.
    pub listen: SocketAddr,
    /// Largest message (buffered) or frame (framed) accepted, in bytes; a connection sending
    /// a bigger one is closed. Default 64 MiB. Also caps a `scannerGetList` reply's cells at
    /// half this.
    pub max_frame_bytes: usize,
    /// A scanner not used for this long is closed. Default 60 s (HBase's scanner lease).
    pub scanner_lease: Duration,
    /// Close a connection idle this long; `None` (the default) keeps idle connections open,
    /// since Thrift clients such as happybase do not reconnect on their own.
    pub idle_timeout: Option<Duration>,
    /// How long an idle connection polls for its next message before its task parks, while
    /// it serves one sequential caller and no thread waits for a CPU
    /// (`strata_proto::read_soon`); zero never polls. Default 200 µs: a lone client's call
    /// skips the gateway's wake-up.
    pub poll_before_park: Duration,
    /// TLS for every connection; `None` (the default): plaintext. A plaintext client is
    /// closed with a warning naming TLS in the log.
    pub tls: Option<strata_tls::ServerTls>,
}

impl GatewayConfig {
    /// HBase's Thrift port.
    pub const DEFAULT_PORT: u16 = 9090;

    /// The defaults, listening on `listen`.
    pub fn new(listen: SocketAddr) -> GatewayConfig {
        GatewayConfig {
            listen,
            max_frame_bytes: 64 << 20,
            scanner_lease: Duration::from_secs(60),
            idle_timeout: None,
            poll_before_park: strata_proto::read_soon::DEFAULT_BUDGET,
            tls: None,
        }
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// A message naming the setting: a frame limit under 1 KiB or over 1 GiB, or a zero
    /// lease or idle timeout.
    pub fn validate(&self) -> Result<(), String> {
        if !(1024..=1 << 30).contains(&self.max_frame_bytes) {
            return Err(format!(
                "max frame size {} must be between 1 KiB and 1 GiB",
                self.max_frame_bytes
            ));
        }
        if self.scanner_lease.is_zero() {
            return Err("the scanner lease must be positive".to_string());
        }
        if self.idle_timeout.is_some_and(|t| t.is_zero()) {
            return Err("the idle timeout must be positive".to_string());
        }
        Ok(())
    }
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig::new(SocketAddr::from(([127, 0, 0, 1], Self::DEFAULT_PORT)))
    }
}
