//! Flushing only the oldest pipeline segment, and TTL in EAGER and ADAPTIVE copies.

use std::collections::BTreeSet;
use std::sync::Arc;

use strata_model::cell::CellType;
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;

use super::*;
use crate::clock::ManualClock;

/// Row, qualifier, timestamp, type code, seq.
type Shown = (Vec<u8>, Vec<u8>, i64, u8, u64);

fn options(policy: InMemoryCompaction) -> Options {
    Options {
        chunk_size: 64 << 10,
        policy,
        in_memory_flush_size: u64::MAX,
        pipeline_limit: usize::MAX,
        ..Options::default()
    }
}

fn oldest_only(policy: InMemoryCompaction) -> Memtable {
    Memtable::new(Options {
        flush_oldest_segment_only: true,
        ..options(policy)
    })
}

fn add(m: &Memtable, row: &str, ts: i64, t: CellType, seq: u64) {
    let cell = CellRef {
        row: row.as_bytes(),
        qualifier: b"q",
        timestamp: ts,
        cell_type: t,
        seq,
        value: b"value",
        ttl: None,
    };
    assert_eq!(m.insert(&cell), Ok(true));
}

fn put(m: &Memtable, row: &str, ts: i64, seq: u64) {
    add(m, row, ts, CellType::Put, seq);
}

fn shown(it: &mut Iter) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut more = it.seek_to_first();
    while more {
        let c = it.current();
        out.push((
            c.row.to_vec(),
            c.qualifier.to_vec(),
            c.timestamp,
            c.cell_type.code(),
            c.seq,
        ));
        more = it.next();
    }
    out
}

fn cells(m: &Memtable) -> Vec<Shown> {
    shown(&mut m.iter(u64::MAX))
}

fn seqs(cells: &[Shown]) -> BTreeSet<u64> {
    cells.iter().map(|c| c.4).collect()
}

fn snapshot_seqs(s: &FlushSnapshot) -> BTreeSet<u64> {
    seqs(&shown(&mut s.iter()))
}

#[test]
fn oldest_only_snapshots_take_the_pipeline_tail_one_segment_at_a_time() {
    let m = oldest_only(InMemoryCompaction::Basic);
    for seq in 1..=3 {
        put(&m, &format!("a{seq}"), 1, seq);
    }
    m.seal_active();
    for seq in 4..=6 {
        put(&m, &format!("b{seq}"), 1, seq);
    }
    m.seal_active();
    put(&m, "c7", 1, 7);
    put(&m, "c8", 1, 8);
    let all = cells(&m);
    assert_eq!(all.len(), 8);

    let before = m.size_bytes();
    let first = m.snapshot();
    assert_eq!(snapshot_seqs(&first), (1..=3).collect());
    assert_eq!(first.max_seq(), Some(3));
    assert_eq!(m.min_seq_outside_snapshot(), Some(4));
    // Pending: returned again, and readers still see every cell.
    assert_eq!(m.snapshot().id(), first.id());
    assert_eq!(cells(&m), all);
    assert_eq!(m.size_bytes(), before);

    // Releasing frees exactly the flushed segment.
    let freed = first.stats().size_bytes();
    m.release(first).unwrap();
    assert_eq!(m.size_bytes(), before - freed);
    assert_eq!(seqs(&cells(&m)), (4..=8).collect());
    assert_eq!(m.stats().segments, 2);

    let second = m.snapshot();
    assert_eq!(snapshot_seqs(&second), (4..=6).collect());
    assert_eq!(m.min_seq_outside_snapshot(), Some(7));
    m.release(second).unwrap();

    // An empty pipeline: the active segment is sealed and taken (the composite snapshot).
    let third = m.snapshot();
    assert_eq!(snapshot_seqs(&third), (7..=8).collect());
    assert_eq!(m.min_seq_outside_snapshot(), None);
    m.release(third).unwrap();
    assert!(m.is_empty());
    assert_eq!(m.size_bytes(), 0);
    assert_eq!(m.snapshot().id(), 0);
}

#[test]
fn snapshot_all_and_the_default_take_everything() {
    for m in [
        Memtable::new(options(InMemoryCompaction::Basic)),
        oldest_only(InMemoryCompaction::Basic),
    ] {
        put(&m, "a", 1, 1);
        m.seal_active();
        put(&m, "b", 1, 2);
        m.seal_active();
        put(&m, "c", 1, 3);
        let snap = if m.options().flush_oldest_segment_only {
            m.snapshot_all()
        } else {
            m.snapshot()
        };
        assert_eq!(snapshot_seqs(&snap), (1..=3).collect());
        assert_eq!(m.min_seq_outside_snapshot(), None);
        m.release(snap).unwrap();
        assert!(m.is_empty());
    }
}

