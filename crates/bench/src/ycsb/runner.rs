//! Runs a YCSB load or transaction phase against a Strata server through the Rust client:
//! YCSB's threads are tasks sharing one connection; each picks operations by the workload's
//! proportions and keys by its request distribution, optionally throttled to a target rate
//! and bounded by `maxexecutiontime`.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use rand::distributions::Alphanumeric;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_client::{ClientOptions, Connection, Protocol, Table};
use strata_model::ops::{Delete, Get, Put, Scan};

use crate::progress::Progress;

use super::generator::{Hotspot, KeyChooser, ScrambledZipfian, Zipfian, ZIPFIAN_CONSTANT};
use super::measure::Measurements;
use super::props::{Workload, OPS};

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The server (`host:port`).
    pub server: String,
    /// The load phase (inserts) instead of the transaction phase.
    pub load: bool,
    /// The workload.
    pub workload: Workload,
    /// How often to print a progress line (to stderr).
    pub status_interval: Duration,
    /// The protocol of data requests.
    pub protocol: Protocol,
    /// TLS towards the server (`None`: plaintext).
    pub tls: Option<strata_tls::ClientTls>,
}

struct Shared {
    workload: Workload,
    table: Table,
    done: AtomicU64,
    stop: AtomicBool,
    /// Next key number to insert.
    next_insert: AtomicU64,
    /// Highest key number known inserted.
    last_inserted: AtomicU64,
    chooser: KeyChooser,
    latest: Zipfian,
    started: Instant,
}

/// Runs the phase; returns the measurements and the run time.
///
/// # Errors
/// The server cannot be reached or the workload is inconsistent.
pub async fn run(options: &Options) -> Result<(Measurements, Duration), String> {
    let w = options.workload.clone();
    let client_options = ClientOptions {
        protocol: options.protocol,
        tls: options.tls.clone(),
        ..ClientOptions::default()
    };
    let conn = Connection::connect_with(&options.server, client_options)
        .await
        .map_err(|e| format!("cannot reach {}: {e}", options.server))?;
    let table = conn.table(&w.table).map_err(|e| e.to_string())?;
    let records_end = w.insert_start + w.insert_count;
    let expected_new = (w.operation_count as f64 * w.proportions[2] * 2.0) as u64;
    let chooser = match w.request_distribution.as_str() {
        "zipfian" => KeyChooser::Zipfian(ScrambledZipfian::new(
            w.insert_start,
            records_end + expected_new,
        )),
        "latest" => KeyChooser::Latest,
        "hotspot" => KeyChooser::Hotspot(Hotspot::new(
            w.insert_start,
            records_end.saturating_sub(1),
            w.hotspot.0,
            w.hotspot.1,
        )),
        _ => KeyChooser::Uniform {
            min: w.insert_start,
            max: records_end.saturating_sub(1),
        },
    };
    let total = if options.load {
        w.insert_count
    } else {
        w.operation_count
    };
    let shared = Arc::new(Shared {
        latest: Zipfian::new(0, records_end.max(2) + expected_new, ZIPFIAN_CONSTANT),
        chooser,
        table,
        done: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        next_insert: AtomicU64::new(if options.load {
            w.insert_start
        } else {
            records_end
        }),
        last_inserted: AtomicU64::new(records_end.saturating_sub(1)),
        started: Instant::now(),
        workload: w.clone(),
    });
    let progress = tokio::spawn(progress(shared.clone(), total, options.status_interval));
    let mut tasks = Vec::new();
    for t in 0..w.threads {
        let share = total / w.threads as u64 + u64::from((t as u64) < total % w.threads as u64);
        let shared = shared.clone();
        let load = options.load;
        tasks.push(tokio::spawn(async move {
            client_thread(shared, t, share, load).await
        }));
    }
    let mut all = Measurements::default();
    for task in tasks {
        all.merge(task.await.map_err(|e| e.to_string())?);
    }
    let runtime = shared.started.elapsed();
    shared.stop.store(true, Ordering::Relaxed);
    progress.abort();
    Ok((all, runtime))
}

async fn progress(shared: Arc<Shared>, total: u64, every: Duration) {
    // On a terminal: a bar redrawn every second (of the operations, or of the time limit
    // when that ends the run first); otherwise YCSB's status line every `every`.
    let limit = shared.workload.max_execution_time;
    let mut bar = Progress::new("ycsb", Some(total), every);
    let tick = if bar.is_terminal() {
        Duration::from_secs(1)
    } else {
        every
    };
    let mut last = (Instant::now(), 0u64);
    loop {
        tokio::time::sleep(tick).await;
        let done = shared.done.load(Ordering::Relaxed);
        let now = Instant::now();
        let rate = (done - last.1) as f64 / now.duration_since(last.0).as_secs_f64();
        let elapsed = shared.started.elapsed().as_secs();
        let by_ops = (rate > 0.0).then(|| total.saturating_sub(done) as f64 / rate);
        let by_time = (limit > 0).then(|| limit.saturating_sub(elapsed) as f64);
        let eta = match (by_ops, by_time) {
            (Some(a), Some(b)) => format!("{:.0} s", a.min(b)),
            (Some(a), None) | (None, Some(a)) => format!("{a:.0} s"),
            (None, None) => "?".into(),
        };
        if bar.is_terminal() {
            // The fraction of whichever bound ends the run first.
            let (shown, of) = match by_time {
                Some(left) if by_ops.is_none_or(|o| left < o) => (elapsed, limit),
                _ => (done, total),
            };
            bar.set_total(of);
            bar.update(
                shown,
                &format!("{done} ops, {rate:.0} ops/s, ends in {eta}"),
            );
        } else {
            let _ = writeln!(
                std::io::stderr(),
                "{elapsed} sec: {done} operations; {rate:.1} current ops/sec; est completion in {eta}"
            );
        }
        last = (now, done);
    }
}

