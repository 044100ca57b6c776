//! [`Filter`]: the server-side filters (ARCHITECTURE.md, "Data model"), as plain data.
//!
//! Comparison filters keep a cell when `subject op operand` holds (HBase's meaning:
//! `RowFilter(<, binary:m)` keeps rows before `m`). Evaluation lives in the storage engine; this
//! module only describes filters and checks them cheaply.

mod compare;
mod decimal;
mod display;
mod kinds;
mod parse;
#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod tests;

use bytes::Bytes;

pub use compare::{BitOp, Comparator, CompareOp};
pub use decimal::Decimal;
pub use kinds::{Chance, ColumnCondition, ColumnPagination, DependentColumn, FuzzyKey};
pub use parse::{parse_filter, FilterParseError};

use super::check::{check_column, check_qualifier, check_row, check_timestamp};
use super::OpError;
use crate::cell::Timestamp;

/// Deepest nesting of filter lists accepted, so hostile input cannot exhaust the stack.
pub const MAX_FILTER_DEPTH: usize = 32;

/// A server-side filter. Names follow HBase's filter classes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filter {
    /// `PrefixFilter`: rows starting with the prefix.
    Prefix(Bytes),
    /// `ColumnPrefixFilter`: qualifiers starting with the prefix.
    ColumnPrefix(Bytes),
    /// `MultipleColumnPrefixFilter`: qualifiers starting with any of the prefixes.
    MultipleColumnPrefix(Vec<Bytes>),
    /// `ColumnRangeFilter`: qualifiers within a range.
    ColumnRange(ColumnRange),
    /// `RowFilter`: rows comparing to the operand.
    Row(CompareOp, Comparator),
    /// `FamilyFilter`: families comparing to the operand.
    Family(CompareOp, Comparator),
    /// `QualifierFilter`: qualifiers comparing to the operand.
    Qualifier(CompareOp, Comparator),
    /// `ValueFilter`: cells whose value compares to the operand.
    Value(CompareOp, Comparator),
    /// `SingleColumnValueFilter`: whole rows, by one column's value.
    SingleColumnValue(SingleColumnValue),
    /// `PageFilter`: at most this many rows (per region server; the client enforces the total).
    Page(u64),
    /// `FirstKeyOnlyFilter`: only the first cell of each row.
    FirstKeyOnly,
    /// `KeyOnlyFilter`: cells without their values; with `len_as_value`, the value is replaced
    /// by its length as a 4-byte big-endian integer.
    KeyOnly {
        /// Replace each value by its length instead of emptying it.
        len_as_value: bool,
    },
    /// `TimestampsFilter`: only versions with one of these timestamps; with `can_hint`, the
    /// read seeks from a version to the next listed timestamp instead of stepping.
    Timestamps {
        /// The timestamps kept.
        timestamps: Vec<Timestamp>,
        /// HBase's `canHint`.
        can_hint: bool,
    },
    /// `MultiRowRangeFilter`: rows within any of the ranges.
    MultiRowRange(Vec<RowRange>),
    /// `ColumnCountGetFilter`: the first `n` columns (newest version each) of a row, then the
    /// whole read ends when a row has more (HBase: meant for gets).
    ColumnCountGet(u32),
    /// `ColumnPaginationFilter`: a page of columns per row.
    ColumnPagination(ColumnPagination),
    /// `ColumnValueFilter`: only the matching cells of one column.
    ColumnValue(ColumnCondition),
    /// `DependentColumnFilter`: cells at the timestamps of a reference column.
    DependentColumn(DependentColumn),
    /// `SingleColumnValueExcludeFilter`: as `SingleColumnValue`, without the tested column.
    SingleColumnValueExclude(SingleColumnValue),
    /// `FirstKeyValueMatchingQualifiersFilter`: a row's cells up to and including the first
    /// whose qualifier is one of these.
    FirstKeyValueMatchingQualifiers(Vec<Bytes>),
    /// `FuzzyRowFilter`: rows matching any of the patterns; the read seeks to the next row
    /// that can match.
    FuzzyRow(Vec<FuzzyKey>),
    /// `InclusiveStopFilter`: rows up to and including this one (down to it, reversed).
    InclusiveStop(Bytes),
    /// `RandomRowFilter`: each row passes with this chance.
    RandomRow(Chance),
    /// `SkipFilter`: drops a whole row when the inner filter excludes any of its cells.
    Skip(Box<Filter>),
    /// `WhileMatchFilter`: ends the read at the first row or cell the inner filter excludes.
    WhileMatch(Box<Filter>),
    /// `FilterList`: several filters combined with AND or OR.
    List(FilterList),
}

