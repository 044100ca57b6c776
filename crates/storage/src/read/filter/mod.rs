//! Server-side filter evaluation: HBase's `Filter` contract over a read's visible cells.
//!
//! A [`Filter`](strata_model::ops::Filter) (plain data from a get or scan) compiles into a
//! [`CompiledFilter`], a stateful evaluator with the methods of HBase's
//! `org.apache.hadoop.hbase.filter.Filter`. [`RowFilter`] drives one over the rows of a read and
//! is what the region calls; see its docs for the exact order of calls.
//!
//! # The contract, per row
//! 1. [`CompiledFilter::filter_all_remaining`]: true ends the whole read (a page is full, a
//!    prefix or row-range filter is past its last possible row).
//! 2. [`CompiledFilter::reset`], then [`CompiledFilter::filter_row_key`]: true skips the row
//!    without reading its cells.
//! 3. For each visible cell, in order: [`CompiledFilter::filter_cell`] answers a
//!    [`ReturnCode`]; included cells go through [`CompiledFilter::transform_cell`]
//!    (`KeyOnly`). `NextCol` skips the rest of the column's versions, `NextRow` the rest of the
//!    row *in that family* (as in HBase, where each store seeks on its own and the next store's
//!    cells of the row are still offered to the filter).
//! 4. [`CompiledFilter::filter_row_cells`] on the kept cells, then, if any remain,
//!    [`CompiledFilter::filter_row`]: true drops the row (`SingleColumnValue`, `Page`).
//!
//! # HBase semantics matched
//! - Comparison filters keep a cell when `subject op operand` holds; `binaryprefix` compares
//!   the subject's first `len(operand)` bytes; `substring` is case-insensitive on the text;
//!   `regexstring` searches (Java's `find`, not a whole-string match) with `DOTALL`.
//! - `FilterList`: AND stops consulting members at the first non-include code (HBASE-20565) and
//!   answers `NextRow` if a member is done; OR never consults a member that asked to skip the
//!   current column or row, and merges so that a cell any member includes is included. The
//!   merge tables are HBase 2.x's (`FilterListWithAND` / `FilterListWithOR`); see
//!   [`ReturnCode::and`] and [`ReturnCode::or`]. `filter_row` short-circuits in list order, so a
//!   `Page` counts the rows that reach it: put it last in an AND list to count only rows that
//!   pass every other member (the HBase advice).
//! - The filter sees cells after deletes, TTL and the time range are applied and after the
//!   version check, which offers it the family's VERSIONS newest versions of a column; the
//!   read's versions then count the cells it keeps (HBase 2.x's
//!   `UserScanQueryMatcher.matchColumn` and `mergeFilterResponse`; see
//!   [`Visibility::admit`](crate::read::Visibility::admit)). A raw scan offers it every
//!   version and the delete markers.
//!
//! # Seek hints
//! A filter may answer [`ReturnCode::SeekNextUsingHint`] (HBase's `SEEK_NEXT_USING_HINT`);
//! the reader then asks [`CompiledFilter::next_cell_hint`] for a [`Hint`] and moves there
//! without reading what lies between (HBase's `getNextCellHint` and `StoreScanner`'s seek): a
//! later row (`FuzzyRowFilter`), a later column of the row (`ColumnPrefixFilter`,
//! `MultipleColumnPrefixFilter`, `ColumnRangeFilter`, `ColumnPaginationFilter` with a column
//! offset) or an older version of the column (`TimestampsFilter` with `canHint`). A hint that
//! is not after the current cell, or none, moves one cell (as HBase's `heap.next()`). Lists
//! merge hints as HBase 2.x does: AND follows the member that answered the hint, OR seeks
//! only when every member still running gives a hint, to the nearest. Row-key filters
//! (`MultiRowRangeFilter`) give [`CompiledFilter::row_hint`] for a row they skip, so the scan
//! seeks to the next range instead of reading the rows between.
//!
//! # Deliberate differences
//! - A version hint (`TimestampsFilter` with `canHint`) steps over the column's newer
//!   versions instead of seeking, still reading their delete markers: the versions skipped
//!   are not counted (as after HBase's seek), but a marker between is not lost (HBase's seek
//!   passes over it and may return a version it masks).
//! - Reversed scans do not seek by row hints: a row hint ends the row, as `NextRow` does
//!   (same results).
//! - `MultipleColumnPrefix` includes a qualifier matching *any* prefix; HBase misses
//!   qualifiers when one prefix is a prefix of another (`a`, `ab` drops `ac`). With no prefixes
//!   it excludes everything (HBase throws).
//! - `regexstring` supports a documented subset of Java's syntax ([`Regex`]) and rejects the
//!   rest when the filter is compiled, never at match time.
//! - No numeric (`long`) comparator: the model has none.

mod column;
mod compare;
mod compile;
mod fuzzy;
mod hint;
mod leaf;
mod list;
mod regex;
mod regex_class;
mod regex_lower;
mod row;
mod wrap;

#[cfg(test)]
mod regex_tests;

pub use compile::CompiledFilter;
pub use hint::Hint;
pub use regex::Regex;
pub use row::RowFilter;

