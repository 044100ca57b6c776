//! In-memory compaction: each policy's decisions, flat index figures, and a disk flush racing
//! compactions and writers.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use strata_model::cell::CellType;
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;
use strata_storage::memtable::{Action, Memtable, Options, MAX_SEQ};

fn options(policy: InMemoryCompaction) -> Options {
    Options {
        chunk_size: 64 << 10,
        policy,
        in_memory_flush_size: u64::MAX,
        ..Options::default()
    }
}

fn add(m: &Memtable, row: &[u8], q: &[u8], ts: i64, t: CellType, seq: u64, value: &[u8]) {
    let cell = CellRef {
        row,
        qualifier: q,
        timestamp: ts,
        cell_type: t,
        seq,
        value,
        ttl: None,
    };
    assert_eq!(m.insert(&cell), Ok(true));
}

/// Row, qualifier, timestamp, type, seq.
type Shown = (Vec<u8>, Vec<u8>, i64, CellType, u64);

/// Every cell the memtable shows at `read_point`.
fn cells(m: &Memtable, read_point: u64) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut it = m.iter(read_point);
    let mut more = it.seek_to_first();
    while more {
        let c = it.current();
        out.push((
            c.row.to_vec(),
            c.qualifier.to_vec(),
            c.timestamp,
            c.cell_type,
            c.seq,
        ));
        more = it.next();
    }
    out
}

#[test]
fn none_never_seals_on_its_own() {
    let m = Memtable::new(Options {
        in_memory_flush_size: 10,
        ..options(InMemoryCompaction::None)
    });
    for i in 0..50u64 {
        add(
            &m,
            &i.to_be_bytes(),
            b"q",
            1,
            CellType::Put,
            i + 1,
            &[0; 100],
        );
    }
    assert_eq!(m.stats().segments, 1);
    assert!(!m.needs_in_memory_compaction());
    assert_eq!(m.compact_in_memory(MAX_SEQ).action, Action::Noop);
}

#[test]
fn basic_seals_at_the_threshold_flattens_and_merges_past_the_limit() {
    let m = Memtable::new(Options {
        in_memory_flush_size: 250,
        ..options(InMemoryCompaction::Basic)
    });
    for i in 0..100u64 {
        add(
            &m,
            &i.to_be_bytes(),
            b"q",
            1,
            CellType::Put,
            i + 1,
            &[7; 100],
        );
        let stats = m.stats();
        // Active + flat size tiers once each seal's compaction ran: about 50 seals of two
        // cells leave at most a handful of tiers.
        assert!(stats.segments <= 1 + 6, "{stats:?}");
        assert_eq!(stats.flat_segments, stats.segments - 1, "{stats:?}");
    }
    assert_eq!(m.stats().cells, 100);
    assert_eq!(cells(&m, MAX_SEQ).len(), 100);
}

/// BASIC past the limit merges the newest size tier only: segments of ten cells sealed one
/// by one, a compaction after each seal.
#[test]
fn basic_merges_the_newest_tier_so_a_key_is_copied_a_few_times() {
    let m = Memtable::new(options(InMemoryCompaction::Basic));
    let mut seq = 0u64;
    let mut seal_ten = || {
        for _ in 0..10 {
            seq += 1;
            add(
                &m,
                &(seq * 7919 % 1000).to_be_bytes(),
                b"q",
                1,
                CellType::Put,
                seq,
                b"v",
            );
        }
        m.seal_active();
        let r = m.compact_in_memory(MAX_SEQ);
        assert!(r.swapped, "{r:?}");
        r.cells_merged
    };
    // Pipeline (newest first) before each compaction → after; the cells merged.
    let expected = [
        0,  // [10] → [10]
        0,  // [10 10] → [10 10]: within the limit
        30, // [10 10 10] → [30]
        0,  // [10 30]
        50, // [10 10 30]: 10 ≥ 10/2, 20 ≥ 30/2 → [50]
        0,  // [10 50]
        20, // [10 10 50]: 20 < 50/2 → [20 50]
        80, // [10 20 50]: 10 ≥ 20/2, 30 ≥ 50/2 → [80]
    ];
    for (seal, want) in expected.into_iter().enumerate() {
        assert_eq!(seal_ten(), want, "seal {}", seal + 1);
    }
    assert_eq!(m.stats().segments, 2, "active + [80]");
    // 64 seals in all: merging the whole pipeline past the limit would copy about 16 keys
    // per cell; tiers copy a few.
    let mut merged = 180;
    for _ in 8..64 {
        merged += seal_ten();
        assert!(m.stats().segments <= 1 + 6, "{:?}", m.stats());
    }
    assert!(merged <= 640 * 5, "{merged} keys merged for 640 cells");
    assert_eq!(cells(&m, MAX_SEQ).len(), 640);
}

