//! `Display` for [`Filter`]: the filter-language text that [`super::parse_filter`] reads back.
//!
//! Invariant: `parse_filter(&f.to_string()) == Ok(f)` for every filter passing
//! [`Filter::validate`], except a [`ColumnRange`](super::ColumnRange) bound of `Some(empty)`,
//! which prints as `''` and so reads back as `None` (HBase's language has no other spelling).
//!
//! Lists of two or more filters print infix (`a AND b`), with nested lists in parentheses so
//! they stay separate lists; lists of zero or one filter print as `FilterList(AND, ...)`.
//! Byte strings print like HBase's `Bytes.toStringBinary` (`\xHH` for `\` and non-printable
//! bytes) with `'` doubled; `substring:` and `regexstring:` operands print verbatim.

use std::fmt;

use super::super::check::escape;
use super::{Comparator, Filter, FilterList, ListOp, SingleColumnValue};

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Filter::List(list) if list.filters.len() >= 2 => write_infix(list, f),
            other => write_call(other, f),
        }
    }
}

fn keyword(op: ListOp) -> &'static str {
    match op {
        ListOp::MustPassAll => "AND",
        ListOp::MustPassOne => "OR",
    }
}

/// `a AND b AND ...`; a child list that also prints infix goes in parentheses.
fn write_infix(list: &FilterList, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    for (i, child) in list.filters.iter().enumerate() {
        if i > 0 {
            write!(f, " {} ", keyword(list.op))?;
        }
        match child {
            Filter::List(inner) if inner.filters.len() >= 2 => {
                f.write_str("(")?;
                write_infix(inner, f)?;
                f.write_str(")")?;
            }
            other => write_call(other, f)?,
        }
    }
    Ok(())
}

/// One filter call, `Name(args)`.
fn write_call(filter: &Filter, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match filter {
        Filter::Prefix(p) => write!(f, "PrefixFilter({})", Quoted(p)),
        Filter::ColumnPrefix(p) => write!(f, "ColumnPrefixFilter({})", Quoted(p)),
        Filter::MultipleColumnPrefix(ps) => {
            f.write_str("MultipleColumnPrefixFilter(")?;
            for (i, p) in ps.iter().enumerate() {
                let sep = if i > 0 { ", " } else { "" };
                write!(f, "{sep}{}", Quoted(p))?;
            }
            f.write_str(")")
        }
        Filter::ColumnRange(r) => write!(
            f,
            "ColumnRangeFilter({}, {}, {}, {})",
            Quoted(r.min.as_deref().unwrap_or_default()),
            r.min_inclusive,
            Quoted(r.max.as_deref().unwrap_or_default()),
            r.max_inclusive
        ),
        Filter::Row(op, c) => write!(f, "RowFilter({op}, {})", QuotedComparator(c)),
        Filter::Family(op, c) => write!(f, "FamilyFilter({op}, {})", QuotedComparator(c)),
        Filter::Qualifier(op, c) => write!(f, "QualifierFilter({op}, {})", QuotedComparator(c)),
        Filter::Value(op, c) => write!(f, "ValueFilter({op}, {})", QuotedComparator(c)),
        Filter::SingleColumnValue(s) => write_scv("SingleColumnValueFilter", s, f),
        Filter::SingleColumnValueExclude(s) => write_scv("SingleColumnValueExcludeFilter", s, f),
        Filter::Page(n) => write!(f, "PageFilter({n})"),
        Filter::FirstKeyOnly => f.write_str("FirstKeyOnlyFilter()"),
        Filter::KeyOnly { len_as_value: true } => f.write_str("KeyOnlyFilter(true)"),
        Filter::KeyOnly {
            len_as_value: false,
        } => f.write_str("KeyOnlyFilter()"),
        Filter::Timestamps {
            timestamps,
            can_hint,
        } => {
            f.write_str("TimestampsFilter(")?;
            for (i, t) in timestamps.iter().enumerate() {
                let sep = if i > 0 { ", " } else { "" };
                write!(f, "{sep}{t}")?;
            }
            if *can_hint {
                let sep = if timestamps.is_empty() { "" } else { ", " };
                write!(f, "{sep}true")?;
            }
            f.write_str(")")
        }
        Filter::ColumnCountGet(n) => write!(f, "ColumnCountGetFilter({n})"),
        Filter::ColumnPagination(p) => match &p.column_offset {
            None => write!(f, "ColumnPaginationFilter({}, {})", p.limit, p.offset),
            Some(q) => write!(f, "ColumnPaginationFilter({}, {})", p.limit, Quoted(q)),
        },
        Filter::ColumnValue(c) => write!(
            f,
            "ColumnValueFilter({}, {}, {}, {})",
            Quoted(&c.family),
            Quoted(&c.qualifier),
            c.op,
            QuotedComparator(&c.comparator)
        ),
        Filter::DependentColumn(d) => {
            write!(
                f,
                "DependentColumnFilter({}, {}, {}",
                Quoted(&d.family),
                Quoted(&d.qualifier),
                d.drop_dependent_column
            )?;
            if let Some((op, c)) = &d.compare {
                write!(f, ", {op}, {}", QuotedComparator(c))?;
            }
            f.write_str(")")
        }
        Filter::FirstKeyValueMatchingQualifiers(qs) => {
            f.write_str("FirstKeyValueMatchingQualifiersFilter(")?;
            for (i, q) in qs.iter().enumerate() {
                let sep = if i > 0 { ", " } else { "" };
                write!(f, "{sep}{}", Quoted(q))?;
            }
            f.write_str(")")
        }
        Filter::FuzzyRow(keys) => {
            f.write_str("FuzzyRowFilter(")?;
            for (i, k) in keys.iter().enumerate() {
                let sep = if i > 0 { ", " } else { "" };
                write!(f, "{sep}{}, {}", Quoted(&k.key), Quoted(&k.mask))?;
            }
            f.write_str(")")
        }
        Filter::InclusiveStop(row) => write!(f, "InclusiveStopFilter({})", Quoted(row)),
        Filter::RandomRow(chance) => write!(f, "RandomRowFilter({:?})", chance.0),
        Filter::Skip(inner) => write!(f, "SKIP {}", Unary(inner)),
        Filter::WhileMatch(inner) => write!(f, "WHILE {}", Unary(inner)),
        Filter::MultiRowRange(ranges) => {
            f.write_str("MultiRowRangeFilter(")?;
            for (i, r) in ranges.iter().enumerate() {
                let sep = if i > 0 { ", " } else { "" };
                write!(
                    f,
                    "{sep}{}, {}, {}, {}",
                    Quoted(&r.start),
                    r.start_inclusive,
                    Quoted(&r.stop),
                    r.stop_inclusive
                )?;
            }
            f.write_str(")")
        }
        Filter::List(list) if list.filters.len() >= 2 => {
            f.write_str("(")?;
            write_infix(list, f)?;
            f.write_str(")")
        }
        Filter::List(list) => {
            write!(f, "FilterList({}", keyword(list.op))?;
            for child in &list.filters {
                write!(f, ", {child}")?;
            }
            f.write_str(")")
        }
    }
}

