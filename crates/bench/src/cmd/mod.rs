//! `strata bench`: reproducible benchmarks.

use std::path::PathBuf;

use crate::encoding::{self, Config};
use clap::{Args, Subcommand};
use strata_model::schema::{Compression, DataBlockEncoding, Durability};

mod history;
mod rowcache;
mod rpc;
mod scan;
mod seed002;
mod ycsb;

/// Benchmarks.
#[derive(Subcommand)]
pub enum Command {
    /// Seed 003: footprint, scans and gets per encoding × compression × cached form.
    Encoding(EncodingArgs),
    /// Bloom filters: configured vs measured false-positive rate, bits per key.
    Bloom,
    /// Seed 002's random writes (10 B to 10 KB values) against an embedded region.
    #[command(visible_alias = "hypertable-write")]
    EngineWrite(EngineWriteArgs),
    /// Seed 002's zipfian and uniform random reads of 1 KB values against an embedded region.
    #[command(visible_alias = "hypertable-read")]
    EngineRead(EngineReadArgs),
    /// Starts `strata standalone` and measures startup time, idle RSS and single-client
    /// put/get latency through gRPC.
    Server(rpc::Args),
    /// Seed 002's zipfian and uniform reads through the region server with the row cache off
    /// and on, over block-cache sizes and cached forms.
    RowCache(rowcache::Args),
    /// YCSB core workloads against a running server, in YCSB's output format.
    Ycsb(ycsb::Args),
    /// Seed 002's random writes (10 B to 10 KB values) through a running server with the
    /// client's buffered mutator, as the HBase peer's `seeds.sh write` runs it.
    ClientWrite(seed002::WriteArgs),
    /// Seed 002's zipfian and uniform random reads of 1 KB values through a running server,
    /// as the HBase peer's `seeds.sh read` runs it.
    ClientRead(seed002::ReadArgs),
    /// Seed 003's table scanned by one client through a running server: cells/s and the
    /// server's CPU per cell.
    ClientScan(scan::Args),
    /// Per-row registers, compare-and-set, counters and lists against a running cluster,
    /// every operation recorded (JSON lines) for the linearizability checker (RFC 0021).
    History(history::Args),
}

/// Arguments of `bench engine-write`.
#[derive(Args)]
pub struct EngineWriteArgs {
    /// Directory for the engines (emptied per run).
    #[arg(long, default_value = "data/bench-engine")]
    dir: PathBuf,
    /// Value sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![10000usize, 1000, 100, 10])]
    sizes: Vec<usize>,
    /// Payload bytes per size (keys + values), capped by --max-cells.
    #[arg(long, default_value_t = 1_000_000_000)]
    bytes: u64,
    /// Most cells per size.
    #[arg(long, default_value_t = 2_000_000)]
    max_cells: u64,
    /// Writer threads.
    #[arg(long, default_value_t = 8)]
    threads: usize,
    /// Durabilities, comma-separated (SYNC_WAL, ASYNC_WAL, FSYNC_WAL, SKIP_WAL).
    #[arg(long, value_delimiter = ',', default_values_t = vec!["SYNC_WAL".to_string(), "ASYNC_WAL".to_string()])]
    durability: Vec<String>,
    /// Print each run's per-second throughput and latency percentiles.
    #[arg(long)]
    timeline: bool,
}

/// Arguments of `bench engine-read`.
#[derive(Args)]
pub struct EngineReadArgs {
    /// Directory for the engine (emptied first).
    #[arg(long, default_value = "data/bench-engine")]
    dir: PathBuf,
    /// Rows of 1 KB values.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Reader threads.
    #[arg(long, default_value_t = 8)]
    threads: usize,
    /// Seconds per distribution.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Zipf exponent.
    #[arg(long, default_value_t = 0.8)]
    zipf: f64,
}

/// Arguments of `bench encoding`.
#[derive(Args)]
pub struct EncodingArgs {
    /// Rows of the table (four cells each).
    #[arg(long, default_value_t = 2_000_000)]
    rows: u32,
    /// Directory for the files.
    #[arg(long, default_value = "data/bench")]
    dir: PathBuf,
    /// Threads of the parallel scan.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Random gets per measurement.
    #[arg(long, default_value_t = 200_000)]
    gets: usize,
    /// Timed passes per scan (best reported).
    #[arg(long, default_value_t = 3)]
    passes: usize,
    /// Codecs to run, comma-separated: `NONE`, `FAST_DIFF`, `SNAPPY`, `FAST_DIFF+ZSTD`, ...
    /// (default: all).
    #[arg(long, value_delimiter = ',')]
    codecs: Vec<String>,
}

/// Parses `ENCODING`, `COMPRESSION` or `ENCODING+COMPRESSION`.
fn parse_codec(s: &str) -> Result<(DataBlockEncoding, Compression), String> {
    let bad = || {
        format!(
            "unknown codec '{s}'; use ENCODING, COMPRESSION or ENCODING+COMPRESSION with \
             encodings NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX and compressions NONE, SNAPPY, \
             LZ4, ZSTD, GZ"
        )
    };
    match s.split_once('+') {
        Some((e, c)) => Ok((
            DataBlockEncoding::parse(e).ok_or_else(bad)?,
            Compression::parse(c).ok_or_else(bad)?,
        )),
        None => match (DataBlockEncoding::parse(s), Compression::parse(s)) {
            (Some(e), _) => Ok((e, Compression::None)),
            (None, Some(c)) => Ok((DataBlockEncoding::None, c)),
            (None, None) => Err(bad()),
        },
    }
}

/// Runs one benchmark.
///
/// # Errors
/// A message for the user.
pub fn run(cmd: &Command) -> Result<(), String> {
    match cmd {
        Command::Server(a) => rpc::run(a),
        Command::RowCache(a) => rowcache::run(a),
        Command::ClientWrite(a) => seed002::write(a),
        Command::ClientRead(a) => seed002::read(a),
        Command::ClientScan(a) => scan::run(a),
        Command::History(a) => history::run(a),
        Command::Ycsb(a) => ycsb::run(a),
        Command::EngineWrite(a) => {
            let durabilities = a
                .durability
                .iter()
                .map(|d| {
                    Durability::parse(d).ok_or_else(|| {
                        format!("unknown durability '{d}'; use SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL")
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let cfg = crate::engine::write::Config {
                dir: a.dir.clone(),
                sizes: a.sizes.clone(),
                bytes: a.bytes,
                max_cells: a.max_cells,
                threads: a.threads,
                durabilities,
                timeline: a.timeline,
            };
            crate::engine::write::run(&cfg, &mut std::io::stdout())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        Command::EngineRead(a) => {
            let cfg = crate::engine::read::Config {
                dir: a.dir.clone(),
                rows: a.rows,
                threads: a.threads,
                seconds: a.seconds,
                zipf: a.zipf,
            };
            crate::engine::read::run(&cfg, &mut std::io::stdout()).map_err(|e| e.to_string())
        }
        Command::Bloom => crate::bloom::run(&mut std::io::stdout()).map_err(|e| e.to_string()),
        Command::Encoding(a) => {
            let cfg = Config {
                rows: a.rows,
                dir: a.dir.clone(),
                threads: a.threads,
                gets: a.gets,
                codecs: if a.codecs.is_empty() {
                    Config::all_codecs()
                } else {
                    a.codecs
                        .iter()
                        .map(|c| parse_codec(c))
                        .collect::<Result<_, _>>()?
                },
                passes: a.passes,
            };
            encoding::run(&cfg, &mut std::io::stdout())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}
