//! `strata regionserver` and `strata cluster …` (the master is `cluster_master`): cluster mode on etcd
//! (RFC 0012). With `--root` (HDFS or a local directory shared by every process), region
//! servers open their regions from the root and serve them over gRPC, and masters fence and
//! split a dead server's WAL; without it, a cluster runs coordination only (regions hold no
//! data).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::master::{parse_result, submit_request, take_result, AdminRequest};
use strata_cluster::node::{self, Unbacked};
use strata_cluster::record::TableRecord;
use strata_cluster::regionserver::{RegionServer, RegionServerConfig};
use strata_cluster::status::ClusterStatus;
use strata_cluster_node::serve::{Endpoints, NodeConfig};

/// Where the cluster is.
#[derive(clap::Args, Clone, Debug)]
pub struct Coordination {
    /// etcd endpoints, comma-separated host:port.
    #[arg(long, default_value = "127.0.0.1:2379", value_delimiter = ',')]
    pub(crate) etcd: Vec<String>,
    /// The cluster's name (its keys live under /strata/NAME/).
    #[arg(long, default_value = "default")]
    pub(crate) cluster: String,
    #[command(flatten)]
    pub(crate) etcd_tls: strata_tls::args::EtcdArgs,
}

impl Coordination {
    /// Makes this process reach etcd as --etcd-ca, --etcd-cert and --etcd-key say (before
    /// anything connects).
    pub(crate) fn use_etcd_tls(&self) -> Result<(), String> {
        strata_cluster::etcd_tls::use_files(self.etcd_tls.files()?);
        Ok(())
    }

    pub(crate) fn layout(&self) -> Layout {
        Layout::new(&format!("/strata/{}", self.cluster))
    }
}

/// The address a coordination-only region server announces by default.
const DEFAULT_ADVERTISE: &str = "127.0.0.1:16020";

