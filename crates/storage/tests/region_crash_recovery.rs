//! Acknowledged writes survive SIGKILL at any moment, and no row is ever seen half-written.
//!
//! A child process (this test binary run again with `CHILD_ENV` set) opens the region, then
//! writes row mutations of two cells each with `SYNC_WAL` from two threads, printing each
//! acknowledged row; it flushes often (1 MiB flush size, plus explicit flushes) so kills land
//! in appends, flushes, manifest updates and opens. The parent kills it at a random moment,
//! reopens the region, and checks every acknowledged row is present whole and every row is
//! either whole or absent. Repeated 50 times over the same directories.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use region_support::{table, Env};
use strata_model::ops::{Get, Put, Scan};
use strata_model::schema::Durability;

const CHILD_ENV: &str = "STRATA_REGION_CRASH_CHILD";
const TEST_NAME: &str = "acknowledged_rows_survive_sigkill_whole";
const ROUNDS: u32 = 50;

fn env(dir: &std::path::Path) -> Env {
    Env::new(dir, table(&["f"]).with_memstore_flushsize(1 << 20))
}

fn row_key(round: u32, thread: u32, i: u32) -> String {
    format!("row:{round:03}-{thread}-{i:06}")
}

/// The child: write until killed.
fn run_child(spec: &str) -> ! {
    let (round, dir) = spec.split_once(':').unwrap();
    let round: u32 = round.parse().unwrap();
    let region = env(std::path::Path::new(dir)).open();
    let out = std::sync::Arc::new(std::sync::Mutex::new(std::io::stdout()));
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let (region, out) = (region.clone(), out.clone());
            std::thread::spawn(move || {
                for i in 0.. {
                    let key = row_key(round, t, i);
                    let value = vec![b'0' + (i % 10) as u8; 300];
                    let mut put = Put::new(key.clone())
                        .add("f", "a", value.clone())
                        .add("f", "b", value);
                    put.durability = Durability::SyncWal;
                    region.put(&put).unwrap();
                    writeln!(out.lock().unwrap(), "{key}").unwrap();
                    if i % 700 == 699 {
                        region.flush().unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
    std::process::exit(0)
}

#[test]
fn acknowledged_rows_survive_sigkill_whole() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        run_child(&spec);
    }
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut rng = SmallRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let mut acked_total = BTreeSet::new();
    for round in 1..=ROUNDS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([TEST_NAME, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, format!("{round}:{}", dir.path().display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter(|l| l.starts_with("row:"))
                .collect::<Vec<_>>()
        });
        let delay = if rng.gen_bool(0.2) {
            rng.gen_range(0..10)
        } else {
            rng.gen_range(10..120)
        };
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().unwrap();
        child.wait().unwrap();
        acked_total.extend(reader.join().unwrap());

        let region = env(dir.path()).open();
        let mut rows = std::collections::BTreeMap::new();
        let mut scanner = region.scan(&Scan::new()).unwrap();
        while let Some(cells) = scanner.next_row().unwrap() {
            assert_eq!(
                cells.len(),
                2,
                "seed {seed} round {round}: a torn row is visible"
            );
            assert_eq!(cells[0].value, cells[1].value);
            rows.insert(String::from_utf8(cells[0].row.to_vec()).unwrap(), ());
        }
        for key in &acked_total {
            assert!(
                rows.contains_key(key),
                "seed {seed} round {round}: acknowledged row {key} lost"
            );
        }
        // A get agrees with the scan for a sample.
        if let Some(key) = acked_total.iter().next_back() {
            assert_eq!(region.get(&Get::new(key.clone())).unwrap().len(), 2);
        }
    }
    eprintln!(
        "{} acknowledged rows over {ROUNDS} kills",
        acked_total.len()
    );
    assert!(
        acked_total.len() > 100,
        "the child wrote too little: {}",
        acked_total.len()
    );
}
