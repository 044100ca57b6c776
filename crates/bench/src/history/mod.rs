//! Workloads with recorded histories, for the linearizability checker of the fault harness
//! (RFC 0021, "Workloads").
//!
//! Clients run per-row operations against a table (registers, compare-and-set registers,
//! counters, append-only lists: [`record::Model`]) at a bounded rate, and record each one
//! with its invocation and completion times, its input and its outcome ([`record`]) as JSON
//! lines. When asked to stop, every client finishes its operation in flight, then every row is
//! read once more (retried until it answers): those final reads are in the history too, so an
//! acknowledged write missing from them is an anomaly the checker finds.
//!
//! - [`record`]: one operation and its line.
//! - [`ops`]: choosing an operation and running it.

pub mod ops;
pub mod record;

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_client::Table;

use record::{Call, Model, Outcome, Record};

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The history file (JSON lines), created.
    pub out: PathBuf,
    /// Chooses rows and operations (each client's generator is seeded from it).
    pub seed: u64,
    /// Concurrent clients.
    pub clients: usize,
    /// Rows per model.
    pub rows: usize,
    /// Operations per second, all clients together.
    pub rate: f64,
    /// Stop when this file exists.
    pub stop_file: Option<PathBuf>,
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// Longest time the final read of a row is retried.
    pub final_read_limit: Duration,
}

/// Counts of a run, by outcome.
#[derive(Debug, Default)]
pub struct Summary {
    /// Operations sent.
    pub attempted: u64,
    /// Answered.
    pub ok: u64,
    /// Reads without an answer.
    pub failed: u64,
    /// Writes without an answer.
    pub unknown: u64,
    /// Rows whose final read never answered.
    pub unread_rows: usize,
}

struct Shared {
    table: Table,
    options: Options,
    started: Instant,
    out: Mutex<std::io::BufWriter<std::fs::File>>,
    /// Unique values and elements, and logical client numbers.
    next_value: AtomicU64,
    next_process: AtomicU64,
    /// The latest value seen per compare-and-set row.
    seen: Mutex<HashMap<String, u64>>,
    summary: Mutex<Summary>,
}

impl Shared {
    fn stopping(&self) -> bool {
        self.options
            .duration
            .is_some_and(|d| self.started.elapsed() >= d)
            || self.options.stop_file.as_ref().is_some_and(|f| f.exists())
    }