#[test]
fn out_of_order_ids_bound_what_an_oldest_only_flush_makes_durable() {
    let m = oldest_only(InMemoryCompaction::Basic);
    put(&m, "a", 1, 5);
    put(&m, "b", 1, 6);
    m.seal_active();
    // An id below the sealed segment's reaches the memtable after the seal.
    put(&m, "c", 1, 4);
    let snap = m.snapshot();
    assert_eq!(snap.max_seq(), Some(6));
    // Only ids below 4 are sure to be in files once the snapshot is.
    assert_eq!(m.min_seq_outside_snapshot(), Some(4));
    m.release(snap).unwrap();
}

#[test]
fn a_compaction_after_an_oldest_only_snapshot_leaves_the_snapshot_alone() {
    let m = oldest_only(InMemoryCompaction::Basic);
    put(&m, "a", 1, 1);
    m.seal_active();
    put(&m, "b", 1, 2);
    m.seal_active();
    let snap = m.snapshot();
    // The pipeline now holds one segment; compacting it does not touch the snapshot.
    let report = m.compact_in_memory(u64::MAX);
    assert!(report.swapped);
    assert_eq!(report.segments_in, 1);
    assert_eq!(seqs(&cells(&m)), [1, 2].into());
    m.release(snap).unwrap();
    assert_eq!(seqs(&cells(&m)), [2].into());
}

/// A small deterministic generator (xorshift), so the test needs no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Random puts, deletes, seals, compactions and oldest-only flushes: at every step the flushed
/// cells plus the memtable hold every cell written, each key in memory once, and what stays
/// in memory after a flush is exactly the cells not flushed.
#[test]
fn repeated_oldest_only_flushes_keep_every_cell_readable() {
    for policy in [
        InMemoryCompaction::Basic,
        InMemoryCompaction::Eager,
        InMemoryCompaction::Adaptive,
    ] {
        for seed in 1..=20u64 {
            let m = Memtable::new(Options {
                in_memory_flush_size: 400,
                pipeline_limit: 2,
                max_versions: u32::MAX,
                flush_oldest_segment_only: true,
                ..options(policy)
            });
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut written: BTreeSet<Shown> = BTreeSet::new();
            let mut flushed: BTreeSet<Shown> = BTreeSet::new();
            let mut durable = 0u64;
            for seq in 1..=600u64 {
                let row = format!("r{:02}", rng.below(30));
                let t = if rng.below(10) == 0 {
                    CellType::DeleteColumn
                } else {
                    CellType::Put
                };
                let ts = i64::try_from(rng.below(5)).unwrap_or(0);
                add(&m, &row, ts, t, seq);
                written.insert((row.into_bytes(), b"q".to_vec(), ts, t.code(), seq));
                match rng.below(40) {
                    0 => m.seal_active(),
                    // Smallest read point 0: every cell is newer than some reader, so even
                    // EAGER drops nothing; only the pipeline's shape changes.
                    1 => {
                        m.compact_in_memory(0);
                    }
                    2..=5 => {
                        let snap = m.snapshot();
                        let outside = m.min_seq_outside_snapshot();
                        let got = shown(&mut snap.iter());
                        for c in &got {
                            assert!(flushed.insert(c.clone()), "flushed twice: {c:?}");
                        }
                        let bound = outside.map_or(seq, |o| seq.min(o - 1));
                        assert!(bound >= durable, "the flushed id went back");
                        durable = bound;
                        assert!(
                            written.iter().all(|c| c.4 > durable || flushed.contains(c)),
                            "a cell at or below {durable} is not flushed"
                        );
                        m.release(snap).unwrap();
                    }
                    _ => {}
                }
                let memory: BTreeSet<Shown> = cells(&m).into_iter().collect();
                assert!(memory.is_disjoint(&flushed), "{policy:?} seed {seed}");
                let union: BTreeSet<Shown> = memory.union(&flushed).cloned().collect();
                assert_eq!(union, written, "{policy:?} seed {seed} seq {seq}");
            }
        }
    }
}

fn ttl_options(policy: InMemoryCompaction, ttl_ms: i64) -> Options {
    Options {
        ttl_ms: Some(ttl_ms),
        max_versions: 5,
        ..options(policy)
    }
}

fn add_col(m: &Memtable, row: &str, q: &str, ts: i64, t: CellType, seq: u64) {
    let cell = CellRef {
        row: row.as_bytes(),
        qualifier: q.as_bytes(),
        timestamp: ts,
        cell_type: t,
        seq,
        value: b"v",
        ttl: None,
    };
    assert_eq!(m.insert(&cell), Ok(true));
}

