//! Bloom filter probe cost through the reader (`may_contain_row` / `may_contain_column`): bloom
//! index lookup, chunk from a warmed block cache, hash and bit probes. Hits probe keys in the
//! file; misses probe keys between them (same chunks, so the filter itself answers, with its 1%
//! false-positive rate). The file holds every other row of seed 003's table (see `common`).

mod common;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, Criterion};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::schema::{BloomType, CachedForm, Compression};
use strata_sstable::bloom::BloomKey;
use strata_sstable::{BlockCache, Reader, ReaderOptions, WriterOptions};

/// Rows in the file (the even ones of `0..2 * ROWS`); several bloom chunks for both types.
const ROWS: u32 = 250_000;
/// Probe keys, cycled.
const PROBES: usize = 4096;

/// A file of the even rows with a `bloom` filter, opened with a warmed cache.
fn open(bloom: BloomType) -> Reader {
    let options = common::options(WriterOptions {
        compression: Compression::None,
        bloom,
        ..WriterOptions::default()
    });
    // Even rows only, so that odd keys are absent but fall inside the file's key range.
    let (file, _) = common::write_rows((0..ROWS).map(|r| 2 * r), options);
    let reader = Reader::from_bytes(
        file,
        "bench",
        ReaderOptions {
            cache: Some(Arc::new(BlockCache::new(64 << 20))),
            cache_data: true,
            cached_form: CachedForm::Encoded,
        },
    )
    .expect("open");
    // Warm every chunk.
    for r in 0..2 * ROWS {
        let _ = reader.may_contain_row(&common::row_key(r));
        let _ = reader.may_contain_column(&common::row_key(r), b"V2");
    }
    reader
}

/// Random row keys: even (present) or odd (absent).
fn keys(present: bool) -> Vec<[u8; 4]> {
    let mut rng = SmallRng::seed_from_u64(u64::from(present));
    (0..PROBES)
        .map(|_| common::row_key(2 * rng.gen_range(0..ROWS) + u32::from(!present)))
        .collect()
}

fn bench_bloom(c: &mut Criterion) {
    let mut group = c.benchmark_group("bloom");
    let (hits, misses) = (keys(true), keys(false));

    let row = open(BloomType::Row);
    for (name, keys) in [("row/hit", &hits), ("row/miss", &misses)] {
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % PROBES;
                black_box(row.may_contain_row(&keys[i]).expect("bloom"))
            });
        });
    }
    drop(row);

    let rowcol = open(BloomType::RowCol);
    for (name, keys) in [("rowcol/hit", &hits), ("rowcol/miss", &misses)] {
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % PROBES;
                black_box(rowcol.may_contain_column(&keys[i], b"V2").expect("bloom"))
            });
        });
    }

    // The hash alone, for scale.
    let mut i = 0;
    group.bench_function("hash/rowcol", |b| {
        b.iter(|| {
            i = (i + 1) % PROBES;
            let key = BloomKey::of(BloomType::RowCol, &hits[i], b"V2").expect("a bloom key");
            black_box(key.hash())
        });
    });
    group.finish();
}

/// Runs this file's benchmarks with the short default configuration (`common::criterion`).
pub fn benches() {
    let mut c = common::criterion().configure_from_args();
    bench_bloom(&mut c);
}
criterion_main!(benches);
