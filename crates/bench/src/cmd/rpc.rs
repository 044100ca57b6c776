//! `strata bench server`: the figures a user sees first. Starts `strata standalone` as a child
//! process on a fresh data directory and measures the time from launch to the first served
//! request, idle RSS, single-client put and get latency and full-scan cells/s on loopback
//! (through gRPC, or the framed protocol with `--protocol frames`), and RSS after the load.
//!
//! With `--connect` it drives a server started elsewhere (under a profiler, or an older
//! build for a same-run comparison) and `--phase` runs the puts or the gets alone, so a
//! profiler's counters can be read between them.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::Connection;
use strata_model::ops::{Get, Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

/// Arguments of `bench server`.
#[derive(clap::Args, Clone)]
pub struct Args {
    /// Data directory for the server (emptied first).
    #[arg(long, default_value = "data/bench-server")]
    dir: PathBuf,
    /// Port for the server.
    #[arg(long, default_value_t = 16100)]
    port: u16,
    /// Sequential puts, then as many gets.
    #[arg(long, default_value_t = 20_000)]
    ops: u64,
    /// Value size in bytes.
    #[arg(long, default_value_t = 100)]
    value_bytes: usize,
    /// Drive the server at this host:port instead of starting one (table `bench` is created
    /// if missing; launch and RSS figures are not measured).
    #[arg(long)]
    connect: Option<String>,
    /// Which requests to time.
    #[arg(long, value_enum, default_value_t = Phase::Both)]
    phase: Phase,
    /// The protocol of data requests: grpc, or frames (Strata's framed protocol on the same
    /// port).
    #[arg(long, default_value = "frames")]
    protocol: strata_client::Protocol,
    /// Microseconds the client's and the started server's framed connections poll before
    /// parking (`--poll-us` of `strata standalone`; 0: never). Pays only with an idle core
    /// on each side.
    #[arg(long, default_value_t = 200)]
    poll_us: u64,
}

/// The requests a run times.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Phase {
    /// Puts, then gets of the same rows.
    Both,
    /// Puts only.
    Put,
    /// Gets only, of rows an earlier `put` run wrote with the same `--ops`.
    Get,
    /// One full scan of the table by one client (after an earlier `put` run).
    Scan,
}

