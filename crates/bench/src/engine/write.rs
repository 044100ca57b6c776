//! Seed 002's random-write test: 8 threads put cells with random 20-byte keys in
//! `[0, 10·cells)` and text-like values, one put per cell, each timed.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::ops::Put;
use strata_model::schema::Durability;

use super::latency::Recorder;
use super::{key, text, Engine};
use crate::table::Table;

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where the engines go (one sub-directory per run; removed afterwards).
    pub dir: PathBuf,
    /// Value sizes.
    pub sizes: Vec<usize>,
    /// Payload (key + value bytes) per size, capped by `max_cells`.
    pub bytes: u64,
    /// Most cells per size.
    pub max_cells: u64,
    /// Writer threads.
    pub threads: usize,
    /// Durabilities to run.
    pub durabilities: Vec<Durability>,
    /// Print each run's per-second throughput and latency.
    pub timeline: bool,
}

/// One measured run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Value size.
    pub size: usize,
    /// Durability.
    pub durability: Durability,
    /// Cells written.
    pub cells: u64,
    /// Seconds until the last put returned.
    pub secs: f64,
    /// (p50, p99, p99.9, max) put latency in µs.
    pub latency: (u32, u32, u32, u32),
    /// The worst one-second p99 of the run, µs.
    pub worst_second_p99: u32,
    /// Flushes during the run.
    pub flushes: u64,
    /// Per second: (second, puts, p99 µs, p99.9 µs, max µs).
    pub timeline: Vec<(u32, usize, u32, u32, u32)>,
}

/// Runs every size × durability and prints a table.
///
/// # Errors
/// I/O or engine errors.
pub fn run(cfg: &Config, out: &mut dyn Write) -> io::Result<Vec<Outcome>> {
    let buffer = Arc::new(text::buffer(8 << 20, 20_120_207));
    let mut outcomes = Vec::new();
    let mut t = Table::new(&[
        "value B",
        "durability",
        "cells",
        "s",
        "MB/s",
        "ops/s",
        "put p50 / p99 / p99.9 / max µs",
        "worst 1 s p99 µs",
        "flushes",
    ]);
    for &durability in &cfg.durabilities {
        for &size in &cfg.sizes {
            let o = run_one(cfg, size, durability, &buffer)?;
            let mb = (20 + size) as f64 * o.cells as f64 / o.secs / 1e6;
            t.row(vec![
                size.to_string(),
                durability.to_string(),
                o.cells.to_string(),
                format!("{:.1}", o.secs),
                format!("{mb:.1}"),
                format!("{:.0}", o.cells as f64 / o.secs),
                format!(
                    "{} / {} / {} / {}",
                    o.latency.0, o.latency.1, o.latency.2, o.latency.3
                ),
                o.worst_second_p99.to_string(),
                o.flushes.to_string(),
            ]);
            writeln!(out, "value {size} B, {durability}: done ({:.1} s)", o.secs)?;
            if cfg.timeline {
                let mut tl = Table::new(&["second", "puts", "p99 µs", "p99.9 µs", "max µs"]);
                for (sec, n, p99, p999, max) in &o.timeline {
                    tl.row(vec![
                        sec.to_string(),
                        n.to_string(),
                        p99.to_string(),
                        p999.to_string(),
                        max.to_string(),
                    ]);
                }
                writeln!(
                    out,
                    "\n### {size} B, {durability}: per second\n\n{}",
                    tl.render()
                )?;
            }
            outcomes.push(o);
        }
    }
    writeln!(out, "\n## Random writes (seed 002)\n\n{}", t.render())?;
    Ok(outcomes)
}

fn run_one(
    cfg: &Config,
    size: usize,
    durability: Durability,
    buffer: &Arc<Vec<u8>>,
) -> io::Result<Outcome> {
    let dir = cfg.dir.join(format!("write-{size}-{durability}"));
    let _ = std::fs::remove_dir_all(&dir);
    let engine = Engine::open(&dir, durability).map_err(io::Error::other)?;
    let cells = (cfg.bytes / (20 + size as u64)).min(cfg.max_cells).max(1);
    let per_thread = cells.div_ceil(cfg.threads as u64);
    let key_space = cells * 10;
    let start = Instant::now();
    let handles: Vec<_> = (0..cfg.threads)
        .map(|t| {
            let region = engine.region.clone();
            let buffer = buffer.clone();
            std::thread::spawn(move || -> Result<Recorder, String> {
                let mut rng = SmallRng::seed_from_u64(t as u64 + 1);
                let mut rec = Recorder::default();
                for _ in 0..per_thread {
                    let k = key(rng.gen_range(0..key_space));
                    let off = rng.gen_range(0..buffer.len() - size);
                    let value = Bytes::copy_from_slice(&buffer[off..off + size]);
                    let put = Put::new(Bytes::copy_from_slice(&k)).add("f", "c", value);
                    let t0 = Instant::now();
                    region.put(&put).map_err(|e| e.to_string())?;
                    rec.record(start.elapsed(), t0.elapsed());
                }
                Ok(rec)
            })
        })
        .collect();
    let mut rec = Recorder::default();
    for h in handles {
        let r = h
            .join()
            .map_err(|_| io::Error::other("writer panicked"))?
            .map_err(io::Error::other)?;
        rec.merge(r);
    }
    let secs = start.elapsed().as_secs_f64();
    let flushes = engine
        .region
        .counters()
        .flushes
        .load(std::sync::atomic::Ordering::Relaxed);
    engine.close().map_err(io::Error::other)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Outcome {
        size,
        durability,
        cells: rec.len() as u64,
        secs,
        latency: rec.percentiles(),
        worst_second_p99: rec.per_second().iter().map(|s| s.2).max().unwrap_or(0),
        flushes,
        timeline: rec.per_second(),
    })
}
