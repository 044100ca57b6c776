//! `strata bench ycsb load|run`: YCSB core workloads against a running Strata server, printing
//! YCSB's report format (see `crate::ycsb`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::ycsb::{self, Options, Workload};
use strata_client::{ClientOptions, Connection};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

/// The YCSB phase.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Phase {
    /// Insert `recordcount` records.
    Load,
    /// Run `operationcount` operations of the workload's mix.
    Run,
}

/// Arguments of `bench ycsb`.
#[derive(clap::Args)]
pub struct Args {
    /// load or run.
    phase: Phase,
    /// A workload property file, or a core workload name (workloada … workloadf).
    #[arg(short = 'P', long = "workload", default_value = "workloada")]
    workload: String,
    /// Property overrides, `key=value` (repeatable), e.g. `-p recordcount=1000000`.
    #[arg(short = 'p', long = "prop")]
    props: Vec<String>,
    /// Client threads (YCSB's `-threads`; overrides `threadcount`).
    #[arg(long)]
    threads: Option<usize>,
    /// Target ops/s in all (YCSB's `-target`).
    #[arg(long)]
    target: Option<f64>,
    /// The server.
    #[arg(long, default_value = "127.0.0.1:16000")]
    server: String,
    /// The protocol of data requests: grpc, or frames (Strata's framed protocol on the same
    /// port).
    #[arg(long, default_value = "frames")]
    protocol: strata_client::Protocol,
    /// For load: (re)create the table, pre-split into this many regions as the HBase peer
    /// does (0 keeps an existing table).
    #[arg(long, default_value_t = 10)]
    regions: u32,
    /// For load with --regions: table or family settings of the created table, `KEY=VALUE`
    /// (repeatable), e.g. `--schema IN_MEMORY_COMPACTION=EAGER --schema MEMSTORE_FLUSHSIZE=32MB`.
    #[arg(long)]
    schema: Vec<String>,
    /// Seconds between progress lines (stderr).
    #[arg(long, default_value_t = 10)]
    status_interval: u64,
    /// Write an SVG of throughput and p99 latency per second, and of the reads' p99 per
    /// --timeseries interval (10 s without it) if there are reads.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// End the report with per-kind latency over time in intervals of this many seconds:
    /// `[READ-TS], <interval start ms>, ops=<n>, p50=<us>, p99=<us>` lines and a
    /// `[READ], P99OverTime(us), min=<us>, median=<us>, max=<us>` summary of the intervals'
    /// p99s (0 = off).
    #[arg(long, value_name = "SECS", default_value_t = 0)]
    timeseries: u32,
    /// TLS towards the server (its CA; a client certificate where the server requires one,
    /// which names the user under `--auth`).
    #[command(flatten)]
    tls: strata_tls::args::ConnectArgs,
}

/// Runs the phase and prints YCSB's report.
///
/// # Errors
/// Bad properties, an unreachable server, or a failed table creation.
pub fn run(args: &Args) -> Result<(), String> {
    let mut props = BTreeMap::new();
    match ycsb::core_workload(&args.workload) {
        Some(text) => ycsb::parse_properties(text, &mut props),
        None => {
            let text = std::fs::read_to_string(&args.workload)
                .map_err(|e| format!("{}: {e}", args.workload))?;
            ycsb::parse_properties(&text, &mut props);
        }
    }
    for p in &args.props {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| format!("-p {p}: expected key=value"))?;
        props.insert(k.trim().to_string(), v.trim().to_string());
    }
    if let Some(t) = args.threads {
        props.insert("threadcount".into(), t.to_string());
    }
    if let Some(t) = args.target {
        props.insert("target".into(), t.to_string());
    }
    let workload = Workload::from_properties(&props)?;
    let load = matches!(args.phase, Phase::Load);
    let tls = args.tls.load()?;
    let client = ClientOptions {
        tls: tls.clone(),
        ..ClientOptions::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        if load && args.regions > 0 {
            create_table(&args.server, &client, &workload, args.regions, &args.schema).await?;
        }
        let options = Options {
            server: args.server.clone(),
            load,
            workload,
            status_interval: Duration::from_secs(args.status_interval.max(1)),
            protocol: args.protocol,
            tls,
        };
        let before = server_work(&args.server, &client).await;
        let (mut m, took) = ycsb::run(&options).await?;
        m.set_timeseries(args.timeseries);
        print!("{}", m.report(took));
        if let (Some(a), Some(b)) = (before, server_work(&args.server, &client).await) {
            println!("[STRATA], Flushes, {}", b.0 - a.0);
            println!("[STRATA], FlushedBytes, {}", b.1 - a.1);
            println!("[STRATA], Compactions, {}", b.2 - a.2);
            println!("[STRATA], CompactedBytes, {}", b.3 - a.3);
            println!("[STRATA], MemtableBytes, {}", b.4);
        }
        if let Some(path) = &args.plot {
            let reads = m.read_p99_points();
            let title = format!(
                "strata {} {}: ops/s (blue), p99 latency per second (red){}",
                if load { "load" } else { "run" },
                args.workload,
                if reads.is_empty() {
                    String::new()
                } else {
                    format!(", READ p99 per {} s (orange)", m.interval_secs())
                }
            );
            std::fs::write(path, ycsb::plot_svg(&title, &m.timeline(), &reads))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        if m.errors() > 0 {
            return Err(format!("{} operations failed", m.errors()));
        }
        Ok(())
    })
}

/// (flushes, flushed bytes, compactions, compacted bytes, memtable bytes now) of the server.
async fn server_work(server: &str, client: &ClientOptions) -> Option<(u64, u64, u64, u64, u64)> {
    let conn = Connection::connect_with(server, client.clone())
        .await
        .ok()?;
    let status = conn.admin().status().await.ok()?;
    Some(status.servers.iter().fold((0, 0, 0, 0, 0), |a, s| {
        (
            a.0 + s.flushes,
            a.1 + s.flushed_bytes,
            a.2 + s.compactions,
            a.3 + s.compacted_bytes,
            a.4 + s.memtable_bytes,
        )
    }))
}

async fn create_table(
    server: &str,
    client: &ClientOptions,
    w: &Workload,
    regions: u32,
    schema: &[String],
) -> Result<(), String> {
    let conn = Connection::connect_with(server, client.clone())
        .await
        .map_err(|e| format!("cannot reach {server}: {e}"))?;
    let admin = conn.admin();
    if admin
        .table_exists(&w.table)
        .await
        .map_err(|e| e.to_string())?
    {
        let _ = admin.disable_table(&w.table).await;
        admin
            .delete_table(&w.table)
            .await
            .map_err(|e| e.to_string())?;
    }
    let mut table = TableDescriptor::new(TableName::parse(&w.table).map_err(|e| e.to_string())?)
        .with_family(FamilyDescriptor::new(w.family.clone()));
    for setting in schema {
        let (k, v) = setting
            .split_once('=')
            .ok_or_else(|| format!("--schema {setting}: expected KEY=VALUE"))?;
        if table.set(k, v).is_err() {
            table.families[0].set(k, v).map_err(|e| e.to_string())?;
        }
    }
    admin
        .create_table(&table, &ycsb::split_keys(regions))
        .await
        .map_err(|e| e.to_string())
}