#[test]
fn basic_decisions_step_by_step() {
    let m = Memtable::new(options(InMemoryCompaction::Basic));
    add(&m, b"a", b"q", 1, CellType::Put, 1, b"v");
    m.seal_active();
    let r = m.compact_in_memory(MAX_SEQ);
    assert_eq!(
        (r.action, r.swapped, r.cells_out),
        (Action::Flatten, true, 1)
    );
    assert_eq!(m.compact_in_memory(MAX_SEQ).action, Action::Noop);
    add(&m, b"a", b"q", 2, CellType::Put, 2, b"v");
    m.seal_active();
    let r = m.compact_in_memory(MAX_SEQ);
    assert_eq!(r.action, Action::Flatten); // two segments: within the limit
    add(&m, b"a", b"q", 3, CellType::Put, 3, b"v");
    m.seal_active();
    let r = m.compact_in_memory(MAX_SEQ);
    // Three segments: merged, nothing dropped (BASIC keeps every version).
    assert_eq!(
        (r.action, r.segments_in, r.cells_out),
        (Action::Merge, 3, 3)
    );
    assert_eq!(m.stats().segments, 2);
    assert_eq!(cells(&m, MAX_SEQ).len(), 3);
}

#[test]
fn eager_drops_old_versions_and_masked_puts_but_keeps_markers() {
    let m = Memtable::new(options(InMemoryCompaction::Eager));
    for seq in 1..=3 {
        add(&m, b"r", b"a", seq as i64, CellType::Put, seq, b"v");
    }
    m.seal_active();
    add(&m, b"r", b"b", 5, CellType::Put, 4, b"v");
    add(&m, b"r", b"b", 10, CellType::DeleteColumn, 5, b"");
    m.seal_active();
    let r = m.compact_in_memory(MAX_SEQ);
    assert_eq!((r.action, r.cells_in, r.cells_out), (Action::Compact, 5, 2));
    let left = cells(&m, MAX_SEQ);
    assert_eq!(left[0].2, 3); // the newest version of column a
    assert_eq!(left[1].3, CellType::DeleteColumn);
    assert_eq!(m.stats().segments, 2);
}

#[test]
fn eager_keeps_what_an_older_reader_may_see() {
    let m = Memtable::new(options(InMemoryCompaction::Eager));
    for seq in 1..=3 {
        add(&m, b"r", b"a", seq as i64, CellType::Put, seq, b"v");
    }
    m.seal_active();
    // A reader at read point 1 sees version 1; versions 2 and 3 are newer than it.
    let r = m.compact_in_memory(1);
    assert_eq!(r.cells_out, 3);
    let r = m.compact_in_memory(3);
    assert_eq!(r.action, Action::Noop); // one flat segment: nothing left to do
}

#[test]
fn adaptive_does_what_basic_does_when_new_data_holds_few_duplicates() {
    // Two segments of new keys (within the pipeline limit): flattened one for one, as BASIC
    // does, without the exact count's merge.
    let unique = Memtable::new(options(InMemoryCompaction::Adaptive));
    for i in 0..20u64 {
        add(
            &unique,
            &i.to_be_bytes(),
            b"q",
            1,
            CellType::Put,
            i + 1,
            b"v",
        );
        if i % 10 == 9 {
            unique.seal_active();
        }
    }
    let r = unique.compact_in_memory(MAX_SEQ);
    assert_eq!((r.action, r.cells_out), (Action::Flatten, 20));
    assert_eq!(cells(&unique, MAX_SEQ).len(), 20);

    // Each row once per segment, rewritten in the next: no duplicate within a segment, all
    // across them; the exact count runs and copies.
    let rewritten = Memtable::new(options(InMemoryCompaction::Adaptive));
    for round in 0..2u64 {
        for i in 0..10u64 {
            let seq = round * 10 + i + 1;
            add(
                &rewritten,
                &i.to_be_bytes(),
                b"q",
                seq as i64,
                CellType::Put,
                seq,
                b"v",
            );
        }
        rewritten.seal_active();
    }
    let r = rewritten.compact_in_memory(MAX_SEQ);
    assert_eq!((r.action, r.cells_out), (Action::Compact, 10));
}

