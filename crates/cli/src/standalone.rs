//! `strata standalone`: master, region server and gRPC services in one process on a local
//! data directory, until Ctrl-C or SIGTERM, then a graceful shutdown (flush, close).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_model::schema::StoragePolicy;
use strata_storage::tiers::{StorageType, Volume};

fn parse_storage_type(s: &str) -> Result<StorageType, String> {
    StorageType::parse(s).ok_or_else(|| {
        format!("unknown storage type '{s}'; allowed: RAM_DISK, SSD, HDD (or DISK), ARCHIVE")
    })
}

fn parse_policy(s: &str) -> Result<StoragePolicy, String> {
    StoragePolicy::parse(s).ok_or_else(|| {
        format!(
            "unknown storage policy '{s}'; allowed: LAZY_PERSIST, ALL_SSD, ONE_SSD, HOT, WARM, \
             COLD"
        )
    })
}

/// How often regions are checked for date-tiered windows that aged into another tier.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct TierCheckArgs {
    /// Seconds between checks of every open region for store files whose tier changed with
    /// age (date-tiered windows past their warm or cold age), which are then moved, so idle
    /// regions move them too; a check touches no store when nothing is due. 0 turns it off
    /// (moves then wait for a compaction check, a flush or `compact`).
    #[arg(long, default_value_t = 300)]
    pub tier_check_secs: u64,
}

impl TierCheckArgs {
    /// The interval ([`Duration::ZERO`]: off).
    pub fn every(self) -> Duration {
        Duration::from_secs(self.tier_check_secs)
    }
}

/// When a server flushes regions on its own (`strata_server::flush_check`).
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct FlushCheckArgs {
    /// Seconds between flush checks of every open region. 0 turns them off.
    #[arg(long, default_value_t = 10)]
    pub flush_check_secs: u64,
    /// Flush a region whose oldest edit still only in memory is older than this many seconds,
    /// so idle regions do not keep WAL segments alive or edits to replay (HBase's
    /// `hbase.regionserver.optionalcacheflushinterval`). 0: never by age.
    #[arg(long, default_value_t = 3600)]
    pub max_edit_age_secs: u64,
    /// Past this many WAL segment files, flush the regions holding the oldest (HBase's
    /// `hbase.regionserver.maxlogs`). 0: never by WAL size.
    #[arg(long, default_value_t = 32)]
    pub max_wal_segments: usize,
    /// Seconds between looks for regions that took no write since the previous look, whose
    /// memtables are then merged into one flat segment each for faster reads. 0: never.
    #[arg(long, default_value_t = 2)]
    pub idle_merge_secs: u64,
}

impl FlushCheckArgs {
    /// The settings these arguments give.
    pub fn check(self) -> strata_server::flush_check::FlushCheck {
        strata_server::flush_check::FlushCheck {
            every: Duration::from_secs(self.flush_check_secs),
            max_edit_age: Duration::from_secs(self.max_edit_age_secs),
            max_wal_segments: self.max_wal_segments,
            idle_merge_after: Duration::from_secs(self.idle_merge_secs),
        }
    }
}

