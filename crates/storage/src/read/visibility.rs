//! Which cells a read sees, decided cell by cell over one store's cells in store order (HBase's
//! ScanQueryMatcher with its column and delete trackers).
//!
//! Rules, in the order they apply to a cell:
//! 1. A cell written after the reader's MVCC read point (`seq > read_point`) does not exist yet.
//! 2. Delete markers are remembered per row (DeleteFamily: every column at or before its
//!    timestamp; DeleteFamilyVersion: every column at exactly its timestamp) and per column
//!    (DeleteColumn: every version at or before; Delete: exactly its timestamp), and are never
//!    returned. As in HBase, a marker masks every put it covers by timestamp, whenever the put
//!    was written; with KEEP_DELETED_CELLS a marker newer than the read's time range is ignored
//!    (a "time travel" read sees what was there before the delete).
//! 3. Of puts with the same timestamp in a column, only the newest (highest sequence id) counts.
//! 4. Puts outside the time range, and puts whose own TTL (HBase's TTL tag) has expired at
//!    `now`, are skipped and do not count as versions, whatever MIN_VERSIONS says (HBase's
//!    `ScanQueryMatcher.preCheck` skips them before any tracker sees them).
//! 5. A put older than the TTL is expired, unless fewer than MIN_VERSIONS newer versions of
//!    its column were returned.
//! 6. At most `max_versions` puts a column are returned, newest first. With a filter, the
//!    first `versions_checked` puts a column (the family's `VERSIONS`) are offered to the
//!    filter, and the first `max_versions` it includes are returned ([`Visibility::admit`]), so
//!    an older version the filter keeps comes back when the newest does not (HBase's
//!    `UserScanQueryMatcher.matchColumn`: the column tracker's `checkVersions`, then the
//!    filter, then `versionsAfterFilter`).
//!
//! A **raw** read (HBase's `RawScanQueryMatcher`) tracks no deletes: markers are returned
//! like puts and mask nothing. Markers do not count as versions; a marker or put of the same
//! timestamp and type as the cell last returned is a duplicate and skipped; the time range and
//! the TTL apply to markers as to puts (a marker is expired when its column has already given
//! more than `MIN_VERSIONS` puts, or `MIN_VERSIONS` is 0); the column ends at the first put
//! past `versions_checked`, so the markers between the last version returned and the next
//! put still come back (HBase's `ScanWildcardColumnTracker.checkVersion`).

use strata_model::cell::{ttl_expired, CellType, Timestamp};
use strata_model::ops::TimeRange;
use strata_model::schema::KeepDeletedCells;
use strata_sstable::CellRef;

/// What one read asks of one store.
#[derive(Clone, Debug)]
pub struct ReadSpec {
    /// Timestamps seen.
    pub time_range: TimeRange,
    /// Versions a column returns at most: min(the read's, the family's VERSIONS); a raw read's
    /// own.
    pub max_versions: u32,
    /// With a filter, versions a column offers it: the family's VERSIONS (unlimited for a raw
    /// read). `None` (no filter): `max_versions`.
    pub versions_checked: Option<u32>,
    /// Return delete markers and the cells they mask (HBase's raw scan).
    pub raw: bool,
    /// The family's MIN_VERSIONS.
    pub min_versions: u32,
    /// Cells with a timestamp below this are expired (now − TTL), or `i64::MIN` for no TTL.
    pub expired_before: Timestamp,
    /// The family's KEEP_DELETED_CELLS.
    pub keep_deleted: KeepDeletedCells,
    /// The time (ms) the cells' own TTLs are checked against; `i64::MIN` expires none.
    pub now: Timestamp,
    /// The MVCC read point: cells with a larger sequence id are invisible.
    pub read_point: u64,
}

impl ReadSpec {
    /// Versions a column offers the filter (or returns, without one).
    pub fn checked(&self) -> u32 {
        self.versions_checked.unwrap_or(self.max_versions)
    }

