//! State and decisions of the single filters that need more than a line (HBase's
//! `PrefixFilter`, `RowFilter`, `MultiRowRangeFilter`, `SingleColumnValueFilter`, `PageFilter`,
//! and the column filters).

use std::cmp::Ordering;

use bytes::Bytes;
use strata_model::cell::{compare_bytes, Timestamp};
use strata_model::ops::{ColumnRange, CompareOp, RowRange, SingleColumnValue};
use strata_sstable::CellRef;

use super::compare::Matcher;
use super::ReturnCode;

/// `PrefixFilter`: rows starting with `prefix`; done once the scan has passed them.
#[derive(Clone, Debug)]
pub(super) struct PrefixRows {
    pub(super) prefix: Bytes,
    pub(super) reversed: bool,
    /// The current row does not start with the prefix (HBase's `filterRow`, true on reset).
    pub(super) rejected: bool,
    /// Every later row is outside the prefix.
    pub(super) passed: bool,
}

impl PrefixRows {
    pub(super) fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.passed {
            return true;
        }
        self.rejected = !row.starts_with(&self.prefix);
        if self.rejected {
            let beyond = if self.reversed {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            self.passed = compare_bytes(row, &self.prefix) == beyond;
        }
        self.rejected
    }
}

/// `RowFilter`: rows comparing to the operand.
#[derive(Clone, Debug)]
pub(super) struct RowCompare {
    pub(super) op: CompareOp,
    pub(super) matcher: Matcher,
    /// The current row failed the comparison (HBase's `filterOutRow`).
    pub(super) rejected: bool,
}

impl RowCompare {
    pub(super) fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if !self.matcher.keeps(self.op, row) {
            self.rejected = true;
        }
        self.rejected
    }
}

/// `MultiRowRangeFilter`: rows in any of the ranges; done once past the last one.
#[derive(Clone, Debug)]
pub(super) struct RowRanges {
    /// Sorted by start: open first, then ascending, an inclusive start before an exclusive
    /// one. The ranges whose start admits a row are therefore a prefix of this list.
    ranges: Vec<RowRange>,
    /// `reach[i]`: the farthest stop among `ranges[..=i]`, `None` if open.
    reach: Vec<Option<(Bytes, bool)>>,
    reversed: bool,
    /// The current row is in no range.
    pub(super) rejected: bool,
    /// Every later row is in no range.
    pub(super) done: bool,
}

impl RowRanges {
    pub(super) fn new(mut ranges: Vec<RowRange>, reversed: bool) -> RowRanges {
        ranges.sort_by(|a, b| match (a.start.is_empty(), b.start.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => {
                compare_bytes(&a.start, &b.start).then(b.start_inclusive.cmp(&a.start_inclusive))
            }
        });
        let mut reach: Vec<Option<(Bytes, bool)>> = Vec::with_capacity(ranges.len());
        for r in &ranges {
            let stop = (!r.stop.is_empty()).then(|| (r.stop.clone(), r.stop_inclusive));
            let farther = match (reach.last(), &stop) {
                (None, _) | (_, None) => stop,
                (Some(None), _) => None,
                (Some(Some(prev)), Some(s)) => {
                    let ord = compare_bytes(&s.0, &prev.0).then(s.1.cmp(&prev.1));
                    Some(if ord == Ordering::Greater { s } else { prev }.clone())
                }
            };
            reach.push(farther);
        }
        RowRanges {
            done: ranges.is_empty(),
            ranges,
            reach,
            reversed,
            rejected: true,
        }
    }

    fn start_admits(r: &RowRange, row: &[u8]) -> bool {
        r.start.is_empty()
            || match compare_bytes(&r.start, row) {
                Ordering::Less => true,
                Ordering::Equal => r.start_inclusive,
                Ordering::Greater => false,
            }
    }

    fn stop_admits(stop: &Option<(Bytes, bool)>, row: &[u8]) -> bool {
        match stop {
            None => true,
            Some((stop, inclusive)) => match compare_bytes(row, stop) {
                Ordering::Less => true,
                Ordering::Equal => *inclusive,
                Ordering::Greater => false,
            },
        }
    }

    /// For a row [`filter_row_key`](Self::filter_row_key) rejected, the start of the next
    /// range after it (ascending reads only), where the read may seek.
    pub(super) fn row_hint(&self, row: &[u8]) -> Option<Bytes> {
        if !self.rejected || self.done || self.reversed {
            return None;
        }
        let k = self
            .ranges
            .partition_point(|r| RowRanges::start_admits(r, row));
        let next = self.ranges.get(k)?;
        (compare_bytes(&next.start, row) == Ordering::Greater).then(|| next.start.clone())
    }