fn value(rng: &mut SmallRng, len: usize) -> Bytes {
    Bytes::from(
        rng.sample_iter(&Alphanumeric)
            .take(len)
            .collect::<Vec<u8>>(),
    )
}

async fn client_thread(shared: Arc<Shared>, id: usize, ops: u64, load: bool) -> Measurements {
    let w = &shared.workload;
    let mut rng = SmallRng::seed_from_u64(0x5EED ^ id as u64);
    let mut m = Measurements::default();
    let deadline = (w.max_execution_time > 0)
        .then(|| shared.started + Duration::from_secs(w.max_execution_time));
    let per_op = (w.target > 0.0).then(|| Duration::from_secs_f64(w.threads as f64 / w.target));
    let thread_start = Instant::now();
    for i in 0..ops {
        if shared.stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if let Some(p) = per_op {
            let due = thread_start + p.mul_f64(i as f64);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                tokio::time::sleep(wait).await;
            }
        }
        let kind = if load {
            2
        } else {
            pick(&w.proportions, &mut rng)
        };
        let start = Instant::now();
        let code = match kind {
            0 => read(&shared, &mut rng).await,
            1 => update(&shared, &mut rng).await,
            2 => insert(&shared, &mut rng).await,
            3 => scan(&shared, &mut rng).await,
            5 => delete(&shared, &mut rng).await,
            _ => match read(&shared, &mut rng).await {
                "ERROR" => "ERROR",
                _ => update(&shared, &mut rng).await,
            },
        };
        m.record(OPS[kind], shared.started.elapsed(), start.elapsed(), code);
        shared.done.fetch_add(1, Ordering::Relaxed);
    }
    m
}

fn pick(proportions: &[f64; 6], rng: &mut SmallRng) -> usize {
    let total: f64 = proportions.iter().sum();
    let mut r = rng.gen::<f64>() * total;
    for (i, p) in proportions.iter().enumerate() {
        if r < *p {
            return i;
        }
        r -= p;
    }
    0
}

fn next_key(shared: &Shared, rng: &mut SmallRng) -> Bytes {
    let last = shared.last_inserted.load(Ordering::Relaxed);
    let n = shared.chooser.next(rng, last, &shared.latest);
    Bytes::from(shared.workload.key(n))
}

async fn read(shared: &Shared, rng: &mut SmallRng) -> &'static str {
    let w = &shared.workload;
    let mut get = Get::new(next_key(shared, rng)).with_family(w.family.clone());
    if !w.read_all_fields {
        get = Get::new(get.row.clone())
            .with_column(w.family.clone(), w.field(rng.gen_range(0..w.field_count)));
    }
    match shared.table.get(&get).await {
        Ok(cells) if cells.is_empty() => "NOT_FOUND",
        Ok(_) => "OK",
        Err(_) => "ERROR",
    }
}

fn fields(shared: &Shared, rng: &mut SmallRng, row: Bytes, all: bool) -> Put {
    let w = &shared.workload;
    let mut put = Put::new(row);
    if all {
        for f in 0..w.field_count {
            put = put.add(w.family.clone(), w.field(f), value(rng, w.field_length));
        }
    } else {
        let f = rng.gen_range(0..w.field_count);
        put = put.add(w.family.clone(), w.field(f), value(rng, w.field_length));
    }
    put
}

async fn update(shared: &Shared, rng: &mut SmallRng) -> &'static str {
    let row = next_key(shared, rng);
    let put = fields(shared, rng, row, shared.workload.write_all_fields);
    match shared.table.put(&put).await {
        Ok(()) => "OK",
        Err(_) => "ERROR",
    }
}

async fn insert(shared: &Shared, rng: &mut SmallRng) -> &'static str {
    let n = shared.next_insert.fetch_add(1, Ordering::Relaxed);
    let put = fields(shared, rng, Bytes::from(shared.workload.key(n)), true);
    match shared.table.put(&put).await {
        Ok(()) => {
            shared.last_inserted.fetch_max(n, Ordering::Relaxed);
            "OK"
        }
        Err(_) => "ERROR",
    }
}

async fn scan(shared: &Shared, rng: &mut SmallRng) -> &'static str {
    let w = &shared.workload;
    let len = if w.scan_length_distribution == "zipfian" {
        Zipfian::new(1, w.max_scan_length.max(1), ZIPFIAN_CONSTANT).next(rng)
    } else {
        rng.gen_range(1..=w.max_scan_length.max(1))
    };
    let mut s = Scan {
        start_row: next_key(shared, rng),
        limit: Some(len),
        caching: Some(len.min(1000) as u32),
        ..Scan::default()
    };
    s.columns.add_family(w.family.clone());
    match shared.table.scan_all(&s).await {
        Ok(_) => "OK",
        Err(_) => "ERROR",
    }
}

async fn delete(shared: &Shared, rng: &mut SmallRng) -> &'static str {
    let row = next_key(shared, rng);
    match shared.table.delete(&Delete::new(row)).await {
        Ok(()) => "OK",
        Err(_) => "ERROR",
    }
}
