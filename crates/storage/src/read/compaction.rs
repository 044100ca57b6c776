//! Which cells a compaction keeps, decided cell by cell over its input files in store order
//! (HBase's `MinorCompactionScanQueryMatcher` and `MajorCompactionScanQueryMatcher`).
//!
//! The promise: a read over the whole time range at any read point ≥ the smallest read point
//! returns the same cells after the compaction as before it, as long as the inputs hold every
//! delete marker that may mask their cells (see [`CompactionSpec::trim_versions`]). Within
//! that, it keeps as little as it can:
//!
//! 1. A cell with `seq > smallest_read_point` is newer than some reader may see: it is kept,
//!    does not count as a version, and (a delete marker) masks nothing yet. A put of that kind
//!    is still dropped when a tracked marker masks it: every reader that sees the put also sees
//!    the older marker.
//! 2. Of puts with one timestamp in a column only the newest counts; older ones are dropped.
//! 3. A delete marker *masks* the puts it covers (DeleteFamily: every column at or before its
//!    timestamp; DeleteFamilyVersion: every column at exactly it; DeleteColumn: the column at
//!    or before; Delete: the column at exactly it). It is *tracked* — the puts it masks are
//!    dropped — unless KEEP_DELETED_CELLS keeps them: `TRUE` tracks no marker, `TTL` tracks
//!    only expired markers.
//! 4. A marker (or put) past the TTL is dropped when MIN_VERSIONS is 0: it could only mask
//!    (or be) an expired cell, which no read returns. A put whose own TTL has expired at `now`
//!    is dropped whatever MIN_VERSIONS says, and counts for nothing: reads skip it the same
//!    way (HBase's `ScanQueryMatcher.preCheck`, shared by its compaction matchers).
//! 5. A major compaction drops the markers it tracks; a minor one keeps every marker, since
//!    files outside the compaction may hold cells they mask.
//! 6. Versions: a put is kept if a read would return it (fewer than VERSIONS unmasked puts of
//!    its column come first, and it is unexpired or fewer than MIN_VERSIONS come first). A
//!    masked put that KEEP_DELETED_CELLS keeps is kept if it is among HBase's VERSIONS newest
//!    puts of the column, deleted or not, under the same TTL rule (time-travel reads).
//!
//! What a compaction cannot preserve, as in HBase: a time-range read may see fewer versions
//! once versions beyond VERSIONS are gone, and a delete marker written *after* the compaction
//! (or still in the memtable) no longer uncovers versions the compaction dropped (HBase book,
//! "Major compactions change query results").

use strata_model::cell::{ttl_expired, CellType, Timestamp};
use strata_model::schema::KeepDeletedCells;
use strata_sstable::CellRef;

/// What one compaction of one store keeps.
#[derive(Clone, Debug)]
pub struct CompactionSpec {
    /// The family's VERSIONS.
    pub max_versions: u32,
    /// The family's MIN_VERSIONS.
    pub min_versions: u32,
    /// Cells with a timestamp below this are expired (now − TTL), or `i64::MIN` for no TTL.
    pub expired_before: Timestamp,
    /// The family's KEEP_DELETED_CELLS.
    pub keep_deleted: KeepDeletedCells,
    /// The time (ms) the cells' own TTLs are checked against; `i64::MIN` expires none.
    pub now: Timestamp,
    /// The oldest read point a reader may still use: cells newer than it are kept untouched.
    pub smallest_read_point: u64,
    /// A major compaction (all files): drop the delete markers it tracks.
    pub drop_markers: bool,
    /// Drop versions beyond VERSIONS (and expired ones beyond MIN_VERSIONS). Requires: no file
    /// outside the compaction holds a delete marker, or a version counted here might be masked
    /// there and an older one, dropped here, visible.
    pub trim_versions: bool,
}

/// Why a cell was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// A put older than the column's kept versions.
    Versions,
    /// A put masked by a tracked delete marker.
    Masked,
    /// A delete marker a major compaction no longer needs.
    Marker,
    /// A cell past the TTL.
    Expired,
    /// An older put with the same timestamp, or a cell identical to the previous one.
    Duplicate,
}

/// The decision for one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Write the cell to the output.
    Keep,
    /// Leave it out.
    Drop(Dropped),
}

/// Cells dropped, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DroppedCells {
    /// Versions beyond VERSIONS.
    pub versions: u64,
    /// Puts masked by delete markers.
    pub masked: u64,
    /// Delete markers.
    pub markers: u64,
    /// Cells past the TTL.
    pub expired: u64,
    /// Same-timestamp older puts and identical cells.
    pub duplicates: u64,
}

impl DroppedCells {
    /// Counts one dropped cell.
    pub fn add(&mut self, reason: Dropped) {
        let n = match reason {
            Dropped::Versions => &mut self.versions,
            Dropped::Masked => &mut self.masked,
            Dropped::Marker => &mut self.markers,
            Dropped::Expired => &mut self.expired,
            Dropped::Duplicate => &mut self.duplicates,
        };
        *n += 1;
    }

    /// All dropped cells.
    pub fn total(&self) -> u64 {
        self.versions + self.masked + self.markers + self.expired + self.duplicates
    }
}