/// (row, qualifier, timestamp, type code) of every cell in memory.
fn keys(m: &Memtable) -> Vec<(String, String, i64, u8)> {
    cells(m)
        .into_iter()
        .map(|(r, q, ts, t, _)| {
            (
                String::from_utf8(r).unwrap_or_default(),
                String::from_utf8(q).unwrap_or_default(),
                ts,
                t,
            )
        })
        .collect()
}

fn k(row: &str, q: &str, ts: i64, t: CellType) -> (String, String, i64, u8) {
    (row.to_string(), q.to_string(), ts, t.code())
}

#[test]
fn eager_drops_cells_past_the_ttl_and_keeps_live_markers() {
    let m = Memtable::new(ttl_options(InMemoryCompaction::Eager, 1000));
    add_col(&m, "a", "q", 2000, CellType::Put, 1);
    add_col(&m, "a", "q", 500, CellType::Put, 2);
    add_col(&m, "b", "q", 100, CellType::Put, 3);
    // A live marker masking an older live put, and an expired marker.
    add_col(&m, "c", "q", 1900, CellType::Put, 4);
    add_col(&m, "c", "q", 1950, CellType::DeleteColumn, 5);
    add_col(&m, "d", "q", 300, CellType::DeleteColumn, 6);
    add_col(&m, "d", "r", 1800, CellType::Put, 7);
    m.seal_active();
    // now 1600: cells before 600 are past the TTL.
    let report = m.compact_in_memory_at(u64::MAX, 1600);
    assert!(report.swapped);
    assert_eq!(report.action, Action::Compact);
    assert_eq!(
        keys(&m),
        vec![
            k("a", "q", 2000, CellType::Put),
            k("c", "q", 1950, CellType::DeleteColumn),
            k("d", "r", 1800, CellType::Put),
        ]
    );
}

#[test]
fn eager_ttl_keeps_min_versions() {
    let m = Memtable::new(Options {
        min_versions: 2,
        ..ttl_options(InMemoryCompaction::Eager, 1000)
    });
    // Column q: three expired versions; two stay.
    add_col(&m, "a", "q", 100, CellType::Put, 1);
    add_col(&m, "a", "q", 200, CellType::Put, 2);
    add_col(&m, "a", "q", 300, CellType::Put, 3);
    // Column r: one live version and two expired; the newer expired one is the second version.
    add_col(&m, "a", "r", 5000, CellType::Put, 4);
    add_col(&m, "a", "r", 150, CellType::Put, 5);
    add_col(&m, "a", "r", 50, CellType::Put, 6);
    m.seal_active();
    assert!(m.compact_in_memory_at(u64::MAX, 10_000).swapped);
    assert_eq!(
        keys(&m),
        vec![
            k("a", "q", 300, CellType::Put),
            k("a", "q", 200, CellType::Put),
            k("a", "r", 5000, CellType::Put),
            k("a", "r", 150, CellType::Put),
        ]
    );
}

#[test]
fn expired_cells_go_whatever_their_sequence_id() {
    let m = Memtable::new(ttl_options(InMemoryCompaction::Eager, 1000));
    add_col(&m, "a", "q", 100, CellType::Put, 1);
    add_col(&m, "b", "q", 100, CellType::Put, 2);
    m.seal_active();
    // Seq 2 is above the smallest read point; an expired cell is still dropped, as a disk
    // compaction does: no read returns a cell past the TTL, whatever its read point.
    assert!(m.compact_in_memory_at(1, 5000).swapped);
    assert!(keys(&m).is_empty());
}

#[test]
fn without_a_clock_nothing_is_dropped_for_its_age() {
    let m = Memtable::new(ttl_options(InMemoryCompaction::Eager, 1000));
    add_col(&m, "a", "q", 100, CellType::Put, 1);
    add_col(&m, "a", "q", 90, CellType::Put, 2);
    m.seal_active();
    assert!(m.compact_in_memory(u64::MAX).swapped);
    assert_eq!(
        keys(&m),
        vec![
            k("a", "q", 100, CellType::Put),
            k("a", "q", 90, CellType::Put)
        ]
    );
    // With a clock, the next compaction measures the TTL by it.
    m.set_clock(Arc::new(ManualClock::new(1095)));
    add_col(&m, "b", "q", 1000, CellType::Put, 3);
    m.seal_active();
    assert!(m.compact_in_memory(u64::MAX).swapped);
    assert_eq!(
        keys(&m),
        vec![
            k("a", "q", 100, CellType::Put),
            k("b", "q", 1000, CellType::Put)
        ]
    );
}

