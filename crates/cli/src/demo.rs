//! `strata demo`: Strata's main job until the server exists. Writes seed 003's table to store
//! files under a data directory with a few codecs, reads them back, prints the figures, and
//! shows one file's info.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use strata_bench::encoding::{self, Config};
use strata_model::schema::{Compression, DataBlockEncoding};

/// Arguments of `demo`.
#[derive(ClapArgs)]
pub struct Args {
    /// Data directory.
    #[arg(long, default_value = "data")]
    data_dir: PathBuf,
    /// Rows to generate (four cells each).
    #[arg(long, default_value_t = 300_000)]
    rows: u32,
}

/// Runs the demo.
///
/// # Errors
/// A message for the user.
pub fn run(args: &Args) -> Result<(), String> {
    let cfg = Config {
        rows: args.rows,
        dir: args.data_dir.join("demo"),
        threads: 2,
        gets: 50_000,
        codecs: vec![
            (DataBlockEncoding::None, Compression::None),
            (DataBlockEncoding::FastDiff, Compression::None),
            (DataBlockEncoding::FastDiff, Compression::Snappy),
        ],
        passes: 1,
    };
    let written = encoding::run(&cfg, &mut std::io::stdout()).map_err(|e| e.to_string())?;
    if let Some(w) = written.last() {
        println!("## `strata sst info {}`\n", w.path.display());
        crate::sst::run(&crate::sst::Command::Info {
            file: w.path.clone(),
        })?;
        crate::sst::run(&crate::sst::Command::Verify {
            file: w.path.clone(),
        })?;
    }
    Ok(())
}