/// Arguments of `strata regionserver`.
#[derive(clap::Args)]
pub struct RegionServerArgs {
    #[command(flatten)]
    coordination: Coordination,
    /// The address this server announces, `HOST[:PORT]` (with its start code, its name in the
    /// cluster): clients and the master reach it there, so it may differ from --listen (a
    /// wildcard such as 0.0.0.0, or behind NAT). Without a port, --listen's (the one bound).
    /// [default: --listen's address; 127.0.0.1:16020 without --root]
    #[arg(long)]
    advertise: Option<String>,
    /// Lease TTL in seconds (how long a dead server goes unnoticed).
    #[arg(long, default_value_t = 3)]
    ttl: i64,
    /// Milliseconds before its lease's earliest expiry at which the server stops serving.
    #[arg(long, default_value_t = 500)]
    margin_ms: u64,
    /// The shared root (`hdfs://HOST:PORT/PATH` or a directory every server and master
    /// shares): the server opens the regions it is ordered to from there, keeps its WAL in
    /// `wal/<server>/`, and serves them on --listen. Without it: coordination only.
    #[arg(long)]
    root: Option<String>,
    /// The HDFS NameNode's HTTP address (WebHDFS), needed only to set storage policies other
    /// than HOT [default: dfs.namenode.http-address in HADOOP_CONF_DIR's hdfs-site.xml, else
    /// the NameNode's host, port 9870].
    #[arg(long)]
    hdfs_http: Option<String>,
    /// Longest wait, in seconds, for one HDFS operation (with --root): past it the operation
    /// fails, so writes fail with UNAVAILABLE while the NameNode is unreachable.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    store_timeout_secs: u64,
    /// Longest wait, in milliseconds, for one WAL write or sync on HDFS (with --root): past it
    /// the write fails (never acknowledged) and the server gives up its regions, which the
    /// master reopens elsewhere after fencing its WAL; it then registers again as a new
    /// server. A server cut off from its DataNodes answers within this bound.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(100..=3_600_000))]
    wal_timeout_ms: u64,
    /// The ARCHIVE tier on object storage, `s3://bucket/prefix` (with --root; the --s3-*
    /// flags apply): files placed on ARCHIVE (COLD, date-tiered windows past their cold age)
    /// are moved there by the tier mover, the WAL and every other file stay on --root. Give
    /// every region server the same one: a region whose manifest lists ARCHIVE files opens
    /// only on a server that has it.
    #[arg(long)]
    cold_root: Option<String>,
    #[command(flatten)]
    s3: Box<crate::s3_args::S3Args>,
    #[command(flatten)]
    tier_check: crate::standalone::TierCheckArgs,
    #[command(flatten)]
    flush_check: crate::standalone::FlushCheckArgs,
    #[command(flatten)]
    compaction_throughput: crate::compaction_args::CompactionThroughputArgs,
    #[command(flatten)]
    load_split: crate::load_split_args::LoadSplitArgs,
    /// Seconds between compaction checks of every open region (with --root), so idle regions
    /// get their periodic major compactions and drop files past their family's TTL; flushes
    /// ask for checks of their own. 0 turns it off. [default: 10000, as standalone and
    /// HBase's compaction checker]
    #[arg(long)]
    compaction_check_secs: Option<u64>,
    #[command(flatten)]
    space_quota: crate::space_quota_args::SpaceQuotaArgs,
    /// Where the gRPC data and admin services listen (with --root); the server is named and
    /// reached by this address.
    #[arg(long, default_value = "127.0.0.1:16020")]
    listen: std::net::SocketAddr,
    /// Memory all memtables may use together, in MiB (with --root) (by default half of the
    /// memory budget, a quarter of the machine's or its cgroup's memory within 1–32 GiB).
    #[arg(long, default_value_t = crate::memory_defaults::memtable_mib())]
    memtable_mib: u64,
    /// Block cache size in MiB (with --root; 0 disables it) (by default a quarter of the
    /// memory budget).
    #[arg(long, default_value_t = crate::memory_defaults::block_cache_mib())]
    block_cache_mib: u64,
    /// Row cache size in MiB (with --root; 0 disables it); only families with ROW_CACHE use
    /// it.
    #[arg(long, default_value_t = crate::memory_defaults::row_cache_mib())]
    row_cache_mib: u64,
    #[command(flatten)]
    memory_tuner: crate::memory_tuner_args::MemoryTunerArgs,
    /// Microseconds an idle framed connection polls for its next request before parking,
    /// while it serves one sequential caller and no thread waits for a CPU (0: never).
    /// Lowers a lone client's latency by a wake-up each way.
    #[arg(long, default_value_t = 200)]
    poll_us: u64,
    /// How many steps below the server's CPU priority (nice, 0–19) disk and in-memory
    /// compactions run, so that requests preempt them; 0 runs them at the server's priority.
    /// Flushes, and compactions of a store over its blocking file count, always run at it.
    #[arg(long, default_value_t = strata_storage::background::DEFAULT_COMPACTION_NICE,
          value_parser = clap::value_parser!(i32).range(0..=19))]
    compaction_nice: i32,
    /// Serve /metrics and the web UI on this address (with --root; `--http` alone: HBase's
    /// region server UI port, 127.0.0.1:16030; port 0 picks one).
    #[arg(long, num_args = 0..=1, default_missing_value = "127.0.0.1:16030")]
    http: Option<std::net::SocketAddr>,
    /// Take HBase's native RPC (HBase's Java client) on this address (with --root). Clients
    /// bootstrap from any region server (`hbase.client.bootstrap.servers`), which answers
    /// `hbase:meta` from etcd.
    #[arg(long)]
    hbase_rpc: Option<std::net::SocketAddr>,
    /// How long an HBase RPC scan call may skip rows (a filter matching few) before it
    /// answers with a heartbeat, for clients that handle them [default: 30000].
    #[arg(long)]
    hbase_rpc_scan_time_limit_ms: Option<u64>,
    #[command(flatten)]
    tls: strata_tls::args::ListenArgs,
    #[command(flatten)]
    tls_connect: strata_tls::args::ConnectArgs,
    #[command(flatten)]
    auth: crate::auth_args::AuthArgs,
}

