//! Seed 003's data set: `create table test (pk integer primary key, v1 float, v2 float)` filled
//! by Phoenix. Each row has three cells in family `0`: Phoenix's bookkeeping cell `_0` (value
//! `x`) and the two random floats `V1`, `V2`. The row key is the integer in Phoenix's encoding
//! (big-endian with the sign bit flipped), so keys increase. Timestamps advance one millisecond
//! per thousand rows, as a bulk upsert would stamp them.

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::cell::{Cell, CellType};

/// Cells per row.
pub const CELLS_PER_ROW: u64 = 3;

/// The family Phoenix uses by default.
pub const FAMILY: &[u8] = b"0";

/// The seed's HBase footprint for 32M rows, in MB, by codec name.
pub const HBASE_FOOTPRINT_MB: [(&str, f64); 5] = [
    ("NONE", 2922.0),
    ("PREFIX", 1739.0),
    ("FAST_DIFF", 875.0),
    ("SNAPPY", 993.0),
    ("GZ", 595.0),
];

/// Rows of the seed's table.
pub const HBASE_ROWS: f64 = 32.0 * 1024.0 * 1024.0;

/// HBase's bytes per row for a codec name, from the seed.
pub fn hbase_bytes_per_row(codec: &str) -> Option<f64> {
    HBASE_FOOTPRINT_MB
        .iter()
        .find(|(n, _)| *n == codec)
        .map(|(_, mb)| mb * 1024.0 * 1024.0 / HBASE_ROWS)
}

/// Phoenix's INTEGER key encoding.
pub fn row_key(i: u32) -> [u8; 4] {
    (i ^ 0x8000_0000).to_be_bytes()
}

/// Generates the cells of rows `0..rows`, in store order.
pub struct Rows {
    rng: SmallRng,
    next: u32,
    end: u32,
    base_ts: i64,
}

impl Rows {
    /// Rows `0..rows` with values drawn from `seed`.
    pub fn new(rows: u32, seed: u64) -> Rows {
        Rows {
            rng: SmallRng::seed_from_u64(seed),
            next: 0,
            end: rows,
            base_ts: 1_455_700_000_000,
        }
    }
}

impl Iterator for Rows {
    type Item = [Cell; 3];

    fn next(&mut self) -> Option<[Cell; 3]> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let row = Bytes::copy_from_slice(&row_key(i));
        let ts = self.base_ts + i64::from(i / 1000);
        let family = Bytes::from_static(FAMILY);
        let cell = |q: &'static [u8], v: Bytes| Cell {
            row: row.clone(),
            family: family.clone(),
            qualifier: Bytes::from_static(q),
            timestamp: ts,
            cell_type: CellType::Put,
            seq: 0,
            value: v,
        };
        let v1: f32 = self.rng.gen();
        let v2: f32 = self.rng.gen();
        Some([
            cell(b"V1", Bytes::copy_from_slice(&v1.to_be_bytes())),
            cell(b"V2", Bytes::copy_from_slice(&v2.to_be_bytes())),
            cell(b"_0", Bytes::from_static(b"x")),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_store_order() {
        let cells: Vec<Cell> = Rows::new(3000, 1).flatten().collect();
        assert_eq!(cells.len(), 9000);
        assert!(cells.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn hbase_figures_per_row() {
        let none = hbase_bytes_per_row("NONE").unwrap_or_default();
        assert!((none - 91.3).abs() < 0.1, "{none}");
    }
}
