//! Seed 003's cells for the benchmarks: Phoenix's `test` table, one row per integer key.
//!
//! Rows are 4-byte big-endian integers in Phoenix's encoding (sign bit flipped, so keys
//! increase); each row has the columns `V1`, `V2`, `V3` (random 4-byte floats) and Phoenix's
//! bookkeeping column `_0` (value `x`), all at one timestamp, in family `0`.
#![allow(dead_code)]

use std::time::Duration;

use bytes::Bytes;
use criterion::Criterion;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::cell::CellType;
use strata_sstable::{CellRef, Writer, WriterOptions};

/// The family Phoenix uses.
pub const FAMILY: &[u8] = b"0";

/// The columns of a row, in store order.
pub const QUALIFIERS: [&[u8]; 4] = [b"V1", b"V2", b"V3", b"_0"];

/// The one timestamp of every cell.
pub const TIMESTAMP: i64 = 1_455_700_000_000;

/// Phoenix's INTEGER key encoding.
pub fn row_key(i: u32) -> [u8; 4] {
    (i ^ 0x8000_0000).to_be_bytes()
}

/// HBase's serialized KeyValue size of a cell of family [`FAMILY`] ("raw cell bytes").
pub fn raw_size(cell: &CellRef<'_>) -> u64 {
    (8 + 2 + cell.row.len() + 1 + FAMILY.len() + cell.qualifier.len() + 9 + cell.value.len()) as u64
}

/// Calls `f` with every cell of the rows `rows` (increasing row numbers), values drawn from
/// `seed`.
pub fn for_each_cell(
    rows: impl IntoIterator<Item = u32>,
    seed: u64,
    mut f: impl FnMut(&CellRef<'_>),
) {
    let mut rng = SmallRng::seed_from_u64(seed);
    for i in rows {
        let row = row_key(i);
        for q in QUALIFIERS {
            let float = rng.gen::<f32>().to_be_bytes();
            let value: &[u8] = if q == b"_0" { b"x" } else { &float };
            f(&CellRef {
                row: &row,
                qualifier: q,
                timestamp: TIMESTAMP,
                cell_type: CellType::Put,
                seq: 0,
                value,
                ttl: None,
            });
        }
    }
}

/// Writer options for family [`FAMILY`] (other settings as given).
pub fn options(base: WriterOptions) -> WriterOptions {
    WriterOptions {
        family: Bytes::from_static(FAMILY),
        ..base
    }
}

/// Writes the rows `rows` of seed 003 to an in-memory file; returns it and its raw cell bytes.
pub fn write_rows(rows: impl IntoIterator<Item = u32>, options: WriterOptions) -> (Bytes, u64) {
    let mut w = Writer::new(Vec::new(), "bench", options).expect("writer options");
    let mut raw = 0;
    for_each_cell(rows, 3, |c| {
        raw += raw_size(c);
        w.add(c).expect("cells in store order");
    });
    let (buf, _) = w.finish().expect("finish");
    (Bytes::from(buf), raw)
}

/// Short runs, so that `cargo bench -p strata-sstable` takes minutes on two cores: 20 samples,
/// 1 s of warm-up and 3 s of measurement per benchmark (command-line options still apply).
pub fn criterion() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}
