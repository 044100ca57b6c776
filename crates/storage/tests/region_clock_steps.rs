//! A wall clock stepped back, or a region reopened on a server whose clock is behind the one
//! that wrote it: a put without a timestamp of its own still reads as the row's newest
//! version (the region's stamps never go back; equal stamps are ordered by sequence id), and
//! a put at a client's own far-future timestamp does not hold the region's stamps.
#![allow(clippy::unwrap_used)]

mod region_support;

use bytes::Bytes;
use region_support::{table, Env};
use strata_model::ops::{Get, Increment, Put, RowMutations};
use strata_storage::Region;

const SECOND: i64 = 1000;

fn put(region: &Region, row: &str, v: &str) {
    region
        .put(&Put::new(Bytes::copy_from_slice(row.as_bytes())).add("f", "q", v.to_owned()))
        .unwrap();
}

/// (timestamp, value) of the row's newest f:q.
fn newest(region: &Region, row: &str) -> (i64, String) {
    let cells = region.get(&Get::new(row.to_owned())).unwrap();
    let c = cells.first().expect("the row has a value");
    (c.timestamp, String::from_utf8_lossy(&c.value).into_owned())
}

#[test]
fn a_put_after_the_clock_steps_back_is_the_newest_version() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    env.clock.set(1_000 * SECOND);
    let region = env.open();
    put(&region, "r", "before");
    env.clock.set(970 * SECOND);
    put(&region, "r", "after");
    assert_eq!(newest(&region, "r"), (1_000 * SECOND, "after".to_owned()));
    // The batch path (several rows at once) stamps the same way.
    let rows: Vec<RowMutations> = ["r", "s"]
        .iter()
        .map(|row| {
            RowMutations::from(strata_model::ops::Mutation::Put(
                Put::new(Bytes::copy_from_slice(row.as_bytes())).add("f", "q", "batch"),
            ))
        })
        .collect();
    for result in region.batch(&rows) {
        result.unwrap();
    }
    assert_eq!(newest(&region, "r"), (1_000 * SECOND, "batch".to_owned()));
    // Once the clock passes the floor, stamps follow it again.
    env.clock.set(1_001 * SECOND);
    put(&region, "r", "later");
    assert_eq!(newest(&region, "r"), (1_001 * SECOND, "later".to_owned()));
}

#[test]
fn a_region_reopened_behind_the_clock_that_wrote_it_stamps_past_its_cells() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    // Written on a clock 30 s ahead, part flushed into a file, part only in the WAL.
    env.clock.set(1_030 * SECOND);
    let region = env.open();
    put(&region, "flushed", "ahead");
    region.flush().unwrap();
    put(&region, "logged", "ahead");
    region
        .increment(&Increment::new("counted").add("f", "q", 1))
        .unwrap();
    drop(region);
    // Reopened where the clock reads 30 s earlier: a move, or the clock stepped back.
    env.clock.set(1_000 * SECOND);
    let region = env.open();
    for row in ["flushed", "logged"] {
        put(&region, row, "behind");
        assert_eq!(
            newest(&region, row),
            (1_030 * SECOND, "behind".to_owned()),
            "{row}"
        );
    }
    put(&region, "counted", "behind");
    assert_eq!(newest(&region, "counted").1, "behind");
}

#[test]
fn a_clients_far_future_timestamp_does_not_hold_the_stamps() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    env.clock.set(1_000 * SECOND);
    let region = env.open();
    let future = 1_000 * SECOND + 24 * 3_600 * SECOND;
    region
        .put(&Put::new("chosen").add_at("f", "q", future, "a client's own time"))
        .unwrap();
    drop(region);
    let region = env.open();
    put(&region, "r", "now");
    assert_eq!(newest(&region, "r"), (1_000 * SECOND, "now".to_owned()));
    assert_eq!(newest(&region, "chosen").0, future);
}