/// `strata cluster …`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Masters, live region servers, tables, regions by state, procedures.
    Status(Coordination),
    /// Creates a table, pre-split at the given rows.
    CreateTable {
        #[command(flatten)]
        coordination: Coordination,
        /// The table.
        table: String,
        /// Split rows, comma-separated.
        #[arg(long, value_delimiter = ',')]
        splits: Vec<String>,
        /// Column families, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "cf")]
        families: Vec<String>,
    },
    /// Drops a table (closes its regions, deletes its files, then its records and schema).
    DropTable {
        #[command(flatten)]
        coordination: Coordination,
        /// The table.
        table: String,
    },
    /// Moves a region (to a server if given, else to the least loaded).
    Move {
        #[command(flatten)]
        coordination: Coordination,
        /// The region id (`table,seq`).
        region: String,
        /// Target server name (`host:port:startcode`).
        #[arg(long)]
        to: Option<String>,
    },
    /// Opens a closed region.
    Assign {
        #[command(flatten)]
        coordination: Coordination,
        /// The region id.
        region: String,
    },
    /// Closes a region (it stays closed).
    Unassign {
        #[command(flatten)]
        coordination: Coordination,
        /// The region id.
        region: String,
    },
    /// Disables a table (closes its regions; reads and writes are refused until enabled).
    DisableTable {
        #[command(flatten)]
        coordination: Coordination,
        /// The table.
        table: String,
    },
    /// Enables a disabled table (its regions are assigned again).
    EnableTable {
        #[command(flatten)]
        coordination: Coordination,
        /// The table.
        table: String,
    },
    /// Empties a disabled table: new, empty regions (split as before with --preserve-splits);
    /// the table is enabled afterwards.
    TruncateTable {
        #[command(flatten)]
        coordination: Coordination,
        /// The table.
        table: String,
        /// Keep the split points.
        #[arg(long)]
        preserve_splits: bool,
    },
    /// Runs the balancer now (refused while it is off or regions are in transition).
    Balance(Coordination),
    /// Turns the balancer on or off (persisted in etcd; prints whether it was on).
    BalanceSwitch {
        #[command(flatten)]
        coordination: Coordination,
        /// `true` / `on` or `false` / `off`.
        #[arg(value_parser = parse_switch, action = clap::ArgAction::Set)]
        on: bool,
    },
    /// Decommissions region servers: moves their regions off and assigns them nothing.
    Decommission {
        #[command(flatten)]
        coordination: Coordination,
        /// Server names (`host:port:startcode`, or `host:port` of one live server).
        #[arg(required = true)]
        servers: Vec<String>,
    },
    /// Splits a region (`table,seq` or its full name) at a row or its middle key, or every
    /// region of a table at its middle key (the region holding the row with --row); waits
    /// until the daughters are open.
    Split {
        #[command(flatten)]
        coordination: Coordination,
        /// A region name, or a table.
        target: String,
        /// The split row.
        #[arg(long)]
        row: Option<String>,
    },
    /// Merges two adjacent regions of a table (`table,seq`, their full names, or just their
    /// sequence numbers), moving one onto the other's server first if they are apart; waits
    /// until the merged region is open.
    Merge {
        #[command(flatten)]
        coordination: Coordination,
        /// The table.
        table: String,
        /// One region.
        region_a: String,
        /// The other, adjacent to it.
        region_b: String,
    },
    /// Lets a decommissioned region server take regions again.
    Recommission {
        #[command(flatten)]
        coordination: Coordination,
        /// The server name.
        server: String,
    },
}

