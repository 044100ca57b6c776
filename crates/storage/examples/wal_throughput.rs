//! WAL append throughput, SYNC_WAL and FSYNC_WAL with 1 and 8 threads. Run with
//! `cargo run --release -p strata-storage --example wal_throughput`.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use strata_model::cell::Cell;
use strata_model::schema::Durability;
use strata_storage::wal::{Entry, Wal, WalOptions};

/// An entry whose payload is about 100 bytes (60 of them value).
fn small_entry(region: u64, seq: u64) -> Entry {
    Entry {
        region,
        seq,
        cells: vec![Cell::put(
            format!("row-{seq:08}"),
            "cf",
            "q",
            1,
            vec![7u8; 60],
        )],
        nonce: None,
    }
}

/// Appends from `threads` threads for about `run`; returns (entries/s, mean group size).
fn measure(threads: u64, durability: Durability, run: Duration) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let wal = Arc::new(Wal::open(dir.path(), WalOptions::default()).unwrap());
    let start = Arc::new(Barrier::new(threads as usize + 1));
    let handles: Vec<_> = (0..threads)
        .map(|region| {
            let (wal, start) = (Arc::clone(&wal), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                let began = Instant::now();
                let mut seq = 0;
                while began.elapsed() < run {
                    seq += 1;
                    wal.append(&small_entry(region, seq), durability).unwrap();
                }
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    for h in handles {
        h.join().unwrap();
    }
    let elapsed = began.elapsed().as_secs_f64();
    let stats = wal.stats();
    wal.close().unwrap();
    (
        stats.appends as f64 / elapsed,
        stats.batched_entries as f64 / stats.writes.max(1) as f64,
    )
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let wal = Wal::open(dir.path(), WalOptions::default()).unwrap();
    let before = wal.stats().bytes;
    let e = small_entry(1, 1);
    wal.append(&e, Durability::SyncWal).unwrap();
    println!(
        "entry: one cell of {} raw KeyValue bytes, {} bytes in the log",
        e.cells[0].raw_size(),
        wal.stats().bytes - before
    );
    // FSYNC_WAL first: the hundreds of MB SYNC_WAL leaves dirty would slow its syncs.
    for (name, durability) in [
        ("FSYNC_WAL", Durability::FsyncWal),
        ("SYNC_WAL", Durability::SyncWal),
    ] {
        for threads in [1, 8] {
            let (rate, group) = measure(threads, durability, Duration::from_secs(2));
            println!("{name:9} {threads} thread(s): {rate:>10.0} appends/s, mean group {group:.1}");
        }
    }
}
