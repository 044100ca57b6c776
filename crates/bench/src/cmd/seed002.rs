//! `strata bench client-write | client-read`: seed 002 (Hypertable vs HBase) through a running
//! server and the Rust client, as the HBase peer's `seeds.sh write` and `seeds.sh read` run it
//! through HBase's Java client: 20-digit keys, one column `f:c` (SNAPPY, ROW bloom), values
//! snippets of a text-like buffer; writes through one buffered mutator per writer (HBase's
//! `BufferedMutator`), reads as single-row gets, zipfian (s = 0.8, hot keys scattered) and
//! uniform. Each table is created by the run and dropped after it.
//!
//! Stalls are what seed 002 is about: HBase's writers stall for seconds when its memstores are
//! full (`RegionTooBusyException`). Every `mutate` call is timed; the longest is reported with
//! the calls over 100 ms.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::latency::Recorder;
use crate::engine::read::timed_gets;
use crate::engine::zipf::Zipf;
use crate::engine::{key, text};
use crate::table::Table;
use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_client::{BufferedMutatorOptions, ClientOptions, Connection, Protocol};
use strata_model::ops::{Get, Put, RowMutations};
use strata_model::schema::{BloomType, Compression, FamilyDescriptor, TableDescriptor, TableName};

/// What both commands share.
#[derive(clap::Args)]
pub struct Common {
    /// The server.
    #[arg(long, default_value = "127.0.0.1:16000")]
    server: String,
    /// The protocol of data requests: grpc, or frames.
    #[arg(long, default_value = "frames")]
    protocol: Protocol,
    /// Client threads (each with its own mutator or reader).
    #[arg(long, default_value_t = 8)]
    threads: usize,
    /// The server's process id, to report its CPU time (utime + stime from /proc).
    #[arg(long)]
    server_pid: Option<u32>,
}

/// Arguments of `bench client-write`.
#[derive(clap::Args)]
pub struct WriteArgs {
    #[command(flatten)]
    common: Common,
    /// Value sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![10000usize, 1000, 100, 10])]
    sizes: Vec<usize>,
    /// Payload bytes per size (keys + values), capped by --max-cells.
    #[arg(long, default_value_t = 1_000_000_000)]
    bytes: u64,
    /// Most cells per size.
    #[arg(long, default_value_t = 2_000_000)]
    max_cells: u64,
    /// Each mutator's most batch RPCs in flight (the client's default when not given).
    #[arg(long)]
    max_in_flight: Option<usize>,
}

/// Arguments of `bench client-read`.
#[derive(clap::Args)]
pub struct ReadArgs {
    #[command(flatten)]
    common: Common,
    /// Rows of 1,000-byte values, keys `0..rows`.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Seconds per distribution (after an unreported uniform warm-up of 10 s at most).
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Zipf exponent.
    #[arg(long, default_value_t = 0.8)]
    zipf: f64,
}

/// A `mutate` call that waits this long is a stall.
const STALL: Duration = Duration::from_millis(100);

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

async fn connect(c: &Common) -> Result<Connection, String> {
    let options = ClientOptions {
        protocol: c.protocol,
        ..ClientOptions::default()
    };
    Connection::connect_with(&c.server, options)
        .await
        .map_err(|e| format!("cannot reach {}: {e}", c.server))
}

/// Creates `name` (dropping an older one): one region, family `f`, SNAPPY, ROW bloom.
async fn create(conn: &Connection, name: &str) -> Result<(), String> {
    let admin = conn.admin();
    if admin.table_exists(name).await.map_err(|e| e.to_string())? {
        drop_table(conn, name).await?;
    }
    let mut family = FamilyDescriptor::new("f");
    family.compression = Compression::Snappy;
    family.bloom_filter = BloomType::Row;
    let table = TableDescriptor::new(TableName::parse(name).map_err(|e| e.to_string())?)
        .with_family(family);
    admin
        .create_table(&table, &[])
        .await
        .map_err(|e| e.to_string())
}

async fn drop_table(conn: &Connection, name: &str) -> Result<(), String> {
    let admin = conn.admin();
    let _ = admin.disable_table(name).await;
    admin.delete_table(name).await.map_err(|e| e.to_string())
}

