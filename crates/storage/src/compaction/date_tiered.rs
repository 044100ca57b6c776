//! HBase's `DateTieredCompactionPolicy`: files grouped by time windows that grow by tiers
//! ([`super::windows`]), the newest eligible window compacted first, exploring inside it.
//!
//! Source: HBase `DateTieredCompactionPolicy` (`selectMinorCompaction`, `selectMajorCompaction`,
//! `shouldPerformMajorCompaction`, `getCompactBoundariesForMajor`), `SortedCompactionPolicy`
//! (`selectCompaction`) and `DefaultStoreFileManager.getUnneededFiles`. In HBase's order:
//! 1. Files wholly past the TTL (all but the newest file, none compacting) are dropped without
//!    a rewrite: a [`PlanKind::DropExpired`] plan.
//! 2. Files sort by (max sequence id, max timestamp, size descending); files up to the newest
//!    compacting one and leading oversized files are skipped, as in exploring.
//! 3. A major runs when asked over all files, or when [`major_needed`] (the jittered period
//!    has passed and: TTL, a file not written by a major, a file spanning windows, or two
//!    files in one window); its output is split at every window start
//!    ([`major_boundaries`]).
//! 4. Otherwise a minor: each file is treated as carrying the newest max timestamp seen so far
//!    ([`treated_timestamps`]); walking windows newest first, the first window with enough
//!    files (the incoming window: `incoming_window_min`, older ones: `min_files`) whose
//!    exploring selection is non-empty is compacted. Windows wholly older than the max store
//!    file age stop the walk. Inside windows of the base width the exploring ratio is at most
//!    [`BASE_TIER_RATIO`] (HBase uses the configured ratio everywhere), and inside windows
//!    wider than the first promoted tier the selection runs unit by unit (one-day windows at
//!    HBase's defaults, [`super::settled`]) while the store holds at most half its blocking
//!    count, so a day compacted to one file is not merged again.

use std::cmp::Ordering;

use strata_model::schema::DateTiered;

use super::exploring::{explore, ExploringConfig, MajorRequest, Mode};
use super::major::{jittered, MajorConfig};
use super::plan::{FileMeta, Plan, PlanKind};
use super::settled::{explore_units, keeps_settled, units};
use super::windows::Window;

/// Most output boundaries of a major compaction; older windows share the oldest output. A
/// guard against far-past timestamps with a small max tier age (HBase has none).
pub const MAX_BOUNDARIES: usize = 4096;

/// The exploring ratio inside windows of the base width (the incoming window and the ended
/// windows of its tier), where the configured one is higher: a file joins a run there only if
/// it holds at most half the bytes of the run's other files. With HBase's 1.2, the merge of the
/// incoming window's first six flushes joined the next five (6 ≤ 1.2 × 5) and those bytes were
/// written twice before the window's promotion wrote them again. A deviation from HBase; see
/// RFC 0006, "Deviations".
pub const BASE_TIER_RATIO: f32 = 0.5;

/// Date-tiered store order: max sequence id, then max timestamp (an empty file last), then
/// size descending, then name (HBase's `StoreFileComparators.SEQ_ID_MAX_TIMESTAMP`).
pub fn date_tiered_order(a: &FileMeta, b: &FileMeta) -> Ordering {
    a.max_seq_id
        .cmp(&b.max_seq_id)
        .then(
            a.max_timestamp
                .unwrap_or(i64::MAX)
                .cmp(&b.max_timestamp.unwrap_or(i64::MAX)),
        )
        .then(b.size.cmp(&a.size))
        .then_with(|| a.name.cmp(&b.name))
}

/// Chooses what to compact in a date-tiered store, or `None`. `files` may be in any order and
/// include files already compacting. `config` supplies the per-window exploring settings,
/// `min_files` for non-incoming windows, `max_files`, the blocking count and the periodic
/// major (with the family's TTL in `config.major.ttl_ms`).
pub fn select(
    files: &[FileMeta],
    dt: &DateTiered,
    config: &ExploringConfig,
    mode: Mode,
) -> Option<Plan> {
    select_with_delay(files, dt, config, mode, 0)
}

/// A region's delay before it treats a just-ended incoming window as an ordinary window
/// (`fraction` of the base window at most, the same for a region every time, different across
/// regions): every region's incoming window ends at the same epoch-aligned instant, and without
/// it they would all start compacting that window at once.
pub fn promotion_delay(region_id: u64, base_window_ms: i64, fraction: f64) -> i64 {
    let span = (base_window_ms as f64 * fraction.clamp(0.0, 1.0)) as i64;
    if span <= 0 {
        return 0;
    }
    // splitmix64: ids handed out in sequence spread over the whole span.
    let mut z = region_id.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % span as u64) as i64
}

