//! Seed 003's data set: a Phoenix table keyed by an increasing integer, 4 cells per row (the
//! post's 128m cells for 32m rows), exactly as it is loaded into HBase for the side-by-side
//! figures, so that footprints compare byte for byte: family `0` (Phoenix's default), random 4-byte floats in
//! `V1`, `V2`, `V3`, and Phoenix's bookkeeping cell `_0` with an empty value. The row key is the
//! 4-byte big-endian integer. Timestamps advance one millisecond per 74 rows, the rate at which
//! HBase's single-threaded loader stamped them.

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::cell::{Cell, CellType};

/// Cells per row.
pub const CELLS_PER_ROW: u64 = 4;

/// The family Phoenix uses by default.
pub const FAMILY: &[u8] = b"0";

/// The seed's HBase footprint for 128m cells, in MB, by codec name.
pub const SEED_FOOTPRINT_MB: [(&str, f64); 5] = [
    ("NONE", 2922.0),
    ("PREFIX", 1739.0),
    ("FAST_DIFF", 875.0),
    ("SNAPPY", 993.0),
    ("GZ", 595.0),
];

/// HBase 2.6.4 standalone on the reference machine (2 vCPU, 24 GiB), 2M rows of this data set
/// loaded and major-compacted into one HFile: store-file bytes per cell by codec name.
pub const PEER_BYTES_PER_CELL: [(&str, f64); 7] = [
    ("NONE", 32.97),
    ("PREFIX", 20.22),
    ("FAST_DIFF", 11.23),
    ("SNAPPY", 10.41),
    ("GZ", 6.70),
    ("FAST_DIFF+SNAPPY", 6.85),
    ("ZSTD", 4.96),
];

/// The seed's HBase bytes per cell for a codec name (128m cells).
pub fn seed_bytes_per_cell(codec: &str) -> Option<f64> {
    SEED_FOOTPRINT_MB
        .iter()
        .find(|(n, _)| *n == codec)
        .map(|(_, mb)| mb * 1024.0 * 1024.0 / (128.0 * 1024.0 * 1024.0))
}

/// The peer's measured HBase bytes per cell for a codec name.
pub fn peer_bytes_per_cell(codec: &str) -> Option<f64> {
    PEER_BYTES_PER_CELL
        .iter()
        .find(|(n, _)| *n == codec)
        .map(|(_, b)| *b)
}

/// The row key of row `i`: 4 bytes big-endian.
pub fn row_key(i: u32) -> [u8; 4] {
    i.to_be_bytes()
}

/// The peer's "raw payload" of a cell: row + family + qualifier + 8-byte timestamp + value.
pub fn payload_bytes(cell: &Cell) -> u64 {
    (cell.row.len() + cell.family.len() + cell.qualifier.len() + 8 + cell.value.len()) as u64
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
    type Item = [Cell; 4];

    fn next(&mut self) -> Option<[Cell; 4]> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let row = Bytes::copy_from_slice(&row_key(i));
        let ts = self.base_ts + i64::from(i / 74);
        let family = Bytes::from_static(FAMILY);
        let cell = |q: &'static [u8], v: Bytes| Cell {
            row: row.clone(),
            family: family.clone(),
            qualifier: Bytes::from_static(q),
            timestamp: ts,
            cell_type: CellType::Put,
            seq: 0,
            value: v,
            ttl: None,
        };
        let mut float = || Bytes::copy_from_slice(&self.rng.gen::<f32>().to_be_bytes());
        Some([
            cell(b"V1", float()),
            cell(b"V2", float()),
            cell(b"V3", float()),
            cell(b"_0", Bytes::new()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_store_order() {
        let cells: Vec<Cell> = Rows::new(3000, 1).flatten().collect();
        assert_eq!(cells.len(), 12_000);
        let payload: u64 = cells[..4].iter().map(payload_bytes).sum();
        assert_eq!(payload, 72);
        assert!(cells.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn hbase_figures_per_cell() {
        let none = seed_bytes_per_cell("NONE").unwrap_or_default();
        assert!((none - 22.8).abs() < 0.1, "{none}");
        assert_eq!(peer_bytes_per_cell("ZSTD"), Some(4.96));
    }
}