/// CPU seconds (user + system) of process `pid` from `/proc/PID/stat`.
pub(crate) fn cpu_seconds(pid: Option<u32>) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid?)).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn cpu_cell(before: Option<f64>, pid: Option<u32>, ops: u64) -> String {
    match before.zip(cpu_seconds(pid)) {
        Some((a, b)) => format!(
            "{:.1} ({:.0} µs/op)",
            b - a,
            (b - a) * 1e6 / ops.max(1) as f64
        ),
        None => "-".into(),
    }
}

/// One cell `f:c` of `row`.
fn cell(row: &[u8], value: &[u8]) -> Result<RowMutations, String> {
    let row = Bytes::copy_from_slice(row);
    RowMutations::new(row.clone())
        .with(Put::new(row).add("f", "c", Bytes::copy_from_slice(value)))
        .map_err(|e| e.to_string())
}

/// Writers' outcome: every call's latency, and the longest final flush.
struct Written {
    calls: Recorder,
    final_flush: Duration,
}

/// `threads` writers, each with its own buffered mutator, put `cells` random cells of `size`
/// bytes under keys in `[0, 10·cells)`.
async fn write_size(
    conn: &Connection,
    name: &str,
    threads: usize,
    cells: u64,
    size: usize,
    buffer: &Arc<Vec<u8>>,
    options: &BufferedMutatorOptions,
) -> Result<Written, String> {
    let table = conn.table(name).map_err(|e| e.to_string())?;
    let key_space = cells * 10;
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..threads {
        let mine = cells / threads as u64 + u64::from((t as u64) < cells % threads as u64);
        let (table, buffer, options) = (table.clone(), buffer.clone(), options.clone());
        tasks.spawn(async move {
            let mut rng = SmallRng::seed_from_u64(1000 + t as u64 * 7919 + size as u64);
            let mut mutator = table.buffered_mutator(options);
            let mut calls = Recorder::default();
            for _ in 0..mine {
                let k = key(rng.gen_range(0..key_space));
                let off = rng.gen_range(0..buffer.len() - size);
                let row = cell(&k, &buffer[off..off + size])?;
                let t0 = Instant::now();
                mutator.mutate(row).await.map_err(|e| e.to_string())?;
                calls.record(start.elapsed(), t0.elapsed());
            }
            let t0 = Instant::now();
            mutator.close().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((calls, t0.elapsed()))
        });
    }
    let mut out = Written {
        calls: Recorder::default(),
        final_flush: Duration::ZERO,
    };
    while let Some(done) = tasks.join_next().await {
        let (calls, flush) = done.map_err(|e| e.to_string())??;
        out.calls.merge(calls);
        out.final_flush = out.final_flush.max(flush);
    }
    Ok(out)
}

/// Runs `client-write` and prints a markdown table.
///
/// # Errors
/// An unreachable server or a failed write.
pub fn write(args: &WriteArgs) -> Result<(), String> {
    let c = &args.common;
    let buffer = Arc::new(text::buffer(8 << 20, 20_120_207));
    let mut t = Table::new(&[
        "value B",
        "cells",
        "s",
        "MB/s",
        "cells/s",
        "mutate() p50 / p99 / p99.9 / max ms",
        "calls ≥ 100 ms",
        "final flush ms",
        "server CPU s",
    ]);
    let mut options = BufferedMutatorOptions::default();
    if let Some(n) = args.max_in_flight {
        options.max_in_flight = n;
    }
    runtime()?.block_on(async {
        let conn = connect(c).await?;
        for &size in &args.sizes {
            let cells = (args.bytes / (20 + size as u64)).min(args.max_cells).max(1);
            let name = format!("seed_write_{size}");
            create(&conn, &name).await?;
            eprintln!(
                "client-write: value {size} B, {cells} cells, {} threads",
                c.threads
            );
            let cpu0 = cpu_seconds(c.server_pid);
            let start = Instant::now();
            let w = write_size(&conn, &name, c.threads, cells, size, &buffer, &options).await?;
            let secs = start.elapsed().as_secs_f64();
            let (p50, p99, p999, max) = w.calls.percentiles();
            let stalls = w.calls.count_at_least(STALL);
            t.row(vec![
                size.to_string(),
                cells.to_string(),
                format!("{secs:.1}"),
                format!("{:.1}", (20 + size) as f64 * cells as f64 / secs / 1e6),
                format!("{:.0}", cells as f64 / secs),
                format!(
                    "{:.3} / {:.2} / {:.1} / {:.0}",
                    f64::from(p50) / 1e3,
                    f64::from(p99) / 1e3,
                    f64::from(p999) / 1e3,
                    f64::from(max) / 1e3
                ),
                stalls.to_string(),
                w.final_flush.as_millis().to_string(),
                cpu_cell(cpu0, c.server_pid, cells),
            ]);
            drop_table(&conn, &name).await?;
        }
        Ok::<_, String>(())
    })?;
    println!(
        "\n## Seed 002 random writes through the server ({} writers, buffered, {:?})\n\n{}",
        c.threads,
        c.protocol,
        t.render()
    );
    Ok(())
}

