//! [`CompiledFilter`]: a model [`Filter`] turned into a stateful evaluator, and the dispatch of
//! HBase's `Filter` methods over every filter kind.

use bytes::Bytes;
use strata_model::cell::{compare_bytes, Cell, Timestamp};
use strata_model::ops::{ColumnRange, CompareOp, Filter, MAX_FILTER_DEPTH};
use strata_sstable::CellRef;

use super::column::{self, CountGet, Dependent, FirstMatching, OneColumn, Pagination};
use super::compare::Matcher;
use super::fuzzy::FuzzyRows;
use super::hint::Hint;
use super::leaf::{self, ColumnValue, Page, PrefixRows, RowCompare, RowRanges};
use super::list::List;
use super::wrap::{SkipRow, WhileMatch};
use super::{FilterError, ReturnCode};

/// A filter ready to evaluate, with the per-row and per-scan state HBase's filters keep.
///
/// The methods are HBase's `Filter` contract; the [module docs](super) give the order in
/// which a reader calls them, and [`super::RowFilter`] calls them in that order. A compiled
/// filter serves one read (one get or one scan): `Page` counts and prefix/range "done" flags
/// live across rows.
#[derive(Clone, Debug)]
pub struct CompiledFilter {
    node: Node,
}

impl CompiledFilter {
    /// Compiles `filter` for a read in ascending row order, or descending if `reversed`
    /// (which decides when prefix and row-range filters are done).
    ///
    /// # Errors
    /// A `regexstring:` pattern outside the supported subset ([`super::Regex`]), or lists
    /// nested deeper than [`MAX_FILTER_DEPTH`].
    pub fn compile(filter: &Filter, reversed: bool) -> Result<CompiledFilter, FilterError> {
        Ok(CompiledFilter {
            node: Node::compile(filter, reversed, 1)?,
        })
    }

    /// Forgets the per-row state; called before each row.
    pub fn reset(&mut self) {
        self.node.reset();
    }

    /// True to skip `row` without looking at its cells.
    pub fn filter_row_key(&mut self, row: &[u8]) -> bool {
        self.node.filter_row_key(row)
    }

    /// Decides on one visible cell of the current row; `family` is the cell's family.
    pub fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        self.node.filter_cell(cell, family)
    }

    /// Where to go after `cell`, for which [`CompiledFilter::filter_cell`] answered
    /// [`ReturnCode::SeekNextUsingHint`] (HBase's `getNextCellHint`); `None`: the next cell.
    pub fn next_cell_hint(&mut self, cell: &CellRef<'_>, family: &[u8]) -> Option<Hint> {
        self.node.next_cell_hint(cell, family)
    }

    /// For a row [`CompiledFilter::filter_row_key`] skipped, the first later row that may
    /// pass (`MultiRowRangeFilter`'s next range), so the read can seek there.
    pub fn row_hint(&self, row: &[u8]) -> Option<Bytes> {
        self.node.row_hint(row)
    }

    /// Rewrites a cell the last [`CompiledFilter::filter_cell`] included (`KeyOnly`).
    pub fn transform_cell(&self, cell: &mut Cell) {
        self.node.transform_cell(cell);
    }

    /// May edit the row's kept cells before the whole-row decision (no built-in filter
    /// edits them; lists pass the call to every member).
    pub fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.node.filter_row_cells(cells);
    }

    /// True to drop the current row after its cells were seen. Called only for rows that kept
    /// cells; counts the row for `Page`.
    pub fn filter_row(&mut self) -> bool {
        self.node.filter_row()
    }

    /// True once no later row can pass: the read may stop.
    pub fn filter_all_remaining(&self) -> bool {
        self.node.filter_all_remaining()
    }

    /// True if the filter decides on whole rows (`SingleColumnValue`, `Page`,
    /// `DependentColumn`, `RandomRow`, `Skip`, `WhileMatch`, ...), so rows must not be split
    /// into batches.
    pub fn has_filter_row(&self) -> bool {
        self.node.has_filter_row()
    }
}

