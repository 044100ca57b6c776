//! The column filters added to HBase's set after the first ones: `ColumnPaginationFilter`,
//! `ColumnCountGetFilter`, `ColumnValueFilter`, `DependentColumnFilter`,
//! `FirstKeyValueMatchingQualifiersFilter`, and the `SingleColumnValueExcludeFilter` step.

use std::cmp::Ordering;

use bytes::Bytes;
use strata_model::cell::{compare_bytes, Cell, Timestamp};
use strata_model::ops::{ColumnCondition, ColumnPagination, DependentColumn};
use strata_sstable::CellRef;

use super::compare::Matcher;
use super::hint::Hint;
use super::ReturnCode;

/// `ColumnPaginationFilter`: columns counted per row (across families, as HBase's one filter
/// instance sees every store's cells).
#[derive(Clone, Debug)]
pub(super) struct Pagination {
    pub(super) spec: ColumnPagination,
    pub(super) count: u64,
}

impl Pagination {
    pub(super) fn filter_cell(&mut self, qualifier: &[u8]) -> ReturnCode {
        let limit = u64::from(self.spec.limit);
        match &self.spec.column_offset {
            Some(start) => {
                if self.count >= limit {
                    return ReturnCode::NextRow;
                }
                if self.count == 0 && compare_bytes(qualifier, start) == Ordering::Less {
                    return ReturnCode::SeekNextUsingHint;
                }
                self.count += 1;
                ReturnCode::IncludeAndNextCol
            }
            None => {
                let offset = u64::from(self.spec.offset);
                if self.count >= offset + limit {
                    return ReturnCode::NextRow;
                }
                let code = if self.count < offset {
                    ReturnCode::NextCol
                } else {
                    ReturnCode::IncludeAndNextCol
                };
                self.count += 1;
                code
            }
        }
    }

    pub(super) fn hint(&self) -> Option<Hint> {
        self.spec.column_offset.clone().map(Hint::Column)
    }
}

/// `ColumnCountGetFilter`: the first `limit` columns; once a row has more, the read is done.
#[derive(Clone, Debug)]
pub(super) struct CountGet {
    pub(super) limit: u32,
    pub(super) count: u64,
}

impl CountGet {
    pub(super) fn filter_cell(&mut self) -> ReturnCode {
        self.count += 1;
        if self.done() {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        }
    }

    pub(super) fn done(&self) -> bool {
        self.count > u64::from(self.limit)
    }
}

/// `ColumnValueFilter`: only the column's matching cells; `NextCol` before the column is met,
/// `NextRow` after.
#[derive(Clone, Debug)]
pub(super) struct OneColumn {
    pub(super) spec: ColumnCondition,
    pub(super) matcher: Matcher,
    pub(super) found: bool,
}

impl OneColumn {
    pub(super) fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        if family != self.spec.family.as_ref() || cell.qualifier != self.spec.qualifier.as_ref() {
            return if self.found {
                ReturnCode::NextRow
            } else {
                ReturnCode::NextCol
            };
        }
        self.found = true;
        if self.matcher.keeps(self.spec.op, cell.value) {
            ReturnCode::Include
        } else {
            ReturnCode::Skip
        }
    }
}

/// `DependentColumnFilter`: remembers the reference column's timestamps, keeps every other
/// cell for now, and drops the cells at other timestamps once the row is complete.
#[derive(Clone, Debug)]
pub(super) struct Dependent {
    pub(super) spec: DependentColumn,
    pub(super) matcher: Option<Matcher>,
    pub(super) stamps: Vec<Timestamp>,
}

impl Dependent {
    pub(super) fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        if family != self.spec.family.as_ref() || cell.qualifier != self.spec.qualifier.as_ref() {
            return ReturnCode::Include;
        }
        if let (Some(m), Some((op, _))) = (&self.matcher, &self.spec.compare) {
            if !m.keeps(*op, cell.value) {
                return ReturnCode::Skip;
            }
        }
        self.stamps.push(cell.timestamp);
        if self.spec.drop_dependent_column {
            ReturnCode::Skip
        } else {
            ReturnCode::Include
        }
    }

    pub(super) fn filter_row_cells(&self, cells: &mut Vec<Cell>) {
        cells.retain(|c| self.stamps.contains(&c.timestamp));
    }
}

/// `FirstKeyValueMatchingQualifiersFilter`: cells up to the first of the qualifiers.
#[derive(Clone, Debug)]
pub(super) struct FirstMatching {
    pub(super) qualifiers: Vec<Bytes>,
    pub(super) found: bool,
}

impl FirstMatching {
    pub(super) fn filter_cell(&mut self, qualifier: &[u8]) -> ReturnCode {
        if self.found {
            return ReturnCode::NextRow;
        }
        if self.qualifiers.iter().any(|q| q.as_ref() == qualifier) {
            self.found = true;
        }
        ReturnCode::Include
    }
}

/// `SingleColumnValueExcludeFilter`'s last step: the tested column leaves the row.
pub(super) fn exclude_column(cells: &mut Vec<Cell>, family: &[u8], qualifier: &[u8]) {
    cells.retain(|c| c.family.as_ref() != family || c.qualifier.as_ref() != qualifier);
}

/// `ColumnPrefixFilter`'s hint: the prefix's first column, when the qualifier sorts before it.
pub(super) fn prefix_hint(prefix: &Bytes, qualifier: &[u8]) -> Option<Hint> {
    (compare_bytes(qualifier, prefix) == Ordering::Less).then(|| Hint::Column(prefix.clone()))
}

/// `MultipleColumnPrefixFilter`'s hint: the first prefix after the qualifier (a later
/// qualifier can only start with a prefix that sorts after this one, since this one starts
/// with none of them).
pub(super) fn prefixes_hint(prefixes: &[Bytes], qualifier: &[u8]) -> Option<Hint> {
    prefixes
        .iter()
        .filter(|p| compare_bytes(p, qualifier) == Ordering::Greater)
        .min_by(|a, b| compare_bytes(a, b))
        .cloned()
        .map(Hint::Column)
}

/// `TimestampsFilter`'s hint: the newest listed timestamp below the cell's.
pub(super) fn timestamps_hint(sorted: &[Timestamp], cell: &CellRef<'_>) -> Option<Hint> {
    let below = sorted.partition_point(|&t| t < cell.timestamp);
    let ts = *sorted.get(below.checked_sub(1)?)?;
    Some(Hint::Version(Bytes::copy_from_slice(cell.qualifier), ts))
}