impl Command {
    /// Where the command's cluster is.
    fn coordination(&self) -> &Coordination {
        match self {
            Command::Status(c) => c,
            Command::Balance(c) => c,
            Command::CreateTable { coordination, .. } => coordination,
            Command::DropTable { coordination, .. } => coordination,
            Command::Move { coordination, .. } => coordination,
            Command::Assign { coordination, .. } => coordination,
            Command::Unassign { coordination, .. } => coordination,
            Command::DisableTable { coordination, .. } => coordination,
            Command::EnableTable { coordination, .. } => coordination,
            Command::TruncateTable { coordination, .. } => coordination,
            Command::BalanceSwitch { coordination, .. } => coordination,
            Command::Decommission { coordination, .. } => coordination,
            Command::Split { coordination, .. } => coordination,
            Command::Merge { coordination, .. } => coordination,
            Command::Recommission { coordination, .. } => coordination,
        }
    }
}

fn parse_switch(s: &str) -> Result<bool, String> {
    match s {
        "true" | "on" => Ok(true),
        "false" | "off" => Ok(false),
        other => Err(format!("expected true or false, not {other:?}")),
    }
}

/// Runs the operations of `strata cluster …` that resolve names first (see `cluster_ops`);
/// `None` for the other commands.
fn run_operation(cmd: &Command) -> Option<Result<(), String>> {
    use strata_shell::cluster_ops::ClusterOps;
    let connect = |c: &Coordination| ClusterOps::connect(&c.etcd, &c.cluster);
    let outcome = match cmd {
        Command::Balance(c) => connect(c).and_then(|ops| ops.balance()),
        Command::BalanceSwitch { coordination, on } => connect(coordination)
            .and_then(|ops| ops.balance_switch(*on))
            .map(|was| format!("balancer was {}", if was { "on" } else { "off" })),
        Command::Decommission {
            coordination,
            servers,
        } => connect(coordination)
            .and_then(|ops| ops.decommission(servers))
            .map(|answers| answers.join("\n")),
        Command::Recommission {
            coordination,
            server,
        } => connect(coordination).and_then(|ops| ops.recommission(server)),
        _ => return None,
    };
    Some(outcome.map(|answer| outln!("{answer}")))
}

/// A flag set on Ctrl-C or SIGTERM.
pub(crate) fn stop_on_signal() -> Result<Arc<AtomicBool>, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    std::thread::spawn(move || {
        runtime.block_on(crate::standalone::wait_for_signal());
        flag.store(true, Ordering::Relaxed);
    });
    Ok(stop)
}

fn millis_since_epoch() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

pub(crate) fn open_root(
    url: &str,
    hdfs_http: Option<&str>,
    store_timeout_secs: u64,
) -> Result<strata_shared_storage::Root, String> {
    open_root_with_wal(url, hdfs_http, store_timeout_secs, None)
}

/// [`open_root`], with one WAL write or sync bounded by `wal_timeout` (HDFS).
pub(crate) fn open_root_with_wal(
    url: &str,
    hdfs_http: Option<&str>,
    store_timeout_secs: u64,
    wal_timeout: Option<Duration>,
) -> Result<strata_shared_storage::Root, String> {
    let options = strata_shared_storage::RootOptions {
        hdfs_http: hdfs_http.map(str::to_owned),
        store_timeout: Duration::from_secs(store_timeout_secs),
        wal_timeout,
        ..strata_shared_storage::RootOptions::new()
    };
    strata_shared_storage::open_root_with(url, &options).map_err(|e| format!("--root {url}: {e}"))
}

