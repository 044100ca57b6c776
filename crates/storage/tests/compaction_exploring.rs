//! The exploring policy against hand-built file sets.
//!
//! Most cases are HBase's own `TestDefaultCompactSelection` (min 3 and max 5 files, min size 10,
//! max size 2100, ratio 1.0, off-peak ratio 5.0, periodic majors off, 10 blocking files), with
//! the sizes HBase expects selected.

use strata_storage::compaction::exploring::{self, ExploringConfig, MajorRequest, Mode};
use strata_storage::compaction::{FileMeta, MajorConfig, Plan};

const MAX_SIZE: u64 = 2100;
const TOO_BIG: u64 = MAX_SIZE + 1;

fn hbase_test_config() -> ExploringConfig {
    ExploringConfig {
        min_files: 3,
        max_files: 5,
        ratio: 1.0,
        off_peak_ratio: 5.0,
        min_compact_size: 10,
        max_compact_size: MAX_SIZE,
        off_peak_max_compact_size: MAX_SIZE,
        blocking_file_count: 10,
        major: MajorConfig {
            period_ms: 0,
            ..MajorConfig::default()
        },
    }
}

/// Files oldest first with the given sizes (sequence ids 1, 2, …).
fn files(sizes: &[u64]) -> Vec<FileMeta> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| FileMeta {
            name: format!("f{i:02}"),
            size,
            max_seq_id: i as u64 + 1,
            min_timestamp: Some(1_000),
            max_timestamp: Some(2_000),
            created_at_ms: 1_000,
            major: false,
            reference: false,
            compacting: false,
            exclude_from_minor: false,
        })
        .collect()
}

fn references(sizes: &[u64]) -> Vec<FileMeta> {
    let mut v = files(sizes);
    v.iter_mut().for_each(|f| f.reference = true);
    v
}

fn select(files: &[FileMeta], mode: Mode) -> Option<Plan> {
    exploring::select(files, &hbase_test_config(), mode)
}

fn sizes(plan: &Option<Plan>) -> Vec<u64> {
    plan.iter()
        .flat_map(|p| p.files.iter().map(|f| f.size))
        .collect()
}

fn minor(sizes_in: &[u64]) -> Vec<u64> {
    sizes(&select(&files(sizes_in), Mode::default()))
}

fn forced(files: &[FileMeta]) -> Option<Plan> {
    let mode = Mode {
        major: MajorRequest::Forced,
        ..Mode::default()
    };
    select(files, mode)
}

#[test]
fn minor_selection_follows_the_ratio() {
    assert_eq!(minor(&[100, 50, 23, 12, 12]), [23, 12, 12]);
    assert_eq!(minor(&[100, 50, 25, 12, 12]), [] as [u64; 0]);
    assert_eq!(
        minor(&[7, 1, 1]),
        [7, 1, 1],
        "small files skip the ratio test"
    );
    assert_eq!(minor(&[50, 10, 10, 10, 10]), [10, 10, 10, 10]);
    assert_eq!(minor(&[10, 10, 10, 10, 50]), [10, 10, 10, 10]);
    assert_eq!(minor(&[251, 253, 251, MAX_SIZE - 1]), [251, 253, 251]);
    assert_eq!(
        minor(&[MAX_SIZE - 1, MAX_SIZE - 1, MAX_SIZE - 1]),
        [] as [u64; 0]
    );
}

#[test]
fn files_over_the_max_size_are_skipped() {
    assert_eq!(minor(&[TOO_BIG, TOO_BIG, 700, 700, 700]), [700, 700, 700]);
    assert_eq!(minor(&[TOO_BIG, TOO_BIG, 700, 700]), [] as [u64; 0]);
    assert_eq!(minor(&[TOO_BIG, TOO_BIG]), [] as [u64; 0]);
    assert_eq!(minor(&[]), [] as [u64; 0]);
}

#[test]
fn at_most_max_files_are_selected() {
    assert_eq!(minor(&[7, 6, 5, 4, 3, 2, 1]), [5, 4, 3, 2, 1]);
}