/// One compiled filter of any kind.
#[derive(Clone, Debug)]
pub(super) enum Node {
    Prefix(PrefixRows),
    Row(RowCompare),
    RowRanges(RowRanges),
    ColumnPrefix(Bytes),
    MultipleColumnPrefix(Vec<Bytes>),
    ColumnRange(ColumnRange),
    Family(CompareOp, Matcher),
    Qualifier(CompareOp, Matcher),
    Value(CompareOp, Matcher),
    SingleColumnValue(ColumnValue),
    Page(Page),
    FirstKeyOnly {
        found: bool,
    },
    KeyOnly {
        len_as_value: bool,
    },
    Timestamps(Vec<Timestamp>, bool),
    ColumnCountGet(CountGet),
    ColumnPagination(Pagination),
    ColumnValue(OneColumn),
    Dependent(Dependent),
    SingleColumnValueExclude(ColumnValue),
    FirstMatching(FirstMatching),
    Fuzzy(FuzzyRows),
    InclusiveStop {
        stop: Bytes,
        reversed: bool,
        done: bool,
    },
    RandomRow {
        chance: f32,
        filter_out: bool,
    },
    Skip(SkipRow),
    WhileMatch(WhileMatch),
    List(List),
}

impl Node {
    pub(super) fn compile(f: &Filter, reversed: bool, depth: usize) -> Result<Node, FilterError> {
        Ok(match f {
            Filter::Prefix(p) => Node::Prefix(PrefixRows {
                prefix: p.clone(),
                reversed,
                rejected: true,
                passed: false,
            }),
            Filter::Row(op, c) => Node::Row(RowCompare {
                op: *op,
                matcher: Matcher::compile(c)?,
                rejected: false,
            }),
            Filter::MultiRowRange(ranges) => {
                Node::RowRanges(RowRanges::new(ranges.clone(), reversed))
            }
            Filter::ColumnPrefix(p) => Node::ColumnPrefix(p.clone()),
            Filter::MultipleColumnPrefix(ps) => Node::MultipleColumnPrefix(ps.clone()),
            Filter::ColumnRange(r) => Node::ColumnRange(r.clone()),
            Filter::Family(op, c) => Node::Family(*op, Matcher::compile(c)?),
            Filter::Qualifier(op, c) => Node::Qualifier(*op, Matcher::compile(c)?),
            Filter::Value(op, c) => Node::Value(*op, Matcher::compile(c)?),
            Filter::SingleColumnValue(s) => Node::SingleColumnValue(ColumnValue {
                matcher: Matcher::compile(&s.comparator)?,
                spec: s.clone(),
                found: false,
                matched: false,
            }),
            Filter::SingleColumnValueExclude(s) => Node::SingleColumnValueExclude(ColumnValue {
                matcher: Matcher::compile(&s.comparator)?,
                spec: s.clone(),
                found: false,
                matched: false,
            }),
            Filter::ColumnCountGet(limit) => Node::ColumnCountGet(CountGet {
                limit: *limit,
                count: 0,
            }),
            Filter::ColumnPagination(p) => Node::ColumnPagination(Pagination {
                spec: p.clone(),
                count: 0,
            }),
            Filter::ColumnValue(c) => Node::ColumnValue(OneColumn {
                matcher: Matcher::compile(&c.comparator)?,
                spec: c.clone(),
                found: false,
            }),
            Filter::DependentColumn(d) => Node::Dependent(Dependent {
                matcher: d
                    .compare
                    .as_ref()
                    .map(|(_, c)| Matcher::compile(c))
                    .transpose()?,
                spec: d.clone(),
                stamps: Vec::new(),
            }),
            Filter::FirstKeyValueMatchingQualifiers(qs) => Node::FirstMatching(FirstMatching {
                qualifiers: qs.clone(),
                found: false,
            }),
            Filter::FuzzyRow(keys) => Node::Fuzzy(FuzzyRows::new(keys, reversed)),
            Filter::InclusiveStop(stop) => Node::InclusiveStop {
                stop: stop.clone(),
                reversed,
                done: false,
            },
            Filter::RandomRow(chance) => Node::RandomRow {
                chance: chance.0,
                filter_out: false,
            },
            Filter::Skip(inner) | Filter::WhileMatch(inner) => {
                if depth > MAX_FILTER_DEPTH {
                    return Err(FilterError::TooDeep(MAX_FILTER_DEPTH));
                }
                let inner = Box::new(Node::compile(inner, reversed, depth + 1)?);
                if matches!(f, Filter::Skip(_)) {
                    Node::Skip(SkipRow {
                        inner,
                        filter_row: false,
                    })
                } else {
                    Node::WhileMatch(WhileMatch {
                        inner,
                        ended: false,
                    })
                }
            }
            Filter::Page(limit) => Node::Page(Page {
                limit: *limit,
                accepted: 0,
            }),
            Filter::FirstKeyOnly => Node::FirstKeyOnly { found: false },
            Filter::KeyOnly { len_as_value } => Node::KeyOnly {
                len_as_value: *len_as_value,
            },
            Filter::Timestamps {
                timestamps,
                can_hint,
            } => {
                let mut sorted = timestamps.clone();
                sorted.sort_unstable();
                sorted.dedup();
                Node::Timestamps(sorted, *can_hint)
            }
            Filter::List(list) => {
                if depth > MAX_FILTER_DEPTH {
                    return Err(FilterError::TooDeep(MAX_FILTER_DEPTH));
                }
                let members = list
                    .filters
                    .iter()
                    .map(|m| Node::compile(m, reversed, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                Node::List(List::new(list.op, members))
            }
        })
    }

    pub(super) fn reset(&mut self) {
        match self {
            Node::Prefix(p) => p.rejected = true,
            Node::Row(r) => r.rejected = false,
            Node::SingleColumnValue(s) | Node::SingleColumnValueExclude(s) => {
                s.found = false;
                s.matched = false;
            }
            Node::FirstKeyOnly { found } => *found = false,
            Node::ColumnCountGet(c) => c.count = 0,
            Node::ColumnPagination(p) => p.count = 0,
            Node::ColumnValue(c) => c.found = false,
            Node::Dependent(d) => d.stamps.clear(),
            Node::FirstMatching(m) => m.found = false,
            Node::Fuzzy(f) => f.filter_out = false,
            Node::RandomRow { filter_out, .. } => *filter_out = false,
            Node::Skip(s) => s.reset(),
            Node::WhileMatch(w) => w.inner.reset(),
            Node::List(l) => l.reset(),
            _ => {}
        }
    }

    pub(super) fn filter_row_key(&mut self, row: &[u8]) -> bool {
        match self {
            Node::Prefix(p) => p.filter_row_key(row),
            Node::Row(r) => r.filter_row_key(row),
            Node::RowRanges(r) => r.filter_row_key(row),
            Node::Page(p) => p.done(),
            Node::ColumnCountGet(c) => c.done(),
            Node::InclusiveStop {
                stop,
                reversed,
                done,
            } => {
                if !*done {
                    let ord = compare_bytes(row, stop);
                    *done = if *reversed { ord.is_lt() } else { ord.is_gt() };
                }
                *done
            }
            Node::RandomRow { chance, filter_out } => {
                *filter_out = if *chance < 0.0 {
                    true
                } else if *chance > 1.0 {
                    false
                } else {
                    rand::random::<f32>() >= *chance
                };
                *filter_out
            }
            Node::WhileMatch(w) => w.filter_row_key(row),
            Node::List(l) => l.filter_row_key(row),
            _ => false,
        }
    }

    pub(super) fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        let keep_or = |keep: bool, otherwise: ReturnCode| {
            if keep {
                ReturnCode::Include
            } else {
                otherwise
            }
        };
        match self {
            Node::Prefix(PrefixRows { rejected, .. })
            | Node::Row(RowCompare { rejected, .. })
            | Node::RowRanges(RowRanges { rejected, .. }) => {
                keep_or(!*rejected, ReturnCode::NextRow)
            }
            Node::ColumnPrefix(p) => leaf::column_prefix(p, cell.qualifier),
            Node::MultipleColumnPrefix(ps) => leaf::column_prefixes(ps, cell.qualifier),
            Node::ColumnRange(r) => leaf::column_range(r, cell.qualifier),
            Node::Family(op, m) => keep_or(
                family.is_empty() || m.keeps(*op, family),
                ReturnCode::NextRow,
            ),
            Node::Qualifier(op, m) => keep_or(m.keeps(*op, cell.qualifier), ReturnCode::Skip),
            Node::Value(op, m) => keep_or(m.keeps(*op, cell.value), ReturnCode::Skip),
            Node::SingleColumnValue(s) | Node::SingleColumnValueExclude(s) => {
                s.filter_cell(cell, family)
            }
            Node::Page(_) | Node::KeyOnly { .. } => ReturnCode::Include,
            Node::ColumnCountGet(c) => c.filter_cell(),
            Node::ColumnPagination(p) => p.filter_cell(cell.qualifier),
            Node::ColumnValue(c) => c.filter_cell(cell, family),
            Node::Dependent(d) => d.filter_cell(cell, family),
            Node::FirstMatching(m) => m.filter_cell(cell.qualifier),
            Node::Fuzzy(f) => f.filter_cell(cell.row),
            Node::InclusiveStop { done, .. }
            | Node::RandomRow {
                filter_out: done, ..
            } => keep_or(!*done, ReturnCode::NextRow),
            Node::Skip(s) => s.filter_cell(cell, family),
            Node::WhileMatch(w) => w.filter_cell(cell, family),
            Node::FirstKeyOnly { found } => {
                let first = !*found;
                *found = true;
                keep_or(first, ReturnCode::NextRow)
            }
            Node::Timestamps(ts, can_hint) => leaf::timestamps(ts, *can_hint, cell.timestamp),
            Node::List(l) => l.filter_cell(cell, family),
        }
    }

    pub(super) fn next_cell_hint(&mut self, cell: &CellRef<'_>, family: &[u8]) -> Option<Hint> {
        match self {
            Node::ColumnPrefix(p) => column::prefix_hint(p, cell.qualifier),
            Node::MultipleColumnPrefix(ps) => column::prefixes_hint(ps, cell.qualifier),
            Node::ColumnRange(r) => r
                .min
                .as_ref()
                .filter(|min| compare_bytes(cell.qualifier, min).is_lt())
                .map(|min| Hint::Column(min.clone())),
            Node::Timestamps(ts, true) => column::timestamps_hint(ts, cell),
            Node::ColumnPagination(p) => p.hint(),
            Node::Fuzzy(f) => f.next_row(cell.row).map(Hint::Row),
            Node::List(l) => l.next_cell_hint(cell, family),
            _ => None,
        }
    }

    pub(super) fn row_hint(&self, row: &[u8]) -> Option<Bytes> {
        match self {
            Node::RowRanges(r) => r.row_hint(row),
            Node::List(l) => l.row_hint(row),
            _ => None,
        }
    }

    pub(super) fn transform_cell(&self, cell: &mut Cell) {
        match self {
            Node::KeyOnly { len_as_value } => {
                cell.value = if *len_as_value {
                    let len = u32::try_from(cell.value.len()).unwrap_or(u32::MAX);
                    Bytes::copy_from_slice(&len.to_be_bytes())
                } else {
                    Bytes::new()
                };
            }
            Node::Skip(s) => s.transform_cell(cell),
            Node::WhileMatch(w) => w.inner.transform_cell(cell),
            Node::List(l) => l.transform_cell(cell),
            _ => {}
        }
    }

    pub(super) fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        match self {
            Node::Dependent(d) => d.filter_row_cells(cells),
            Node::SingleColumnValueExclude(s) => {
                column::exclude_column(cells, &s.spec.family, &s.spec.qualifier);
            }
            Node::List(l) => l.filter_row_cells(cells),
            _ => {}
        }
    }

