//! `SkipFilter` and `WhileMatchFilter`: wrappers that turn the inner filter's exclusions into
//! whole-row drops or the end of the read.
//!
//! As in HBase, neither passes `filterRowCells` or `getNextCellHint` on (a hint from the
//! inner filter steps one cell), and `SkipFilter` never asks the inner filter about row keys.

use strata_model::cell::Cell;
use strata_sstable::CellRef;

use super::compile::Node;
use super::ReturnCode;

/// `SkipFilter`: the row is dropped if the inner filter answered anything but `Include`.
#[derive(Clone, Debug)]
pub(super) struct SkipRow {
    pub(super) inner: Box<Node>,
    pub(super) filter_row: bool,
}

impl SkipRow {
    pub(super) fn reset(&mut self) {
        self.inner.reset();
        self.filter_row = false;
    }

    pub(super) fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        let rc = self.inner.filter_cell(cell, family);
        self.filter_row |= rc != ReturnCode::Include;
        rc
    }

    pub(super) fn transform_cell(&self, cell: &mut Cell) {
        self.inner.transform_cell(cell);
    }
}

/// `WhileMatchFilter`: the read ends at the first row key, cell or row the inner filter
/// excludes.
#[derive(Clone, Debug)]
pub(super) struct WhileMatch {
    pub(super) inner: Box<Node>,
    pub(super) ended: bool,
}

impl WhileMatch {
    pub(super) fn done(&self) -> bool {
        self.ended || self.inner.filter_all_remaining()
    }

    pub(super) fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done() {
            return true;
        }
        let skip = self.inner.filter_row_key(row);
        self.ended |= skip;
        skip
    }

    pub(super) fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        let rc = self.inner.filter_cell(cell, family);
        self.ended |= rc != ReturnCode::Include;
        rc
    }

    pub(super) fn filter_row(&mut self) -> bool {
        let drop = self.inner.filter_row();
        self.ended |= drop;
        drop
    }
}