/// Runs a region server with data on the shared root.
fn run_data_regionserver(args: &RegionServerArgs, url: &str) -> Result<(), String> {
    let tls = strata_tls::args::load_process(&args.tls, &args.tls_connect)?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let root = open_root_with_wal(
        url,
        args.hdfs_http.as_deref(),
        args.store_timeout_secs,
        Some(Duration::from_millis(args.wal_timeout_ms)),
    )?;
    let mut server = strata_server::ServerConfig::new(&root.path, args.listen.to_string());
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
    server.tier_check_every = args.tier_check.every();
    server.flush_check = args.flush_check.check();
    server.compaction_throughput = args.compaction_throughput.shared();
    server.load_split = args
        .load_split
        .config(strata_server::load_split::LoadSplitConfig::DEFAULT_QPS);
    if let Some(cold) = &args.cold_root {
        let timeout = Duration::from_secs(args.store_timeout_secs);
        server.cold_volume = Some(args.s3.cold_volume(cold, timeout)?);
        println!("strata regionserver: the ARCHIVE tier is {cold}");
    }
    let config = NodeConfig {
        etcd: args.coordination.etcd.clone(),
        layout: args.coordination.layout(),
        server,
        coordination: RegionServerConfig {
            ttl_secs: args.ttl,
            margin_ms: args.margin_ms,
            ..RegionServerConfig::default()
        },
        on_invalid_open: None,
        guard: args.auth.guard(
            args.tls.tls_client_ca.is_some() && args.tls.tls_cert.is_some(),
            strata_tls::args::presented_certificate(&args.tls, &args.tls_connect).as_deref(),
        )?,
        tls,
        listen: args.listen,
        advertise: args.advertise.clone(),
        compaction_check_every: args.compaction_check_secs.map_or(
            strata_server::host::COMPACTION_CHECK_EVERY,
            Duration::from_secs,
        ),
        space_quota_period: args.space_quota.period(),
    };
    let stop = stop_on_signal()?;
    let name = std::sync::Mutex::new(String::new());
    let who = || name.lock().map(|n| n.clone()).unwrap_or_default();
    let url = root.url.clone();
    let endpoints = Endpoints {
        http: args.http,
        hbase_rpc: args.hbase_rpc,
        hbase_rpc_scan_time_limit: args.hbase_rpc_scan_time_limit_ms.map(Duration::from_millis),
        hbase_rpc_kerberos: args.auth.kerberos()?,
        ..Endpoints::default()
    };
    strata_cluster_node::serve::run_with(
        config,
        &endpoints,
        &stop,
        |what| println!("strata regionserver {}: {what}", who()),
        |node: &strata_cluster_node::serve::Node| {
            if let Ok(mut n) = name.lock() {
                n.clone_from(&node.name);
            }
            println!(
                "strata regionserver {}: serving on {} as {} (data in {url})",
                node.name, node.addr, node.advertised
            );
            if let Some(http) = node.http {
                println!(
                    "strata regionserver {}: HTTP endpoint on {scheme}://{http}/",
                    node.name
                );
            }
            if let Some(addr) = node.hbase_rpc {
                println!("strata regionserver {}: HBase RPC on {addr}", node.name);
            }
        },
        |why| eprintln!("strata regionserver: stopped serving: {why}"),
    )
    .map_err(|why| format!("region server {} stopped: {why}", who()))
}

/// Runs `strata regionserver`.
pub fn run_regionserver(args: &RegionServerArgs) -> Result<(), String> {
    args.coordination.use_etcd_tls()?;
    args.auth.check_exposed(
        "regionserver",
        &[
            ("--listen", Some(args.listen)),
            ("--hbase-rpc", args.hbase_rpc),
            ("--http", args.http),
        ],
    )?;
    if let Some(url) = &args.root {
        return run_data_regionserver(args, url);
    }
    if args.http.is_some() || args.hbase_rpc.is_some() || args.cold_root.is_some() {
        return Err(
            "--http, --hbase-rpc and --cold-root need --root (a coordination-only server has \
             no data)"
                .to_owned(),
        );
    }
    let advertise = args
        .advertise
        .clone()
        .unwrap_or_else(|| DEFAULT_ADVERTISE.to_owned());
    let config = RegionServerConfig {
        ttl_secs: args.ttl,
        margin_ms: args.margin_ms,
        ..RegionServerConfig::default()
    };
    let incarnation = |lease| -> Result<RegionServer<_, Unbacked>, String> {
        let kv = node::connect(&args.coordination.etcd)?;
        let name = format!("{advertise}:{}", millis_since_epoch());
        Ok(RegionServer::new(
            kv,
            Unbacked::default(),
            args.coordination.layout(),
            name,
            advertise.clone(),
            config.clone(),
        )
        .succeeding(lease))
    };
    let rs = incarnation(None)?;
    let name = std::sync::Mutex::new(rs.name().to_owned());
    let stop = stop_on_signal()?;
    println!(
        "strata regionserver {}: coordination only (regions hold no data yet)",
        rs.name()
    );
    node::run_regionserver(rs, incarnation, &stop, |what| {
        let mut n = name
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(next) = what.strip_prefix("registering as ") {
            next.clone_into(&mut n);
        }
        println!("strata regionserver {n}: {what}");
    });
    Ok(())
}