#[test]
fn adaptive_merges_unique_keys_and_compacts_churn() {
    let unique = Memtable::new(options(InMemoryCompaction::Adaptive));
    for i in 0..40u64 {
        add(
            &unique,
            &i.to_be_bytes(),
            b"q",
            1,
            CellType::Put,
            i + 1,
            b"v",
        );
        if i % 10 == 9 {
            unique.seal_active();
        }
    }
    let r = unique.compact_in_memory(MAX_SEQ);
    assert_eq!((r.action, r.cells_out), (Action::Merge, 40));

    let churn = Memtable::new(options(InMemoryCompaction::Adaptive));
    for i in 0..40u64 {
        add(
            &churn,
            &(i % 4).to_be_bytes(),
            b"q",
            i as i64,
            CellType::Put,
            i + 1,
            b"v",
        );
        if i % 10 == 9 {
            churn.seal_active();
        }
    }
    let r = churn.compact_in_memory(MAX_SEQ);
    assert_eq!((r.action, r.cells_out), (Action::Compact, 4));
}

#[test]
fn flat_index_is_smaller_than_the_skiplist() {
    let m = Memtable::new(Options {
        chunk_size: 2 << 20,
        ..options(InMemoryCompaction::Basic)
    });
    let n = 100_000u64;
    for i in 0..n {
        let row = format!("row-{:012}", (i * 7919) % n);
        add(
            &m,
            row.as_bytes(),
            b"qual01",
            1,
            CellType::Put,
            i + 1,
            &[1; 100],
        );
    }
    let list = m.stats();
    m.seal_active();
    assert!(m.compact_in_memory(MAX_SEQ).swapped);
    let flat = m.stats();
    assert_eq!((flat.cells, flat.flat_segments), (n, 1));
    let per_cell = |s: u64| s as f64 / n as f64;
    let (l, f) = (per_cell(list.index_bytes), per_cell(flat.index_bytes));
    println!(
        "index bytes per cell: skiplist {l:.1}, flat {f:.1} (16-byte entry: chunk id, offset and \
         length, tag; 8-byte dense row key, 2-byte column run length, 0.5 upper level and chunk \
         handles, 8-byte timestamp and 2 length bytes in the chunk)"
    );
    assert!(f <= 36.6 && l > 72.0, "{l} {f}");
}

#[test]
fn disk_flushes_racing_compactions_and_writers_lose_and_duplicate_nothing() {
    for policy in [InMemoryCompaction::Basic, InMemoryCompaction::Adaptive] {
        let m = Arc::new(Memtable::new(Options {
            chunk_size: 4096,
            in_memory_flush_size: 2_000,
            ..options(policy)
        }));
        let flushed = Arc::new(Mutex::new(Vec::new()));
        let done = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..2u64)
            .map(|w| {
                let m = Arc::clone(&m);
                std::thread::spawn(move || {
                    for i in 0..5_000u64 {
                        let seq = w * 10_000 + i + 1;
                        add(&m, &seq.to_be_bytes(), b"q", 1, CellType::Put, seq, b"v");
                    }
                })
            })
            .collect();
        let compactor = {
            let (m, done) = (Arc::clone(&m), Arc::clone(&done));
            // Unique keys: ADAPTIVE merges, so nothing may be dropped by either policy.
            std::thread::spawn(move || {
                while !done.load(Relaxed) {
                    m.compact_in_memory(MAX_SEQ);
                }
            })
        };
        // Readers meanwhile see each cell once, in order, whatever segments hold it.
        let reader = {
            let (m, done) = (Arc::clone(&m), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut reads = 0u64;
                loop {
                    let seqs: Vec<u64> = cells(&m, MAX_SEQ).iter().map(|c| c.4).collect();
                    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
                    reads += 1;
                    if done.load(Relaxed) {
                        break reads;
                    }
                }
            })
        };
        for _ in 0..20 {
            let snap = m.snapshot();
            let mut it = snap.iter();
            let mut more = it.seek_to_first();
            let mut out = flushed.lock().unwrap_or_else(|e| e.into_inner());
            while more {
                out.push(it.current().seq);
                more = it.next();
            }
            drop(out);
            assert_eq!(m.release(snap), Ok(()));
            std::thread::yield_now();
        }
        writers.into_iter().for_each(|w| w.join().unwrap());
        done.store(true, Relaxed);
        compactor.join().unwrap();
        assert!(reader.join().unwrap() > 0);
        let mut seqs = flushed.lock().unwrap().clone();
        seqs.extend(cells(&m, MAX_SEQ).iter().map(|c| c.4));
        seqs.sort_unstable();
        let expected: Vec<u64> = (0..2u64)
            .flat_map(|w| (0..5_000u64).map(move |i| w * 10_000 + i + 1))
            .collect();
        assert_eq!(seqs, expected, "{policy:?}");
    }
}