    /// The newest version of every column, no TTL, everything visible.
    pub fn latest() -> ReadSpec {
        ReadSpec {
            time_range: TimeRange::ALL,
            max_versions: 1,
            versions_checked: None,
            raw: false,
            min_versions: 0,
            expired_before: i64::MIN,
            keep_deleted: KeepDeletedCells::False,
            now: i64::MIN,
            read_point: u64::MAX,
        }
    }
}

/// The decision for one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Return the cell.
    Include,
    /// Do not return it.
    Skip,
}

/// Per-row and per-column state of the decision.
#[derive(Debug)]
pub struct Visibility {
    spec: ReadSpec,
    row: Vec<u8>,
    qualifier: Vec<u8>,
    started: bool,
    /// Newest DeleteFamily timestamp of the row.
    family_deleted_at: Option<Timestamp>,
    /// DeleteFamilyVersion timestamps of the row.
    family_versions_deleted: Vec<Timestamp>,
    /// Newest DeleteColumn timestamp of the column.
    column_deleted_at: Option<Timestamp>,
    /// Delete (one version) timestamps of the column.
    versions_deleted: Vec<Timestamp>,
    /// Timestamp of the last put of the column that was considered (for rule 3).
    last_put_ts: Option<Timestamp>,
    /// Raw reads: timestamp and type of the cell of the column last included.
    last_raw: Option<(Timestamp, CellType)>,
    /// Puts of the column that passed the version check so far.
    returned: u32,
    /// Cells of the column the filter kept ([`Visibility::admit`]).
    kept: u32,
    /// Raw reads: a put of the column went past `versions_checked`.
    exhausted: bool,
    /// Cells examined: decided, or stepped over by a reader ([`Visibility::count_passed`]).
    examined: u64,
}

impl Visibility {
    /// A fresh decision state for `spec`.
    pub fn new(spec: ReadSpec) -> Visibility {
        Visibility {
            spec,
            row: Vec::new(),
            qualifier: Vec::new(),
            started: false,
            family_deleted_at: None,
            family_versions_deleted: Vec::new(),
            column_deleted_at: None,
            versions_deleted: Vec::new(),
            last_put_ts: None,
            last_raw: None,
            returned: 0,
            kept: 0,
            exhausted: false,
            examined: 0,
        }
    }

    /// The spec.
    pub fn spec(&self) -> &ReadSpec {
        &self.spec
    }

    /// Counts a cell a reader read and stepped over without deciding on it.
    pub fn count_passed(&mut self) {
        self.examined += 1;
    }

    /// Cells read so far: every cell decided on or stepped over (not those a seek passed).
    pub fn examined(&self) -> u64 {
        self.examined
    }

    fn enter(&mut self, cell: &CellRef<'_>) {
        let new_row = !self.started || self.row.as_slice() != cell.row;
        if new_row {
            self.row.clear();
            self.row.extend_from_slice(cell.row);
            self.family_deleted_at = None;
            self.family_versions_deleted.clear();
        }
        if new_row || self.qualifier.as_slice() != cell.qualifier {
            self.qualifier.clear();
            self.qualifier.extend_from_slice(cell.qualifier);
            self.column_deleted_at = None;
            self.versions_deleted.clear();
            self.last_put_ts = None;
            self.last_raw = None;
            self.returned = 0;
            self.kept = 0;
            self.exhausted = false;
        }
        self.started = true;
    }

