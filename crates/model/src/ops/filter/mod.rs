//! [`Filter`]: the server-side filters (ARCHITECTURE.md, "Data model"), as plain data.
//!
//! Comparison filters keep a cell when `subject op operand` holds (HBase's meaning:
//! `RowFilter(<, binary:m)` keeps rows before `m`). Evaluation lives in the storage engine; this
//! module only describes filters and checks them cheaply.

mod compare;
mod display;
mod parse;
#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod tests;

use bytes::Bytes;

pub use compare::{Comparator, CompareOp};
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
    /// `TimestampsFilter`: only versions with one of these timestamps.
    Timestamps(Vec<Timestamp>),
    /// `MultiRowRangeFilter`: rows within any of the ranges.
    MultiRowRange(Vec<RowRange>),
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
            Filter::SingleColumnValue(_) | Filter::Page(_) => true,
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
            Filter::SingleColumnValue(s) => {
                check_column(&s.family, &s.qualifier)?;
                check_comparison(s.op, &s.comparator)?;
            }
            Filter::Timestamps(ts) => {
                for &t in ts {
                    check_timestamp(Some(t))?;
                }
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
            Filter::Prefix(_) | Filter::Page(_) | Filter::FirstKeyOnly | Filter::KeyOnly { .. } => {
            }
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
