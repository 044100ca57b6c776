//! HBase's `ExploringCompactionPolicy`: among every contiguous run of files, pick the one that
//! compacts the most files for the least I/O while keeping every file within `ratio` of the rest.
//!
//! Source: HBase `SortedCompactionPolicy.selectCompaction`, `RatioBasedCompactionPolicy`
//! (`createCompactionRequest`) and `ExploringCompactionPolicy.applyCompactionPolicy`. Steps, in
//! HBase's order:
//! 1. Sort the files oldest first; drop every file up to the newest one already compacting, so
//!    compactions stay contiguous in sequence ids (HBASE-2856).
//! 2. Unless a major is forced over all files, drop leading files larger than the maximum
//!    compact size (references are never dropped).
//! 3. Try a major when forced over all files, or when one is due ([`super::major_due`]) and
//!    fewer than `max_files` candidates remain. Split references force an all-candidates
//!    compaction too.
//! 4. Otherwise (minor): drop files excluded from minors, explore the runs, and give up below
//!    `min_files`.
//! 5. Keep at most `max_files`, oldest first, unless the user asked for this major.
//!
//! Ratios and the major jitter are `f32`, as HBase reads them, and are widened to `f64` where
//! Java widens them, so boundary cases select exactly what HBase selects.

use super::major;
use super::plan::{sorted, total_size, FileMeta, Plan, PlanKind};
use super::pressure::DEFAULT_BLOCKING_FILE_COUNT;
use super::MajorConfig;

/// Settings of the exploring policy for one family (HBase's `hbase.hstore.compaction.*`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExploringConfig {
    /// `hbase.hstore.compaction.min`: fewest files in a minor compaction. Default 3, at least 2.
    pub min_files: usize,
    /// `hbase.hstore.compaction.max`: most files in a compaction. Default 10.
    pub max_files: usize,
    /// `hbase.hstore.compaction.ratio`: a file joins a minor compaction only if it is at most
    /// this many times the sum of the others. Higher compacts more eagerly. Default 1.2.
    pub ratio: f32,
    /// `hbase.hstore.compaction.ratio.offpeak`: the ratio during off-peak hours. Default 5.0.
    pub off_peak_ratio: f32,
    /// `hbase.hstore.compaction.min.size`: runs smaller than this skip the ratio test. Default
    /// the memtable flush size, 128 MiB.
    pub min_compact_size: u64,
    /// `hbase.hstore.compaction.max.size`: larger runs are never minor-compacted, and leading
    /// files larger than this are skipped. Default unbounded.
    pub max_compact_size: u64,
    /// `hbase.hstore.compaction.max.size.offpeak`: the same during off-peak hours. Default
    /// unbounded (HBase: equal to `max_compact_size`).
    pub off_peak_max_compact_size: u64,
    /// `hbase.hstore.blockingStoreFiles`: at this many files the store "might be stuck" and the
    /// policy prefers removing files to saving I/O. Default 16.
    pub blocking_file_count: usize,
    /// Periodic major compaction.
    pub major: MajorConfig,
}

impl Default for ExploringConfig {
    fn default() -> Self {
        ExploringConfig {
            min_files: 3,
            max_files: 10,
            ratio: 1.2,
            off_peak_ratio: 5.0,
            min_compact_size: 128 << 20,
            max_compact_size: u64::MAX,
            off_peak_max_compact_size: u64::MAX,
            blocking_file_count: DEFAULT_BLOCKING_FILE_COUNT,
            major: MajorConfig::default(),
        }
    }
}

impl ExploringConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// A message naming the bad setting.
    pub fn validate(&self) -> Result<(), String> {
        if self.min_files < 2 {
            return Err(format!("min files {} is below 2", self.min_files));
        }
        if self.max_files < self.min_files {
            return Err(format!(
                "max files {} is below min files {}",
                self.max_files, self.min_files
            ));
        }
        for (name, r) in [
            ("ratio", self.ratio),
            ("off-peak ratio", self.off_peak_ratio),
        ] {
            if !(r.is_finite() && r > 0.0) {
                return Err(format!("{name} {r} is not a positive number"));
            }
        }
        self.major.validate()
    }

    fn max_size(&self, off_peak: bool) -> u64 {
        if off_peak {
            self.off_peak_max_compact_size
        } else {
            self.max_compact_size
        }
    }
}

/// Who asks for a major compaction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MajorRequest {
    /// Nobody: minor, unless a periodic major is due.
    #[default]
    None,
    /// The system forces one (HBase's `forceMajor`), capped at `max_files` inputs.
    Forced,
    /// A user asked for one (shell `major_compact`): all files, however many.
    User,
}

/// The circumstances of one selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mode {
    /// Now, ms since the epoch (for the periodic major).
    pub now_ms: i64,
    /// Off-peak hours, and this store may take the server's off-peak slot.
    pub off_peak: bool,
    /// A major compaction request.
    pub major: MajorRequest,
}

