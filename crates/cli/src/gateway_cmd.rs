//! `strata gateway`: HBase's Thrift1 gateway in front of a running Strata server, and the
//! options `strata standalone` shares to run one in-process.

use std::net::SocketAddr;
use std::time::Duration;

use strata_gateway::{Gateway, GatewayConfig};

/// Arguments of `strata gateway`.
#[derive(clap::Args)]
pub struct Args {
    /// The Strata server (master) to serve, host:port.
    #[arg(long, default_value = "127.0.0.1:16000")]
    server: String,
    /// Where the Thrift service listens.
    #[arg(long, default_value = "127.0.0.1:9090")]
    listen: SocketAddr,
    /// The protocol of data requests to region servers: frames (Strata's framed protocol,
    /// which every server speaks on its usual port) or grpc.
    #[arg(long, default_value = "frames")]
    protocol: strata_client::Protocol,
    /// Serve a cluster found through etcd (endpoints, comma-separated host:port) instead of
    /// --server: any live region server answers locations and table DDL.
    #[arg(long, value_delimiter = ',')]
    etcd: Vec<String>,
    /// The cluster's name, with --etcd.
    #[arg(long, default_value = "default")]
    cluster: String,
    #[command(flatten)]
    etcd_tls: strata_tls::args::EtcdArgs,
    #[command(flatten)]
    limits: Limits,
    #[command(flatten)]
    tls: strata_tls::args::ListenArgs,
    #[command(flatten)]
    tls_connect: strata_tls::args::ConnectArgs,
}

/// Gateway limits, shared with `strata standalone`.
#[derive(clap::Args, Clone, Debug)]
pub struct Limits {
    /// Largest Thrift message or frame accepted, in MiB.
    #[arg(long, default_value_t = 64)]
    pub thrift_max_frame_mib: usize,
    /// Seconds an unused scanner stays open.
    #[arg(long, default_value_t = 60)]
    pub thrift_scanner_lease_secs: u64,
    /// Microseconds an idle Thrift connection polls for its next call before parking, while
    /// it serves one sequential caller and no thread waits for a CPU (0: never).
    #[arg(long, default_value_t = 200)]
    pub thrift_poll_us: u64,
}

impl Limits {
    /// The gateway settings for `listen`.
    pub fn config(&self, listen: SocketAddr) -> GatewayConfig {
        let mut config = GatewayConfig::new(listen);
        config.max_frame_bytes = self.thrift_max_frame_mib.saturating_mul(1 << 20);
        config.scanner_lease = Duration::from_secs(self.thrift_scanner_lease_secs);
        config.poll_before_park = Duration::from_micros(self.thrift_poll_us);
        config
    }
}

/// Starts a gateway through a client connection to `server` whose data requests use
/// `protocol`.
///
/// # Errors
/// The server cannot be reached or the address cannot be bound.
pub async fn start(
    server: &str,
    protocol: strata_client::Protocol,
    config: GatewayConfig,
    tls: Option<strata_tls::ClientTls>,
) -> Result<Gateway, String> {
    let conn = connect(server, protocol, tls).await?;
    let listen = config.listen;
    Gateway::start(config, conn)
        .await
        .map_err(|e| format!("Thrift gateway on {listen}: {e}"))
}

/// Starts a gateway inside the process of the server at `server` whose data service is
/// `data`: data requests are handed to it without a socket (admin calls still go to the
/// server's listener).
///
/// # Errors
/// As [`start`].
pub async fn start_in_process(
    server: &str,
    data: std::sync::Arc<dyn strata_proto::pb::data_server::Data>,
    config: GatewayConfig,
    tls: Option<strata_tls::ClientTls>,
) -> Result<Gateway, String> {
    let conn = connect(server, strata_client::Protocol::Frames, tls).await?;
    conn.serve_in_process(server, data)
        .map_err(|e| e.to_string())?;
    let listen = config.listen;
    Gateway::start(config, conn)
        .await
        .map_err(|e| format!("Thrift gateway on {listen}: {e}"))
}

async fn connect(
    server: &str,
    protocol: strata_client::Protocol,
    tls: Option<strata_tls::ClientTls>,
) -> Result<strata_client::Connection, String> {
    let options = strata_client::ClientOptions {
        protocol,
        tls,
        ..Default::default()
    };
    strata_client::Connection::connect_with(server, options)
        .await
        .map_err(|e| format!("cannot reach {server}: {e}"))
}

/// Runs the gateway until interrupted.
///
/// # Errors
/// As [`start`].
pub fn run(args: &Args) -> Result<(), String> {
    let listen_tls =
        strata_tls::args::load_process(&args.tls, &strata_tls::args::ConnectArgs::default())?;
    let upstream_tls = args.tls_connect.load()?;
    strata_cluster::etcd_tls::use_files(args.etcd_tls.files()?);
    // The cluster's region servers, read from etcd before the runtime starts (the etcd
    // client runs one of its own).
    let cluster = if args.etcd.is_empty() {
        None
    } else {
        Some(strata_cluster::node::server_addresses(
            &args.etcd,
            &args.cluster,
        )?)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let mut config = args.limits.config(args.listen);
        config.tls = listen_tls.map(|t| t.raw);
        let (gateway, serving) = match &cluster {
            None => (
                start(&args.server, args.protocol, config, upstream_tls.clone()).await?,
                args.server.clone(),
            ),
            Some(addrs) => {
                let options = strata_client::ClientOptions {
                    protocol: args.protocol,
                    tls: upstream_tls.clone(),
                    ..Default::default()
                };
                let conn = strata_client::Connection::connect_any(addrs, options)
                    .await
                    .map_err(|e| {
                        format!("cannot reach the cluster's region servers {addrs:?}: {e}")
                    })?;
                let gateway = Gateway::start(config, conn)
                    .await
                    .map_err(|e| format!("Thrift gateway on {}: {e}", args.listen))?;
                (
                    gateway,
                    format!("cluster {} ({} region servers)", args.cluster, addrs.len()),
                )
            }
        };
        println!(
            "strata gateway: HBase Thrift1 on {} for {serving}",
            gateway.addr(),
        );
        crate::standalone::wait_for_signal().await;
        gateway.shutdown().await;
        println!("strata gateway: stopped");
        Ok(())
    })
}