/// [`select`] with the incoming window computed `promotion_delay_ms` in the past (see
/// [`promotion_delay`]); everything else (TTL, periodic majors, max storefile age) uses now.
pub fn select_with_delay(
    files: &[FileMeta],
    dt: &DateTiered,
    config: &ExploringConfig,
    mode: Mode,
    promotion_delay_ms: i64,
) -> Option<Plan> {
    let now = mode.now_ms;
    if let Some(plan) = expired(files, config.major.ttl_ms, now) {
        return Some(plan);
    }
    let mut all: Vec<&FileMeta> = files.iter().collect();
    all.sort_by(|a, b| date_tiered_order(a, b));
    let compacting = all.iter().filter(|f| f.compacting).count();
    let might_be_stuck =
        all.len() - compacting + usize::from(compacting > 0) >= config.blocking_file_count;
    let keep_settled = !might_be_stuck && keeps_settled(all.len(), config.blocking_file_count);
    let first_eligible = all.iter().rposition(|f| f.compacting).map_or(0, |i| i + 1);
    let mut candidates: Vec<&FileMeta> = all[first_eligible..].to_vec();

    let force_major = mode.major != MajorRequest::None;
    let user = mode.major == MajorRequest::User;
    let mut all_files = candidates.len() == all.len();
    if !(force_major && all_files) {
        let max = if mode.off_peak {
            config.off_peak_max_compact_size
        } else {
            config.max_compact_size
        };
        let skip = candidates
            .iter()
            .take_while(|f| !f.reference && f.size > max)
            .count();
        candidates.drain(..skip);
        all_files = candidates.len() == all.len();
    }
    let periodic = major_needed(&candidates, dt, &config.major, now);
    let trying_major = (force_major && all_files && user)
        || (((force_major && all_files) || periodic) && candidates.len() < config.max_files);
    let after_split = candidates.iter().any(|f| f.reference);

    let (mut chosen, boundaries, window_start) = if trying_major || after_split {
        let b = major_boundaries(&candidates, dt, now);
        (candidates, b, None)
    } else {
        candidates.retain(|f| !f.exclude_from_minor);
        minor(
            &candidates,
            dt,
            config,
            might_be_stuck,
            keep_settled,
            mode,
            promotion_delay_ms,
        )?
    };
    if chosen.len() > config.max_files && !(trying_major && user) {
        chosen.truncate(config.max_files);
    }
    if chosen.is_empty() {
        return None;
    }
    let all_files = chosen.len() == all.len();
    Some(Plan {
        files: chosen.into_iter().cloned().collect(),
        major: trying_major && all_files,
        all_files,
        off_peak: !all_files && mode.off_peak,
        after_split,
        kind: PlanKind::Merge,
        boundaries,
        window_start,
    })
}

/// Files whose newest cell is older than `now − ttl`, not compacting, never the newest file
/// in store order (it carries the store's max sequence id): a [`PlanKind::DropExpired`] plan,
/// or `None`. Pass `ttl_ms = None` for a FOREVER TTL or when `MIN_VERSIONS > 0`.
pub fn expired(files: &[FileMeta], ttl_ms: Option<i64>, now: i64) -> Option<Plan> {
    let ttl = ttl_ms?;
    let cutoff = now.saturating_sub(ttl);
    let mut all: Vec<&FileMeta> = files.iter().collect();
    all.sort_by(|a, b| date_tiered_order(a, b));
    all.pop();
    let dropped: Vec<FileMeta> = all
        .into_iter()
        .filter(|f| !f.compacting && f.max_timestamp.is_some_and(|ts| ts < cutoff))
        .cloned()
        .collect();
    if dropped.is_empty() {
        return None;
    }
    Some(Plan {
        all_files: dropped.len() == files.len(),
        files: dropped,
        major: false,
        off_peak: false,
        after_split: false,
        kind: PlanKind::DropExpired,
        boundaries: Vec::new(),
        window_start: None,
    })
}

/// Each file's max timestamp replaced by the newest max timestamp among it and the files
/// before it (`files` in store order; an empty file counts as `i64::MIN`). Out-of-order old
/// data thus lands in the window of the newest file before it.
pub fn treated_timestamps(files: &[&FileMeta]) -> Vec<i64> {
    let mut seen = i64::MIN;
    files
        .iter()
        .map(|f| {
            seen = seen.max(f.max_timestamp.unwrap_or(i64::MIN));
            seen
        })
        .collect()
}

/// The incoming window at `now` for `dt`.
pub fn incoming_window(dt: &DateTiered, now: i64) -> Window {
    Window::incoming(
        now,
        dt.base_window_ms,
        dt.windows_per_tier,
        dt.max_tier_age_ms,
    )
}