#[test]
fn the_compaction_after_a_seal_applies_the_ttl() {
    let clock = Arc::new(ManualClock::new(10_000));
    let m = Memtable::new(Options {
        in_memory_flush_size: 20,
        ..ttl_options(InMemoryCompaction::Eager, 1000)
    });
    m.set_clock(clock.clone());
    m.set_smallest_read_point(u64::MAX);
    for seq in 1..=40u64 {
        // Every other cell is past the TTL at 10 000.
        let ts = if seq % 2 == 0 { 9_500 } else { 100 };
        add_col(&m, &format!("r{seq:02}"), "q", ts, CellType::Put, seq);
    }
    let kept = keys(&m);
    assert!(kept.iter().any(|c| c.2 == 9_500));
    // Only the active segment (not compacted yet) may still hold expired cells.
    let sealed_expired = kept.iter().filter(|c| c.2 == 100).count();
    assert!(
        sealed_expired < 5,
        "{sealed_expired} expired cells left of 20"
    );
}

#[test]
fn adaptive_counts_expired_cells_as_droppable() {
    let m = Memtable::new(ttl_options(InMemoryCompaction::Adaptive, 1000));
    for seq in 1..=10u64 {
        let ts = if seq <= 6 { 100 } else { 9_900 };
        add_col(&m, &format!("r{seq:02}"), "q", ts, CellType::Put, seq);
    }
    m.seal_active();
    let report = m.compact_in_memory_at(u64::MAX, 10_000);
    assert_eq!(report.action, Action::Compact);
    assert_eq!(report.cells_out, 4);
}

#[test]
fn a_row_cursor_shows_every_cell_of_its_row_and_skips_segments_without_it() {
    for policy in [InMemoryCompaction::None, InMemoryCompaction::Basic] {
        let m = Memtable::new(options(policy));
        assert!(m.iter_for_row(u64::MAX, b"a").is_none(), "empty memtable");
        // Three segments: rows a, b in the oldest; b, c in the next; d in the active one.
        put(&m, "a", 1, 1);
        put(&m, "b", 1, 2);
        m.seal_active();
        put(&m, "b", 2, 3);
        put(&m, "c", 1, 4);
        m.seal_active();
        if policy == InMemoryCompaction::Basic {
            m.compact_in_memory(MAX_SEQ);
        }
        put(&m, "d", 1, 5);
        for row in ["a", "b", "c", "d"] {
            let mut all = m.iter(u64::MAX);
            let expected: Vec<Shown> = shown(&mut all)
                .into_iter()
                .filter(|c| c.0 == row.as_bytes())
                .collect();
            let mut it = m.iter_for_row(u64::MAX, row.as_bytes()).expect("row held");
            let got: Vec<Shown> = shown(&mut it)
                .into_iter()
                .filter(|c| c.0 == row.as_bytes())
                .collect();
            assert_eq!(got, expected, "{policy:?} row {row}");
            assert!(!expected.is_empty());
        }
        // Row d lives only in the active segment: the cursor for it leaves the others out
        // (false positives aside, which 16 bits a row make rare for four rows).
        let mut only_d = m.iter_for_row(u64::MAX, b"d").expect("row held");
        assert!(shown(&mut only_d).iter().all(|c| c.0 == b"d"), "{policy:?}");
        assert!(
            m.iter_for_row(u64::MAX, b"zz-not-here").is_none(),
            "{policy:?}"
        );
    }
}

/// More segments than the merge's tie bitmap covers (64): a key held by many segments still
/// shows once, forward and backward, with the rows around it in order.
#[test]
fn a_key_in_seventy_segments_shows_once() {
    let m = Memtable::new(options(InMemoryCompaction::Basic));
    for s in 0..70u64 {
        put(&m, "same", 5, 1);
        put(&m, &format!("r{s:03}"), 1, 100 + s);
        m.seal_active();
    }
    put(&m, "same", 5, 1);
    let forward = cells(&m);
    assert_eq!(forward.len(), 71);
    assert_eq!(forward.iter().filter(|c| c.0 == b"same").count(), 1);
    assert!(forward.windows(2).all(|w| w[0].0 < w[1].0));
    let mut it = m.iter(u64::MAX);
    let mut backward = Vec::new();
    let mut more = it.seek_to_last();
    while more {
        backward.push(it.current().row.to_vec());
        more = it.prev();
    }
    backward.reverse();
    let rows: Vec<Vec<u8>> = forward.iter().map(|c| c.0.clone()).collect();
    assert_eq!(backward, rows);
}