#[test]
fn stuck_store_compacts_something_below_min_size() {
    let mut config = hbase_test_config();
    config.min_compact_size = 1;
    let plan = exploring::select(
        &files(&[512, 256, 128, 64, 32, 16, 8, 4, 2, 1]),
        &config,
        Mode::default(),
    );
    assert_eq!(sizes(&plan), [4, 2, 1]);
}

#[test]
fn forced_major_takes_every_file() {
    let plan = forced(&files(&[50, 25, 12, 12]));
    assert_eq!(sizes(&plan), [50, 25, 12, 12]);
    assert!(plan.as_ref().is_some_and(|p| p.major && p.all_files));
    assert_eq!(sizes(&forced(&files(&[12, 12]))), [12, 12]);
    let plan = forced(&files(&[TOO_BIG, 12, 12]));
    assert_eq!(
        sizes(&plan),
        [TOO_BIG, 12, 12],
        "even files over the max size"
    );
    assert!(plan.is_some_and(|p| p.major));
}

#[test]
fn forced_major_over_max_files_downgrades_to_minor() {
    // Otherwise the newest file would snowball into the aggregate of every compaction.
    let plan = forced(&files(&[100, 50, 23, 12, 12]));
    assert_eq!(sizes(&plan), [23, 12, 12]);
    assert!(plan.is_some_and(|p| !p.major));
}

#[test]
fn user_major_takes_every_file_however_many() {
    let mode = Mode {
        major: MajorRequest::User,
        ..Mode::default()
    };
    let plan = select(&files(&[7, 6, 5, 4, 3, 2, 1]), mode);
    assert_eq!(sizes(&plan), [7, 6, 5, 4, 3, 2, 1]);
    assert!(plan.is_some_and(|p| p.major));
}

#[test]
fn aged_store_gets_a_periodic_major() {
    let mut config = hbase_test_config();
    config.major = MajorConfig {
        period_ms: 1,
        jitter: 0.0,
        ttl_ms: None,
    };
    let mode = Mode {
        now_ms: 1_002,
        ..Mode::default()
    };
    let plan = exploring::select(&files(&[50, 25, 12, 12]), &config, mode);
    assert_eq!(sizes(&plan), [50, 25, 12, 12]);
    assert!(plan.is_some_and(|p| p.major));
    // At max files the periodic major also downgrades to a minor.
    let plan = exploring::select(&files(&[100, 50, 23, 12, 12]), &config, mode);
    assert_eq!(sizes(&plan), [23, 12, 12]);
    assert!(plan.is_some_and(|p| !p.major));
}

#[test]
fn split_references_are_compacted_whole() {
    let plan = select(&references(&[100, 50, 25, 12, 12]), Mode::default());
    assert_eq!(sizes(&plan), [100, 50, 25, 12, 12]);
    assert!(plan.as_ref().is_some_and(|p| p.after_split && !p.major));
    let refs = references(&[TOO_BIG, 12, 12]);
    assert_eq!(sizes(&select(&refs, Mode::default())), [TOO_BIG, 12, 12]);
    let refs = references(&[7, 6, 5, 4, 3, 2, 1]);
    assert_eq!(sizes(&select(&refs, Mode::default())), [7, 6, 5, 4, 3]);
}

#[test]
fn off_peak_ratio_applies_only_off_peak() {
    let mode = Mode {
        off_peak: true,
        ..Mode::default()
    };
    let plan = select(&files(&[999, 50, 12, 12, 1]), mode);
    assert_eq!(sizes(&plan), [50, 12, 12, 1]);
    assert!(plan.is_some_and(|p| p.off_peak));
    assert_eq!(minor(&[999, 50, 12, 12, 1]), [12, 12, 1]);
}

#[test]
fn stuck_store_prefers_removing_files() {
    assert_eq!(
        minor(&[99, 99, 99, 99, 99, 99, 30, 30, 30, 30]),
        [30, 30, 30]
    );
    assert_eq!(
        minor(&[99, 99, 99, 99, 99, 30, 30, 30, 30]),
        [99, 30, 30, 30, 30]
    );
    assert_eq!(
        minor(&[99, 99, 99, 99, 99, 99, 30, 30, 30, 15]),
        [30, 30, 30, 15]
    );
    // Earlier runs win unless a later one is better by more than 5%.
    assert_eq!(
        minor(&[99, 99, 99, 99, 30, 26, 26, 29, 25, 25]),
        [30, 26, 26]
    );
    assert_eq!(
        minor(&[99, 99, 99, 99, 27, 27, 27, 20, 20, 20]),
        [20, 20, 20]
    );
}