    fn nanos(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Runs `call` on `row` and records it; answers the outcome.
    async fn run(&self, process: u64, model: Model, row: &str, call: Call) -> Outcome {
        let invoked_ns = self.nanos();
        let outcome = ops::execute(&self.table, model, row, &call).await;
        let completed_ns = self.nanos();
        {
            let mut s = self.summary.lock().unwrap_or_else(|e| e.into_inner());
            s.attempted += 1;
            match outcome {
                Outcome::Failed => s.failed += 1,
                Outcome::Unknown => s.unknown += 1,
                _ => s.ok += 1,
            }
        }
        let line = Record {
            process,
            model,
            row: row.to_owned(),
            call: call.clone(),
            outcome: outcome.clone(),
            invoked_ns,
            completed_ns,
        }
        .json_line();
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = out.write_all(line.as_bytes());
        outcome
    }
}

/// Runs the workload on `table` until told to stop, then reads every row once more.
///
/// # Errors
/// The history file cannot be written.
pub async fn run(table: Table, options: Options) -> Result<Summary, String> {
    let file = std::fs::File::create(&options.out)
        .map_err(|e| format!("{}: {e}", options.out.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let start_unix_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let started = Instant::now();
    out.write_all(record::header_line(options.seed, start_unix_ns).as_bytes())
        .map_err(|e| e.to_string())?;
    let clients = options.clients.max(1);
    let shared = Arc::new(Shared {
        table,
        started,
        out: Mutex::new(out),
        next_value: AtomicU64::new(1),
        next_process: AtomicU64::new(clients as u64),
        seen: Mutex::default(),
        summary: Mutex::default(),
        options,
    });
    let mut tasks = Vec::new();
    for client in 0..clients {
        let shared = shared.clone();
        tasks.push(tokio::spawn(
            async move { client_loop(&shared, client).await },
        ));
    }
    for t in tasks {
        let _ = t.await;
    }
    final_reads(&shared).await;
    let mut out = shared.out.lock().unwrap_or_else(|e| e.into_inner());
    out.flush().map_err(|e| e.to_string())?;
    drop(out);
    let summary = std::mem::take(&mut *shared.summary.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(summary)
}

/// How long a list row is appended to before the lists move on to fresh rows: a read
/// returns the whole list, so lists appended to for an hour made reads of thousands of
/// elements and a history of gigabytes (a 60-minute run's, 2.9 GB) that the checker could not
/// load. Every row stays read by the final reads.
const LIST_ROW_LIFETIME: Duration = Duration::from_secs(120);

/// Which generation of rows `model` uses `elapsed` into the run: lists' advance every
/// [`LIST_ROW_LIFETIME`], the other models keep theirs (their values do not grow).
fn list_generation(model: Model, elapsed: Duration) -> usize {
    if model == Model::List {
        usize::try_from(elapsed.as_secs() / LIST_ROW_LIFETIME.as_secs()).unwrap_or(usize::MAX)
    } else {
        0
    }
}

/// One client: operations on random rows at its share of the rate until told to stop.
async fn client_loop(shared: &Shared, client: usize) {
    let options = &shared.options;
    let mut rng = SmallRng::seed_from_u64(options.seed ^ (client as u64).wrapping_mul(0x9e37_79b9));
    let period = Duration::from_secs_f64(options.clients.max(1) as f64 / options.rate.max(0.1));
    let mut process = client as u64;
    let mut next = Instant::now();
    while !shared.stopping() {
        let model = Model::ALL[rng.gen_range(0..Model::ALL.len())];
        let index = rng.gen_range(0..options.rows.max(1))
            + options.rows.max(1) * list_generation(model, shared.started.elapsed());
        let row = ops::row_key(model, index);
        let last = shared
            .seen
            .lock()
            .map_or(0, |s| s.get(&row).copied().unwrap_or(0));
        let mut fresh = || shared.next_value.fetch_add(1, Ordering::Relaxed);
        let call = ops::choose(&mut rng, model, &mut fresh, last);
        let outcome = shared.run(process, model, &row, call.clone()).await;
        if model == Model::Cas {
            remember(shared, &row, &call, &outcome);
        }
        if outcome == Outcome::Unknown {
            // Its operation may still take effect: a new logical client goes on.
            process = shared.next_process.fetch_add(1, Ordering::Relaxed);
        }
        next += period;
        let now = Instant::now();
        if next > now {
            tokio::time::sleep(next - now).await;
        } else {
            next = now;
        }
    }
}

/// Keeps the value a compare-and-set row was last seen with, for the next one to expect.
fn remember(shared: &Shared, row: &str, call: &Call, outcome: &Outcome) {
    let value = match (call, outcome) {
        (Call::Read, Outcome::Value(v)) => *v,
        (Call::Write(v), Outcome::Done) => *v,
        (Call::Cas { new, .. }, Outcome::Applied(true)) => *new,
        _ => return,
    };
    if let Ok(mut seen) = shared.seen.lock() {
        seen.insert(row.to_owned(), value);
    }
}

/// Reads every row until it answers (or the limit passes), as a client of its own.
async fn final_reads(shared: &Shared) {
    let process = shared.next_process.fetch_add(1, Ordering::Relaxed);
    let generations = list_generation(Model::List, shared.started.elapsed()) + 1;
    for model in Model::ALL {
        let rows = shared.options.rows.max(1) * if model == Model::List { generations } else { 1 };
        for i in 0..rows {
            let row = ops::row_key(model, i);
            let until = Instant::now() + shared.options.final_read_limit;
            loop {
                if shared.run(process, model, &row, Call::Read).await != Outcome::Failed {
                    break;
                }
                if Instant::now() >= until {
                    shared
                        .summary
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .unread_rows += 1;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_move_to_fresh_rows_and_other_models_keep_theirs() {
        let at = Duration::from_secs;
        assert_eq!(list_generation(Model::List, at(0)), 0);
        assert_eq!(list_generation(Model::List, at(119)), 0);
        assert_eq!(list_generation(Model::List, at(121)), 1);
        assert_eq!(list_generation(Model::List, at(3600)), 30);
        for model in [Model::Register, Model::Cas, Model::Counter] {
            assert_eq!(list_generation(model, at(3600)), 0);
        }
    }
}
