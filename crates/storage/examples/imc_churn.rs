//! Churn workload on one memtable per in-memory compaction policy: 128,000 keys × 1 KB
//! values, 50% point reads / 50% updates, uniform or zipfian (θ = 0.99) key choice, a disk
//! flush (snapshot, release) whenever the memtable passes the flush size. Prints flushes, bytes
//! handed to flushes, peak memory and index bytes per cell. One thread; the smallest read
//! point follows the last write (no long readers), so EAGER may drop every older version.
//!
//! `cargo run --release -p strata-storage --example imc_churn -- [ops] [flush MiB]`
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use rand::{Rng, SeedableRng};
use strata_model::cell::{CellKey, CellType};
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;
use strata_storage::memtable::{Memtable, Options};

const KEYS: u64 = 128_000;

/// YCSB's zipfian generator over 0..n.
struct Zipf {
    n: f64,
    theta: f64,
    alpha: f64,
    zeta_n: f64,
    eta: f64,
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Zipf {
        let zeta = |k: u64| (1..=k).map(|i| 1.0 / (i as f64).powf(theta)).sum::<f64>();
        let (zeta_n, zeta_2) = (zeta(n), zeta(2));
        let n = n as f64;
        Zipf {
            n,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zeta_n,
            eta: (1.0 - (2.0 / n).powf(1.0 - theta)) / (1.0 - zeta_2 / zeta_n),
        }
    }

    fn sample(&self, u: f64) -> u64 {
        let uz = u * self.zeta_n;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1;
        }
        (self.n * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }
}

struct Figures {
    flushes: u64,
    flushed_bytes: u64,
    flushed_cells: u64,
    peak_reserved: u64,
    index_per_cell: f64,
    p50_read_ns: u64,
    p99_read_ns: u64,
    secs: f64,
}

fn run(policy: InMemoryCompaction, zipf: Option<&Zipf>, ops: u64, flush_size: u64) -> Figures {
    let m = Memtable::new(Options {
        policy,
        ..Options::default()
    });
    let mut rng = rand::rngs::StdRng::seed_from_u64(42);
    let value = vec![7u8; 1024];
    let (mut seq, mut f) = (
        0u64,
        Figures {
            flushes: 0,
            flushed_bytes: 0,
            flushed_cells: 0,
            peak_reserved: 0,
            index_per_cell: 0.0,
            p50_read_ns: 0,
            p99_read_ns: 0,
            secs: 0.0,
        },
    );
    let mut reads = Vec::new();
    let (mut index_bytes, mut index_cells) = (0u64, 0u64);
    let start = Instant::now();
    for op in 0..ops {
        let k = match zipf {
            Some(z) => z.sample(rng.gen::<f64>()).min(KEYS - 1),
            None => rng.gen_range(0..KEYS),
        };
        // Scatter the zipfian hot keys over the key space.
        let row = format!("user{:016x}", k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        if rng.gen::<bool>() {
            let t = Instant::now();
            let key = CellKey {
                row: row.clone().into(),
                qualifier: "f".into(),
                timestamp: i64::MAX,
                cell_type: CellType::Put,
                seq: u64::MAX,
            };
            let mut it = m.iter(seq);
            let _ = it.seek(&key) && it.current().row == row.as_bytes();
            if op % 16 == 0 {
                reads.push(t.elapsed().as_nanos() as u64);
            }
            continue;
        }
        seq += 1;
        let cell = CellRef {
            row: row.as_bytes(),
            qualifier: b"f",
            timestamp: seq as i64,
            cell_type: CellType::Put,
            seq,
            value: &value,
            ttl: None,
        };
        m.insert(&cell).unwrap();
        m.set_smallest_read_point(seq);
        let stats = m.stats();
        f.peak_reserved = f.peak_reserved.max(stats.reserved_bytes);
        if m.size_bytes() >= flush_size {
            let snap = m.snapshot();
            let s = snap.stats();
            f.flushes += 1;
            f.flushed_bytes += s.data_bytes;
            f.flushed_cells += s.cells;
            index_bytes += s.index_bytes;
            index_cells += s.cells;
            m.release(snap).unwrap();
        }
    }
    f.secs = start.elapsed().as_secs_f64();
    let s = m.stats();
    index_bytes += s.index_bytes;
    index_cells += s.cells;
    f.index_per_cell = index_bytes as f64 / index_cells.max(1) as f64;
    reads.sort_unstable();
    let pick = |q: f64| {
        reads
            .get((reads.len() as f64 * q) as usize)
            .copied()
            .unwrap_or(0)
    };
    (f.p50_read_ns, f.p99_read_ns) = (pick(0.5), pick(0.99));
    f
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let ops = args.first().copied().unwrap_or(2_000_000);
    let flush_mib = args.get(1).copied().unwrap_or(128);
    let zipf = Zipf::new(KEYS, 0.99);
    println!("{ops} ops, 50% reads / 50% updates, 128000 keys x 1 KB, flush size {flush_mib} MiB");
    println!("dist     policy    flushes  flushed MB  flushed cells  peak MB  idx B/cell  read p50/p99 us  secs");
    for (name, z) in [("uniform", None), ("zipfian", Some(&zipf))] {
        for policy in [
            InMemoryCompaction::None,
            InMemoryCompaction::Basic,
            InMemoryCompaction::Eager,
            InMemoryCompaction::Adaptive,
        ] {
            let f = run(policy, z, ops, flush_mib << 20);
            println!(
                "{name:8} {:9} {:7} {:11.1} {:14} {:8.1} {:11.1} {:7.1}/{:<7.1} {:6.1}",
                format!("{policy:?}"),
                f.flushes,
                f.flushed_bytes as f64 / 1e6,
                f.flushed_cells,
                f.peak_reserved as f64 / 1e6,
                f.index_per_cell,
                f.p50_read_ns as f64 / 1e3,
                f.p99_read_ns as f64 / 1e3,
                f.secs
            );
        }
    }
}