/// `strata cluster split`: through the master, waiting for the daughters to open.
fn split(coordination: &Coordination, target: &str, row: Option<&str>) -> Result<(), String> {
    let kv = node::connect(&coordination.etcd)?;
    let layout = coordination.layout();
    let target = if target.contains(',') {
        current_region_name(&kv, &layout, target.to_string())?
    } else {
        target.to_string()
    };
    let row = row.map(|r| r.as_bytes().to_vec());
    let done = strata_cluster_node::split::split(&kv, &layout, &target, row)
        .map_err(|s| s.message().to_string())?;
    for s in done {
        println!(
            "split {} into {} and {}",
            s.parent, s.daughters.0, s.daughters.1
        );
    }
    Ok(())
}

/// `strata cluster merge`: through the master, waiting for the merged region to open.
fn merge(coordination: &Coordination, table: &str, a: &str, b: &str) -> Result<(), String> {
    let kv = node::connect(&coordination.etcd)?;
    let layout = coordination.layout();
    let table = strata_model::schema::TableName::parse(table)
        .map_err(|e| e.to_string())?
        .to_string();
    let mut names = Vec::new();
    for r in [a, b] {
        let name = if r.contains(',') {
            r.to_string()
        } else {
            format!("{table},{r}")
        };
        let name = current_region_name(&kv, &layout, name)?;
        if strata_cluster::layout::region_table(&name) != table {
            return Err(format!("region {name} is not a region of table {table}"));
        }
        names.push(name);
    }
    let done = strata_cluster_node::merge::merge(&kv, &layout, &names[0], &names[1])
        .map_err(|s| s.message().to_string())?;
    println!(
        "merged {} and {} into {}",
        done.regions.0, done.regions.1, done.merged
    );
    Ok(())
}

