//! The operands of the filters that need more than one field (HBase's
//! `ColumnPaginationFilter`, `DependentColumnFilter`, `ColumnValueFilter`, `FuzzyRowFilter`,
//! `RandomRowFilter`).

use bytes::Bytes;

use super::{Comparator, CompareOp};

/// [`Filter::ColumnPagination`](super::Filter::ColumnPagination): per row, `limit` columns
/// (newest version each) starting at the `offset`-th column, or at the first column at or
/// after `column_offset` when that is set (HBase then ignores `offset`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ColumnPagination {
    /// Columns returned per row.
    pub limit: u32,
    /// Columns skipped first (when `column_offset` is `None`).
    pub offset: u32,
    /// The first qualifier returned is the first at or after this one.
    pub column_offset: Option<Bytes>,
}

/// [`Filter::DependentColumn`](super::Filter::DependentColumn): a row's cells are returned
/// only at the timestamps where the reference column `family:qualifier` has a version (that
/// passes the value test, if any); the reference column itself is dropped when
/// `drop_dependent_column`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DependentColumn {
    /// The reference column's family.
    pub family: Bytes,
    /// The reference column's qualifier.
    pub qualifier: Bytes,
    /// Leave the reference column out of the result.
    pub drop_dependent_column: bool,
    /// The value test of the reference column's versions, or none (every version counts).
    pub compare: Option<(CompareOp, Comparator)>,
}

/// [`Filter::ColumnValue`](super::Filter::ColumnValue): only the cells of
/// `family:qualifier` whose value satisfies `value op operand` (HBase's `ColumnValueFilter`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnCondition {
    /// Column family.
    pub family: Bytes,
    /// Column qualifier.
    pub qualifier: Bytes,
    /// The operator.
    pub op: CompareOp,
    /// The operand.
    pub comparator: Comparator,
}

/// One pattern of [`Filter::FuzzyRow`](super::Filter::FuzzyRow): a row matches when, at
/// every position where `mask` is 0, its byte equals `key`'s; positions where `mask` is 1
/// match any byte (HBase's client convention). A row shorter than the key matches when its
/// bytes do (HBase compares the common length).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuzzyKey {
    /// The fixed bytes (any value at the free positions).
    pub key: Bytes,
    /// Per position: 0 fixed, 1 free; as long as `key`.
    pub mask: Bytes,
}

impl FuzzyKey {
    /// A pattern from HBase's `?`-style spelling: `pattern` where `wildcard` bytes are free.
    pub fn with_wildcard(pattern: &[u8], wildcard: u8) -> FuzzyKey {
        FuzzyKey {
            key: pattern
                .iter()
                .map(|&b| if b == wildcard { 0 } else { b })
                .collect(),
            mask: pattern.iter().map(|&b| u8::from(b == wildcard)).collect(),
        }
    }
}

/// The chance of [`Filter::RandomRow`](super::Filter::RandomRow) that a row passes, a float
/// as HBase's `RandomRowFilter` keeps it (below 0: no row, above 1: every row). Compared by
/// its bits, so it can be `Eq`.
#[derive(Clone, Copy, Debug)]
pub struct Chance(pub f32);

impl PartialEq for Chance {
    fn eq(&self, other: &Chance) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Chance {}
