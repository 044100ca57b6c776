//! The region server flushes on its own what no memtable size or memory budget would: a
//! region whose oldest edit aged past the limit, and the regions holding the oldest WAL
//! segments once the WAL has more than its limit of them. Bounded waits: a check that never
//! comes fails the test.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_model::ops::{Get, Put, RowMutations};
use strata_server::flush_check::FlushCheck;
use strata_server::RegionServer;
use strata_testkit::fixtures::{self, region, table};

fn start(dir: &std::path::Path, check: FlushCheck, segment_size: u64) -> Arc<RegionServer> {
    let mut config = fixtures::server_config(dir, 256);
    config.flush_check = check;
    config.wal.segment_size = segment_size;
    let regions = [region("t", 1, "", "m"), region("t", 2, "m", "")];
    fixtures::server(config, &table("t", &["f"]), &regions)
}

fn put(server: &RegionServer, row: &str, value: Vec<u8>) {
    let rm = RowMutations::new(Bytes::from(row.to_owned()))
        .with(Put::new(row.to_owned()).add("f", "q", value))
        .unwrap();
    server
        .region_for("t", row.as_bytes())
        .unwrap()
        .mutate_row(&rm)
        .unwrap();
}

fn read(server: &RegionServer, row: &str) -> usize {
    server
        .region_for("t", row.as_bytes())
        .unwrap()
        .get(&Get::new(row.to_owned()))
        .unwrap()
        .len()
}

fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn files(server: &RegionServer, row: &str) -> usize {
    let hosted = server.region_for("t", row.as_bytes()).unwrap();
    hosted.region.store_stats().iter().map(|s| s.files).sum()
}

#[test]
fn an_edit_older_than_the_limit_is_flushed_and_a_fresh_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let check = FlushCheck {
        every: Duration::from_millis(20),
        max_edit_age: Duration::from_millis(300),
        max_wal_segments: 0,
        idle_merge_after: Duration::ZERO,
    };
    let server = start(dir.path(), check, 64 << 20);
    put(&server, "a1", b"old".to_vec());
    let written = Instant::now();
    let region = server.region_for("t", b"a1").unwrap().region;
    assert!(region.oldest_unflushed_edit_ms().is_some());
    wait_for("the aged edit's flush", || files(&server, "a1") == 1);
    assert!(
        written.elapsed() >= Duration::from_millis(300),
        "flushed before its age"
    );
    wait_for("the stamp to clear", || {
        region.oldest_unflushed_edit_ms().is_none()
    });
    assert_eq!(read(&server, "a1"), 1);
    assert_eq!(
        files(&server, "z1"),
        0,
        "a region without edits is not flushed"
    );
    let stats = server.flush_check_stats();
    assert!(stats.rounds >= 1 && stats.by_age >= 1, "{stats:?}");
    assert_eq!(stats.by_wal, 0);
    server.shutdown().unwrap();
}

#[test]
fn the_regions_holding_the_oldest_wal_segments_past_the_limit_are_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let check = FlushCheck {
        every: Duration::from_millis(20),
        max_edit_age: Duration::ZERO,
        max_wal_segments: 3,
        idle_merge_after: Duration::ZERO,
    };
    let server = start(dir.path(), check, 64 << 10);
    // One edit in region 1, then region 2 alone writes enough for many segments; neither
    // memtable is anywhere near its flush size.
    put(&server, "a1", b"idle".to_vec());
    for i in 0..600 {
        put(&server, &format!("z{i:04}"), vec![b'v'; 1000]);
    }
    wait_for("the idle region's flush", || files(&server, "a1") == 1);
    wait_for("the WAL to shrink to its limit", || {
        server.wal().stats().segments <= 3
    });
    assert_eq!(read(&server, "a1"), 1);
    assert_eq!(read(&server, "z0000"), 1);
    assert_eq!(read(&server, "z0599"), 1);
    let stats = server.flush_check_stats();
    assert!(stats.by_wal >= 1, "{stats:?}");
    assert_eq!(stats.by_age, 0);
    server.shutdown().unwrap();
}

#[test]
fn a_zero_interval_turns_the_check_off() {
    let dir = tempfile::tempdir().unwrap();
    let check = FlushCheck {
        every: Duration::ZERO,
        max_edit_age: Duration::from_millis(1),
        max_wal_segments: 1,
        idle_merge_after: Duration::ZERO,
    };
    let server = start(dir.path(), check, 64 << 20);
    put(&server, "a1", b"v".to_vec());
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(files(&server, "a1"), 0);
    assert_eq!(server.flush_check_stats().rounds, 0);
    server.shutdown().unwrap();
}

#[test]
fn an_idle_region_has_its_memtable_merged_by_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let check = FlushCheck {
        every: Duration::from_secs(3600),
        max_edit_age: Duration::from_secs(3600),
        max_wal_segments: 32,
        idle_merge_after: Duration::from_millis(20),
    };
    let server = start(dir.path(), check, 64 << 20);
    // About 2 MB in region 1: its memtable seals several segments of ~240 KiB (the family's
    // default in-memory compaction is BASIC), which BASIC flattens and merges by size tiers in
    // the background. How many of them end in its largest flat segment depends on timing, so
    // 200 more cells (less than an active segment holds) follow: with them outside the largest
    // flat segment, the idle merge's one cell in 16 is met whatever the tiers did.
    for i in 0..2000 {
        put(&server, &format!("a{i:04}"), vec![b'v'; 1000]);
    }
    for i in 0..200 {
        put(&server, &format!("b{i:04}"), vec![b'v'; 1000]);
    }
    let region = server.region_for("t", b"a0000").unwrap().region;
    wait_for("the idle merge", || {
        server.flush_check_stats().idle_merges >= 1
    });
    let stats = &region.memtable_listing()[0].stats;
    assert_eq!(
        (stats.segments, stats.flat_segments, stats.cells),
        (2, 1, 2200),
        "one flat segment and an empty active one"
    );
    assert_eq!(read(&server, "a1999"), 1);
    assert_eq!(files(&server, "a0000"), 0, "merged in memory, not flushed");
}
