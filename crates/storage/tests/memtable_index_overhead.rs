//! Reports, as information only, the memory a memtable spends per cell beyond the cell's own
//! row, qualifier and value bytes, and (ignored by default; run with `--release -- --ignored`)
//! insert throughput. Alone in its test binary so the process's RSS is this test's.

use std::sync::Arc;
use std::thread;
use std::time::Instant;

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
        "  index overhead per cell, accounted (node + links + length header): {:.1} B",
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

#[test]
#[ignore = "timing: run with --release -- --ignored --nocapture"]
fn memtable_insert_throughput_is_reported() {
    const CELLS: u64 = 2_000_000;
    let value = [0x5a; 100];
    for threads in [1u64, 2] {
        let table = Arc::new(Memtable::new(Options::default()));
        let start = Instant::now();
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let table = Arc::clone(&table);
                thread::spawn(move || {
                    for i in (t..CELLS).step_by(threads as usize) {
                        insert(&table, i, &value);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("writer");
        }
        let secs = start.elapsed().as_secs_f64();
        let stats = table.stats();
        assert_eq!(stats.cells, CELLS);
        println!(
            "{threads} thread(s): {:.2} M cells/s, {:.0} MB/s of cell bytes ({CELLS} random-order cells, 100 B values)",
            CELLS as f64 / secs / 1e6,
            stats.data_bytes as f64 / secs / 1e6
        );
    }
}
