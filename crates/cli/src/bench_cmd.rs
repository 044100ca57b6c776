//! `strata bench`: reproducible benchmarks.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use strata_bench::encoding::{self, Config};
use strata_model::schema::{Compression, DataBlockEncoding};

/// Benchmarks.
#[derive(Subcommand)]
pub enum Command {
    /// Seed 003: footprint, scans and gets per encoding × compression × cached form.
    Encoding(EncodingArgs),
    /// Bloom filters: configured vs measured false-positive rate, bits per key.
    Bloom,
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
        Command::Bloom => {
            strata_bench::bloom::run(&mut std::io::stdout()).map_err(|e| e.to_string())
        }
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
