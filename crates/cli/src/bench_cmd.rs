//! `strata bench`: reproducible benchmarks.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use strata_bench::encoding::{self, Config};

/// Benchmarks.
#[derive(Subcommand)]
pub enum Command {
    /// Seed 003: footprint, scans and gets per encoding × compression × cached form.
    Encoding(EncodingArgs),
}

/// Arguments of `bench encoding`.
#[derive(Args)]
pub struct EncodingArgs {
    /// Rows of the table (three cells each).
    #[arg(long, default_value_t = 1_000_000)]
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
}

/// Runs one benchmark.
///
/// # Errors
/// A message for the user.
pub fn run(cmd: &Command) -> Result<(), String> {
    match cmd {
        Command::Encoding(a) => {
            let cfg = Config {
                rows: a.rows,
                dir: a.dir.clone(),
                threads: a.threads,
                gets: a.gets,
                codecs: Config::all_codecs(),
                passes: a.passes,
            };
            encoding::run(&cfg, &mut std::io::stdout())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}
