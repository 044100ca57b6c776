//! `strata`: Strata's command-line entry point.

// First, so that `outln!` is in scope in every module below.
#[macro_use]
mod out;
#[cfg(test)]
mod admin_surface;
mod auth_args;
mod bulkload_cmd;
mod bulkload_prepare;
mod cert_cmd;
mod cluster_cmd;
mod cluster_master;
mod compaction_args;
mod config;
mod demo;
mod gateway_cmd;
mod load_split_args;
mod logging;
mod memory_defaults;
mod memory_tuner_args;
mod s3_args;
mod snapshot_cmd;
mod space_quota_args;
mod sst;
mod standalone;
mod standalone_single;

use std::ffi::OsString;
use std::process::ExitCode;

/// mimalloc: per-request allocations (cells, buffers, RPC frames) spent ~20% of a read-heavy
/// server's CPU in glibc's malloc and free (YCSB workload C profile). Built without its
/// transparent-huge-page advice (`no_thp`): each fresh heap page of a large buffer (a WAL
/// batch, a merged memtable run) then faulted in and zeroed a whole 2 MiB page, a quarter of
/// the server's CPU under buffered seed 002 writes
/// (docs/benchmarks/2026-11-27-request-path-fresh-pages-scan-pages.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

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
    Shell(strata_shell::Args),
    /// Writes a store file from generated data (seed 003's table) and reads it back with figures.
    Demo(demo::Args),
    /// A cluster master on etcd (one active by election, the others standing by).
    Master(cluster_master::MasterArgs),
    /// A cluster region server on etcd (registers under a lease, opens the regions assigned).
    Regionserver(cluster_cmd::RegionServerArgs),
    /// Cluster administration through etcd: status, create and drop tables, move regions.
    #[command(subcommand)]
    Cluster(cluster_cmd::Command),
    /// Configuration files: check one, or show what a process would run with.
    #[command(subcommand)]
    Config(config::command::Command),
    /// Offline store-file tools.
    #[command(subcommand)]
    Sst(sst::Command),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(strata_bench::cmd::Command),
    /// A test certificate authority and the certificates it signs, for TLS.
    #[command(subcommand)]
    Cert(cert_cmd::Command),
    /// Snapshots copied to another root and registered there (backups, moving tables).
    #[command(subcommand)]
    Snapshot(snapshot_cmd::Command),
    /// Store files prepared offline (from TSV or CSV) and added to a table's regions.
    #[command(subcommand)]
    Bulkload(bulkload_cmd::Command),
}

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let root = config::with_config_flag(Cli::command());
    // The command line, with a process's configuration file under it.
    let (matches, loaded) = match config::load(&root, &argv) {
        Ok(parsed) => parsed,
        Err(problems) => {
            for p in problems {
                eprintln!("strata: {p}");
            }
            return ExitCode::FAILURE;
        }
    };
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
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
    if let Some(loaded) = loaded {
        if let Some(path) = &loaded.path {
            tracing::info!(file = %path.display(), "configuration file");
        }
        let reloader = config::reload::Reloader::new(root.clone(), argv, loaded);
        if let Err(e) = config::reload::watch(reloader) {
            eprintln!("strata: {e}");
            return ExitCode::FAILURE;
        }
    }
    let result = match cli.command {
        Command::Standalone(args) => standalone::run(&args),
        Command::Gateway(args) => gateway_cmd::run(&args),
        Command::Shell(args) => strata_shell::run(&args),
        Command::Demo(args) => demo::run(&args),
        Command::Master(args) => cluster_master::run_master(&args),
        Command::Regionserver(args) => cluster_cmd::run_regionserver(&args),
        Command::Cluster(cmd) => cluster_cmd::run(&cmd),
        Command::Config(cmd) => config::command::run(&root, &cmd),
        Command::Sst(cmd) => sst::run(&cmd),
        Command::Bench(cmd) => strata_bench::cmd::run(&cmd),
        Command::Cert(cmd) => cert_cmd::run(&cmd),
        Command::Snapshot(cmd) => snapshot_cmd::run(&cmd),
        Command::Bulkload(cmd) => bulkload_cmd::run(&cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("strata: {e}");
            ExitCode::FAILURE
        }
    }
}