/// Arguments of `strata standalone`.
#[derive(clap::Args)]
pub struct Args {
    /// The data directory (created if missing; restarting on it keeps all data).
    #[arg(long, default_value = "data")]
    pub(crate) data_dir: PathBuf,
    /// Where all data lives (HBase's `hbase.rootdir`), instead of --data-dir:
    /// `hdfs://HOST:PORT/PATH` keeps the catalog, WAL, store files and manifests on HDFS;
    /// `s3://BUCKET/PREFIX` keeps the catalog, store files and manifests on S3 (with
    /// --wal-root); a path is a local directory.
    #[arg(long)]
    pub(crate) root: Option<String>,
    /// The HDFS NameNode's HTTP address (WebHDFS), needed only to set storage policies other
    /// than HOT [default: dfs.namenode.http-address in HADOOP_CONF_DIR's hdfs-site.xml, else
    /// the NameNode's host, port 9870].
    #[arg(long)]
    pub(crate) hdfs_http: Option<String>,
    /// Where the WAL lives instead of under --root: a local directory or
    /// `hdfs://HOST:PORT/PATH`. Required with an `s3://` root (object storage cannot append
    /// or sync a log); not for a local root (use --volume and --wal-storage-policy).
    #[arg(long)]
    pub(crate) wal_root: Option<String>,
    #[command(flatten)]
    pub(crate) s3: Box<crate::s3_args::S3Args>,
    /// Longest wait, in seconds, for one operation of a remote root (HDFS, S3): past it the
    /// operation fails, so writes fail with UNAVAILABLE while a NameNode is unreachable.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub(crate) store_timeout_secs: u64,
    /// Where the gRPC services listen.
    #[arg(long, default_value = "127.0.0.1:16000")]
    pub(crate) listen: SocketAddr,
    #[command(flatten)]
    pub(crate) space_quota: crate::space_quota_args::SpaceQuotaArgs,
    /// Memory all memtables may use together, in MiB (by default half of the memory budget, a
    /// quarter of the machine's or its cgroup's memory within 1–32 GiB).
    #[arg(long, default_value_t = crate::memory_defaults::memtable_mib())]
    pub(crate) memtable_mib: u64,
    /// Block cache size in MiB (0 disables it) (by default a quarter of the memory budget).
    #[arg(long, default_value_t = crate::memory_defaults::block_cache_mib())]
    pub(crate) block_cache_mib: u64,
    /// Row cache size in MiB (0 disables it); only families with ROW_CACHE use it.
    #[arg(long, default_value_t = crate::memory_defaults::row_cache_mib())]
    pub(crate) row_cache_mib: u64,
    #[command(flatten)]
    pub(crate) memory_tuner: crate::memory_tuner_args::MemoryTunerArgs,
    /// Microseconds an idle framed connection polls for its next request before parking,
    /// while it serves one sequential caller and no thread waits for a CPU (0: never).
    /// Lowers a lone client's latency by a wake-up each way.
    #[arg(long, default_value_t = 200)]
    pub(crate) poll_us: u64,
    /// How many steps below the server's CPU priority (nice, 0–19) disk and in-memory
    /// compactions run, so that requests preempt them; 0 runs them at the server's priority.
    /// Flushes, and compactions of a store over its blocking file count, always run at it.
    #[arg(long, default_value_t = strata_storage::background::DEFAULT_COMPACTION_NICE,
          value_parser = clap::value_parser!(i32).range(0..=19))]
    pub(crate) compaction_nice: i32,
    /// Largest value accepted, in bytes.
    #[arg(long, default_value_t = 10 << 20)]
    pub(crate) max_value_bytes: usize,
    /// Where HBase's Thrift1 gateway listens [default: 127.0.0.1:9090; if that port is
    /// taken, the server runs without the gateway and says so].
    #[arg(long)]
    pub(crate) thrift_listen: Option<SocketAddr>,
    /// Do not start the Thrift gateway.
    #[arg(long)]
    pub(crate) no_thrift: bool,
    /// The storage type of the device the data directory is on: RAM_DISK, SSD, HDD (or
    /// DISK), ARCHIVE.
    #[arg(long, default_value = "HDD", value_parser = parse_storage_type)]
    pub(crate) data_dir_type: StorageType,
    /// A further volume for store files and the WAL, as TYPE=PATH (e.g. SSD=/mnt/ssd/strata);
    /// repeatable, one per storage type. Families choose with STORAGE_POLICY.
    #[arg(long = "volume", value_parser = Volume::parse)]
    pub(crate) volumes: Vec<Volume>,
    /// The ARCHIVE tier on object storage, `s3://bucket/prefix` (the --s3-* flags apply):
    /// files placed on ARCHIVE (COLD, date-tiered windows past their cold age) are moved there
    /// by the tier mover and read through the page cache. With any root; not with --volume
    /// ARCHIVE=….
    #[arg(long)]
    pub(crate) cold_root: Option<String>,
    /// The WAL's storage policy: LAZY_PERSIST (RAM_DISK), ALL_SSD, ONE_SSD, HOT, WARM, COLD.
    #[arg(long, default_value = "HOT", value_parser = parse_policy)]
    pub(crate) wal_storage_policy: StoragePolicy,
    #[command(flatten)]
    pub(crate) tier_check: TierCheckArgs,
    #[command(flatten)]
    pub(crate) flush_check: FlushCheckArgs,
    #[command(flatten)]
    pub(crate) compaction_throughput: crate::compaction_args::CompactionThroughputArgs,
    #[command(flatten)]
    pub(crate) load_split: crate::load_split_args::LoadSplitArgs,
    #[command(flatten)]
    pub(crate) thrift: crate::gateway_cmd::Limits,
    /// Where HBase's native RPC listens, for the HBase Java client (one port for the
    /// registry, region-server and master services) [default: 127.0.0.1:16020; if that port
    /// is taken, the server runs without it and says so].
    #[arg(long)]
    pub(crate) hbase_rpc_listen: Option<SocketAddr>,
    /// Do not start HBase's native RPC.
    #[arg(long)]
    pub(crate) no_hbase_rpc: bool,
    /// The host name HBase clients are told to connect to (in `hbase:meta` and the registry);
    /// required when --hbase-rpc-listen is a wildcard address [default: the listen IP].
    #[arg(long)]
    pub(crate) hbase_rpc_advertised_host: Option<String>,
    /// Largest HBase RPC request accepted, in bytes (a larger one closes the connection).
    #[arg(long, default_value_t = strata_hbase_rpc::HBaseRpcConfig::DEFAULT_MAX_FRAME_BYTES)]
    pub(crate) hbase_rpc_max_frame_bytes: usize,
    /// Where the HTTP endpoint (Prometheus /metrics and the web UI) listens [default:
    /// 127.0.0.1:16010; if that port is taken, the server runs without it and says so].
    #[arg(long)]
    pub(crate) http_listen: Option<SocketAddr>,
    /// Do not start the HTTP endpoint.
    #[arg(long)]
    pub(crate) no_http: bool,
    /// Requests slower than this many milliseconds are logged as slow operations.
    #[arg(long, default_value_t = 1000)]
    pub(crate) slow_op_ms: u64,
    /// Do not record requests (no request counts, latency histograms, heatmap or slow
    /// operations): for measuring what recording them costs.
    #[arg(long)]
    pub(crate) no_request_metrics: bool,
    #[command(flatten)]
    pub(crate) tls: strata_tls::args::ListenArgs,
    #[command(flatten)]
    pub(crate) tls_connect: strata_tls::args::ConnectArgs,
    #[command(flatten)]
    pub(crate) auth: crate::auth_args::AuthArgs,
    /// Accepted for scripts written for earlier releases, where it chose this mode: every
    /// standalone process is a cluster of one now (RFC 0019).
    #[arg(long, hide = true)]
    pub(crate) cluster_of_one: bool,
}