    pub(super) fn filter_row(&mut self) -> bool {
        match self {
            Node::Prefix(PrefixRows { rejected, .. }) | Node::Row(RowCompare { rejected, .. }) => {
                *rejected
            }
            Node::SingleColumnValue(s) | Node::SingleColumnValueExclude(s) => s.filter_row(),
            Node::Page(p) => p.filter_row(),
            Node::Fuzzy(f) => f.filter_out,
            Node::RandomRow { filter_out, .. } => *filter_out,
            Node::Skip(s) => s.filter_row,
            Node::WhileMatch(w) => w.filter_row(),
            Node::List(l) => l.filter_row(),
            _ => false,
        }
    }

    pub(super) fn filter_all_remaining(&self) -> bool {
        match self {
            Node::Prefix(p) => p.passed,
            Node::RowRanges(r) => r.done,
            Node::Page(p) => p.done(),
            Node::ColumnCountGet(c) => c.done(),
            Node::Fuzzy(f) => f.done,
            Node::InclusiveStop { done, .. } => *done,
            Node::WhileMatch(w) => w.done(),
            Node::List(l) => l.filter_all_remaining(),
            _ => false,
        }
    }

    pub(super) fn has_filter_row(&self) -> bool {
        match self {
            Node::SingleColumnValue(_)
            | Node::SingleColumnValueExclude(_)
            | Node::Page(_)
            | Node::Dependent(_)
            | Node::RandomRow { .. }
            | Node::Skip(_)
            | Node::WhileMatch(_) => true,
            Node::List(l) => l.has_filter_row(),
            _ => false,
        }
    }
}
