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
    region_demo(&args.data_dir.join("engine"), args.rows)
}

/// Writes rows through the region engine (WAL, memtable, flush), reads them back, closes,
/// reopens and scans them again: what the server will run for every region.
fn region_demo(dir: &std::path::Path, rows: u32) -> Result<(), String> {
    use strata_bench::engine::{key, Engine};
    use strata_model::ops::{Get, Put, Scan};
    use strata_model::schema::Durability;

    let _ = std::fs::remove_dir_all(dir);
    println!("\n## Region engine: {rows} rows in {}\n", dir.display());
    let engine = Engine::open(dir, Durability::SyncWal)?;
    let t = std::time::Instant::now();
    for i in 0..u64::from(rows) {
        let value = format!("value of row {i} ").repeat(6);
        let put = Put::new(bytes::Bytes::copy_from_slice(&key(i))).add("f", "c", value);
        engine.region.put(&put).map_err(|e| e.to_string())?;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "wrote {rows} rows (SYNC_WAL) in {secs:.2} s: {:.0} rows/s",
        f64::from(rows) / secs
    );
    let t = std::time::Instant::now();
    let mut found = 0;
    for i in (0..u64::from(rows)).step_by(7) {
        let got = engine
            .region
            .get(&Get::new(bytes::Bytes::copy_from_slice(&key(i))))
            .map_err(|e| e.to_string())?;
        found += got.len();
    }
    println!("{found} gets in {:.3} s", t.elapsed().as_secs_f64());
    engine.close()?;
    let engine = Engine::open(dir, Durability::SyncWal)?;
    let mut scanner = engine
        .region
        .scan(&Scan::new())
        .map_err(|e| e.to_string())?;
    let mut count = 0u64;
    while scanner.next_row().map_err(|e| e.to_string())?.is_some() {
        count += 1;
    }
    for s in engine.region.store_stats() {
        println!(
            "after close and reopen: {count} rows by scan; family {}: {} files, {} bytes",
            s.family, s.files, s.file_bytes
        );
    }
    if count != u64::from(rows) {
        return Err(format!("expected {rows} rows after reopen, found {count}"));
    }
    engine.close()
}