#[test]
fn a_single_empty_file_is_not_compacted() {
    assert_eq!(minor(&[0]), [] as [u64; 0]);
}

#[test]
fn selection_starts_after_the_newest_compacting_file() {
    let mut set = files(&[10, 10, 10, 10, 10, 10]);
    set[1].compacting = true;
    let plan = select(&set, Mode::default());
    let names: Vec<&str> = plan
        .iter()
        .flat_map(|p| &p.files)
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["f02", "f03", "f04", "f05"]);
    // Nothing older than a compacting file, so no major either.
    let plan = select(
        &set,
        Mode {
            major: MajorRequest::User,
            ..Mode::default()
        },
    );
    assert!(plan.is_some_and(|p| !p.major && !p.all_files));
}

#[test]
fn files_are_ordered_by_sequence_id_whatever_the_input_order() {
    let mut set = files(&[100, 50, 23, 12, 12]);
    set.reverse();
    let plan = select(&set, Mode::default());
    let names: Vec<&str> = plan
        .iter()
        .flat_map(|p| &p.files)
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["f02", "f03", "f04"]);
}

#[test]
fn bulk_loaded_files_sit_out_minors() {
    let mut set = files(&[10, 10, 10, 10]);
    set[0].exclude_from_minor = true;
    set[2].exclude_from_minor = true;
    assert_eq!(select(&set, Mode::default()), None);
    assert_eq!(sizes(&forced(&set)), [10, 10, 10, 10]);
}

/// Java compares `size > others * ratio` with the `float` ratio widened to `double`:
/// 1.2f is 1.2000000476837158, which lets a file a hair over 1.2 × the others in.
#[test]
fn ratio_boundary_matches_java_float_widening() {
    let config = ExploringConfig {
        min_compact_size: 1,
        ..ExploringConfig::default()
    };
    let set = files(&[1_200_000_001, 500_000_000, 500_000_000]);
    let plan = exploring::select(&set, &config, Mode::default());
    assert_eq!(sizes(&plan), [1_200_000_001, 500_000_000, 500_000_000]);
    let set = files(&[1_200_000_048, 500_000_000, 500_000_000]);
    assert_eq!(exploring::select(&set, &config, Mode::default()), None);
}

#[test]
fn defaults_are_hbases() {
    let c = ExploringConfig::default();
    assert_eq!((c.min_files, c.max_files), (3, 10));
    assert_eq!((c.ratio, c.off_peak_ratio), (1.2, 5.0));
    assert_eq!(c.blocking_file_count, 16);
    assert_eq!(c.major.period_ms, 604_800_000);
    assert!(c.validate().is_ok());
    let bad = ExploringConfig { min_files: 1, ..c };
    assert!(bad.validate().is_err());
}

#[test]
fn files_past_the_ttl_are_dropped_whole_under_exploring_too() {
    use strata_storage::compaction::PlanKind;
    // Three files; the two oldest hold only cells older than now − TTL.
    let mut fs = files(&[100, 100, 100]);
    fs[0].max_timestamp = Some(1_000);
    fs[1].max_timestamp = Some(2_000);
    fs[2].max_timestamp = Some(9_000);
    let mut config = hbase_test_config();
    config.major.ttl_ms = Some(5_000);
    let mode = Mode {
        now_ms: 10_000,
        off_peak: false,
        major: MajorRequest::None,
    };
    let plan = exploring::select(&fs, &config, mode).expect("expired files are selected");
    assert_eq!(plan.kind, PlanKind::DropExpired);
    let mut names: Vec<&str> = plan.files.iter().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["f00", "f01"]);
    config.major.ttl_ms = None;
    let plan = exploring::select(&fs, &config, mode);
    assert!(plan.is_none_or(|p| p.kind != PlanKind::DropExpired));
}
