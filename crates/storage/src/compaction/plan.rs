//! What a policy reads ([`FileMeta`]) and what it returns ([`Plan`]).

use std::cmp::Ordering;

use crate::manifest::StoreFile;

/// What a compaction policy knows about one store file: metadata only, never the file itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileMeta {
    /// The file's name in the store (its identity).
    pub name: String,
    /// Length of the file in bytes (for a reference: the parent file's length, as HBase's
    /// half-file reader reports it).
    pub size: u64,
    /// Largest sequence id in the file; store order is ascending by this.
    pub max_seq_id: u64,
    /// Smallest cell timestamp, `None` when the file holds no cells.
    pub min_timestamp: Option<i64>,
    /// Largest cell timestamp, `None` when the file holds no cells.
    pub max_timestamp: Option<i64>,
    /// When the file was written, ms since the epoch. HBase's periodic major compaction uses the
    /// file's modification time for the same purpose.
    pub created_at_ms: i64,
    /// Written by a major compaction: holds no delete markers and no masked cells.
    pub major: bool,
    /// A split daughter's reference to half of a parent file. References must be compacted
    /// (rewritten) and are never skipped for size.
    pub reference: bool,
    /// Already part of a running compaction.
    pub compacting: bool,
    /// Excluded from minor compactions (HBase's bulk-load `EXCLUDE_FROM_MINOR_COMPACTION`).
    pub exclude_from_minor: bool,
}

impl FileMeta {
    /// The policy's view of a manifest entry.
    pub fn from_store_file(file: &StoreFile, compacting: bool) -> FileMeta {
        let has_cells = file.cell_count > 0;
        FileMeta {
            name: file.name.clone(),
            size: file.size,
            max_seq_id: file.max_seq_id,
            min_timestamp: has_cells.then_some(file.min_timestamp),
            max_timestamp: has_cells.then_some(file.max_timestamp),
            created_at_ms: file.created_at_ms,
            major: file.major,
            reference: file.is_borrowed(),
            compacting,
            exclude_from_minor: false,
        }
    }
}

/// Store order, oldest first: max sequence id ascending, then size descending, then name (HBase's
/// `StoreFileComparators.SEQ_ID` without the bulk-load time, which Strata does not have).
pub(crate) fn store_order(a: &FileMeta, b: &FileMeta) -> Ordering {
    a.max_seq_id
        .cmp(&b.max_seq_id)
        .then(b.size.cmp(&a.size))
        .then_with(|| a.name.cmp(&b.name))
}

/// `files` sorted in store order.
pub(crate) fn sorted(files: &[FileMeta]) -> Vec<&FileMeta> {
    let mut v: Vec<&FileMeta> = files.iter().collect();
    v.sort_by(|a, b| store_order(a, b));
    v
}

/// Sum of the files' sizes (saturating: sizes are never near `u64::MAX`, but a policy must not
/// panic on odd input).
pub(crate) fn total_size(files: &[&FileMeta]) -> u64 {
    files.iter().fold(0u64, |acc, f| acc.saturating_add(f.size))
}

/// What the compactor does with a plan's files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlanKind {
    /// Merge the inputs into new files.
    #[default]
    Merge,
    /// Every cell of the inputs is past the family's TTL: remove them from the store without
    /// reading or rewriting them (HBase's expired store file deletion).
    DropExpired,
}

/// A compaction to run: which files, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The input files in store order (oldest first). Never empty.
    pub files: Vec<FileMeta>,
    /// A major compaction: the inputs are all of the store's files, so the output may drop
    /// delete markers and the cells they mask.
    pub major: bool,
    /// The inputs are all of the store's files (true for every major plan; a minor plan may
    /// also cover all files, and must then still keep delete markers).
    pub all_files: bool,
    /// Selected with the off-peak ratio; the caller holds the store's off-peak slot until the
    /// compaction ends.
    pub off_peak: bool,
    /// The inputs include split references, which this compaction rewrites into real files.
    pub after_split: bool,
    /// Merge or drop.
    pub kind: PlanKind,
    /// Lower timestamp bounds of the output files, ascending, the first `i64::MIN`: a cell
    /// goes to the file of the greatest bound not above its timestamp (date-tiered windows,
    /// HBase's `DateTieredMultiFileWriter`). Empty or one bound: a single output file.
    pub boundaries: Vec<i64>,
    /// For a date-tiered minor compaction, the start of the window it compacts: where its
    /// outputs are placed when windows get storage policies by age (HBase's
    /// `getBoundariesStoragePolicyForMinor`). `None` otherwise.
    pub window_start: Option<i64>,
}

impl Plan {
    /// Total bytes the compaction reads.
    pub fn input_size(&self) -> u64 {
        self.files
            .iter()
            .fold(0u64, |acc, f| acc.saturating_add(f.size))
    }
}