    /// Decides on `cell`.
    ///
    /// Requires: cells arrive in store order (the merged cursor's order).
    pub fn decide(&mut self, cell: &CellRef<'_>) -> Verdict {
        self.examined += 1;
        if cell.seq > self.spec.read_point {
            return Verdict::Skip;
        }
        self.enter(cell);
        if self.spec.raw {
            return self.decide_raw(cell);
        }
        let ts = cell.timestamp;
        if cell.cell_type.is_delete() {
            let ignored =
                self.spec.keep_deleted != KeepDeletedCells::False && ts >= self.spec.time_range.max;
            if !ignored {
                match cell.cell_type {
                    CellType::DeleteFamily => {
                        let at = self.family_deleted_at.get_or_insert(ts);
                        *at = (*at).max(ts);
                    }
                    CellType::DeleteFamilyVersion => self.family_versions_deleted.push(ts),
                    CellType::DeleteColumn => {
                        let at = self.column_deleted_at.get_or_insert(ts);
                        *at = (*at).max(ts);
                    }
                    CellType::Delete => self.versions_deleted.push(ts),
                    CellType::Put => {}
                }
            }
            return Verdict::Skip;
        }
        // Rule 4, the cell's own TTL: skipped before it counts for anything.
        if ttl_expired(ts, cell.ttl, self.spec.now) {
            return Verdict::Skip;
        }
        // Rule 3: an older write of the same timestamp.
        if self.last_put_ts == Some(ts) {
            return Verdict::Skip;
        }
        self.last_put_ts = Some(ts);
        if self.masked(ts) {
            return Verdict::Skip;
        }
        let range = self.spec.time_range;
        if ts < range.min || ts >= range.max {
            return Verdict::Skip;
        }
        if ts < self.spec.expired_before && self.returned >= self.spec.min_versions {
            return Verdict::Skip;
        }
        if self.returned >= self.spec.checked() {
            return Verdict::Skip;
        }
        self.returned += 1;
        Verdict::Include
    }

    /// [`decide`](Self::decide) for a raw read: every cell, markers included, by time range,
    /// TTL, duplicates and version count only.
    fn decide_raw(&mut self, cell: &CellRef<'_>) -> Verdict {
        let ts = cell.timestamp;
        let range = self.spec.time_range;
        if ts < range.min || ts >= range.max || self.exhausted {
            return Verdict::Skip;
        }
        let expired = ts < self.spec.expired_before;
        if expired && self.spec.min_versions == 0 {
            return Verdict::Skip;
        }
        if self.last_raw == Some((ts, cell.cell_type)) {
            return Verdict::Skip;
        }
        let count = if cell.cell_type.is_delete() {
            self.returned
        } else {
            self.returned + 1
        };
        if count > self.spec.checked() {
            self.exhausted = true;
            return Verdict::Skip;
        }
        if expired && count > self.spec.min_versions {
            self.exhausted = true;
            return Verdict::Skip;
        }
        self.returned = count;
        self.last_raw = Some((ts, cell.cell_type));
        Verdict::Include
    }

    /// Counts a cell [`decide`](Self::decide) included and the read's filter kept: true if it
    /// is within the column's `max_versions` and is returned, false if the column has given
    /// them all (HBase's `versionsAfterFilter`; the rest of the column may be skipped).
    /// Without a filter (`versions_checked` is `None`) every such cell is returned: `decide`
    /// counted the versions already, and a raw read's markers are not versions.
    pub fn admit(&mut self) -> bool {
        if self.spec.versions_checked.is_none() {
            return true;
        }
        if self.kept >= self.spec.max_versions {
            return false;
        }
        self.kept += 1;
        true
    }

    /// True when no later cell of column `qualifier` in the current row can change the
    /// result: the column has given its `max_versions`, and later cells of a column are older
    /// versions or markers that only mask older versions of it. A reader may seek past the
    /// column's rest. Never true for the empty qualifier, whose column also holds the row's
    /// family delete markers, which mask cells of every column.
    ///
    /// In a raw read, where markers after the last version returned still come back, true
    /// once a put past the column's versions was met.
    pub fn column_done(&self, qualifier: &[u8]) -> bool {
        let done = if self.spec.raw {
            self.exhausted
        } else {
            self.returned >= self.spec.checked()
        };
        done && !qualifier.is_empty() && self.started && self.qualifier.as_slice() == qualifier
    }

    fn masked(&self, ts: Timestamp) -> bool {
        self.family_deleted_at.is_some_and(|at| ts <= at)
            || self.column_deleted_at.is_some_and(|at| ts <= at)
            || self.family_versions_deleted.contains(&ts)
            || self.versions_deleted.contains(&ts)
    }
}
