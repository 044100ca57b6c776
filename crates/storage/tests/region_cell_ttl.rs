//! A cell's own TTL (HBase's `Mutation.setTTL`): counted from the cell's timestamp, it hides
//! the cell from reads once past (an older version then shows, as HBase's matcher skips the
//! expired cell before counting versions), survives the WAL and flushes, is dropped by
//! compactions, is carried forward by increments, and never outlives the family's TTL.
#![allow(clippy::unwrap_used)]

mod region_support;

use bytes::Bytes;
use region_support::{get, put, s, table, Env};
use strata_model::ops::{Get, Increment, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName, Ttl};
use strata_storage::clock::Clock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::Region;

/// Puts `v` at `ts` into `f:q` of `row` with its own TTL of `ttl` ms.
fn put_ttl(region: &Region, row: &str, ts: i64, v: &str, ttl: u64) {
    region
        .put(
            &Put::new(Bytes::copy_from_slice(row.as_bytes()))
                .add_at("f", "q", ts, v.to_owned())
                .with_ttl(ttl),
        )
        .unwrap();
}

fn latest(region: &Region, row: &str) -> Vec<(String, String, i64, String)> {
    get(region, Get::new(row.to_owned()))
}

fn all_versions(region: &Region, row: &str) -> Vec<(String, String, i64, String)> {
    get(region, Get::new(row.to_owned()).with_max_versions(3))
}

#[test]
fn an_expired_cell_is_invisible_and_uncovers_the_older_version() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let region = env.open();
    let now = env.clock.now_ms();
    put(&region, "r", "f", "q", now - 100, "old");
    put_ttl(&region, "r", now, "new", 1_000);
    assert_eq!(latest(&region, "r"), vec![(s("f"), s("q"), now, s("new"))]);
    let cells = region.get(&Get::new("r")).unwrap();
    assert_eq!(cells[0].ttl, Some(1_000), "a read hands the TTL on");

    // Alive up to and including ts + ttl, as HBase (`ts + ttl < now` expires).
    env.clock.set(now + 1_000);
    assert_eq!(latest(&region, "r")[0].3, "new");
    env.clock.set(now + 1_001);
    assert_eq!(
        latest(&region, "r"),
        vec![(s("f"), s("q"), now - 100, s("old"))]
    );
    assert_eq!(all_versions(&region, "r").len(), 1);

    // The same from a store file.
    region.flush().unwrap();
    assert_eq!(latest(&region, "r")[0].3, "old");
    env.clock.set(now + 10);
    assert_eq!(
        latest(&region, "r")[0].3,
        "new",
        "a flush keeps an unexpired TTL cell"
    );
    region.close().unwrap();
}

#[test]
fn compactions_drop_expired_cells_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let region = env.open();
    let now = env.clock.now_ms();
    put(&region, "a", "f", "q", now, "forever");
    put_ttl(&region, "b", now, "short", 500);
    put_ttl(&region, "c", now, "long", 60_000);
    region.flush().unwrap();
    put(&region, "d", "f", "q", now, "forever too");
    region.flush().unwrap();

    env.clock.set(now + 1_000);
    region.compact(MajorRequest::User).unwrap();
    // Back before the expiry: the short-lived cell is gone from the files, not just hidden.
    env.clock.set(now + 100);
    assert!(latest(&region, "b").is_empty());
    assert_eq!(latest(&region, "a")[0].3, "forever");
    assert_eq!(latest(&region, "c")[0].3, "long");
    assert_eq!(latest(&region, "d")[0].3, "forever too");
    // The survivor kept its TTL through the rewrite.
    env.clock.set(now + 60_001);
    assert!(latest(&region, "c").is_empty());
    assert_eq!(latest(&region, "a")[0].3, "forever");
    region.close().unwrap();
}

#[test]
fn a_replayed_cell_keeps_its_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let region = env.open();
    let now = env.clock.now_ms();
    put(&region, "r", "f", "q", now - 1, "old");
    put_ttl(&region, "r", now, "new", 2_000);
    // A crash: no close, no flush; the cells come back from the WAL.
    drop(region);
    let region = env.open();
    assert_eq!(latest(&region, "r")[0].3, "new");
    env.clock.set(now + 2_001);
    assert_eq!(latest(&region, "r")[0].3, "old");
    // And through the flush of the replayed memtable.
    region.flush().unwrap();
    assert_eq!(latest(&region, "r")[0].3, "old");
    env.clock.set(now + 1);
    assert_eq!(latest(&region, "r")[0].3, "new");
    region.close().unwrap();
}

#[test]
fn a_cell_ttl_only_shortens_the_family_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let mut family = FamilyDescriptor::new("f");
    family.ttl = Ttl::Seconds(10);
    let table = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family);
    let env = Env::new(dir.path(), table);
    let region = env.open();
    let now = env.clock.now_ms();
    put_ttl(&region, "long", now, "v", 3_600_000);
    put_ttl(&region, "short", now, "v", 1_000);
    env.clock.set(now + 5_000);
    assert!(latest(&region, "short").is_empty());
    assert_eq!(latest(&region, "long").len(), 1);
    env.clock.set(now + 10_001);
    assert!(
        latest(&region, "long").is_empty(),
        "the family's TTL still applies"
    );
    region.close().unwrap();
}

#[test]
fn increments_and_appends_set_or_carry_the_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let region = env.open();
    let now = env.clock.now_ms();
    let cells = region
        .increment(&Increment::new("n").add("f", "q", 5).with_ttl(1_000))
        .unwrap();
    assert_eq!(cells.cells[0].ttl, Some(1_000));
    // Without a TTL of its own, the next increment keeps the current cell's (HBase carries
    // the TTL tag forward).
    env.clock.set(now + 10);
    let cells = region
        .increment(&Increment::new("n").add("f", "q", 1))
        .unwrap();
    assert_eq!(cells.cells[0].ttl, Some(1_000));
    env.clock.set(now + 10 + 1_001);
    assert!(latest(&region, "n").is_empty());

    let appended = region
        .append(
            &strata_model::ops::Append::new("a")
                .add("f", "q", "x")
                .with_ttl(50),
        )
        .unwrap();
    assert_eq!(appended.cells[0].ttl, Some(50));
    env.clock.advance(51);
    assert!(latest(&region, "a").is_empty());
    region.close().unwrap();
}
