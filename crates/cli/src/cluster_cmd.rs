//! `strata master`, `strata regionserver` and `strata cluster …`: cluster mode on etcd
//! (RFC 0012). Until region servers open regions on shared storage, a cluster runs
//! coordination only: election, registration, assignment, moves and crash recovery are real;
//! region servers hold no data.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_cluster::layout::Layout;
use strata_cluster::master::{submit_request, take_result, AdminRequest, Master, MasterConfig};
use strata_cluster::node::{self, NoWal, Unbacked};
use strata_cluster::regionserver::{RegionServer, RegionServerConfig};
use strata_cluster::status::ClusterStatus;

/// Where the cluster is.
#[derive(clap::Args, Clone, Debug)]
pub struct Coordination {
    /// etcd endpoints, comma-separated host:port.
    #[arg(long, default_value = "127.0.0.1:2379", value_delimiter = ',')]
    etcd: Vec<String>,
    /// The cluster's name (its keys live under /strata/NAME/).
    #[arg(long, default_value = "default")]
    cluster: String,
}

impl Coordination {
    fn layout(&self) -> Layout {
        Layout::new(&format!("/strata/{}", self.cluster))
    }
}

/// Arguments of `strata master`.
#[derive(clap::Args)]
pub struct MasterArgs {
    #[command(flatten)]
    coordination: Coordination,
    /// The address this master announces.
    #[arg(long, default_value = "127.0.0.1:16000")]
    advertise: String,
    /// Lease TTL in seconds (how long a dead active master goes unnoticed).
    #[arg(long, default_value_t = 3)]
    ttl: i64,
}

/// Arguments of `strata regionserver`.
#[derive(clap::Args)]
pub struct RegionServerArgs {
    #[command(flatten)]
    coordination: Coordination,
    /// The address this server announces (with its start code, its name in the cluster).
    #[arg(long, default_value = "127.0.0.1:16020")]
    advertise: String,
    /// Lease TTL in seconds (how long a dead server goes unnoticed).
    #[arg(long, default_value_t = 3)]
    ttl: i64,
    /// Milliseconds before its lease's earliest expiry at which the server stops serving.
    #[arg(long, default_value_t = 500)]
    margin_ms: u64,
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
    },
    /// Drops a table (closes its regions, deletes their records).
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
}

/// A flag set on Ctrl-C or SIGTERM.
fn stop_on_signal() -> Result<Arc<AtomicBool>, String> {
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

/// Runs `strata master`.
pub fn run_master(args: &MasterArgs) -> Result<(), String> {
    let kv = node::connect(&args.coordination.etcd)?;
    let config = MasterConfig {
        ttl_secs: args.ttl,
        ..MasterConfig::default()
    };
    let master = Master::new(
        kv,
        NoWal,
        args.coordination.layout(),
        args.advertise.clone(),
        config,
    );
    let stop = stop_on_signal()?;
    let who = args.advertise.clone();
    node::run_master(master, &stop, |what| {
        println!("strata master {who}: {what}")
    });
    Ok(())
}

/// Runs `strata regionserver`.
pub fn run_regionserver(args: &RegionServerArgs) -> Result<(), String> {
    let kv = node::connect(&args.coordination.etcd)?;
    let name = format!("{}:{}", args.advertise, millis_since_epoch());
    let config = RegionServerConfig {
        ttl_secs: args.ttl,
        margin_ms: args.margin_ms,
        ..RegionServerConfig::default()
    };
    let rs = RegionServer::new(
        kv,
        Unbacked::default(),
        args.coordination.layout(),
        name.clone(),
        args.advertise.clone(),
        config,
    );
    let stop = stop_on_signal()?;
    println!("strata regionserver {name}: coordination only (regions hold no data yet)");
    node::run_regionserver(rs, &stop, |what| {
        println!("strata regionserver {name}: {what}")
    })
    .map_err(|why| format!("region server {name} aborted: {why}"))
}

/// Runs `strata cluster …`.
pub fn run(cmd: &Command) -> Result<(), String> {
    let (coordination, req) = match cmd {
        Command::Status(c) => {
            let kv = node::connect(&c.etcd)?;
            let status = ClusterStatus::read(&kv, &c.layout()).map_err(|e| e.to_string())?;
            print!("{status}");
            return Ok(());
        }
        Command::CreateTable {
            coordination,
            table,
            splits,
        } => (
            coordination,
            AdminRequest::CreateTable {
                table: table.clone(),
                splits: splits.iter().map(|s| s.as_bytes().to_vec()).collect(),
            },
        ),
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
    };
    let kv = node::connect(&coordination.etcd)?;
    let layout = coordination.layout();
    let id = format!("{}-{}", millis_since_epoch(), std::process::id());
    submit_request(&kv, &layout, &id, &req).map_err(|e| e.to_string())?;
    let start = Instant::now();
    loop {
        if let Some(result) = take_result(&kv, &layout, &id).map_err(|e| e.to_string())? {
            println!("{result}");
            return if result.starts_with("accepted") {
                Ok(())
            } else {
                Err(result)
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
