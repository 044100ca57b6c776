//! `COMPACTION_ENABLED => false`: no compaction runs, asked for or automatic, and writers to a
//! store past the blocking file count go ahead at once (nothing could lower the count).
#![allow(clippy::unwrap_used)]

mod region_support;

use std::time::{Duration, Instant};

use region_support::*;
use strata_model::ops::Get;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::region::{CompactionOptions, Region};

fn table(compaction_enabled: bool) -> TableDescriptor {
    TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"))
        .with_compaction_enabled(compaction_enabled)
}

/// Blocking above 2 files, a writer waiting up to 30 s for compactions.
fn crowded_soon(r: &Region) {
    let mut o = CompactionOptions::default();
    o.exploring.min_files = 2;
    o.exploring.blocking_file_count = 2;
    o.blocking_wait = Duration::from_secs(30);
    r.set_compaction_options(o).unwrap();
}

fn files(r: &Region) -> usize {
    r.store_stats()[0].files
}

/// Writes one row and flushes: one more file.
fn flushed_row(r: &Region, i: usize) {
    r.mutate_row(&put_row(&format!("row{i:04}"), "q", 5, "v"))
        .unwrap();
    r.flush().unwrap();
}

#[test]
fn no_compaction_runs_and_writers_are_not_held() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(false));
    let r = env.open();
    crowded_soon(&r);
    for i in 0..4 {
        flushed_row(&r, i);
    }
    assert_eq!(files(&r), 4);
    assert!(r.compactions_off());
    // A user's major compaction is ignored, as HBase ignores it.
    assert!(r.compact_store(b"f", MajorRequest::User).unwrap().is_none());
    assert!(r.compact(MajorRequest::User).unwrap().is_empty());
    assert_eq!(files(&r), 4);
    // Past the blocking count a write neither compacts nor waits.
    let started = Instant::now();
    flushed_row(&r, 4);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(files(&r), 5);
    for i in 0..5 {
        let get = Get::new(bytes::Bytes::from(format!("row{i:04}")));
        assert_eq!(r.get(&get).unwrap().len(), 1);
    }
}

#[test]
fn with_compactions_enabled_the_same_store_is_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(true));
    let r = env.open();
    crowded_soon(&r);
    for i in 0..3 {
        flushed_row(&r, i);
    }
    // The third flush left the store over the blocking count; the next writer compacts it.
    flushed_row(&r, 3);
    assert!(files(&r) < 4, "{} files", files(&r));
    assert!(r.compact_store(b"f", MajorRequest::User).unwrap().is_some());
    assert_eq!(files(&r), 1);
}
