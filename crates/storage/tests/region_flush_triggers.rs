//! Flushes start on their own: at the flush size, and when the process's memtable budget is
//! exceeded (on the background pool or the writing thread).
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use region_support::*;
use strata_model::ops::{Get, Put};
use strata_storage::background::{Background, MemoryBudget};
use strata_storage::clock::Clock;
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

fn fill(r: &Region, rows: u32, prefix: &str) {
    for i in 0..rows {
        r.put(&Put::new(format!("{prefix}{i:06}")).add("f", "q", vec![b'v'; 1000]))
            .unwrap();
    }
}

fn wait_for(mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_flush_size_triggers_a_flush_on_the_writer_without_a_pool() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]).with_memstore_flushsize(1 << 20));
    let r = env.open();
    fill(&r, 3000, "r");
    assert!(
        r.counters()
            .flushes
            .load(std::sync::atomic::Ordering::Relaxed)
            >= 1
    );
    assert!(r.memtable_bytes() < 1 << 20);
    assert_eq!(r.get(&Get::new("r000001")).unwrap().len(), 1);
}

#[test]
fn the_budget_flushes_the_largest_regions_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    // At the process's priority: nice-19 compactions starve behind parallel tests.
    let bg = Background::with_priority(2, 0);
    let budget = MemoryBudget::new(2 << 20);
    let wal = Arc::new(Wal::open(dir.path().join("wal"), WalOptions::default()).unwrap());
    let open = |id: u64| {
        let env = Env::new(dir.path(), table(&["f"]));
        let mut info = env.info.clone();
        info.region_id = id;
        Region::open(RegionConfig {
            dir: dir
                .path()
                .join("t")
                .join(strata_storage::region::region_dir_name(id)),
            table: env.table.clone(),
            info,
            wal: wal.clone(),
            cache: None,
            clock: env.clock.clone(),
            background: Some(bg.clone()),
            budget: Some(budget.clone()),
            volumes: None,
        })
        .unwrap()
    };
    let (a, b) = (open(1), open(2));
    // Each region stays below its own 128 MiB flush size; together they pass the budget.
    fill(&a, 1500, "a");
    fill(&b, 1500, "b");
    wait_for(|| budget.used() <= budget.limit());
    let flushes = |r: &Region| {
        r.counters()
            .flushes
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    assert!(flushes(&a) + flushes(&b) >= 1);
    assert_eq!(a.get(&Get::new("a000001")).unwrap().len(), 1);
    assert_eq!(b.get(&Get::new("b001499")).unwrap().len(), 1);
    a.close().unwrap();
    b.close().unwrap();
    assert_eq!(budget.used(), 0);
    bg.shutdown();
    assert_eq!(bg.failures.load(std::sync::atomic::Ordering::Relaxed), 0);
}

/// A flush asked for directly (as an admin flush does) tells the budget at once: its reading
/// after the flush is the memtables' size, not the size before the flush until the next write.
#[test]
fn the_budget_is_true_right_after_a_direct_flush() {
    let dir = tempfile::tempdir().unwrap();
    let budget = MemoryBudget::new(256 << 20);
    let env = Env::new(dir.path(), table(&["f"]));
    let r = Region::open(RegionConfig {
        dir: dir.path().join("t").join("r"),
        table: env.table.clone(),
        info: env.info.clone(),
        wal: Arc::new(Wal::open(dir.path().join("wal"), WalOptions::default()).unwrap()),
        cache: None,
        clock: env.clock.clone(),
        background: None,
        budget: Some(budget.clone()),
        volumes: None,
    })
    .unwrap();
    fill(&r, 200, "r");
    let before = budget.used();
    assert!(before >= 200 * 1000, "{before} bytes");
    r.flush().unwrap();
    assert_eq!(budget.used(), r.memtable_bytes());
    assert!(budget.used() < before / 10, "{} bytes", budget.used());
    r.close().unwrap();
    assert_eq!(budget.used(), 0);
}

