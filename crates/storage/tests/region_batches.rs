//! Multi-row batches: plain rows go in mini-batches (one sequence id, one WAL entry), each row
//! stays atomic with its own result, later rows see earlier ones, and bad rows fail alone.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::Arc;

use bytes::Bytes;
use region_support::*;
use strata_model::ops::{Delete, Get, Increment, Put, RowMutations};
use strata_storage::ErrorKind;

#[test]
fn plain_rows_share_one_sequence_id_and_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let rows: Vec<RowMutations> = (0..500)
        .map(|i| put_row(&format!("r{i:04}"), "q", 1, &format!("v{i}")))
        .collect();
    let results = r.batch(&rows);
    assert_eq!(results.len(), 500);
    let seqs: Vec<u64> = results.into_iter().map(|o| o.unwrap().seq).collect();
    assert!(seqs[0] > 0);
    assert!(seqs.iter().all(|&q| q == seqs[0]), "one mini-batch, one id");
    assert_eq!(
        r.counters()
            .mutations
            .load(std::sync::atomic::Ordering::Relaxed),
        500
    );
    // The batch was acknowledged: a reopen replays it from the WAL (no flush happened).
    drop(r);
    let r = env.open();
    for i in [0, 250, 499] {
        assert_eq!(
            get(&r, Get::new(format!("r{i:04}"))),
            vec![(s("f"), s("q"), 1, format!("v{i}"))]
        );
    }
}

#[test]
fn a_row_twice_is_applied_in_order_even_at_the_same_timestamp() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let rows = vec![
        put_row("a", "q", 7, "first"),
        put_row("b", "q", 7, "b"),
        put_row("a", "q", 7, "second"),
        RowMutations::from(strata_model::ops::Mutation::Delete(
            Delete::new("b").column_upto("f", "q", 7),
        )),
        put_row("b", "q", 7, "third"),
    ];
    let seqs: Vec<u64> = r.batch(&rows).into_iter().map(|o| o.unwrap().seq).collect();
    assert!(
        seqs[2] > seqs[0],
        "the second write of a row gets a later id"
    );
    assert_eq!(
        get(&r, Get::new("a")),
        vec![(s("f"), s("q"), 7, s("second"))]
    );
    // The delete hid the first b; the put after it at the same timestamp is still hidden by
    // the marker, as in HBase (a delete marker masks puts at or below its timestamp).
    assert!(get(&r, Get::new("b")).is_empty());
}

#[test]
fn increments_between_puts_see_the_puts_before_them() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let counter = |v: i64| {
        RowMutations::from(strata_model::ops::Mutation::Put(Put::new("c").add(
            "f",
            "n",
            Bytes::copy_from_slice(&v.to_be_bytes()),
        )))
    };
    let inc = RowMutations::from(strata_model::ops::Mutation::Increment(
        Increment::new("c").add("f", "n", 5),
    ));
    let results = r.batch(&[counter(10), inc, put_row("x", "q", 1, "x")]);
    let results: Vec<_> = results.into_iter().map(Result::unwrap).collect();
    assert_eq!(results[1].cells.len(), 1);
    assert_eq!(results[1].cells[0].value.as_ref(), &15i64.to_be_bytes());
    assert_eq!(get(&r, Get::new("x")), vec![(s("f"), s("q"), 1, s("x"))]);
}

#[test]
fn bad_rows_fail_alone_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = Env::new(dir.path(), table(&["f"]));
    env.info.end_row = Bytes::from_static(b"m");
    let r = env.open();
    let unknown_family = RowMutations::from(strata_model::ops::Mutation::Put(
        Put::new("d").add("nope", "q", "v"),
    ));
    let rows = vec![
        put_row("a", "q", 1, "a"),
        put_row("z", "q", 1, "outside"),
        unknown_family,
        put_row("e", "q", 1, "e"),
    ];
    let results = r.batch(&rows);
    assert!(results[0].is_ok());
    assert_eq!(
        results[1].as_ref().unwrap_err().kind(),
        ErrorKind::WrongRegion
    );
    assert_eq!(results[2].as_ref().unwrap_err().kind(), ErrorKind::Invalid);
    assert!(results[3].is_ok());
    assert!(get(&r, Get::new("d")).is_empty());
    assert_eq!(get(&r, Get::new("e")), vec![(s("f"), s("q"), 1, s("e"))]);
}

#[test]
fn a_closed_region_fails_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    r.close().unwrap();
    let results = r.batch(&[put_row("a", "q", 1, "a"), put_row("b", "q", 1, "b")]);
    assert!(results
        .iter()
        .all(|o| o.as_ref().unwrap_err().kind() == ErrorKind::Unavailable));
}

#[test]
fn batches_locking_the_same_rows_in_opposite_orders_do_not_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = Arc::new(env.open());
    let forward: Vec<RowMutations> = (0..50)
        .map(|i| put_row(&format!("r{i:02}"), "q", 1, "v"))
        .collect();
    let backward: Vec<RowMutations> = forward.iter().rev().cloned().collect();
    let threads: Vec<_> = [forward, backward]
        .into_iter()
        .map(|rows| {
            let r = r.clone();
            std::thread::spawn(move || {
                for _ in 0..100 {
                    assert!(r.batch(&rows).iter().all(Result::is_ok));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(
        r.counters()
            .mutations
            .load(std::sync::atomic::Ordering::Relaxed),
        2 * 100 * 50
    );
}