/// Chooses the files of one store to compact, or `None`. `files` may be in any order and
/// include files already compacting (marked [`FileMeta::compacting`]).
pub fn select(files: &[FileMeta], config: &ExploringConfig, mode: Mode) -> Option<Plan> {
    // Files past the family's TTL go whole, without a rewrite (HBase's
    // `selectExpiredStoreFiles`), unless a major compaction is asked for (it rewrites all).
    if mode.major == MajorRequest::None {
        if let Some(plan) = super::date_tiered::expired(files, config.major.ttl_ms, mode.now_ms) {
            return Some(plan);
        }
    }
    let all = sorted(files);
    let compacting = all.iter().filter(|f| f.compacting).count();
    let future_files = usize::from(compacting > 0);
    let might_be_stuck = all.len() - compacting + future_files >= config.blocking_file_count;

    let first_eligible = all.iter().rposition(|f| f.compacting).map_or(0, |i| i + 1);
    let mut candidates: Vec<&FileMeta> = all[first_eligible..].to_vec();

    let force_major = mode.major != MajorRequest::None;
    let user = mode.major == MajorRequest::User;
    let mut all_files = candidates.len() == all.len();
    if !(force_major && all_files) {
        let max = config.max_size(mode.off_peak);
        let skip = candidates
            .iter()
            .take_while(|f| !f.reference && f.size > max)
            .count();
        candidates.drain(..skip);
        all_files = candidates.len() == all.len();
    }

    let trying_major = (force_major && all_files && user)
        || (((force_major && all_files) || major::due(&candidates, &config.major, mode.now_ms))
            && candidates.len() < config.max_files);
    let after_split = candidates.iter().any(|f| f.reference);

    if !(trying_major || after_split) {
        candidates.retain(|f| !f.exclude_from_minor);
        candidates = explore(&candidates, config, might_be_stuck, mode.off_peak);
        if candidates.len() < config.min_files {
            candidates.clear();
        }
    }
    if candidates.len() > config.max_files && !(trying_major && user) {
        candidates.truncate(config.max_files);
    }
    if candidates.is_empty() {
        return None;
    }
    let all_files = candidates.len() == all.len();
    Some(Plan {
        files: candidates.into_iter().cloned().collect(),
        major: trying_major && all_files,
        all_files,
        off_peak: !all_files && mode.off_peak,
        after_split,
        kind: PlanKind::Merge,
        boundaries: Vec::new(),
        window_start: None,
    })
}

/// The exploring search over contiguous runs of `files`, given in store order (HBase's
/// `ExploringCompactionPolicy.applyCompactionPolicy`). Empty when no run qualifies.
///
/// This is the step date-tiered compaction reuses inside each window, with its own
/// `min_files` (HBase's `setMinThreshold`).
pub fn explore<'a>(
    files: &[&'a FileMeta],
    config: &ExploringConfig,
    might_be_stuck: bool,
    off_peak: bool,
) -> Vec<&'a FileMeta> {
    let ratio = f64::from(if off_peak {
        config.off_peak_ratio
    } else {
        config.ratio
    });
    let max_size = config.max_size(off_peak);
    let mut best: &[&FileMeta] = &[];
    let mut best_size = 0u64;
    let mut smallest: &[&FileMeta] = &[];
    let mut smallest_size = u64::MAX;
    for start in 0..files.len() {
        for end in (start + config.min_files.max(1) - 1)..files.len() {
            let run = &files[start..=end];
            if run.len() < config.min_files || run.len() > config.max_files {
                continue;
            }
            let size = total_size(run);
            if might_be_stuck && size < smallest_size {
                smallest = run;
                smallest_size = size;
            }
            if size > max_size {
                continue;
            }
            if size >= config.min_compact_size && !in_ratio(run, size, ratio) {
                continue;
            }
            if better(best, best_size, run, size, might_be_stuck) {
                best = run;
                best_size = size;
            }
        }
    }
    if best.is_empty() && might_be_stuck {
        return smallest.to_vec();
    }
    best.to_vec()
}

/// Every file is at most `ratio` times the sum of the others.
fn in_ratio(run: &[&FileMeta], total: u64, ratio: f64) -> bool {
    run.len() < 2
        || run
            .iter()
            .all(|f| f.size as f64 <= (total - f.size) as f64 * ratio)
}

/// HBase's `isBetterSelection`: when stuck, most files per byte (by a 5% margin, so earlier and
/// smaller runs win near-ties); otherwise most files, then fewest bytes.
fn better(best: &[&FileMeta], best_size: u64, run: &[&FileMeta], size: u64, stuck: bool) -> bool {
    if stuck && best_size > 0 && size > 0 {
        const REPLACE_IF_BETTER_BY: f64 = 1.05;
        let threshold = (best.len() as f64 / best_size as f64) * REPLACE_IF_BETTER_BY;
        return threshold < run.len() as f64 / size as f64;
    }
    run.len() > best.len() || (run.len() == best.len() && size < best_size)
}
