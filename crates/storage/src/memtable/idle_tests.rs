//! Merging an idle memtable: one flat segment (and an empty active one) holding exactly what
//! the segments held, every version kept; nothing under `NONE` or when already merged.

use strata_model::cell::CellType;
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;

use super::*;

fn memtable(policy: InMemoryCompaction) -> Memtable {
    Memtable::new(Options {
        chunk_size: 64 << 10,
        policy,
        in_memory_flush_size: u64::MAX,
        pipeline_limit: usize::MAX,
        ..Options::default()
    })
}

fn put(m: &Memtable, row: &str, ts: i64, seq: u64) {
    let cell = CellRef {
        row: row.as_bytes(),
        qualifier: b"q",
        timestamp: ts,
        cell_type: CellType::Put,
        seq,
        value: b"v",
        ttl: None,
    };
    assert!(m.insert(&cell).is_ok());
}

/// Every cell a reader at `u64::MAX` sees: row, timestamp, seq.
fn cells(m: &Memtable) -> Vec<(Vec<u8>, i64, u64)> {
    let mut it = m.iter(u64::MAX);
    let mut out = Vec::new();
    let mut more = it.seek_to_first();
    while more {
        let c = it.current();
        out.push((c.row.to_vec(), c.timestamp, c.seq));
        more = it.next();
    }
    out
}

/// Three sealed segments and an active one, rows and versions spread over them.
fn spread(m: &Memtable) {
    let mut seq = 0;
    for round in 0..4 {
        for row in 0..50 {
            seq += 1;
            put(m, &format!("row{:03}", (row * 7 + round) % 60), round, seq);
        }
        if round < 3 {
            m.seal_active();
        }
    }
}

#[test]
fn an_idle_memtable_becomes_one_flat_segment_with_every_cell() {
    for policy in [
        InMemoryCompaction::Basic,
        InMemoryCompaction::Eager,
        InMemoryCompaction::Adaptive,
    ] {
        let m = memtable(policy);
        spread(&m);
        let before = cells(&m);
        assert_eq!(before.len(), 200, "{policy:?}: every version shows");
        assert!(m.mergeable_when_idle());
        let report = m.merge_idle();
        assert!(report.swapped, "{policy:?}: {report:?}");
        assert_eq!(report.cells_out, 200, "{policy:?}: nothing dropped");
        let stats = m.stats();
        assert_eq!(
            (stats.segments, stats.flat_segments),
            (2, 1),
            "{policy:?}: one flat segment and the fresh active one"
        );
        assert_eq!(cells(&m), before, "{policy:?}: the same cells");
        for row in ["row000", "row013", "row059"] {
            assert!(m.iter_for_row(u64::MAX, row.as_bytes()).is_some(), "{row}");
        }
        assert!(!m.mergeable_when_idle(), "{policy:?}: already merged");
        assert!(
            !m.merge_idle().swapped,
            "{policy:?}: a second merge does nothing"
        );
        // Writes go on into the fresh active segment; a few of them are not worth a merge
        // (one in IDLE_MERGE_SHARE of the cells is).
        put(&m, "row100", 9, 1000);
        assert_eq!(cells(&m).len(), 201);
        assert!(!m.mergeable_when_idle(), "{policy:?}: one cell beside 200");
        for seq in 1..13 {
            put(&m, &format!("row1{seq:02}"), 9, 1000 + seq);
        }
        assert!(!m.mergeable_when_idle(), "{policy:?}: 13 beside 200");
        put(&m, "row199", 9, 2000);
        assert!(m.mergeable_when_idle(), "{policy:?}: 14 of 214");
        assert!(m.merge_idle().swapped);
        assert_eq!(cells(&m).len(), 214);
    }
}

#[test]
fn a_classic_memtable_is_left_as_it_is() {
    let m = memtable(InMemoryCompaction::None);
    for seq in 1..=20 {
        put(&m, &format!("row{seq:02}"), 1, seq);
    }
    let report = m.merge_idle();
    assert!(!report.swapped);
    assert_eq!(m.stats().flat_segments, 0, "never sealed under NONE");
    assert_eq!(cells(&m).len(), 20);
}

#[test]
fn an_empty_memtable_has_nothing_to_merge() {
    let m = memtable(InMemoryCompaction::Basic);
    assert!(!m.mergeable_when_idle());
    assert!(!m.merge_idle().swapped);
    assert_eq!(m.stats().segments, 1);
}
