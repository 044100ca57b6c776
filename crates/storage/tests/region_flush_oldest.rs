//! Flushing only the oldest in-memory segment (`hbase.hregion.compacting.memstore.flush.oldest`):
//! each flush writes one segment, reads see files plus what stays in memory at every step, the
//! flushed sequence id (and so WAL truncation) stops below what is still only in memory, and a
//! crash after any of these flushes loses nothing on reopen.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::collections::BTreeMap;

use bytes::Bytes;
use region_support::{put, table, Env};
use strata_model::ops::{Delete, Scan};
use strata_model::schema::{InMemoryCompaction, TableDescriptor};
use strata_storage::Region;

/// Family `f` flushes its oldest segment only; family `g` flushes whole.
fn schema() -> TableDescriptor {
    let mut t = table(&["f", "g"]);
    t.families[0].in_memory_compaction = InMemoryCompaction::Basic;
    t.families[0]
        .set("hbase.hregion.compacting.memstore.flush.oldest", "true")
        .unwrap();
    t.families[1].in_memory_compaction = InMemoryCompaction::Basic;
    t
}

/// (family, row) → the write number of the latest value.
type Model = BTreeMap<(String, String), u64>;

fn scan_all(r: &Region) -> Model {
    let mut out = Model::new();
    let mut s = r.scan(&Scan::default()).unwrap();
    while let Some(row) = s.next_row().unwrap() {
        for c in row {
            let key = (
                String::from_utf8_lossy(&c.family).into_owned(),
                String::from_utf8_lossy(&c.row).into_owned(),
            );
            let value = String::from_utf8_lossy(&c.value);
            assert_eq!(value.len(), 1000);
            let i = value.trim_start_matches('0').parse().unwrap_or(0);
            assert!(out.insert(key.clone(), i).is_none(), "{key:?} shown twice");
        }
    }
    out
}

fn value(i: u64) -> String {
    format!("{i:0>1000}")
}

/// Writes `n` puts to `f` (about 1 KB each, so in-memory flushes happen) and one in ten to
/// `g`, over 300 rows, deleting a row now and then.
fn write(r: &Region, model: &mut Model, from: u64, n: u64) {
    for i in from..from + n {
        let row = format!("row{:03}", (i * 7) % 300);
        let ts = 1_000 + i64::try_from(i).unwrap();
        put(r, &row, "f", "q", ts, &value(i));
        model.insert(("f".into(), row.clone()), i);
        if i % 10 == 0 {
            put(r, &row, "g", "q", ts, &value(i));
            model.insert(("g".into(), row.clone()), i);
        }
        if i % 97 == 0 {
            let delete = Delete::new(Bytes::from(row.clone()))
                .family_upto("f", ts)
                .family_upto("g", ts);
            r.delete(&delete).unwrap();
            model.remove(&("f".to_string(), row.clone()));
            model.remove(&("g".to_string(), row));
        }
    }
}

fn files(r: &Region, family: &str) -> usize {
    r.store_stats()
        .iter()
        .find(|s| s.family == family)
        .unwrap()
        .files
}

fn memtable_bytes(r: &Region, family: &str) -> u64 {
    r.store_stats()
        .iter()
        .find(|s| s.family == family)
        .unwrap()
        .memtable_bytes
}

#[test]
fn oldest_segment_flushes_keep_reads_whole_and_survive_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), schema());
    let mut r = env.open();
    let mut model = Model::new();
    let mut next = 0u64;
    let mut partial_flushes = 0;
    for round in 0..6 {
        // About 4 MB into `f`: at least two in-memory flushes each round.
        write(&r, &mut model, next, 4_000);
        next += 4_000;
        assert_eq!(scan_all(&r), model, "round {round} before flushing");
        for _ in 0..2 {
            let before = memtable_bytes(&r, "f");
            let f_files = files(&r, "f");
            let last = r.read_point();
            let flushed = r.flush().unwrap();
            assert!(flushed <= last);
            let after = memtable_bytes(&r, "f");
            if after > 0 {
                // Only the oldest segment went: the rest stays in memory and un-flushed.
                partial_flushes += 1;
                assert!(after < before, "round {round}: {after} !< {before}");
                assert!(flushed < last, "round {round}: flushed {flushed} of {last}");
                assert_eq!(files(&r, "f"), f_files + 1);
            }
            // `g` always flushes whole.
            assert_eq!(memtable_bytes(&r, "g"), 0);
            assert_eq!(scan_all(&r), model, "round {round} after a flush");
        }
        // A crash (no close, no final flush) every other round: the WAL gives back what
        // stayed in memory.
        if round % 2 == 1 {
            drop(r);
            r = env.open();
            assert_eq!(scan_all(&r), model, "round {round} after reopening");
        }
    }
    assert!(
        partial_flushes >= 4,
        "only {partial_flushes} partial flushes"
    );
    // Closing flushes everything; nothing is replayed after it.
    r.close().unwrap();
    drop(r);
    let r = env.open();
    assert_eq!(r.memtable_bytes(), 0);
    assert_eq!(scan_all(&r), model);
}

#[test]
fn writes_racing_oldest_segment_flushes_are_all_kept() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), schema());
    let r = env.open();
    let writers: Vec<_> = (0..2u64)
        .map(|t| {
            let r = r.clone();
            std::thread::spawn(move || {
                for i in 0..3_000u64 {
                    let row = format!("t{t}-{i:05}");
                    put(&r, &row, "f", "q", 5, &value(i));
                }
            })
        })
        .collect();
    let flusher = {
        let r = r.clone();
        std::thread::spawn(move || {
            for _ in 0..40 {
                r.flush().unwrap();
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    flusher.join().unwrap();
    let check = |r: &Region| {
        let got = scan_all(r);
        assert_eq!(got.len(), 6_000);
        for t in 0..2u64 {
            for i in 0..3_000u64 {
                assert_eq!(got[&("f".to_string(), format!("t{t}-{i:05}"))], i);
            }
        }
    };
    check(&r);
    drop(r);
    let r = env.open();
    check(&r);
}