/// Logs where the process listens and keeps its data.
pub(crate) fn log_layout(args: &Args, grpc: SocketAddr, root: &str) {
    tracing::info!(listen = %grpc, "gRPC services (data, admin) listening");
    tracing::info!(
        root = %root,
        storage_type = args.data_dir_type.name(),
        "data directory"
    );
    for v in &args.volumes {
        tracing::info!(path = %v.path.display(), storage_type = v.kind.name(), "volume");
    }
    if let Some(url) = &args.cold_root {
        tracing::info!(url = %url, storage_type = "ARCHIVE", "cold root");
    }
    tracing::info!(policy = ?args.wal_storage_policy, "WAL storage policy");
}

/// Runs the standalone server until interrupted.
///
/// # Errors
/// Startup failed (directory in use, port taken, recovery error) or shutdown failed.
pub fn run(args: &Args) -> Result<(), String> {
    args.auth.check_exposed(
        "standalone",
        &[
            ("--listen", Some(args.listen)),
            ("--hbase-rpc-listen", args.hbase_rpc_listen),
            ("--http-listen", args.http_listen),
            ("--thrift-listen", args.thrift_listen),
        ],
    )?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(serve(args))
}

/// The root's stores and the cold volume, opened off the runtime's threads.
async fn open_stores(
    args: &Args,
) -> Result<(strata_shared_storage::Root, Option<ColdVolume>), String> {
    let root = match &args.root {
        Some(url) => {
            let url = url.clone();
            let mut options = args
                .s3
                .root_options(args.hdfs_http.clone(), args.wal_root.clone());
            options.store_timeout = Duration::from_secs(args.store_timeout_secs);
            tokio::task::spawn_blocking(move || {
                strata_shared_storage::open_root_with(&url, &options)
            })
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?
        }
        None => strata_shared_storage::open_root(
            &args.data_dir.display().to_string(),
            None,
            Duration::from_secs(10),
        )
        .map_err(|e| e.to_string())?,
    };
    let cold_volume = match &args.cold_root {
        Some(url) => {
            let (url, s3) = (url.clone(), args.s3.clone());
            let timeout = Duration::from_secs(args.store_timeout_secs);
            let cold = tokio::task::spawn_blocking(move || s3.cold_volume(&url, timeout))
                .await
                .map_err(|e| e.to_string())??;
            Some(cold)
        }
        None => None,
    };
    Ok((root, cold_volume))
}

