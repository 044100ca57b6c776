//! Periodic major compaction: HBase's jittered period and its due rules.

use strata_storage::compaction::major::jittered_period;
use strata_storage::compaction::pressure::{needs_compaction, pressure};
use strata_storage::compaction::{major_due, too_many_files, FileMeta, MajorConfig};

const DAY: i64 = 24 * 60 * 60 * 1000;

fn file(name: &str, seq: u64, created_at_ms: i64) -> FileMeta {
    FileMeta {
        name: name.to_owned(),
        size: 100,
        max_seq_id: seq,
        min_timestamp: Some(created_at_ms - 10),
        max_timestamp: Some(created_at_ms),
        created_at_ms,
        major: false,
        reference: false,
        compacting: false,
        exclude_from_minor: false,
    }
}

/// Expected periods printed by OpenJDK 17 running HBase's `getNextMajorCompactTime` arithmetic
/// (`new Random(name.hashCode()).nextDouble()`, `Math.round`) for these file names.
#[test]
fn jitter_matches_hbase_for_the_same_file_names() {
    let week = MajorConfig::default();
    let day_20 = MajorConfig {
        period_ms: DAY,
        jitter: 0.2,
        ttl_ms: None,
    };
    for (name, week_period, day_period) in [
        ("hello", 691_168_570, 91_335_347),
        ("f-1", 553_049_334, 83_442_819),
        ("f-2", 553_103_522, 83_445_916),
        ("0000000000000000001-a1b2", 572_093_632, 84_531_065),
        ("été", 467_420_722, 78_549_756),
    ] {
        let files = [file(name, 1, 1)];
        assert_eq!(jittered_period(&files, &week), week_period, "{name}");
        assert_eq!(jittered_period(&files, &day_20), day_period, "{name}");
    }
}

#[test]
fn jitter_is_seeded_by_the_oldest_file_and_bounded() {
    let config = MajorConfig::default();
    let a = [file("f-2", 9, 1), file("f-1", 3, 1)];
    assert_eq!(
        jittered_period(&a, &config),
        553_049_334,
        "f-1 is the oldest"
    );
    for i in 0..200 {
        let p = jittered_period(&[file(&format!("file-{i}"), 1, 1)], &config);
        assert!((302_400_000..=907_200_000).contains(&p), "{p}");
    }
}

#[test]
fn no_files_or_no_period_means_never() {
    assert_eq!(jittered_period(&[], &MajorConfig::default()), 0);
    let off = MajorConfig {
        period_ms: 0,
        ..MajorConfig::default()
    };
    assert_eq!(jittered_period(&[file("a", 1, 1)], &off), 0);
    assert!(!major_due(
        &[file("a", 1, 1), file("b", 2, 1)],
        &off,
        i64::MAX
    ));
    let no_jitter = MajorConfig {
        jitter: 0.0,
        ..MajorConfig::default()
    };
    assert_eq!(jittered_period(&[], &no_jitter), 7 * DAY);
}

#[test]
fn due_once_the_oldest_file_is_older_than_the_period() {
    let config = MajorConfig {
        period_ms: DAY,
        jitter: 0.0,
        ttl_ms: None,
    };
    let files = [file("a", 1, 5_000), file("b", 2, 9_000)];
    assert!(!major_due(&files, &config, 5_000 + DAY));
    assert!(major_due(&files, &config, 5_001 + DAY));
}

#[test]
fn files_without_a_creation_time_never_trigger() {
    let config = MajorConfig {
        period_ms: 1,
        jitter: 0.0,
        ttl_ms: None,
    };
    assert!(!major_due(
        &[file("a", 1, 0), file("b", 2, 0)],
        &config,
        DAY
    ));
}

#[test]
fn a_single_file_is_recompacted_only_for_ttl() {
    let now = 100 * DAY;
    let mut lone = file("a", 1, 10 * DAY);
    lone.min_timestamp = Some(10 * DAY);
    let forever = MajorConfig {
        period_ms: DAY,
        jitter: 0.0,
        ttl_ms: None,
    };
    assert!(!major_due(std::slice::from_ref(&lone), &forever, now));
    let ttl = MajorConfig {
        ttl_ms: Some(30 * DAY),
        ..forever
    };
    assert!(
        major_due(std::slice::from_ref(&lone), &ttl, now),
        "cells past the TTL"
    );
    lone.major = true;
    assert!(
        major_due(std::slice::from_ref(&lone), &ttl, now),
        "even a major result"
    );
    lone.min_timestamp = Some(now - DAY);
    assert!(!major_due(std::slice::from_ref(&lone), &ttl, now));
    lone.min_timestamp = None;
    assert!(
        !major_due(std::slice::from_ref(&lone), &ttl, now),
        "empty file"
    );
}

#[test]
fn too_many_files_blocks_strictly_above_the_count() {
    assert!(!too_many_files(16, 16));
    assert!(too_many_files(17, 16));
    assert!(needs_compaction(3, 0, 3));
    assert!(!needs_compaction(3, 1, 3));
    assert_eq!(pressure(16, 3, 16), 1.0);
}
