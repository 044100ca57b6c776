//! `Region::try_mutate_row_now`: a row of puts and deletes applied on the calling thread
//! when nothing on the way waits, and declined, changing nothing, when something would.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::Arc;

use bytes::Bytes;
use region_support::*;
use strata_model::ops::{Delete, Get, Increment, Mutation, Put, RowMutations};
use strata_storage::background::Background;
use strata_storage::region::{Region, WriteNow};
use strata_storage::Error;

/// A region with a background pool (writes in place need one: flushes must not run on the
/// writing thread).
fn open(env: &Env) -> (Region, Arc<Background>) {
    // At the process's priority: nice-19 compactions starve behind parallel tests.
    let bg = Background::with_priority(1, 0);
    (env.open_with(None, Some(bg.clone())).unwrap(), bg)
}

fn done(outcome: WriteNow) -> strata_storage::Result<u64> {
    match outcome {
        WriteNow::Done(r) => r.map(|r| r.seq),
        other => panic!("expected Done, got {other:?}"),
    }
}

#[test]
fn a_put_in_place_is_visible_and_survives_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let (r, bg) = open(&env);
    let first = done(r.try_mutate_row_now(&put_row("a", "q", 5, "v1"))).unwrap();
    let second = done(r.try_mutate_row_now(&put_row("b", "q", 5, "v2"))).unwrap();
    assert!(first > 0 && second > first);
    let delete = RowMutations::from(Mutation::Delete(Delete::new("b").column_upto("f", "q", 5)));
    done(r.try_mutate_row_now(&delete)).unwrap();
    assert_eq!(get(&r, Get::new("a")), vec![(s("f"), s("q"), 5, s("v1"))]);
    assert!(get(&r, Get::new("b")).is_empty());
    // Acknowledged means logged: a reopen without a flush replays them.
    drop(r);
    bg.shutdown();
    let (r, bg) = open(&env);
    assert_eq!(get(&r, Get::new("a")), vec![(s("f"), s("q"), 5, s("v1"))]);
    assert!(get(&r, Get::new("b")).is_empty());
    drop(r);
    bg.shutdown();
}

#[test]
fn reads_of_the_row_decline_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let (r, bg) = open(&env);
    let increment = RowMutations::from(Mutation::Increment(Increment::new("c").add("f", "n", 1)));
    assert!(matches!(
        r.try_mutate_row_now(&increment),
        WriteNow::Declined
    ));
    // Deleting "the latest version" without a timestamp reads the row to find it.
    let latest = RowMutations::from(Mutation::Delete(Delete::new("a").version("f", "q")));
    assert!(matches!(r.try_mutate_row_now(&latest), WriteNow::Declined));
    assert!(get(&r, Get::new("c")).is_empty());
    assert_eq!(
        r.counters()
            .mutations
            .load(std::sync::atomic::Ordering::Relaxed),
        0
    );
    drop(r);
    bg.shutdown();
}

#[test]
fn a_region_without_a_background_pool_declines() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    assert!(matches!(
        r.try_mutate_row_now(&put_row("a", "q", 1, "v")),
        WriteNow::Declined
    ));
    assert!(get(&r, Get::new("a")).is_empty());
}

#[test]
fn a_locked_row_declines_until_it_is_free() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let (r, bg) = open(&env);
    let held = r.row_locks().lock(vec![Bytes::from_static(b"a")]);
    assert!(matches!(
        r.try_mutate_row_now(&put_row("a", "q", 1, "v")),
        WriteNow::Declined
    ));
    assert!(
        get(&r, Get::new("a")).is_empty(),
        "declined changes nothing"
    );
    // Another row is free.
    done(r.try_mutate_row_now(&put_row("b", "q", 1, "v"))).unwrap();
    drop(held);
    done(r.try_mutate_row_now(&put_row("a", "q", 1, "v"))).unwrap();
    assert_eq!(get(&r, Get::new("a")), vec![(s("f"), s("q"), 1, s("v"))]);
    drop(r);
    bg.shutdown();
}

#[test]
fn bad_rows_and_closed_regions_are_refused_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let (r, bg) = open(&env);
    let unknown = RowMutations::from(Mutation::Put(Put::new("a").add_at("nope", "q", 1, "v")));
    let e = done(r.try_mutate_row_now(&unknown)).unwrap_err();
    assert!(matches!(e, Error::NoSuchFamily(_)), "{e}");
    r.close().unwrap();
    let e = done(r.try_mutate_row_now(&put_row("a", "q", 1, "v"))).unwrap_err();
    assert!(matches!(e, Error::Closed(_)), "{e}");
    bg.shutdown();
}

#[test]
fn concurrent_writers_in_place_and_through_batches_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let (r, bg) = open(&env);
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let r = r.clone();
            std::thread::spawn(move || {
                for i in 0..300 {
                    let rm = put_row(&format!("t{t}r{i:03}"), "q", 1, &format!("{t}/{i}"));
                    match r.try_mutate_row_now(&rm) {
                        WriteNow::Done(result) => {
                            result.unwrap();
                        }
                        WriteNow::Pending(result) => r.wait_visible(result.seq),
                        WriteNow::Declined => {
                            r.batch(&[rm]).pop().unwrap().unwrap();
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    for t in 0..4 {
        for i in [0, 150, 299] {
            assert_eq!(
                get(&r, Get::new(format!("t{t}r{i:03}"))),
                vec![(s("f"), s("q"), 1, format!("{t}/{i}"))]
            );
        }
    }
    drop(r);
    bg.shutdown();
    let r = env.open();
    for t in 0..4 {
        assert_eq!(get(&r, Get::new(format!("t{t}r299"))).len(), 1, "replayed");
    }
}

/// A get's seek into the active skiplist once stopped on a key another writer linked just
/// before the row sought (after the search had passed that place): the row then read as
/// absent, and increments beside writers in place restarted from 1.
#[test]
fn increments_count_every_one_beside_puts_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let (r, bg) = open(&env);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|t| {
            let (r, stop) = (r.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut i = 0u32;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let rm = put_row(&format!("a{t}-{i:06}"), "q", 1, "v");
                    match r.try_mutate_row_now(&rm) {
                        WriteNow::Done(result) => {
                            result.unwrap();
                        }
                        WriteNow::Pending(result) => r.wait_visible(result.seq),
                        WriteNow::Declined => {
                            r.batch(&[rm]).pop().unwrap().unwrap();
                        }
                    }
                    i += 1;
                }
            })
        })
        .collect();
    for k in 1..=3000i64 {
        let inc = RowMutations::from(Mutation::Increment(
            Increment::new("counter").add("f", "n", 1),
        ));
        let got = r.mutate_row(&inc).unwrap();
        let v = i64::from_be_bytes(got.cells[0].value.as_ref().try_into().unwrap());
        assert_eq!(v, k, "increment {k} read the one before it");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    drop(r);
    bg.shutdown();
}
