//! In-memory compaction inside a region: EAGER drops overwritten versions once no reader
//! needs them (the region tells the memtable its oldest reader's read point), and a reader
//! that started before keeps seeing what it saw.
#![allow(clippy::unwrap_used)]

mod region_support;

use bytes::Bytes;
use region_support::{table, Env};
use strata_model::ops::{Get, Put, Scan};
use strata_model::schema::InMemoryCompaction;

fn churn(policy: InMemoryCompaction) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut t = table(&["f"]);
    t.families[0].versions = 1;
    t.families[0].in_memory_compaction = policy;
    let env = Env::new(dir.path(), t);
    let r = env.open();
    let put = |row: u64, i: u64| {
        r.put(&Put::new(Bytes::from(format!("row{row:02}"))).add(
            "f",
            "q",
            Bytes::from(format!("{i:0>1000}")),
        ))
        .unwrap();
    };
    put(0, 0);
    // A scanner opened now must keep seeing version 0 of row00 whatever is compacted.
    let mut early = r.scan(&Scan::default()).unwrap();
    for i in 1..=4000u64 {
        put(i % 20, i);
    }
    let first = early.next_row().unwrap().unwrap();
    assert_eq!(first[0].value, Bytes::from(format!("{:0>1000}", 0)));
    drop(early);
    // With no reader left behind, the next in-memory compactions may drop old versions.
    for i in 4001..=12000u64 {
        put(i % 20, i);
    }
    for row in 0..20u64 {
        let got = r
            .get(&Get::new(Bytes::from(format!("row{row:02}"))))
            .unwrap();
        let last = (1..=12000u64).rev().find(|i| i % 20 == row).unwrap();
        assert_eq!(
            got[0].value,
            Bytes::from(format!("{last:0>1000}")),
            "row {row}"
        );
    }
    let stats = &r.store_stats()[0];
    (stats.memtable_cells, stats.memtable_bytes)
}

#[test]
fn eager_drops_overwritten_versions_and_basic_keeps_them() {
    let (eager_cells, eager_bytes) = churn(InMemoryCompaction::Eager);
    let (basic_cells, _) = churn(InMemoryCompaction::Basic);
    assert_eq!(basic_cells, 12001, "BASIC never drops");
    assert!(
        eager_cells < 6000,
        "EAGER kept {eager_cells} of 12001 cells ({eager_bytes} bytes)"
    );
}

/// EAGER drops cells past the family's TTL by the region's clock: a stream of short-lived
/// cells (each row written once, with its own timestamp) shrinks to the live ones.
#[test]
fn eager_drops_cells_past_the_ttl_by_the_region_clock() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = table(&["f"]);
    t.families[0].versions = 1;
    t.families[0].ttl = strata_model::schema::Ttl::Seconds(60);
    t.families[0].in_memory_compaction = InMemoryCompaction::Eager;
    let env = Env::new(dir.path(), t);
    let r = env.open();
    // 8000 rows of 1 KB, one a second by the region's clock: all but the last minute's are
    // expired by the time later in-memory compactions run.
    for i in 0..8000u64 {
        r.put(&Put::new(Bytes::from(format!("row{i:05}"))).add(
            "f",
            "q",
            Bytes::from(format!("{i:0>1000}")),
        ))
        .unwrap();
        env.clock.advance(1000);
    }
    let cells = r.store_stats()[0].memtable_cells;
    assert!(
        cells < 4000,
        "EAGER kept {cells} of 8000 cells, most expired"
    );
    // The newest rows are readable, an expired one is not.
    let last = r.get(&Get::new(Bytes::from("row07999"))).unwrap();
    assert_eq!(last.len(), 1);
    assert!(r
        .get(&Get::new(Bytes::from("row00000")))
        .unwrap()
        .is_empty());
}

/// With a background pool, a seal hands the in-memory compaction to the pool: writers never
/// run it, and EAGER still drops the overwritten versions soon after.
#[test]
fn seals_compact_on_the_background_pool() {
    use strata_storage::background::Background;

    let dir = tempfile::tempdir().unwrap();
    let mut t = table(&["f"]);
    t.families[0].versions = 1;
    t.families[0].in_memory_compaction = InMemoryCompaction::Eager;
    let env = Env::new(dir.path(), t);
    // At the process's priority: nice-19 compactions starve behind parallel tests.
    let bg = Background::with_priority(1, 0);
    let r = env.open_with(None, Some(bg.clone())).unwrap();
    for i in 0..12000u64 {
        r.put(&Put::new(Bytes::from(format!("row{:02}", i % 20))).add(
            "f",
            "q",
            Bytes::from(format!("{i:0>1000}")),
        ))
        .unwrap();
    }
    // The pool's compactions catch up with the seals.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut cells = r.store_stats()[0].memtable_cells;
    while cells >= 6000 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        r.put(&Put::new(Bytes::from("row00")).add("f", "q", Bytes::from("x")))
            .unwrap();
        cells = r.store_stats()[0].memtable_cells;
    }
    assert!(cells < 6000, "EAGER kept {cells} of 12000 cells");
    let got = r.get(&Get::new(Bytes::from("row19"))).unwrap();
    assert_eq!(got[0].value, Bytes::from(format!("{:0>1000}", 11999)));
    r.close().unwrap();
    bg.shutdown();
}

/// A region that took no write between two looks merges each memtable into one flat segment,
/// every cell still read the same; a write in between puts the merge off to the next look.
#[test]
fn an_idle_region_merges_its_memtable_into_one_flat_segment() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = table(&["f"]);
    t.families[0].versions = 3;
    t.families[0].in_memory_compaction = InMemoryCompaction::Basic;
    let env = Env::new(dir.path(), t);
    let r = env.open();
    // About 8 MB: several in-memory flushes.
    for i in 0..8000u64 {
        r.put(&Put::new(Bytes::from(format!("row{:04}", i % 3000))).add(
            "f",
            "q",
            Bytes::from(format!("{i:0>1000}")),
        ))
        .unwrap();
    }
    let segments = |r: &strata_storage::Region| {
        let stats = &r.memtable_listing()[0].stats;
        (stats.segments, stats.flat_segments)
    };
    let (before, _) = segments(&r);
    assert!(before > 2, "several segments to merge: {before}");
    let read = |r: &strata_storage::Region| {
        ["row0000", "row1234", "row2999"]
            .iter()
            .map(|row| {
                r.get(&Get::new(Bytes::from(*row)).with_max_versions(3))
                    .unwrap()
            })
            .collect::<Vec<_>>()
    };
    let expected = read(&r);
    assert!(
        !r.merge_memtables_if_idle(),
        "the first look only takes the mark"
    );
    r.put(&Put::new(Bytes::from("row0000")).add("f", "q", Bytes::from("x")))
        .unwrap();
    assert!(!r.merge_memtables_if_idle(), "a write since the last look");
    assert!(r.merge_memtables_if_idle(), "idle since the last look");
    assert_eq!(
        segments(&r),
        (2, 1),
        "one flat segment and an empty active one"
    );
    let mut after = read(&r);
    // The write between the looks is the newest version of row0000.
    assert_eq!(after[0][0].value, Bytes::from("x"));
    after[0].remove(0);
    let mut expected = expected;
    expected[0].pop();
    assert_eq!(after, expected, "the same cells, versions included");
    assert!(!r.merge_memtables_if_idle(), "nothing left to merge");
    r.close().unwrap();
}