/// Runs `strata cluster …`.
pub fn run(cmd: &Command) -> Result<(), String> {
    cmd.coordination().use_etcd_tls()?;
    if let Some(outcome) = run_operation(cmd) {
        return outcome;
    }
    if let Command::Split {
        coordination,
        target,
        row,
    } = cmd
    {
        return split(coordination, target, row.as_deref());
    }
    if let Command::Merge {
        coordination,
        table,
        region_a,
        region_b,
    } = cmd
    {
        return merge(coordination, table, region_a, region_b);
    }
    let (coordination, req) = match cmd {
        Command::Status(c) => {
            let kv = node::connect(&c.etcd)?;
            let status = ClusterStatus::read(&kv, &c.layout()).map_err(|e| e.to_string())?;
            crate::out::write(format_args!("{status}"));
            return Ok(());
        }
        Command::CreateTable {
            coordination,
            table,
            splits,
            families,
        } => {
            let name = strata_model::schema::TableName::parse(table).map_err(|e| e.to_string())?;
            let descriptor = families.iter().fold(
                strata_model::schema::TableDescriptor::new(name.clone()),
                |d, f| d.with_family(strata_model::schema::FamilyDescriptor::new(f.as_str())),
            );
            let kv = node::connect(&coordination.etcd)?;
            strata_cluster_node::namespace::put_schema(
                &kv,
                &coordination.layout(),
                &descriptor,
                splits.len() + 1,
            )
            .map_err(|s| s.message().to_string())?;
            (
                coordination,
                AdminRequest::CreateTable {
                    table: name.to_string(),
                    splits: splits.iter().map(|s| s.as_bytes().to_vec()).collect(),
                },
            )
        }
        Command::DropTable {
            coordination,
            table,
        } => (
            coordination,
            AdminRequest::DropTable {
                table: table.clone(),
            },
        ),
        Command::Move {
            coordination,
            region,
            to,
        } => (
            coordination,
            AdminRequest::Move {
                region: region.clone(),
                target: to.clone(),
            },
        ),
        Command::Assign {
            coordination,
            region,
        } => (
            coordination,
            AdminRequest::Assign {
                region: region.clone(),
            },
        ),
        Command::Unassign {
            coordination,
            region,
        } => (
            coordination,
            AdminRequest::Unassign {
                region: region.clone(),
            },
        ),
        Command::DisableTable {
            coordination,
            table,
        } => (
            coordination,
            AdminRequest::DisableTable {
                table: table.clone(),
            },
        ),
        Command::EnableTable {
            coordination,
            table,
        } => (
            coordination,
            AdminRequest::EnableTable {
                table: table.clone(),
            },
        ),
        Command::TruncateTable {
            coordination,
            table,
            preserve_splits,
        } => (
            coordination,
            AdminRequest::TruncateTable {
                table: table.clone(),
                preserve: *preserve_splits,
            },
        ),
        Command::Split { .. }
        | Command::Merge { .. }
        | Command::Balance(_)
        | Command::BalanceSwitch { .. }
        | Command::Decommission { .. }
        | Command::Recommission { .. } => unreachable!("run by run_operation"),
    };
    let kv = node::connect(&coordination.etcd)?;
    let layout = coordination.layout();
    let req = match req {
        AdminRequest::Move { region, target } => AdminRequest::Move {
            region: current_region_name(&kv, &layout, region)?,
            target,
        },
        AdminRequest::Assign { region } => AdminRequest::Assign {
            region: current_region_name(&kv, &layout, region)?,
        },
        AdminRequest::Unassign { region } => AdminRequest::Unassign {
            region: current_region_name(&kv, &layout, region)?,
        },
        other => other,
    };
    let id = format!("{}-{}", millis_since_epoch(), std::process::id());
    submit_request(&kv, &layout, &id, &req).map_err(|e| e.to_string())?;
    let start = Instant::now();
    loop {
        if let Some(result) = take_result(&kv, &layout, &id).map_err(|e| e.to_string())? {
            return match parse_result(&result) {
                Ok(proc_id) => {
                    outln!("accepted {proc_id}");
                    Ok(())
                }
                Err(refusal) => Err(format!("rejected: {refusal}")),
            };
        }
        if start.elapsed() > Duration::from_secs(30) {
            return Err(format!(
                "no active master took request {id} within 30 s (it stays queued)"
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A region named in its short form `TABLE,SEQ` (8 hex digits, as the shell and HBase's client
/// number regions) becomes the full name of region SEQ of the table's current incarnation
/// (`TABLE,INC.SEQ`); any other name is returned as given (the master checks it).
///
/// # Errors
/// etcd cannot be read.
fn current_region_name<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    region: String,
) -> Result<String, String> {
    let Some((table, seq)) = region.rsplit_once(',') else {
        return Ok(region);
    };
    let Ok(seq) = u32::from_str_radix(seq, 16) else {
        return Ok(region);
    };
    if region.len() - table.len() != 9 {
        return Ok(region);
    }
    let Some(found) = kv.get(&layout.table(table)).map_err(|e| e.to_string())? else {
        return Ok(region);
    };
    match TableRecord::decode(&found.value) {
        Ok(rec) if !rec.incarnation.is_empty() => Ok(rec.region_name(table, seq)),
        _ => Ok(region),
    }
}