/// Minor selection over `files` in store order: the files and `[i64::MIN]` (single output) or
/// `[i64::MIN, window start]`. With `keep_settled`, windows wider than the first promoted tier
/// are explored unit by unit ([`super::settled`]).
fn minor<'a>(
    files: &[&'a FileMeta],
    dt: &DateTiered,
    config: &ExploringConfig,
    might_be_stuck: bool,
    keep_settled: bool,
    mode: Mode,
    promotion_delay_ms: i64,
) -> Option<(Vec<&'a FileMeta>, Vec<i64>, Option<i64>)> {
    let now = mode.now_ms;
    let oldest_to_compact = now.checked_sub(dt.max_storefile_age_ms).unwrap_or(i64::MIN);
    let treated = treated_timestamps(files);
    // Newest first.
    let mut pairs: Vec<(&FileMeta, i64)> = files.iter().copied().zip(treated).collect();
    pairs.reverse();
    let mut window = incoming_window(dt, now.saturating_sub(promotion_delay_ms.max(0)));
    let base_width = window.width();
    let unit = base_width.saturating_mul(i64::from(dt.windows_per_tier.max(2)));
    let mut min_threshold = dt.incoming_window_min as usize;
    let mut i = 0;
    while i < pairs.len() {
        if window.compare_to_timestamp(oldest_to_compact) == Ordering::Less {
            break;
        }
        let ts = pairs[i].1;
        if window.compare_to_timestamp(ts) == Ordering::Greater {
            window = window.earlier_until(ts);
            min_threshold = config.min_files;
            continue;
        }
        let begin = i;
        while i < pairs.len() && window.compare_to_timestamp(pairs[i].1) != Ordering::Greater {
            i += 1;
        }
        if i - begin < min_threshold {
            continue;
        }
        let in_window: Vec<&FileMeta> = pairs[begin..i].iter().rev().map(|p| p.0).collect();
        let per_window = ExploringConfig {
            min_files: min_threshold,
            ..*config
        };
        let selected = if might_be_stuck {
            in_window.clone()
        } else if keep_settled && window.width() > unit {
            let treated: Vec<i64> = pairs[begin..i].iter().rev().map(|p| p.1).collect();
            explore_units(
                &in_window,
                &units(&treated, unit),
                &per_window,
                mode.off_peak,
            )
        } else {
            let mut per_window = per_window;
            if window.width() == base_width {
                per_window.ratio = per_window.ratio.min(BASE_TIER_RATIO);
                per_window.off_peak_ratio = per_window.off_peak_ratio.min(BASE_TIER_RATIO);
            }
            explore(&in_window, &per_window, false, mode.off_peak)
        };
        if selected.is_empty() {
            continue;
        }
        let single = selected.len() != in_window.len() || dt.single_output_for_minor;
        let mut boundaries = vec![i64::MIN];
        if !single {
            boundaries.push(window.start());
        }
        return Some((selected, boundaries, Some(window.start())));
    }
    None
}

/// Output boundaries of a major compaction at `now`: `i64::MIN`, then the start of every
/// window from the one after the window holding the oldest cell up to the incoming window,
/// ascending (at most [`MAX_BOUNDARIES`]).
pub fn major_boundaries(files: &[&FileMeta], dt: &DateTiered, now: i64) -> Vec<i64> {
    let min_ts = files
        .iter()
        .filter_map(|f| f.min_timestamp)
        .min()
        .unwrap_or(i64::MAX);
    let mut starts = Vec::new();
    let mut window = incoming_window(dt, now);
    while window.compare_to_timestamp(min_ts) == Ordering::Greater
        && starts.len() < MAX_BOUNDARIES - 1
    {
        starts.push(window.start());
        window = window.next_earlier();
    }
    starts.push(i64::MIN);
    starts.reverse();
    starts
}

/// Index of the output a cell of timestamp `ts` goes to: the greatest boundary `<= ts`.
pub fn boundary_index(boundaries: &[i64], ts: i64) -> usize {
    boundaries.partition_point(|b| *b <= ts).saturating_sub(1)
}

/// HBase's date-tiered `shouldPerformMajorCompaction`: the oldest file was written more than
/// the jittered major period ago, and some file holds cells past the TTL, was not written by
/// a major compaction, spans a window boundary, or shares a window with another file. (Unlike
/// exploring's check, a lone file qualifies for any of these reasons, not only the TTL.)
pub fn major_needed(files: &[&FileMeta], dt: &DateTiered, major: &MajorConfig, now: i64) -> bool {
    let period = jittered(files, major);
    let lowest = files.iter().map(|f| f.created_at_ms).min().unwrap_or(0);
    if period == 0 || lowest <= 0 || lowest >= now.saturating_sub(period) {
        return false;
    }
    let boundaries = major_boundaries(files, dt, now);
    let mut used = vec![false; boundaries.len()];
    for f in files {
        let oldest = f
            .min_timestamp
            .map_or(i64::MIN, |ts| now.saturating_sub(ts));
        if major.ttl_ms.is_some_and(|ttl| oldest >= ttl) || !f.major {
            return true;
        }
        let lower = boundary_index(&boundaries, f.min_timestamp.unwrap_or(i64::MAX));
        let upper = boundary_index(&boundaries, f.max_timestamp.unwrap_or(i64::MAX));
        if lower != upper || used[upper] {
            return true;
        }
        used[upper] = true;
    }
    false
}