/// Runs the measurement.
///
/// # Errors
/// The server did not start, or a request failed.
pub fn run(args: &Args) -> Result<(), String> {
    if let Some(addr) = &args.connect {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        return measure_on_worker(&runtime, args, addr, Instant::now(), None);
    }
    let _ = std::fs::remove_dir_all(&args.dir);
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let addr = format!("127.0.0.1:{}", args.port);
    let launched = Instant::now();
    let child = Command::new(exe)
        .args(["standalone", "--no-thrift", "--listen", &addr, "--data-dir"])
        .arg(&args.dir)
        .args(["--poll-us", &args.poll_us.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start strata standalone: {e}"))?;
    let mut guard = ChildGuard(child);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let result = measure_on_worker(&runtime, args, &addr, launched, Some(guard.0.id()));
    guard.stop();
    result
}

/// Runs [`measure`] as a task on the runtime's worker, where an application's calls run: a
/// caller on `block_on`'s own thread would add a wake-up across threads to every call.
fn measure_on_worker(
    runtime: &tokio::runtime::Runtime,
    args: &Args,
    addr: &str,
    launched: Instant,
    server_pid: Option<u32>,
) -> Result<(), String> {
    let (args, addr) = (args.clone(), addr.to_string());
    let task = runtime.spawn(async move { measure(&args, &addr, launched, server_pid).await });
    runtime
        .block_on(task)
        .map_err(|e| format!("the measurement failed: {e}"))?
}

struct ChildGuard(Child);

impl ChildGuard {
    fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Times the requests; `pid`: the server process started by this run, whose launch time and
/// RSS are reported.
async fn measure(
    args: &Args,
    addr: &str,
    launched: Instant,
    pid: Option<u32>,
) -> Result<(), String> {
    let conn = loop {
        if launched.elapsed() > Duration::from_secs(60) {
            return Err("the server did not answer within 60 s".into());
        }
        let options = strata_client::ClientOptions {
            protocol: args.protocol,
            poll_before_park: Duration::from_micros(args.poll_us),
            ..Default::default()
        };
        if let Ok(conn) = Connection::connect_with(addr, options).await {
            if conn.admin().status().await.is_ok() {
                break conn;
            }
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    let ready = launched.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_rss = pid.map(rss_kib);
    let table = TableDescriptor::new(TableName::parse("bench").map_err(|e| e.to_string())?)
        .with_family(FamilyDescriptor::new("f"));
    let exists = pid.is_none()
        && conn
            .admin()
            .table_exists("bench")
            .await
            .map_err(|e| e.to_string())?;
    if !exists {
        conn.admin()
            .create_table(&table, &[])
            .await
            .map_err(|e| e.to_string())?;
    }
    let t = conn.table("bench").map_err(|e| e.to_string())?;
    let value = Bytes::from(vec![b'v'; args.value_bytes]);
    let key = |i: u64| {
        Bytes::from(format!(
            "user{:012}",
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 24
        ))
    };
    let mut put_us = Vec::with_capacity(args.ops as usize);
    let puts = if matches!(args.phase, Phase::Get | Phase::Scan) {
        0
    } else {
        args.ops
    };
    for i in 0..puts {
        let start = Instant::now();
        t.put(&Put::new(key(i)).add("f", "q", value.clone()))
            .await
            .map_err(|e| e.to_string())?;
        put_us.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let mut get_us = Vec::with_capacity(args.ops as usize);
    let gets = if matches!(args.phase, Phase::Put | Phase::Scan) {
        0
    } else {
        args.ops
    };
    for i in 0..gets {
        let start = Instant::now();
        let cells = t.get(&Get::new(key(i))).await.map_err(|e| e.to_string())?;
        get_us.push(start.elapsed().as_secs_f64() * 1e6);
        if cells.is_empty() {
            return Err(format!("row {i} missing"));
        }
    }
    let scanned = if matches!(args.phase, Phase::Both | Phase::Scan) {
        let start = Instant::now();
        let mut scanner = t.scan(&Scan::default());
        let mut cells = 0usize;
        while let Some(row) = scanner.next_row().await.map_err(|e| e.to_string())? {
            cells += row.len();
        }
        Some((cells, start.elapsed()))
    } else {
        None
    };
    let loaded_rss = pid.map(rss_kib);
    println!("| figure | value |");
    println!("|---|---:|");
    if let Some(idle_rss) = idle_rss {
        println!(
            "| launch to first served request | {} ms |",
            ready.as_millis()
        );
        println!("| idle RSS | {:.1} MiB |", idle_rss as f64 / 1024.0);
    }
    for (name, samples) in [("put", &mut put_us), ("get", &mut get_us)] {
        if samples.is_empty() {
            continue;
        }
        samples.sort_by(f64::total_cmp);
        let avg = samples.iter().sum::<f64>() / samples.len().max(1) as f64;
        println!(
            "| single-client {name} ({} B values, {} ops): avg / p50 / p99 | {avg:.0} / {:.0} / {:.0} µs |",
            args.value_bytes,
            samples.len(),
            percentile(samples, 0.50),
            percentile(samples, 0.99)
        );
    }
    if let Some((cells, took)) = scanned {
        println!(
            "| single-client full scan ({cells} cells of {} B) | {:.2} M cells/s |",
            args.value_bytes,
            cells as f64 / took.as_secs_f64().max(1e-9) / 1e6
        );
    }
    if let Some(loaded_rss) = loaded_rss {
        println!(
            "| RSS after {} puts and gets | {:.1} MiB |",
            args.ops,
            loaded_rss as f64 / 1024.0
        );
    }
    Ok(())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Resident set size of `pid` in KiB (0 where /proc is not available).
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}