/// The ARCHIVE tier on a store of its own.
type ColdVolume = (Volume, Arc<dyn strata_storage::vfs::FileStore>);

/// The region server's settings these arguments give, on `root`.
fn server_config(
    args: &Args,
    root: &strata_shared_storage::Root,
    cold_volume: Option<ColdVolume>,
) -> strata_server::ServerConfig {
    let mut server = strata_server::ServerConfig::new(root.path.clone(), String::new());
    server.storage = root.storage.clone();
    server.memtable_budget_bytes = args.memtable_mib << 20;
    server.block_cache_bytes = args.block_cache_mib << 20;
    server.row_cache_bytes = args.row_cache_mib << 20;
    server.memory_tuner = args.memory_tuner.config();
    crate::memory_defaults::log_split(
        args.memtable_mib,
        args.block_cache_mib,
        args.row_cache_mib,
        server.memory_tuner.enabled,
    );
    server.poll_before_park = std::time::Duration::from_micros(args.poll_us);
    server.compaction_nice = args.compaction_nice;
    server.max_value_bytes = args.max_value_bytes;
    server.data_dir_type = args.data_dir_type;
    server.volumes = args.volumes.clone();
    server.cold_volume = cold_volume;
    server.wal_storage_policy = args.wal_storage_policy;
    server.tier_check_every = args.tier_check.every();
    server.flush_check = args.flush_check.check();
    server.compaction_throughput = args.compaction_throughput.shared();
    server.slow_op_threshold = std::time::Duration::from_millis(args.slow_op_ms);
    // One server: spreading a hot region's load needs another server to move a daughter to.
    server.load_split = args.load_split.config(0);
    server
}

async fn serve(args: &Args) -> Result<(), String> {
    let started = Instant::now();
    // Certificates first: a bad file is reported before anything starts.
    let tls = strata_tls::args::load_process(&args.tls, &args.tls_connect)?;
    let (root, cold_volume) = open_stores(args).await?;
    crate::standalone_single::serve(
        args,
        &root,
        server_config(args, &root, cold_volume),
        tls,
        started,
    )
    .await
}

/// Resolves, with the reason, once an S3 root's store has lost the root's lock (never for
/// other roots).
pub(crate) async fn lock_lost(s3: Option<Arc<strata_shared_storage::S3>>) -> String {
    let Some(s3) = s3 else {
        return std::future::pending().await;
    };
    loop {
        if let Some(why) = s3.fenced() {
            return why;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Waits for Ctrl-C or SIGTERM.
pub async fn wait_for_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