/// Delete markers of one row and column.
#[derive(Debug, Default)]
struct Masks {
    family_at: Option<Timestamp>,
    family_versions: Vec<Timestamp>,
    column_at: Option<Timestamp>,
    versions: Vec<Timestamp>,
}

impl Masks {
    fn add(&mut self, cell_type: CellType, ts: Timestamp) {
        let newest = |at: &mut Option<Timestamp>| *at = Some(at.map_or(ts, |a| a.max(ts)));
        match cell_type {
            CellType::DeleteFamily => newest(&mut self.family_at),
            CellType::DeleteFamilyVersion => self.family_versions.push(ts),
            CellType::DeleteColumn => newest(&mut self.column_at),
            CellType::Delete => self.versions.push(ts),
            CellType::Put => {}
        }
    }

    fn masks(&self, ts: Timestamp) -> bool {
        self.family_at.is_some_and(|at| ts <= at)
            || self.column_at.is_some_and(|at| ts <= at)
            || self.family_versions.contains(&ts)
            || self.versions.contains(&ts)
    }

    fn new_row(&mut self) {
        self.family_at = None;
        self.family_versions.clear();
    }

    fn new_column(&mut self) {
        self.column_at = None;
        self.versions.clear();
    }
}

/// Per-row and per-column state of a compaction's decisions.
#[derive(Debug)]
pub struct Retention {
    spec: CompactionSpec,
    row: Vec<u8>,
    qualifier: Vec<u8>,
    started: bool,
    /// Every marker at or below the smallest read point: what reads apply.
    all: Masks,
    /// The markers whose masked puts this compaction drops (rule 3).
    tracked: Masks,
    /// Timestamp of the last put of the column that counted (rule 2).
    last_put_ts: Option<Timestamp>,
    /// Unmasked puts of the column a read returns, kept so far.
    visible: u32,
    /// Puts of the column counted as HBase counts them with KEEP_DELETED_CELLS.
    counted: u32,
}

impl Retention {
    /// A fresh decision state for `spec`.
    pub fn new(spec: CompactionSpec) -> Retention {
        Retention {
            spec,
            row: Vec::new(),
            qualifier: Vec::new(),
            started: false,
            all: Masks::default(),
            tracked: Masks::default(),
            last_put_ts: None,
            visible: 0,
            counted: 0,
        }
    }

    /// The spec.
    pub fn spec(&self) -> &CompactionSpec {
        &self.spec
    }

    fn enter(&mut self, cell: &CellRef<'_>) {
        let new_row = !self.started || self.row.as_slice() != cell.row;
        if new_row {
            self.row.clear();
            self.row.extend_from_slice(cell.row);
            self.all.new_row();
            self.tracked.new_row();
        }
        if new_row || self.qualifier.as_slice() != cell.qualifier {
            self.qualifier.clear();
            self.qualifier.extend_from_slice(cell.qualifier);
            self.all.new_column();
            self.tracked.new_column();
            self.last_put_ts = None;
            self.visible = 0;
            self.counted = 0;
        }
        self.started = true;
    }

    /// Decides on `cell`.
    ///
    /// Requires: cells arrive in store order, each once.
    pub fn decide(&mut self, cell: &CellRef<'_>) -> Decision {
        self.enter(cell);
        let spec = &self.spec;
        let ts = cell.timestamp;
        let expired = ts < spec.expired_before;
        let newer_than_readers = cell.seq > spec.smallest_read_point;
        if cell.cell_type.is_delete() {
            if newer_than_readers {
                return Decision::Keep;
            }
            self.all.add(cell.cell_type, ts);
            let tracked = match spec.keep_deleted {
                KeepDeletedCells::False => true,
                KeepDeletedCells::Ttl => expired,
                KeepDeletedCells::True => false,
            };
            if tracked {
                self.tracked.add(cell.cell_type, ts);
            }
            if expired && spec.min_versions == 0 {
                return Decision::Drop(Dropped::Expired);
            }
            if tracked && spec.drop_markers {
                return Decision::Drop(Dropped::Marker);
            }
            return Decision::Keep;
        }
        if ttl_expired(ts, cell.ttl, spec.now) {
            return Decision::Drop(Dropped::Expired);
        }
        if self.tracked.masks(ts) {
            return Decision::Drop(Dropped::Masked);
        }
        if expired && spec.min_versions == 0 {
            return Decision::Drop(Dropped::Expired);
        }
        if newer_than_readers {
            return Decision::Keep;
        }
        if self.last_put_ts == Some(ts) {
            return Decision::Drop(Dropped::Duplicate);
        }
        self.last_put_ts = Some(ts);
        let within = |returned: u32| {
            returned < spec.max_versions && (!expired || returned < spec.min_versions)
        };
        let keep = if self.all.masks(ts) {
            // Only KEEP_DELETED_CELLS gets here: HBase's count over deleted and live puts.
            let keep = within(self.counted);
            self.counted += 1;
            keep
        } else {
            let keep = within(self.visible);
            self.visible += u32::from(keep);
            self.counted += 1;
            keep
        };
        match (keep || !spec.trim_versions, expired) {
            (true, _) => Decision::Keep,
            (false, true) => Decision::Drop(Dropped::Expired),
            (false, false) => Decision::Drop(Dropped::Versions),
        }
    }
}
