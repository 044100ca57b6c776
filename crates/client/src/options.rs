//! Settings of a [`crate::Connection`] and a [`crate::BufferedMutator`]: plain data with
//! defaults.

use std::time::Duration;

/// How a connection retries, times out and pages scans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOptions {
    /// Longest time one operation (or one scan page) may take, retries included. Default 60 s.
    pub operation_timeout: Duration,
    /// Longest wait for one answer from one server (a region server or the admin endpoint).
    /// When it passes, the server is taken as unreachable (stopped, partitioned): a read or
    /// an idempotent write is sent again to the region's freshly located server; an
    /// increment, append or check-and-mutate fails with `UNAVAILABLE` (it may or may not have
    /// been applied). Must exceed the longest single request (a scan page, a large batch).
    /// Zero: no per-attempt limit (only `operation_timeout`). Default 5 s.
    pub attempt_timeout: Duration,
    /// Most retries of one operation after the first attempt. Default 60 (with the pauses
    /// below, 29 to 58 s of waiting; `operation_timeout` bounds it too).
    pub retries: u32,
    /// First back-off pause; each retry doubles it, with jitter. Default 100 ms.
    pub retry_base: Duration,
    /// Longest back-off pause. Default 1 s: a client waiting out a failover notices its
    /// regions serving again within a second (with 5 s, a region back after 4 s was retried
    /// only after 6.3 s).
    pub retry_max: Duration,
    /// Rows per scan RPC when the scan does not set `caching`. Default unlimited
    /// (`u32::MAX`): pages end at `max_result_bytes`, as HBase's scanner caching defaults to
    /// `Integer.MAX_VALUE` under its 2 MB result size. Pages of 1,000 small rows spent a
    /// third of a one-client scan in round trips (seed 003's table: ~3.5 M cells/s against
    /// ~4.5–5 M with pages bounded by bytes).
    pub scan_caching: u32,
    /// Bytes of cells per scan RPC the server should stop after. Default 4 MiB.
    pub max_result_bytes: u64,
    /// Whether a scanner asks for its next page as soon as it has one, so the server reads
    /// it while the caller consumes the current one (HBase's async scanner prefetch). Costs
    /// up to one more page of memory per scanner; scans with a `limit` never prefetch.
    /// Default true.
    pub scan_prefetch: bool,
    /// How requests travel to region servers. Default: Strata's framed protocol.
    pub protocol: Protocol,
    /// How long a framed connection polls for a response before its reader parks
    /// (`strata_proto::read_soon`), while one call at a time is in flight on it and no other
    /// connection of the process is busy (`strata_proto::solo`) and no thread waits for a
    /// CPU; zero never polls. Default 200 µs: a lone caller's round trip skips a wake-up.
    pub poll_before_park: Duration,
    /// TLS for every connection (admin, gRPC and framed): the CAs servers' certificates must
    /// chain to, and a client certificate for servers that require one. `None` (the
    /// default): plaintext. A server's certificate must name the host the client connects
    /// to (as a location or the given address names it).
    pub tls: Option<strata_tls::ClientTls>,
}

/// The protocol of requests to region servers' data service (the master's admin service is
/// always gRPC).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// gRPC over HTTP/2.
    Grpc,
    /// Strata's framed protocol over TCP, on the same port: the same messages without HTTP/2,
    /// pipelined on one connection per server (docs/rfcs/0013-request-path.md). The default:
    /// about a third of gRPC's server CPU per cached read.
    #[default]
    Frames,
}

impl std::str::FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> Result<Protocol, String> {
        match s {
            "grpc" => Ok(Protocol::Grpc),
            "frames" => Ok(Protocol::Frames),
            other => Err(format!(
                "unknown protocol '{other}' (expected grpc or frames)"
            )),
        }
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            operation_timeout: Duration::from_secs(60),
            attempt_timeout: Duration::from_secs(5),
            retries: 60,
            retry_base: Duration::from_millis(100),
            retry_max: Duration::from_secs(1),
            scan_caching: u32::MAX,
            max_result_bytes: 4 << 20,
            scan_prefetch: true,
            protocol: Protocol::Frames,
            poll_before_park: strata_proto::read_soon::DEFAULT_BUDGET,
            tls: None,
        }
    }
}

/// How a [`crate::BufferedMutator`] batches writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferedMutatorOptions {
    /// Buffered bytes (estimated) that trigger sending the buffer. Default 2 MiB.
    pub max_buffer_bytes: usize,
    /// Most batch RPCs in flight at once, and most buffers being sent. Default 2 (as HBase's
    /// `hbase.client.max.perserver.tasks`): more only queue at the server, and a `mutate()`
    /// waiting for a slot waits for the whole queue (4 gave 2–4× the calls over 100 ms in
    /// seed 002's buffered writes, at the same cells/s). 0 means 1.
    pub max_in_flight: usize,
}

impl Default for BufferedMutatorOptions {
    fn default() -> Self {
        BufferedMutatorOptions {
            max_buffer_bytes: 2 << 20,
            max_in_flight: 2,
        }
    }
}
