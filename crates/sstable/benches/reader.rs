//! Reader cost on a ~20 MB in-memory file of seed 003's cells (see `common`), per
//! `DATA_BLOCK_ENCODING`, with every block in a warmed block cache, in the `Decoded` and the
//! `Encoded` cached form (no compression, 64 KiB blocks, ROW bloom filter):
//! - `scan`: a full forward scan; throughput in raw cell bytes;
//! - `get_row`: `Reader::get_row` of a random present row (bloom, index, block, 4 cells);
//! - `reseek_columns`: a seek to a random row, then a forward seek past each of its columns
//!   (how a reader skips a column's older versions), 4 cells.

mod common;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::cell::CellKey;
use strata_model::schema::{BloomType, CachedForm, Compression, DataBlockEncoding};
use strata_sstable::{BlockCache, Reader, ReaderOptions, WriterOptions};

/// Rows in the file: ~20 MB with the NONE encoding (4 cells, ~121 raw bytes per row).
const ROWS: u32 = 170_000;
/// Random rows looked up, cycled.
const GETS: usize = 4096;

fn open(file: bytes::Bytes, form: CachedForm) -> Reader {
    let reader = Reader::from_bytes(
        file,
        "bench",
        ReaderOptions {
            cache: Some(Arc::new(BlockCache::new(512 << 20))),
            cache_data: true,
            cached_form: form,
        },
    )
    .expect("open");
    // Warm the cache: every data, index and bloom block.
    assert_eq!(
        reader.count_cells().expect("scan"),
        reader.info().cell_count
    );
    // A row's values: three 4-byte floats and "x".
    assert_eq!(
        scan(&reader),
        13 * ROWS as usize,
        "a scan visits every cell"
    );
    for i in (0..ROWS).step_by(97) {
        let _ = reader.get_row(&common::row_key(i));
    }
    reader
}

fn scan(reader: &Reader) -> usize {
    let mut it = reader.iter();
    let mut n = 0;
    let mut ok = it.seek_to_first().expect("seek_to_first");
    while ok {
        n += it.current().value.len();
        ok = it.next().expect("next");
    }
    n
}

fn bench_reader(c: &mut Criterion) {
    let mut rng = SmallRng::seed_from_u64(11);
    let rows: Vec<[u8; 4]> = (0..GETS)
        .map(|_| common::row_key(rng.gen_range(0..ROWS)))
        .collect();
    let mut group = c.benchmark_group("reader");
    for encoding in DataBlockEncoding::ALL {
        let (file, raw) = common::write_rows(
            0..ROWS,
            common::options(WriterOptions {
                encoding,
                compression: Compression::None,
                bloom: BloomType::Row,
                ..WriterOptions::default()
            }),
        );
        eprintln!(
            "reader: {} file of {:.1} MB for {:.1} MB of raw cells",
            encoding.name(),
            file.len() as f64 / 1e6,
            raw as f64 / 1e6
        );
        for form in [CachedForm::Decoded, CachedForm::Encoded] {
            let reader = open(file.clone(), form);
            let id = format!("{}/{}", encoding.name(), form_name(form));

            group.throughput(Throughput::Bytes(raw));
            group.sample_size(10);
            group.bench_function(BenchmarkId::new("scan", &id), |b| {
                b.iter(|| black_box(scan(&reader)));
            });

            group.throughput(Throughput::Elements(1));
            group.sample_size(20);
            let mut i = 0;
            group.bench_function(BenchmarkId::new("get_row", &id), |b| {
                b.iter(|| {
                    i = (i + 1) % GETS;
                    let cells = reader.get_row(&rows[i]).expect("get_row");
                    assert_eq!(cells.len(), 4);
                    black_box(cells)
                });
            });

            let mut i = 0;
            group.bench_function(BenchmarkId::new("reseek_columns", &id), |b| {
                b.iter(|| {
                    i = (i + 1) % GETS;
                    black_box(reseek_columns(&reader, &rows[i]))
                });
            });
        }
    }
    group.finish();
}

/// Seeks to `row`, then past each column it lands on; returns the cells visited.
fn reseek_columns(reader: &Reader, row: &[u8; 4]) -> usize {
    let row = bytes::Bytes::copy_from_slice(row);
    let mut it = reader.iter();
    let mut ok = it.seek(&CellKey::first_on_row(row.clone())).expect("seek");
    let mut n = 0;
    while ok && it.current().row == &row[..] {
        n += 1;
        let mut past = it.current().qualifier.to_vec();
        past.push(0);
        ok = it
            .reseek(&CellKey::first_on_column(row.clone(), past))
            .expect("reseek");
    }
    assert_eq!(n, 4);
    n
}

fn form_name(form: CachedForm) -> &'static str {
    match form {
        CachedForm::Decoded => "decoded",
        CachedForm::Encoded => "encoded",
        CachedForm::Compressed => "compressed",
    }
}

/// Runs this file's benchmarks with the short default configuration (`common::criterion`).
pub fn benches() {
    let mut c = common::criterion().configure_from_args();
    bench_reader(&mut c);
}
criterion_main!(benches);
