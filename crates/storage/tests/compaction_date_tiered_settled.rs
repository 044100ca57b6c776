//! Date-tiered selection: compacted windows of the first promoted tier stay as they are
//! (RFC 0006, "Deviations"), as pure functions over hand-built file sets.

use strata_model::schema::DateTiered;
use strata_storage::compaction::date_tiered::{select, select_with_delay};
use strata_storage::compaction::exploring::{ExploringConfig, MajorRequest, Mode};
use strata_storage::compaction::FileMeta;

const H: i64 = 3_600_000;
const DAY: i64 = 24 * H;

fn file(seq: u64, min_ts: i64, max_ts: i64) -> FileMeta {
    FileMeta {
        name: format!("f{seq:04}"),
        size: 1000,
        max_seq_id: seq,
        min_timestamp: Some(min_ts),
        max_timestamp: Some(max_ts),
        created_at_ms: 1,
        major: false,
        reference: false,
        compacting: false,
        exclude_from_minor: false,
    }
}

/// Base window 1 h, 4 per tier (units of 4 h), incoming min 3.
fn dt() -> DateTiered {
    DateTiered {
        base_window_ms: H,
        incoming_window_min: 3,
        ..DateTiered::default()
    }
}

/// No periodic major, room for many files.
fn cfg(blocking: usize) -> ExploringConfig {
    let mut c = ExploringConfig::default();
    c.major.period_ms = 0;
    c.blocking_file_count = blocking;
    c
}

fn minor(now: i64) -> Mode {
    Mode {
        now_ms: now,
        off_peak: false,
        major: MajorRequest::None,
    }
}

fn seqs(files: &[FileMeta]) -> Vec<u64> {
    files.iter().map(|f| f.max_seq_id).collect()
}

// At 100.5 h the windows are [100h, 101h), [96h, 100h), then the 16 h window [80h, 96h)
// whose units are [80h, 84h), [84h, 88h), [88h, 92h), [92h, 96h).
const NOW: i64 = 100 * H + H / 2;

#[test]
fn one_file_per_unit_is_left_alone_until_half_the_blocking_count() {
    let files = vec![
        file(1, 80 * H, 81 * H),
        file(2, 84 * H, 85 * H),
        file(3, 88 * H, 89 * H),
    ];
    assert_eq!(select(&files, &dt(), &cfg(100), minor(NOW)), None);
    // Three files are more than half of 4: merged as HBase merges them.
    let plan = select(&files, &dt(), &cfg(4), minor(NOW)).unwrap();
    assert_eq!(seqs(&plan.files), vec![1, 2, 3]);
    // Two units of one file each still leave nothing, with a third file in the first unit.
    let files = vec![
        file(1, 80 * H, 81 * H),
        file(2, 82 * H, 83 * H),
        file(3, 84 * H, 85 * H),
        file(4, 88 * H, 89 * H),
    ];
    assert_eq!(select(&files, &dt(), &cfg(100), minor(NOW)), None);
}

#[test]
fn a_unit_of_several_files_is_merged_without_its_settled_neighbours() {
    let files = vec![
        file(1, 80 * H, 81 * H),
        file(2, 84 * H, 85 * H),
        file(3, 85 * H, 86 * H),
        file(4, 86 * H, 87 * H),
        file(5, 88 * H, 89 * H),
    ];
    let plan = select(&files, &dt(), &cfg(100), minor(NOW)).unwrap();
    assert_eq!(seqs(&plan.files), vec![2, 3, 4]);
    // The window's own start splits the output only when all its files are merged.
    assert_eq!(plan.boundaries, vec![i64::MIN]);
}

#[test]
fn merges_stay_inside_a_unit() {
    // Four files of two units, two in each: no unit reaches min_files, and no merge crosses.
    let files = vec![
        file(1, 84 * H, 84 * H + 1),
        file(2, 85 * H, 85 * H + 1),
        file(3, 92 * H, 92 * H + 1),
        file(4, 93 * H, 93 * H + 1),
    ];
    assert_eq!(select(&files, &dt(), &cfg(100), minor(NOW)), None);
    // A late file (cells of 80h, written after the 89h file) is treated as carrying 89h and
    // joins the [88h, 92h) unit, which then has three files.
    let late = vec![
        file(1, 84 * H, 85 * H),
        file(2, 88 * H, 89 * H),
        file(3, 80 * H, 80 * H + 1),
        file(4, 90 * H, 90 * H + 1),
        file(5, 92 * H, 93 * H),
    ];
    let plan = select(&late, &dt(), &cfg(100), minor(NOW)).unwrap();
    assert_eq!(seqs(&plan.files), vec![2, 3, 4]);
}