/// Runs `client-read` and prints a markdown table.
///
/// # Errors
/// An unreachable server, a failed load, or a get that found nothing.
pub fn read(args: &ReadArgs) -> Result<(), String> {
    let c = &args.common;
    let rt = runtime()?;
    let name = "seed_read";
    let conn = rt.block_on(async {
        let conn = connect(c).await?;
        create(&conn, name).await?;
        load(&conn, name, c.threads, args.rows).await?;
        conn.admin().flush(name).await.map_err(|e| e.to_string())?;
        conn.admin()
            .compact(name, None, true)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>(conn)
    })?;
    let table = conn.table(name).map_err(|e| e.to_string())?;
    let handle = rt.handle().clone();
    let get = move |i: u64| {
        let table = table.clone();
        handle.block_on(async move {
            let cells = table
                .get(&Get::new(Bytes::copy_from_slice(&key(i))))
                .await
                .map_err(|e| e.to_string())?;
            Ok(cells.iter().filter(|c| c.value.len() == 1000).count())
        })
    };
    let warm = Duration::from_secs(args.seconds.min(10));
    timed_gets(c.threads, args.rows, None, warm, get.clone())?;
    let zipf = Arc::new(Zipf::new(args.rows as usize, args.zipf));
    let mut t = Table::new(&[
        "distribution",
        "queries",
        "queries/s",
        "p50 ms",
        "p99 ms",
        "max ms",
        "server CPU s",
    ]);
    for (dist, z) in [
        (format!("zipfian (s = {})", args.zipf), Some(zipf)),
        ("uniform".to_string(), None),
    ] {
        let cpu0 = cpu_seconds(c.server_pid);
        let rec = timed_gets(
            c.threads,
            args.rows,
            z,
            Duration::from_secs(args.seconds),
            get.clone(),
        )?;
        let (p50, p99, _, max) = rec.percentiles();
        let n = rec.len() as u64;
        t.row(vec![
            dist,
            n.to_string(),
            format!("{:.0}", n as f64 / args.seconds as f64),
            format!("{:.2}", f64::from(p50) / 1e3),
            format!("{:.2}", f64::from(p99) / 1e3),
            format!("{:.1}", f64::from(max) / 1e3),
            cpu_cell(cpu0, c.server_pid, n),
        ]);
    }
    rt.block_on(drop_table(&conn, name))?;
    println!(
        "\n## Seed 002 random reads through the server ({} rows of 1,000 B, {} readers, {:?})\n\n{}",
        args.rows,
        c.threads,
        c.protocol,
        t.render()
    );
    Ok(())
}

/// Loads keys `0..rows` with 1,000-byte values through `threads` buffered mutators.
async fn load(conn: &Connection, name: &str, threads: usize, rows: u64) -> Result<(), String> {
    let table = conn.table(name).map_err(|e| e.to_string())?;
    let buffer = Arc::new(text::buffer(8 << 20, 20_120_207));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..threads as u64 {
        let (table, buffer) = (table.clone(), buffer.clone());
        let threads = threads as u64;
        tasks.spawn(async move {
            let mut rng = SmallRng::seed_from_u64(5 + t);
            let mut mutator = table.buffered_mutator(BufferedMutatorOptions::default());
            for i in (t..rows).step_by(threads as usize) {
                let off = rng.gen_range(0..buffer.len() - 1000);
                let row = cell(&key(i), &buffer[off..off + 1000])?;
                mutator.mutate(row).await.map_err(|e| e.to_string())?;
            }
            mutator.close().await.map_err(|e| e.to_string())
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.map_err(|e| e.to_string())??;
    }
    eprintln!(
        "client-read: loaded {rows} rows in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
