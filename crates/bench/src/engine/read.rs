//! Seed 002's random-read test: 1 KB values under 20-digit keys `0..rows` (every query hits),
//! loaded and flushed, then 8 threads of single-row gets for a fixed time per distribution
//! (zipfian with exponent 0.8, and uniform), each timed.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::ops::{Get, Put};
use strata_model::schema::Durability;

use super::latency::Recorder;
use super::zipf::Zipf;
use super::{key, text, Engine};
use crate::table::Table;

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where the engine goes (removed afterwards).
    pub dir: PathBuf,
    /// Rows loaded.
    pub rows: u64,
    /// Reader threads.
    pub threads: usize,
    /// Seconds per distribution.
    pub seconds: u64,
    /// Zipf exponent.
    pub zipf: f64,
}

/// Loads the table, then measures each distribution; prints a table.
///
/// # Errors
/// I/O or engine errors, or a get that found nothing.
pub fn run(cfg: &Config, out: &mut dyn Write) -> io::Result<()> {
    let dir = cfg.dir.join("read");
    let _ = std::fs::remove_dir_all(&dir);
    let engine = Engine::open(&dir, Durability::AsyncWal).map_err(io::Error::other)?;
    let buffer = text::buffer(8 << 20, 20_120_207);
    let t0 = Instant::now();
    let mut rng = SmallRng::seed_from_u64(5);
    for i in 0..cfg.rows {
        let off = rng.gen_range(0..buffer.len() - 1000);
        let put = Put::new(Bytes::copy_from_slice(&key(i))).add(
            "f",
            "c",
            buffer[off..off + 1000].to_vec(),
        );
        engine
            .region
            .put(&put)
            .map_err(|e| io::Error::other(e.to_string()))?;
    }
    engine
        .region
        .flush()
        .map_err(|e| io::Error::other(e.to_string()))?;
    writeln!(
        out,
        "loaded {} rows in {:.1} s",
        cfg.rows,
        t0.elapsed().as_secs_f64()
    )?;
    let zipf = Arc::new(Zipf::new(cfg.rows as usize, cfg.zipf));
    let mut t = Table::new(&[
        "distribution",
        "queries",
        "queries/s",
        "avg µs",
        "p50 µs",
        "p99 µs",
        "max µs",
        "CPU µs/query",
    ]);
    // Warm-up, unreported.
    measure(&engine, cfg, None, Duration::from_secs(cfg.seconds.min(5)))?;
    for (name, dist) in [("zipfian", Some(zipf.clone())), ("uniform", None)] {
        let cpu0 = process_cpu_seconds();
        let rec = measure(&engine, cfg, dist, Duration::from_secs(cfg.seconds))?;
        let cpu = cpu0.zip(process_cpu_seconds()).map(|(a, b)| b - a);
        let (p50, p99, _, max) = rec.percentiles();
        let n = rec.len();
        t.row(vec![
            format!(
                "{name}{}",
                if name == "zipfian" {
                    format!(" (s = {})", cfg.zipf)
                } else {
                    String::new()
                }
            ),
            n.to_string(),
            format!("{:.0}", n as f64 / cfg.seconds as f64),
            format!(
                "{:.0}",
                cfg.seconds as f64 * 1e6 * cfg.threads as f64 / n.max(1) as f64
            ),
            p50.to_string(),
            p99.to_string(),
            max.to_string(),
            cpu.map_or("-".to_string(), |c| {
                format!("{:.2}", c * 1e6 / n.max(1) as f64)
            }),
        ]);
    }
    writeln!(
        out,
        "\n## Random reads (seed 002), {} threads\n\n{}",
        cfg.threads,
        t.render()
    )?;
    engine.close().map_err(io::Error::other)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn measure(
    engine: &Engine,
    cfg: &Config,
    zipf: Option<Arc<Zipf>>,
    time: Duration,
) -> io::Result<Recorder> {
    let region = engine.region.clone();
    timed_gets(cfg.threads, cfg.rows, zipf, time, move |i| {
        region
            .get(&Get::new(Bytes::copy_from_slice(&key(i))))
            .map(|cells| cells.len())
            .map_err(|e| e.to_string())
    })
    .map_err(io::Error::other)
}

/// CPU time (user + system) this process has used, in seconds, from `/proc/self/stat`
/// (`None` where it is missing). Divided by the queries of a phase it is the whole
/// process's cost per query (readers, and any background work), robust to other load on the
/// machine, which wall-clock rates are not.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel reports in USER_HZ, 100 on every Linux platform.
    Some(ticks as f64 / 100.0)
}

/// `threads` readers calling `get` on row numbers drawn from `zipf` (uniform over
/// `0..rows` without one) for `time`, each call timed; `get` returns the cells it found, and
/// anything but one is an error (every key exists).
///
/// # Errors
/// A get failed or found other than one cell, or a reader panicked.
pub fn timed_gets<G>(
    threads: usize,
    rows: u64,
    zipf: Option<Arc<Zipf>>,
    time: Duration,
    get: G,
) -> Result<Recorder, String>
where
    G: Fn(u64) -> Result<usize, String> + Clone + Send + 'static,
{
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (stop, zipf, get) = (stop.clone(), zipf.clone(), get.clone());
            std::thread::spawn(move || -> Result<Recorder, String> {
                let mut rng = SmallRng::seed_from_u64(100 + t as u64);
                let mut rec = Recorder::default();
                while !stop.load(Ordering::Relaxed) {
                    let i = match &zipf {
                        Some(z) => z.sample(&mut rng),
                        None => rng.gen_range(0..rows),
                    };
                    let t0 = Instant::now();
                    let cells = get(i)?;
                    rec.record(start.elapsed(), t0.elapsed());
                    if cells != 1 {
                        return Err(format!("row {i}: {cells} cells"));
                    }
                }
                Ok(rec)
            })
        })
        .collect();
    std::thread::sleep(time);
    stop.store(true, Ordering::Relaxed);
    let mut rec = Recorder::default();
    for h in handles {
        rec.merge(h.join().map_err(|_| "reader panicked".to_string())??);
    }
    Ok(rec)
}
