//! Reports, as information only, the memory a memtable spends per cell beyond the cell's own
//! row, qualifier and value bytes, and (ignored by default; run with `--release -- --ignored`)
//! insert throughput. Alone in its test binary so the process's RSS is this test's.

use strata_model::cell::CellType;
use strata_sstable::CellRef;
use strata_storage::memtable::{Memtable, Options};

/// 16-byte YCSB-like row keys in random order.
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

fn insert(table: &Memtable, i: u64, value: &[u8]) {
    let row = row(i);
    let cell = CellRef {
        row: &row,
        qualifier: b"field0",
        timestamp: 1_700_000_000_000,
        cell_type: CellType::Put,
        seq: i + 1,
        value,
        ttl: None,
    };
    table.insert(&cell).expect("insert");
}

/// Resident set size from `/proc/self/statm` (Linux), in bytes.
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn memtable_index_overhead_per_cell_is_reported() {
    const CELLS: u64 = 500_000;
    let value = [0x5a; 100];
    let before = rss_bytes();
    let table = Memtable::new(Options::default());
    for i in 0..CELLS {
        insert(&table, i, &value);
    }
    let after = rss_bytes();
    let s = table.stats();
    assert_eq!(s.cells, CELLS);
    let per_cell = |bytes: u64| bytes as f64 / CELLS as f64;
    let data = per_cell(s.data_bytes);
    println!("memtable: {CELLS} cells of 16 B row, 6 B qualifier, 100 B value");
    println!("  cell bytes (row + qualifier + value) per cell: {data:.1} B");
    println!(
        "  index overhead per cell, accounted (node + links + timestamp and length header): {:.1} B",
        per_cell(s.index_bytes)
    );
    println!(
        "  overhead per cell, reserved (whole chunks and slabs) minus cell bytes: {:.1} B ({} chunks)",
        per_cell(s.reserved_bytes) - data,
        s.chunks
    );
    if let (Some(a), Some(b)) = (before, after) {
        println!(
            "  overhead per cell, process RSS growth minus cell bytes: {:.1} B",
            per_cell(b.saturating_sub(a)) - data
        );
    }
}
