//! Acknowledged appends survive a process crash: a child process (this test binary, run
//! again with `CHILD_ENV` set) appends from several threads and prints each acknowledged
//! sequence id; it is SIGKILLed at a random moment, then the log is reopened and every
//! acknowledged entry must replay intact. Repeated so kills land in appends, rolls and opens.
#![allow(clippy::unwrap_used)]

mod wal_support;

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::schema::Durability;
use strata_storage::wal::{Wal, WalOptions};
use wal_support::{check, entry};

const CHILD_ENV: &str = "STRATA_WAL_CRASH_CHILD";
const TEST_NAME: &str = "acknowledged_appends_survive_sigkill";
const ROUNDS: u64 = 24;
const THREADS: u64 = 3;

fn options() -> WalOptions {
    WalOptions {
        segment_size: 64 << 10,
        ..WalOptions::default()
    }
}

#[test]
fn acknowledged_appends_survive_sigkill() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        run_child(&spec);
    }
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut rng = SmallRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let (mut total_acked, mut torn_tails) = (0, 0);
    for round in 1..=ROUNDS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([TEST_NAME, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, format!("{round}:{}", dir.path().display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || acknowledged(BufReader::new(stdout)));
        // Sometimes during the child's open (recovery), mostly during appends.
        let delay = if rng.gen_bool(0.2) {
            rng.gen_range(0..15)
        } else {
            rng.gen_range(15..250)
        };
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let acked = reader.join().unwrap();
        total_acked += acked.len();
        let context = format!("seed {seed} round {round}");
        torn_tails += u64::from(verify_and_flush(dir.path(), &acked, &context));
    }
    println!(
        "{ROUNDS} kills, {total_acked} acknowledged entries checked, {torn_tails} torn tails cut"
    );
    assert!(
        total_acked > 0,
        "no child acknowledged anything (seed {seed})"
    );
}

/// The (region, seq) pairs the child printed, from complete lines only.
fn acknowledged(mut out: impl BufRead) -> Vec<(u64, u64)> {
    let mut acked = Vec::new();
    let mut line = String::new();
    while out.read_line(&mut line).unwrap_or(0) > 0 {
        if let Some(rest) = line.strip_prefix("ACK ").and_then(|r| r.strip_suffix('\n')) {
            let mut parts = rest.split(' ').map(|p| p.parse::<u64>().unwrap());
            acked.push((parts.next().unwrap(), parts.next().unwrap()));
        }
        line.clear();
    }
    acked
}

/// Recovers the log as a restarting server would: every acknowledged entry must be there,
/// intact and once; then all is "flushed" so the next round starts from a short log. Returns
/// whether a torn tail was cut.
fn verify_and_flush(dir: &Path, acked: &[(u64, u64)], context: &str) -> bool {
    let wal = Wal::open(dir, options()).unwrap_or_else(|e| panic!("{context}: open: {e}"));
    let torn = wal.stats().truncated_bytes > 0;
    let mut present = HashSet::new();
    let mut newest: BTreeMap<u64, u64> = BTreeMap::new();
    for e in wal.replay(|_| Some(0)) {
        let e = e.unwrap_or_else(|e| panic!("{context}: replay: {e}"));
        check(&e, 100);
        assert!(present.insert((e.region, e.seq)), "{context}: {e:?} twice");
        let last = newest.entry(e.region).or_insert(0);
        assert!(e.seq > *last, "{context}: region {} out of order", e.region);
        *last = e.seq;
    }
    for a in acked {
        assert!(present.contains(a), "{context}: acknowledged {a:?} lost");
    }
    for (region, seq) in newest {
        wal.mark_flushed(region, seq).unwrap();
    }
    wal.close().unwrap();
    torn
}

/// The child: appends until killed, printing `ACK region seq` after each acknowledgement.
fn run_child(spec: &str) -> ! {
    let (round, dir) = spec.split_once(':').unwrap();
    let round: u64 = round.parse().unwrap();
    let wal = std::sync::Arc::new(Wal::open(dir, options()).unwrap());
    let threads: Vec<_> = (0..THREADS)
        .map(|region| {
            let wal = std::sync::Arc::clone(&wal);
            std::thread::spawn(move || {
                let durability = if region == 0 {
                    Durability::FsyncWal
                } else {
                    Durability::SyncWal
                };
                for i in 1.. {
                    let seq = round * 10_000_000 + i;
                    wal.append(&entry(region, seq, 100), durability).unwrap();
                    // One write per line: a kill cannot split it.
                    let line = format!("ACK {region} {seq}\n");
                    std::io::stdout().lock().write_all(line.as_bytes()).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    unreachable!("the child appends until it is killed");
}