/// What a filter decides about one cell (HBase's `Filter.ReturnCode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnCode {
    /// Return the cell.
    Include,
    /// Return the cell and skip the rest of its column (older versions).
    IncludeAndNextCol,
    /// Return the cell and skip the rest of the row in this family.
    IncludeAndSeekNextRow,
    /// Do not return the cell.
    Skip,
    /// Do not return the cell, and skip the rest of its column.
    NextCol,
    /// Do not return the cell, and skip the rest of the row in this family.
    NextRow,
    /// Do not return the cell, and move to where [`CompiledFilter::next_cell_hint`] says.
    SeekNextUsingHint,
}

/// How far a [`ReturnCode`] moves past the current cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Advance {
    /// To the next cell.
    Cell,
    /// Past the current column.
    Column,
    /// Past the current row (in this family).
    Row,
    /// To the filter's [`Hint`].
    Hint,
}

impl ReturnCode {
    /// Every code.
    pub const ALL: [ReturnCode; 7] = [
        ReturnCode::Include,
        ReturnCode::IncludeAndNextCol,
        ReturnCode::IncludeAndSeekNextRow,
        ReturnCode::Skip,
        ReturnCode::NextCol,
        ReturnCode::NextRow,
        ReturnCode::SeekNextUsingHint,
    ];

    /// The code that includes or not and advances that far (no code includes and seeks by a
    /// hint: that is `Include`).
    pub fn new(include: bool, advance: Advance) -> ReturnCode {
        match (include, advance) {
            (true, Advance::Hint) => ReturnCode::Include,
            (false, Advance::Hint) => ReturnCode::SeekNextUsingHint,
            (true, Advance::Cell) => ReturnCode::Include,
            (true, Advance::Column) => ReturnCode::IncludeAndNextCol,
            (true, Advance::Row) => ReturnCode::IncludeAndSeekNextRow,
            (false, Advance::Cell) => ReturnCode::Skip,
            (false, Advance::Column) => ReturnCode::NextCol,
            (false, Advance::Row) => ReturnCode::NextRow,
        }
    }

    /// True if the cell is returned.
    pub fn includes(self) -> bool {
        matches!(
            self,
            ReturnCode::Include | ReturnCode::IncludeAndNextCol | ReturnCode::IncludeAndSeekNextRow
        )
    }

    /// How far the read moves on.
    pub fn advance(self) -> Advance {
        match self {
            ReturnCode::Include | ReturnCode::Skip => Advance::Cell,
            ReturnCode::IncludeAndNextCol | ReturnCode::NextCol => Advance::Column,
            ReturnCode::IncludeAndSeekNextRow | ReturnCode::NextRow => Advance::Row,
            ReturnCode::SeekNextUsingHint => Advance::Hint,
        }
    }

    /// `MUST_PASS_ALL` merge (HBase's `FilterListWithAND.mergeReturnCode`): included only if
    /// both include, and the farther skip wins (`Skip` AND `IncludeAndNextCol` = `NextCol`); a
    /// hint wins over everything.
    pub fn and(self, other: ReturnCode) -> ReturnCode {
        if self == ReturnCode::SeekNextUsingHint || other == ReturnCode::SeekNextUsingHint {
            return ReturnCode::SeekNextUsingHint;
        }
        ReturnCode::new(
            self.includes() && other.includes(),
            self.advance().max(other.advance()),
        )
    }

    /// `MUST_PASS_ONE` merge (HBase's `FilterListWithOR.mergeReturnCode`): included if either
    /// includes, and the nearer skip wins, so no cell another member includes is skipped
    /// (`NextRow` OR `IncludeAndNextCol` = `IncludeAndNextCol`; `Skip` OR `IncludeAndNextCol` =
    /// `Include`). A hint with an including code is `Include`, with another skip `Skip`, with
    /// a hint a hint.
    pub fn or(self, other: ReturnCode) -> ReturnCode {
        let hint = ReturnCode::SeekNextUsingHint;
        if self == hint || other == hint {
            let rest = if self == hint { other } else { self };
            return match rest {
                _ if rest == hint => hint,
                _ if rest.includes() => ReturnCode::Include,
                _ => ReturnCode::Skip,
            };
        }
        ReturnCode::new(
            self.includes() || other.includes(),
            self.advance().min(other.advance()),
        )
    }
}

/// A filter that cannot be compiled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// A `regexstring:` pattern uses syntax outside the supported subset, or is malformed.
    #[error("regexstring {pattern:?}: {reason} (at character {position})")]
    Regex {
        /// The pattern.
        pattern: String,
        /// Character offset of the problem.
        position: usize,
        /// What is wrong.
        reason: String,
    },
    /// Filter lists nest deeper than [`MAX_FILTER_DEPTH`](strata_model::ops::MAX_FILTER_DEPTH).
    #[error("filter lists nest deeper than {0}")]
    TooDeep(usize),
}

impl From<FilterError> for crate::error::Error {
    fn from(e: FilterError) -> crate::error::Error {
        crate::error::Error::InvalidArgument(e.to_string())
    }
}