/// The qualifier range of [`Filter::ColumnRange`]; `None` bounds are open.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ColumnRange {
    /// Lower bound, or none.
    pub min: Option<Bytes>,
    /// Whether `min` itself is included.
    pub min_inclusive: bool,
    /// Upper bound, or none.
    pub max: Option<Bytes>,
    /// Whether `max` itself is included.
    pub max_inclusive: bool,
}

/// The condition of [`Filter::SingleColumnValue`]: a row passes if its `family:qualifier`
/// value satisfies `value op operand`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SingleColumnValue {
    /// Column family.
    pub family: Bytes,
    /// Column qualifier.
    pub qualifier: Bytes,
    /// The operator.
    pub op: CompareOp,
    /// The operand.
    pub comparator: Comparator,
    /// Drop rows that lack the column (HBase's `filterIfMissing`; default false: keep them).
    pub filter_if_missing: bool,
    /// Test only the latest version (HBase's `latestVersionOnly`; default true).
    pub latest_version_only: bool,
}

impl SingleColumnValue {
    /// A condition with HBase's defaults: rows without the column pass, latest version only.
    pub fn new(
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        comparator: Comparator,
    ) -> SingleColumnValue {
        SingleColumnValue {
            family: family.into(),
            qualifier: qualifier.into(),
            op,
            comparator,
            filter_if_missing: false,
            latest_version_only: true,
        }
    }
}

/// A row range of [`Filter::MultiRowRange`]; an empty `start` or `stop` is open.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RowRange {
    /// First row, or empty for the table's start.
    pub start: Bytes,
    /// Whether `start` itself is included.
    pub start_inclusive: bool,
    /// Last row, or empty for the table's end.
    pub stop: Bytes,
    /// Whether `stop` itself is included.
    pub stop_inclusive: bool,
}

/// How a [`FilterList`] combines its filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ListOp {
    /// `MUST_PASS_ALL` (AND).
    #[default]
    MustPassAll,
    /// `MUST_PASS_ONE` (OR).
    MustPassOne,
}

/// HBase's `FilterList`. An empty list passes everything.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FilterList {
    /// AND or OR.
    pub op: ListOp,
    /// The filters, evaluated in order.
    pub filters: Vec<Filter>,
}

impl Filter {
    /// AND of `filters`.
    pub fn all(filters: Vec<Filter>) -> Filter {
        Filter::List(FilterList {
            op: ListOp::MustPassAll,
            filters,
        })
    }

    /// OR of `filters`.
    pub fn any(filters: Vec<Filter>) -> Filter {
        Filter::List(FilterList {
            op: ListOp::MustPassOne,
            filters,
        })
    }

    /// True if the filter decides on whole rows after seeing their cells (HBase's
    /// `hasFilterRow`), which rules out splitting rows into batches.
    pub fn needs_whole_row(&self) -> bool {
        match self {
            Filter::SingleColumnValue(_)
            | Filter::SingleColumnValueExclude(_)
            | Filter::Page(_)
            | Filter::DependentColumn(_)
            | Filter::RandomRow(_)
            | Filter::Skip(_)
            | Filter::WhileMatch(_) => true,
            Filter::List(list) => list.filters.iter().any(Filter::needs_whole_row),
            _ => false,
        }
    }

    /// Checks operands and nesting: comparator/operator pairs, key lengths, ranges, timestamps,
    /// list depth at most [`MAX_FILTER_DEPTH`].
    ///
    /// # Errors
    /// [`OpError::Filter`] naming the filter, or the key-length error.
    pub fn validate(&self) -> Result<(), OpError> {
        self.validate_at(1)
    }

