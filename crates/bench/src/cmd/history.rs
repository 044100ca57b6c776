//! `strata bench history`: per-row workloads against a running cluster (or server), every
//! operation recorded for the linearizability checker (`crate::history`, RFC 0021).

use std::path::PathBuf;
use std::time::Duration;

use crate::history::{self, Options};
use strata_client::{ClientOptions, Connection};

/// Arguments of `bench history`.
#[derive(clap::Args)]
pub struct Args {
    /// The history file to write (JSON lines).
    #[arg(long)]
    out: PathBuf,
    /// The table (it must exist, with family `f`).
    #[arg(long, default_value = "t")]
    table: String,
    /// Chooses rows and operations.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// Rows per model (register, compare-and-set, counter, list).
    #[arg(long, default_value_t = 4)]
    rows: usize,
    /// Operations per second, all clients together.
    #[arg(long, default_value_t = 100.0)]
    rate: f64,
    /// Stop once this file exists.
    #[arg(long)]
    stop_file: Option<PathBuf>,
    /// Stop after this many seconds.
    #[arg(long)]
    seconds: Option<u64>,
    /// Longest time one operation may take, retries included, before it counts as
    /// unanswered.
    #[arg(long, default_value_t = 10)]
    operation_timeout_secs: u64,
    /// A cluster's etcd endpoints (comma-separated host:port); without it, --server.
    #[arg(long, value_delimiter = ',')]
    etcd: Vec<String>,
    /// The cluster's name, with --etcd.
    #[arg(long, default_value = "default")]
    cluster: String,
    /// A server's address, without --etcd.
    #[arg(long, default_value = "127.0.0.1:16000")]
    server: String,
}

/// Runs the workload until it is told to stop and prints its counts.
///
/// # Errors
/// The cluster cannot be reached, or the history cannot be written.
pub fn run(args: &Args) -> Result<(), String> {
    if args.stop_file.is_none() && args.seconds.is_none() {
        return Err("give --stop-file or --seconds".into());
    }
    let client = ClientOptions {
        operation_timeout: Duration::from_secs(args.operation_timeout_secs.max(1)),
        attempt_timeout: Duration::from_secs(2),
        ..ClientOptions::default()
    };
    let addrs = if args.etcd.is_empty() {
        vec![args.server.clone()]
    } else {
        strata_cluster::node::server_addresses(&args.etcd, &args.cluster)?
    };
    let options = Options {
        out: args.out.clone(),
        seed: args.seed,
        clients: args.clients,
        rows: args.rows,
        rate: args.rate,
        stop_file: args.stop_file.clone(),
        duration: args.seconds.map(Duration::from_secs),
        final_read_limit: Duration::from_secs(60),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let summary = runtime.block_on(async {
        let conn = Connection::connect_any(&addrs, client)
            .await
            .map_err(|e| format!("cannot reach {addrs:?}: {e}"))?;
        let table = conn.table(&args.table).map_err(|e| e.to_string())?;
        history::run(table, options).await
    })?;
    println!(
        "history {}: {} operations, {} answered, {} reads failed, {} writes unknown, {} rows \
         unread at the end",
        args.out.display(),
        summary.attempted,
        summary.ok,
        summary.failed,
        summary.unknown,
        summary.unread_rows
    );
    if summary.unread_rows > 0 {
        return Err(format!(
            "{} rows never answered their final read",
            summary.unread_rows
        ));
    }
    Ok(())
}
