//! `strata`: Strata's command-line entry point.

mod bench_cmd;
mod bench_rpc;
mod bench_ycsb;
mod cluster_cmd;
mod cluster_master;
mod cluster_ops;
mod demo;
mod escape;
mod gateway_cmd;
mod logging;
mod s3_args;
mod shell;
mod sst;
mod standalone;
mod standalone_single;

use std::process::ExitCode;

/// mimalloc: per-request allocations (cells, buffers, RPC frames) spent ~20% of a read-heavy
/// server's CPU in glibc's malloc and free (YCSB workload C profile). Built without its
/// transparent-huge-page advice (`no_thp`): each fresh heap page of a large buffer (a WAL
/// batch, a merged memtable run) then faulted in and zeroed a whole 2 MiB page, a quarter of
/// the server's CPU under buffered seed 002 writes
/// (docs/benchmarks/2026-11-27-request-path-fresh-pages-scan-pages.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};

/// Strata: a Bigtable-class wide-column database.
#[derive(Parser)]
#[command(name = "strata", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    log: logging::Args,
}

#[derive(Subcommand)]
enum Command {
    /// Runs master, region server and gRPC services in one process on a local data directory.
    Standalone(standalone::Args),
    /// HBase's Thrift1 gateway (happybase and other Thrift clients) for a running server.
    Gateway(gateway_cmd::Args),
    /// The HBase shell: statements against a running server, interactively or from a script.
    Shell(shell::Args),
    /// Writes a store file from generated data (seed 003's table) and reads it back with figures.
    Demo(demo::Args),
    /// A cluster master on etcd (one active by election, the others standing by).
    Master(cluster_master::MasterArgs),
    /// A cluster region server on etcd (registers under a lease, opens the regions assigned).
    Regionserver(cluster_cmd::RegionServerArgs),
    /// Cluster administration through etcd: status, create and drop tables, move regions.
    #[command(subcommand)]
    Cluster(cluster_cmd::Command),
    /// Offline store-file tools.
    #[command(subcommand)]
    Sst(sst::Command),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(bench_cmd::Command),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _log = match logging::init(&cli.log) {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("strata: {e}");
            return ExitCode::FAILURE;
        }
    };
    if matches!(
        cli.command,
        Command::Standalone(_)
            | Command::Gateway(_)
            | Command::Master(_)
            | Command::Regionserver(_)
    ) {
        tracing::info!(
            version = env!("CARGO_PKG_VERSION"),
            build = if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
            "strata {} starting",
            env!("CARGO_PKG_VERSION")
        );
    }
    let result = match cli.command {
        Command::Standalone(args) => standalone::run(&args),
        Command::Gateway(args) => gateway_cmd::run(&args),
        Command::Shell(args) => shell::run(&args),
        Command::Demo(args) => demo::run(&args),
        Command::Master(args) => cluster_master::run_master(&args),
        Command::Regionserver(args) => cluster_cmd::run_regionserver(&args),
        Command::Cluster(cmd) => cluster_cmd::run(&cmd),
        Command::Sst(cmd) => sst::run(&cmd),
        Command::Bench(cmd) => bench_cmd::run(&cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("strata: {e}");
            ExitCode::FAILURE
        }
    }
}