    fn validate_at(&self, depth: usize) -> Result<(), OpError> {
        let bad = |msg: String| Err(OpError::Filter(msg));
        match self {
            Filter::Prefix(p) if !p.is_empty() => check_row(p)?,
            Filter::ColumnPrefix(p) => check_qualifier(p)?,
            Filter::MultipleColumnPrefix(ps) => {
                for p in ps {
                    check_qualifier(p)?;
                }
            }
            Filter::ColumnRange(r) => {
                if let (Some(min), Some(max)) = (&r.min, &r.max) {
                    if min > max {
                        return bad("ColumnRangeFilter: min column sorts after max column".into());
                    }
                }
            }
            Filter::Row(op, c)
            | Filter::Family(op, c)
            | Filter::Qualifier(op, c)
            | Filter::Value(op, c) => check_comparison(*op, c)?,
            Filter::SingleColumnValue(s) | Filter::SingleColumnValueExclude(s) => {
                check_column(&s.family, &s.qualifier)?;
                check_comparison(s.op, &s.comparator)?;
            }
            Filter::Timestamps { timestamps, .. } => {
                for &t in timestamps {
                    check_timestamp(Some(t))?;
                }
            }
            Filter::ColumnPagination(p) => {
                if let Some(q) = &p.column_offset {
                    check_qualifier(q)?;
                }
            }
            Filter::ColumnValue(c) => {
                check_column(&c.family, &c.qualifier)?;
                check_comparison(c.op, &c.comparator)?;
            }
            Filter::DependentColumn(d) => {
                check_column(&d.family, &d.qualifier)?;
                if let Some((op, c)) = &d.compare {
                    check_comparison(*op, c)?;
                }
            }
            Filter::FirstKeyValueMatchingQualifiers(qs) => {
                for q in qs {
                    check_qualifier(q)?;
                }
            }
            Filter::FuzzyRow(keys) => {
                for k in keys {
                    if k.key.len() != k.mask.len() {
                        return bad(format!(
                            "FuzzyRowFilter: a key of {} bytes has a mask of {}",
                            k.key.len(),
                            k.mask.len()
                        ));
                    }
                    if k.mask.iter().any(|&m| m > 1) {
                        return bad("FuzzyRowFilter: mask bytes are 0 (fixed) or 1 (any)".into());
                    }
                    if !k.key.is_empty() {
                        check_row(&k.key)?;
                    }
                }
            }
            Filter::InclusiveStop(row) if !row.is_empty() => check_row(row)?,
            Filter::RandomRow(chance) => {
                if !chance.0.is_finite() {
                    return bad("RandomRowFilter: the chance must be a finite number".into());
                }
            }
            Filter::Skip(inner) | Filter::WhileMatch(inner) => {
                if depth > MAX_FILTER_DEPTH {
                    return bad(format!("filters nest deeper than {MAX_FILTER_DEPTH}"));
                }
                inner.validate_at(depth + 1)?;
            }
            Filter::MultiRowRange(ranges) => {
                for r in ranges {
                    if !r.start.is_empty() && !r.stop.is_empty() && r.start > r.stop {
                        return bad("MultiRowRangeFilter: a range starts after its stop row".into());
                    }
                }
            }
            Filter::List(list) => {
                if depth > MAX_FILTER_DEPTH {
                    return bad(format!("filter lists nest deeper than {MAX_FILTER_DEPTH}"));
                }
                for f in &list.filters {
                    f.validate_at(depth + 1)?;
                }
            }
            Filter::Prefix(_)
            | Filter::Page(_)
            | Filter::FirstKeyOnly
            | Filter::KeyOnly { .. }
            | Filter::ColumnCountGet(_)
            | Filter::InclusiveStop(_) => {}
        }
        Ok(())
    }
}

/// Rejects operators a comparator cannot answer (`substring:` and `regexstring:` take only
/// `=` and `!=`, as in HBase's filter language).
fn check_comparison(op: CompareOp, comparator: &Comparator) -> Result<(), OpError> {
    if comparator.supports(op) {
        Ok(())
    } else {
        Err(OpError::Filter(format!(
            "{} comparator takes only = and !=, not {op}",
            comparator.type_name()
        )))
    }
}