/// Flushes start at the budget's flush mark (90% of its limit), before any writer would wait.
#[test]
fn the_budget_starts_flushes_before_writers_would_wait() {
    let dir = tempfile::tempdir().unwrap();
    // At the process's priority: nice-19 compactions starve behind parallel tests.
    let bg = Background::with_priority(2, 0);
    let budget = MemoryBudget::new(8 << 20);
    let env = Env::new(dir.path(), table(&["f"]));
    let r = Region::open(RegionConfig {
        dir: dir.path().join("t").join("r"),
        table: env.table.clone(),
        info: env.info.clone(),
        wal: Arc::new(Wal::open(dir.path().join("wal"), WalOptions::default()).unwrap()),
        cache: None,
        clock: env.clock.clone(),
        background: Some(bg.clone()),
        budget: Some(budget.clone()),
        volumes: None,
    })
    .unwrap();
    let flushes = || {
        r.counters()
            .flushes
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    let mark = budget.limit() / 100 * 90;
    let mut i = 0;
    while budget.used() <= mark && flushes() == 0 {
        r.put(&Put::new(format!("r{i:06}")).add("f", "q", vec![b'v'; 1000]))
            .unwrap();
        i += 1;
    }
    // One row past the mark: far below the limit, where writers would start waiting.
    assert!(budget.used() < budget.limit(), "{} bytes", budget.used());
    wait_for(|| flushes() >= 1);
    wait_for(|| budget.used() < mark);
    assert_eq!(r.get(&Get::new("r000000")).unwrap().len(), 1);
    r.close().unwrap();
    bg.shutdown();
    assert_eq!(bg.failures.load(std::sync::atomic::Ordering::Relaxed), 0);
}

#[test]
fn an_acknowledged_write_is_visible_to_the_next_read() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let r = r.clone();
            std::thread::spawn(move || {
                for i in 0..2000 {
                    let row = format!("t{t}-{i}");
                    r.put(&Put::new(row.clone()).add("f", "q", "v")).unwrap();
                    assert_eq!(r.get(&Get::new(row)).unwrap().len(), 1, "read-your-writes");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn the_pool_compacts_after_flushes() {
    let dir = tempfile::tempdir().unwrap();
    // At the process's priority: nice-19 compactions starve behind parallel tests.
    let bg = Background::with_priority(1, 0);
    let env = Env::new(dir.path(), table(&["f"]).with_memstore_flushsize(1 << 20));
    let r = env.open_with(None, Some(bg.clone())).unwrap();
    // Six files, then a compaction check on the pool (as a background flush asks for).
    for round in 0..6 {
        fill(&r, 300, &format!("k{round}-"));
        r.flush().unwrap();
    }
    assert_eq!(r.store_stats()[0].files, 6);
    r.request_compaction();
    let compactions = || {
        r.compaction_counters()
            .compactions
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    wait_for(|| compactions() >= 1);
    wait_for(|| r.store_stats()[0].files < 6);
    assert_eq!(r.get(&Get::new("k0-000001")).unwrap().len(), 1);
    assert_eq!(r.get(&Get::new("k5-000299")).unwrap().len(), 1);
    r.close().unwrap();
    bg.shutdown();
}

#[test]
fn the_oldest_unflushed_edit_is_stamped_by_writes_cleared_by_flushes_and_kept_by_replay() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    assert_eq!(r.oldest_unflushed_edit_ms(), None, "nothing written yet");
    put(&r, "a", "f", "q", 1, "v1");
    let first = env.clock.now_ms();
    assert_eq!(r.oldest_unflushed_edit_ms(), Some(first));
    // Later writes do not make the oldest edit younger.
    env.clock.advance(5_000);
    put(&r, "b", "f", "q", 1, "v2");
    assert_eq!(r.oldest_unflushed_edit_ms(), Some(first));
    r.flush().unwrap();
    assert_eq!(
        r.oldest_unflushed_edit_ms(),
        None,
        "every edit is in a file"
    );
    env.clock.advance(1_000);
    put(&r, "c", "f", "q", 1, "v3");
    assert_eq!(r.oldest_unflushed_edit_ms(), Some(first + 6_000));
    // A crash (no close): the edit replayed on open counts from the open.
    drop(r);
    env.clock.advance(60_000);
    let r = env.open();
    assert_eq!(r.oldest_unflushed_edit_ms(), Some(first + 66_000));
    assert_eq!(get(&r, Get::new("c")).len(), 1);
    r.close().unwrap();
    let r = env.open();
    assert_eq!(
        r.oldest_unflushed_edit_ms(),
        None,
        "closed after a flush: nothing to replay"
    );
}
