//! `FilterList`: AND (`MUST_PASS_ALL`) and OR (`MUST_PASS_ONE`) with HBase 2.x's semantics
//! (`FilterListWithAND`, `FilterListWithOR`).

use bytes::Bytes;
use strata_model::cell::{compare_bytes, Cell};
use strata_model::ops::ListOp;
use strata_sstable::CellRef;

use super::compile::Node;
use super::hint::Hint;
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
    /// AND: the member whose hint the last cell's answer was.
    hinted: Option<usize>,
}

/// A member's last answer within the row, to know whether it wants the next cell.
#[derive(Clone, Debug, Default)]
struct Prev {
    code: Option<ReturnCode>,
    family: Vec<u8>,
    qualifier: Vec<u8>,
    /// With `SeekNextUsingHint`: the hint, in `family`.
    hint: Option<Hint>,
}

impl Prev {
    /// HBase's `calculateReturnCodeByPrevCellAndRC`: a member that asked to skip a column
    /// (the row in a family, the cells before its hint) is not asked about that column's
    /// (family's, range's) later cells; its earlier answer stands for them (`NextCol`,
    /// `NextRow`, `SeekNextUsingHint`). `None`: ask the member.
    fn implied(&self, cell: &CellRef<'_>, family: &[u8]) -> Option<ReturnCode> {
        match self.code? {
            ReturnCode::Include | ReturnCode::Skip => None,
            ReturnCode::NextCol | ReturnCode::IncludeAndNextCol => (self.family == family
                && self.qualifier == cell.qualifier)
                .then_some(ReturnCode::NextCol),
            ReturnCode::NextRow | ReturnCode::IncludeAndSeekNextRow => {
                (self.family == family).then_some(ReturnCode::NextRow)
            }
            ReturnCode::SeekNextUsingHint => {
                let before = match self.hint.as_ref()? {
                    Hint::Row(_) => true,
                    hint => self.family == family && hint.is_after(cell),
                };
                before.then_some(ReturnCode::SeekNextUsingHint)
            }
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
            hinted: None,
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
            self.hinted = None;
            for (i, m) in self.members.iter_mut().enumerate() {
                if m.filter_all_remaining() {
                    return ReturnCode::NextRow;
                }
                let local = m.filter_cell(cell, family);
                if local == ReturnCode::SeekNextUsingHint {
                    self.hinted = Some(i);
                }
                rc = rc.and(local);
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
            if m.filter_all_remaining() {
                continue;
            }
            let local = match self.prev[i].implied(cell, family) {
                Some(code) => code,
                None => {
                    let local = m.filter_cell(cell, family);
                    self.prev[i].record(local, cell, family);
                    self.prev[i].hint = if local == ReturnCode::SeekNextUsingHint {
                        m.next_cell_hint(cell, family)
                    } else {
                        None
                    };
                    self.included[i] = local.includes();
                    local
                }
            };
            rc = Some(rc.map_or(local, |r| r.or(local)));
        }
        rc.unwrap_or(ReturnCode::Skip)
    }

    /// AND: the hint of the member that answered one (HBase's `FilterListWithAND`). OR: the
    /// nearest hint of the members still running, if each gives one (`FilterListWithOR`).
    pub(super) fn next_cell_hint(&mut self, cell: &CellRef<'_>, family: &[u8]) -> Option<Hint> {
        if self.is_and() {
            let i = self.hinted?;
            let m = &mut self.members[i];
            return if m.filter_all_remaining() {
                None
            } else {
                m.next_cell_hint(cell, family)
            };
        }
        let mut nearest: Option<Hint> = None;
        for (m, prev) in self.members.iter_mut().zip(&self.prev) {
            if m.filter_all_remaining() {
                continue;
            }
            let hint = if prev.code == Some(ReturnCode::SeekNextUsingHint) && prev.hint.is_some() {
                prev.hint.clone()
            } else {
                m.next_cell_hint(cell, family)
            }?;
            if nearest.as_ref().is_none_or(|n| hint.cmp_hint(n).is_lt()) {
                nearest = Some(hint);
            }
        }
        nearest
    }

    /// For a row the list skipped by its key: AND, the farthest next row of the members that
    /// give one; OR (every member skipped it), the nearest, if each gives one.
    pub(super) fn row_hint(&self, row: &[u8]) -> Option<Bytes> {
        let hints = self.members.iter().map(|m| m.row_hint(row));
        if self.is_and() {
            hints.flatten().max_by(|a, b| compare_bytes(a, b))
        } else {
            let all: Option<Vec<Bytes>> = hints.collect();
            all?.into_iter().min_by(|a, b| compare_bytes(a, b))
        }
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