/// The operand of `SKIP` / `WHILE`: a list of two or more in parentheses (the operators bind
/// tighter than AND and OR).
struct Unary<'a>(&'a Filter);

impl fmt::Display for Unary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Filter::List(list) if list.filters.len() >= 2 => {
                f.write_str("(")?;
                write_infix(list, f)?;
                f.write_str(")")
            }
            other => write_call(other, f),
        }
    }
}

fn write_scv(name: &str, s: &SingleColumnValue, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(
        f,
        "{name}({}, {}, {}, {}",
        Quoted(&s.family),
        Quoted(&s.qualifier),
        s.op,
        QuotedComparator(&s.comparator)
    )?;
    if s.filter_if_missing || !s.latest_version_only {
        write!(f, ", {}, {}", s.filter_if_missing, s.latest_version_only)?;
    }
    f.write_str(")")
}

/// Bytes as a quoted string argument.
struct Quoted<'a>(&'a [u8]);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}'", escape(self.0).replace('\'', "''"))
    }
}

/// A comparator as its quoted `'type:operand'` argument.
struct QuotedComparator<'a>(&'a Comparator);

impl fmt::Display for QuotedComparator<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let operand = match self.0 {
            Comparator::Binary(b) | Comparator::BinaryPrefix(b) | Comparator::Bit(_, b) => {
                escape(b)
            }
            Comparator::Substring(s) | Comparator::Regex(s) => s.clone(),
            Comparator::Long(n) => n.to_string(),
            Comparator::Null => String::new(),
            Comparator::BigDecimal(d) => d.to_string(),
            Comparator::BinaryComponent { offset, value } => format!("{offset}:{}", escape(value)),
        };
        write!(
            f,
            "'{}:{}'",
            self.0.type_name(),
            operand.replace('\'', "''")
        )
    }
}