    pub(super) fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            self.rejected = true;
            return true;
        }
        let k = self
            .ranges
            .partition_point(|r| RowRanges::start_admits(r, row));
        self.rejected = k == 0 || !RowRanges::stop_admits(&self.reach[k - 1], row);
        if self.rejected {
            self.done = if self.reversed {
                k == 0
            } else {
                self.reach
                    .last()
                    .is_some_and(|stop| !RowRanges::stop_admits(stop, row))
            };
        }
        self.rejected
    }
}

/// `SingleColumnValueFilter`.
#[derive(Clone, Debug)]
pub(super) struct ColumnValue {
    pub(super) spec: SingleColumnValue,
    pub(super) matcher: Matcher,
    /// The row has the column (a version of it reached the filter).
    pub(super) found: bool,
    /// A version of the column satisfied the condition.
    pub(super) matched: bool,
}

impl ColumnValue {
    pub(super) fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        let latest_only = self.spec.latest_version_only;
        if self.matched {
            return ReturnCode::Include;
        }
        if latest_only && self.found {
            return ReturnCode::NextRow;
        }
        if family != self.spec.family.as_ref() || cell.qualifier != self.spec.qualifier.as_ref() {
            return ReturnCode::Include;
        }
        self.found = true;
        if !self.matcher.keeps(self.spec.op, cell.value) {
            return if latest_only {
                ReturnCode::NextRow
            } else {
                ReturnCode::Include
            };
        }
        self.matched = true;
        ReturnCode::Include
    }

    pub(super) fn filter_row(&self) -> bool {
        if self.found {
            !self.matched
        } else {
            self.spec.filter_if_missing
        }
    }
}

/// `PageFilter`: rows reaching `filter_row` are counted; the first `limit` pass.
#[derive(Clone, Debug)]
pub(super) struct Page {
    pub(super) limit: u64,
    pub(super) accepted: u64,
}

impl Page {
    pub(super) fn filter_row(&mut self) -> bool {
        self.accepted = self.accepted.saturating_add(1);
        self.accepted > self.limit
    }

    pub(super) fn done(&self) -> bool {
        self.accepted >= self.limit
    }
}

/// `ColumnPrefixFilter`: before the prefix, a hint to seek to it.
pub(super) fn column_prefix(prefix: &[u8], qualifier: &[u8]) -> ReturnCode {
    if qualifier.starts_with(prefix) {
        ReturnCode::Include
    } else if compare_bytes(qualifier, prefix) == Ordering::Less {
        ReturnCode::SeekNextUsingHint
    } else {
        ReturnCode::NextRow
    }
}

/// `MultipleColumnPrefixFilter`: any prefix matches; `NextRow` once past every prefix, else a
/// hint to the next prefix.
pub(super) fn column_prefixes(prefixes: &[Bytes], qualifier: &[u8]) -> ReturnCode {
    let mut beyond_all = true;
    for p in prefixes {
        match column_prefix(p, qualifier) {
            ReturnCode::Include => return ReturnCode::Include,
            ReturnCode::SeekNextUsingHint => beyond_all = false,
            _ => {}
        }
    }
    if beyond_all {
        ReturnCode::NextRow
    } else {
        ReturnCode::SeekNextUsingHint
    }
}

/// `ColumnRangeFilter`: before the lower bound, a hint to seek to it.
pub(super) fn column_range(range: &ColumnRange, qualifier: &[u8]) -> ReturnCode {
    if let Some(min) = &range.min {
        match compare_bytes(qualifier, min) {
            Ordering::Less => return ReturnCode::SeekNextUsingHint,
            Ordering::Equal if !range.min_inclusive => return ReturnCode::NextCol,
            _ => {}
        }
    }
    match &range.max {
        None => ReturnCode::Include,
        Some(max) => match compare_bytes(qualifier, max) {
            Ordering::Less => ReturnCode::Include,
            Ordering::Equal if range.max_inclusive => ReturnCode::Include,
            _ => ReturnCode::NextRow,
        },
    }
}

/// `TimestampsFilter`, given the sorted timestamps: older than all of them skips the column;
/// with `can_hint`, a version between them asks to seek to the next listed one.
pub(super) fn timestamps(sorted: &[Timestamp], can_hint: bool, ts: Timestamp) -> ReturnCode {
    if sorted.binary_search(&ts).is_ok() {
        ReturnCode::Include
    } else if ts < sorted.first().copied().unwrap_or(Timestamp::MAX) {
        ReturnCode::NextCol
    } else if can_hint {
        ReturnCode::SeekNextUsingHint
    } else {
        ReturnCode::Skip
    }
}