#[test]
fn the_first_promoted_tier_still_merges_its_windows() {
    // [96h, 100h) is one unit wide: its three files are merged as before.
    let files = vec![
        file(1, 96 * H, 97 * H),
        file(2, 97 * H, 98 * H),
        file(3, 98 * H, 99 * H),
    ];
    let plan = select(&files, &dt(), &cfg(100), minor(NOW)).unwrap();
    assert_eq!(seqs(&plan.files), vec![1, 2, 3]);
}

/// Twenty days of a flush every 30 minutes at HBase's date-tiered defaults (6 h base window,
/// 4 per tier, incoming minimum 6), every plan applied as the compactor would (one output,
/// summed sizes), with an 18-minute promotion delay (5% of the base window, as a region's):
/// returns bytes compactions wrote per flushed byte and the files at the end.
fn twenty_days(blocking: usize) -> (f64, Vec<FileMeta>) {
    let d = DateTiered::default();
    let mut c = cfg(blocking);
    c.min_compact_size = 1000;
    let start = 20_000 * DAY;
    let mut files: Vec<FileMeta> = vec![];
    let (mut flushed, mut written) = (0u64, 0u64);
    let mut seq = 0u64;
    let mut now = start;
    while now < start + 20 * DAY {
        now += H / 2;
        seq += 1;
        flushed += 1000;
        files.push(file(seq, now - H / 2, now - 1));
        while let Some(plan) = select_with_delay(&files, &d, &c, minor(now), 18 * 60_000) {
            let names: Vec<&str> = plan.files.iter().map(|f| f.name.as_str()).collect();
            let size: u64 = plan.files.iter().map(|f| f.size).sum();
            written += size;
            // A plan is never empty and every file here holds cells.
            let min = plan.files.iter().filter_map(|f| f.min_timestamp).min();
            let max = plan.files.iter().filter_map(|f| f.max_timestamp).max();
            let last = plan.files.iter().map(|f| f.max_seq_id).max().unwrap_or(0);
            files.retain(|f| !names.contains(&f.name.as_str()));
            files.push(FileMeta {
                name: format!("m{last:04}"),
                size,
                ..file(last, min.unwrap_or(i64::MIN), max.unwrap_or(i64::MIN))
            });
            files.sort_by_key(|f| f.max_seq_id);
        }
    }
    (written as f64 / flushed as f64, files)
}

#[test]
fn twenty_days_keep_one_file_per_day_and_rewrite_old_days_no_more() {
    let (per_byte, files) = twenty_days(1000);
    // The run ends as the twentieth day does (its windows not yet promoted); every day
    // before it is one file holding exactly that day.
    let yesterday = 20_019 * DAY;
    let old: Vec<&FileMeta> = files
        .iter()
        .filter(|f| f.max_timestamp.unwrap() < yesterday)
        .collect();
    assert_eq!(old.len(), 19, "{:?}", seqs(&files));
    for f in &old {
        let day = f.min_timestamp.unwrap().div_euclid(DAY);
        assert_eq!(f.max_timestamp.unwrap().div_euclid(DAY), day);
    }
    // Merges of six flushes, of what is left of each 6 h window, then of each day: at most
    // two writes per flushed byte, however old the data.
    assert!((1.7..2.2).contains(&per_byte), "{per_byte}");
    // With the store's blocking count at 16 the files stay few, and old days are merged
    // into wider windows again (HBase's behaviour) at a higher cost.
    let (pressed, files) = twenty_days(16);
    assert!(files.len() <= 16, "{} files", files.len());
    assert!(pressed > per_byte + 0.5, "{pressed} vs {per_byte}");
}
