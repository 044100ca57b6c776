//! `FilterList`: AND (`MUST_PASS_ALL`) and OR (`MUST_PASS_ONE`) with HBase 2.x's semantics
//! (`FilterListWithAND`, `FilterListWithOR`).

use strata_model::cell::Cell;
use strata_model::ops::ListOp;
use strata_sstable::CellRef;

use super::compile::Node;
use super::ReturnCode;

/// A compiled filter list.
#[derive(Clone, Debug)]
pub(super) struct List {
    op: ListOp,
    members: Vec<Node>,
    /// OR: what each member last answered in this row, and on which cell.
    prev: Vec<Prev>,
    /// OR: which members included the last cell (only they transform it).
    included: Vec<bool>,
}

/// A member's last answer within the row, to know whether it wants the next cell.
#[derive(Clone, Debug, Default)]
struct Prev {
    code: Option<ReturnCode>,
    family: Vec<u8>,
    qualifier: Vec<u8>,
}

impl Prev {
    /// HBase's `shouldPassCurrentCellToFilter`: a member that asked to skip a column (or the
    /// row in a family) does not see that column's (family's) later cells.
    fn wants(&self, cell: &CellRef<'_>, family: &[u8]) -> bool {
        match self.code {
            None | Some(ReturnCode::Include | ReturnCode::Skip) => true,
            Some(ReturnCode::NextCol | ReturnCode::IncludeAndNextCol) => {
                self.family != family || self.qualifier != cell.qualifier
            }
            Some(ReturnCode::NextRow | ReturnCode::IncludeAndSeekNextRow) => self.family != family,
        }
    }

    fn record(&mut self, code: ReturnCode, cell: &CellRef<'_>, family: &[u8]) {
        self.code = Some(code);
        if !matches!(code, ReturnCode::Include | ReturnCode::Skip) {
            self.family.clear();
            self.family.extend_from_slice(family);
            self.qualifier.clear();
            self.qualifier.extend_from_slice(cell.qualifier);
        }
    }
}

impl List {
    pub(super) fn new(op: ListOp, members: Vec<Node>) -> List {
        let n = members.len();
        List {
            op,
            members,
            prev: vec![Prev::default(); n],
            included: vec![false; n],
        }
    }

    fn is_and(&self) -> bool {
        self.op == ListOp::MustPassAll
    }

    pub(super) fn reset(&mut self) {
        for m in &mut self.members {
            m.reset();
        }
        for p in &mut self.prev {
            p.code = None;
        }
        self.included.fill(false);
    }

    /// AND: any member skips the row (every member still sees the key: prefix and row filters
    /// record their per-row state there). OR: every member skips it.
    pub(super) fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.members.is_empty() {
            return false;
        }
        let and = self.is_and();
        let mut skip = !and;
        for m in &mut self.members {
            let member_skips = m.filter_all_remaining() || m.filter_row_key(row);
            if and && member_skips {
                skip = true;
            } else if !and && !member_skips {
                skip = false;
            }
        }
        skip
    }

    pub(super) fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        if self.members.is_empty() {
            return ReturnCode::Include;
        }
        if self.is_and() {
            let mut rc = ReturnCode::Include;
            for m in &mut self.members {
                if m.filter_all_remaining() {
                    return ReturnCode::NextRow;
                }
                rc = rc.and(m.filter_cell(cell, family));
                // HBASE-20565: later members do not see a cell already excluded, so their
                // state (counts, found columns) is not disturbed.
                if !rc.includes() {
                    return rc;
                }
            }
            return rc;
        }
        let mut rc: Option<ReturnCode> = None;
        for (i, m) in self.members.iter_mut().enumerate() {
            self.included[i] = false;
            if m.filter_all_remaining() || !self.prev[i].wants(cell, family) {
                continue;
            }
            let local = m.filter_cell(cell, family);
            self.prev[i].record(local, cell, family);
            self.included[i] = local.includes();
            rc = Some(rc.map_or(local, |r| r.or(local)));
        }
        rc.unwrap_or(ReturnCode::Skip)
    }

    /// AND: every member transforms, in order. OR: only the members that included the cell.
    pub(super) fn transform_cell(&self, cell: &mut Cell) {
        let and = self.is_and();
        for (m, &included) in self.members.iter().zip(&self.included) {
            if and || included {
                m.transform_cell(cell);
            }
        }
    }

    pub(super) fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        for m in &mut self.members {
            m.filter_row_cells(cells);
        }
    }

    /// AND: the first member that drops the row drops it; OR: the first that keeps it keeps
    /// it. Later members are not asked (so a `Page` after them does not count the row).
    pub(super) fn filter_row(&mut self) -> bool {
        if self.members.is_empty() {
            return false;
        }
        if self.is_and() {
            self.members.iter_mut().any(Node::filter_row)
        } else {
            self.members.iter_mut().all(Node::filter_row)
        }
    }

    /// AND: any member is done; OR: every member is.
    pub(super) fn filter_all_remaining(&self) -> bool {
        if self.members.is_empty() {
            return false;
        }
        if self.is_and() {
            self.members.iter().any(Node::filter_all_remaining)
        } else {
            self.members.iter().all(Node::filter_all_remaining)
        }
    }

    pub(super) fn has_filter_row(&self) -> bool {
        self.members.iter().any(Node::has_filter_row)
    }
}
