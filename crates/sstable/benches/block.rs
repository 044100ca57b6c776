//! Data-block encode and decode cost, per `DATA_BLOCK_ENCODING`, on a 64 KiB block of
//! seed 003's cells (raw cell bytes; see `common`).
//!
//! Only the public API is used: *encode* writes the cells as a one-block file (no compression,
//! no bloom filter; the index, file info and trailer add a few hundred bytes of work), and
//! *decode* scans that block with a fresh iterator over an uncached reader (checksum, then the
//! streaming decoder). Throughput is in raw cell bytes, so encodings compare directly.

mod common;

use std::hint::black_box;

use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use strata_model::cell::Cell;
use strata_model::schema::{BloomType, Compression, DataBlockEncoding};
use strata_sstable::{CellRef, Reader, ReaderOptions, Writer, WriterOptions};

/// Raw cell bytes in the block.
const BLOCK_RAW_BYTES: u64 = 64 * 1024;

/// Cells of seed 003 adding up to [`BLOCK_RAW_BYTES`] raw bytes (whole rows).
fn block_cells() -> (Vec<Cell>, u64) {
    let family = bytes::Bytes::from_static(common::FAMILY);
    let mut cells = Vec::new();
    let mut raw = 0;
    let mut row = 0;
    while raw < BLOCK_RAW_BYTES {
        common::for_each_cell(row..row + 1, u64::from(row), |c| {
            raw += common::raw_size(c);
            cells.push(c.to_cell(&family));
        });
        row += 1;
    }
    (cells, raw)
}

fn one_block_options(encoding: DataBlockEncoding) -> WriterOptions {
    common::options(WriterOptions {
        // Large enough that every cell lands in one block.
        block_size: 16 << 20,
        encoding,
        compression: Compression::None,
        bloom: BloomType::None,
        ..WriterOptions::default()
    })
}

fn encode(cells: &[Cell], encoding: DataBlockEncoding) -> Vec<u8> {
    let mut w = Writer::new(
        Vec::with_capacity(128 * 1024),
        "bench",
        one_block_options(encoding),
    )
    .expect("writer options");
    for c in cells {
        w.add(&CellRef::from_cell(c)).expect("cells in store order");
    }
    w.finish().expect("finish").0
}

fn bench_block(c: &mut Criterion) {
    let (cells, raw) = block_cells();
    let mut group = c.benchmark_group("block");
    group.throughput(Throughput::Bytes(raw));
    for encoding in DataBlockEncoding::ALL {
        let name = encoding.name();
        group.bench_function(BenchmarkId::new("encode", name), |b| {
            b.iter(|| black_box(encode(black_box(&cells), encoding)).len());
        });

        let file = bytes::Bytes::from(encode(&cells, encoding));
        let reader =
            Reader::from_bytes(file, "bench", ReaderOptions::default()).expect("open the file");
        assert_eq!(reader.info().data_block_count, 1, "one data block");
        let decode = || {
            let mut it = reader.iter();
            let mut n = 0usize;
            let mut ok = it.seek_to_first().expect("seek_to_first");
            while ok {
                n += it.current().value.len();
                ok = it.next().expect("next");
            }
            n
        };
        let values: usize = cells.iter().map(|c| c.value.len()).sum();
        assert_eq!(decode(), values, "a scan visits every cell");
        group.bench_function(BenchmarkId::new("decode", name), |b| {
            b.iter(|| black_box(decode()));
        });
    }
    group.finish();
}

/// Runs this file's benchmarks with the short default configuration (`common::criterion`).
pub fn benches() {
    let mut c = common::criterion().configure_from_args();
    bench_block(&mut c);
}
criterion_main!(benches);
