//! Memtable costs at 200k cells (16-byte rows in random order, a 6-byte qualifier, 100-byte
//! values): inserts into a fresh memtable from one and two writer threads (the memtable's
//! drop included), a full forward scan, a full backward scan, and random seeks.
//! Throughput is in cells. Then reads of whole rows, one version a column, from a BASIC
//! memtable of flat segments whose hot rows hold hundreds of versions of each column (YCSB A's
//! zipfian updates): skipping each column's older versions with a fresh `seek` against a
//! forward `reseek` (throughput in rows).

use std::hint::black_box;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use bytes::Bytes;
use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use strata_model::cell::{CellKey, CellType};
use strata_sstable::CellRef;
use strata_storage::memtable::Memtable;

const CELLS: u64 = 200_000;
const VALUE: [u8; 100] = [0x5a; 100];

/// A 16-byte YCSB-like row key, in random order over `i`.
fn row(i: u64) -> [u8; 16] {
    let mut z = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^= z >> 29;
    let mut out = *b"user000000000000";
    for b in out[4..].iter_mut().rev() {
        *b = b'0' + (z % 10) as u8;
        z /= 10;
    }
    out
}

fn insert(table: &Memtable, i: u64) {
    let row = row(i);
    let cell = CellRef {
        row: &row,
        qualifier: b"field0",
        timestamp: 1_700_000_000_000,
        cell_type: CellType::Put,
        seq: i + 1,
        value: &VALUE,
        ttl: None,
    };
    table.insert(&cell).expect("sequence id in range");
}

/// A memtable filled with `CELLS` cells by `threads` writers.
fn fill(threads: u64) -> Arc<Memtable> {
    let table = Arc::new(Memtable::default());
    let writers: Vec<_> = (0..threads)
        .map(|t| {
            let table = Arc::clone(&table);
            thread::spawn(move || {
                for i in (t..CELLS).step_by(threads as usize) {
                    insert(&table, i);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer");
    }
    table
}

fn bench_insert(c: &mut Criterion) {
    let mut group = c.benchmark_group("memtable_insert");
    group.throughput(Throughput::Elements(CELLS));
    for threads in [1, 2] {
        group.bench_function(BenchmarkId::new("threads", threads), |b| {
            b.iter(|| black_box(fill(threads)).size_bytes());
        });
    }
    group.finish();
}

fn bench_read(c: &mut Criterion) {
    let table = fill(1);
    let mut group = c.benchmark_group("memtable_read");
    group.throughput(Throughput::Elements(CELLS));
    group.bench_function("scan_forward", |b| {
        b.iter(|| {
            let mut it = table.iter(u64::MAX);
            let (mut n, mut more) = (0usize, it.seek_to_first());
            while more {
                n += it.current().value.len();
                more = it.next();
            }
            black_box(n)
        });
    });
    group.bench_function("scan_backward", |b| {
        b.iter(|| {
            let mut it = table.iter(u64::MAX);
            let (mut n, mut more) = (0usize, it.seek_to_last());
            while more {
                n += it.current().value.len();
                more = it.prev();
            }
            black_box(n)
        });
    });
    let targets: Vec<CellKey> = (0..CELLS)
        .map(|i| CellKey::first_on_row(Bytes::copy_from_slice(&row(i * 7))))
        .collect();
    group.bench_function("seek", |b| {
        let mut it = table.iter(u64::MAX);
        b.iter(|| {
            for t in &targets {
                black_box(it.seek(t));
            }
        });
    });
    group.finish();
}

/// Rows of the hot-column memtable, columns a row, versions of a hot row's column.
const HOT_ROWS: u64 = 2_000;
const COLUMNS: u64 = 10;
const HOT_VERSIONS: u64 = 300;

/// A BASIC memtable of four flat segments and a skiplist: every row once per column, and
/// the first 20 rows (the hot ones) `HOT_VERSIONS` times per column, spread over the
/// segments.
fn hot_columns() -> Memtable {
    let table = Memtable::new(strata_storage::memtable::Options {
        policy: strata_model::schema::InMemoryCompaction::Basic,
        in_memory_flush_size: u64::MAX,
        pipeline_limit: usize::MAX,
        ..Default::default()
    });
    let mut seq = 0;
    let qualifiers: Vec<String> = (0..COLUMNS).map(|q| format!("field{q}")).collect();
    for segment in 0..5u64 {
        for r in 0..HOT_ROWS {
            let versions = if r < 20 {
                HOT_VERSIONS / 5
            } else {
                u64::from(segment == 0)
            };
            for v in 0..versions {
                for q in &qualifiers {
                    seq += 1;
                    let row = row(r);
                    let cell = CellRef {
                        row: &row,
                        qualifier: q.as_bytes(),
                        timestamp: 1_700_000_000_000 + (segment * 1000 + v) as i64,
                        cell_type: CellType::Put,
                        seq,
                        value: &VALUE,
                        ttl: None,
                    };
                    table.insert(&cell).expect("sequence id in range");
                }
            }
        }
        if segment < 4 {
            table.seal_active();
            table.compact_in_memory(u64::MAX);
        }
    }
    table
}

/// Reads row `r` one version a column, skipping each column's other versions with `skip`.
fn read_row(
    table: &Memtable,
    r: u64,
    skip: impl Fn(&mut strata_storage::memtable::Iter, &CellKey) -> bool,
) -> usize {
    let row = Bytes::copy_from_slice(&row(r));
    let mut it = table.iter(u64::MAX);
    let (mut n, mut more) = (0, it.seek(&CellKey::first_on_row(row.clone())));
    while more && it.current().row == &row[..] {
        n += it.current().value.len();
        let mut past = it.current().qualifier.to_vec();
        past.push(0);
        more = skip(&mut it, &CellKey::first_on_column(row.clone(), past));
    }
    n
}

fn bench_hot_columns(c: &mut Criterion) {
    let table = hot_columns();
    let rows: Vec<u64> = (0..1000)
        .map(|i| if i % 2 == 0 { i % 20 } else { i * 7 % HOT_ROWS })
        .collect();
    let mut group = c.benchmark_group("memtable_hot_columns");
    group.throughput(Throughput::Elements(rows.len() as u64));
    group.bench_function("seek", |b| {
        b.iter(|| {
            rows.iter()
                .map(|&r| read_row(&table, r, |it, k| it.seek(k)))
                .sum::<usize>()
        });
    });
    group.bench_function("reseek", |b| {
        b.iter(|| {
            rows.iter()
                .map(|&r| read_row(&table, r, |it, k| it.reseek(k)))
                .sum::<usize>()
        });
    });
    group.finish();
}

/// Runs this file's benchmarks with a short configuration (10 samples, 5 s each).
pub fn benches() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    bench_insert(&mut c);
    bench_read(&mut c);
    bench_hot_columns(&mut c);
}
criterion_main!(benches);
