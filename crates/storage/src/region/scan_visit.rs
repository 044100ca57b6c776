//! Scanning without copying cells out: [`RegionScanner::next_row_visit`] lends each cell of
//! the next row to a [`CellSink`] straight from the cursors, for a caller that writes the
//! cells somewhere else (an encoded scan page) and has no use for owned [`Cell`]s.
//!
//! Same rows, cells and order as [`RegionScanner::next_row_within`]; with a filter or a
//! `batch` the row is read through it and its cells are lent from there.
//!
//! [`Cell`]: strata_model::cell::Cell

use std::time::Instant;

use bytes::Bytes;
use strata_model::cell::CellKey;
use strata_sstable::CellRef;

use super::read::{RegionScanner, ScanStep};
use super::row_read::{visit_row, RowRead};
use crate::error::Result;
use crate::read::Cursor;

/// Receives the cells of a row, borrowed for the call.
pub trait CellSink {
    /// One cell of the row being read, in result order, with its family.
    fn cell(&mut self, family: &[u8], cell: &CellRef<'_>);
}

/// What [`RegionScanner::next_row_visit`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum VisitStep {
    /// A row (or, with `batch`, a piece of one) was lent to the sink: its key.
    Row(Bytes),
    /// The end of the scan.
    End,
    /// The deadline passed while rows were being skipped (see `next_row_within`).
    TimedOut,
}

impl RegionScanner {
    /// As [`next_row_within`](Self::next_row_within), but lends the row's cells to `sink`
    /// instead of returning them.
    ///
    /// # Errors
    /// A store-file error; the scanner should be dropped after one.
    pub fn next_row_visit(
        &mut self,
        deadline: Option<Instant>,
        sink: &mut impl CellSink,
    ) -> Result<VisitStep> {
        if !self.filter.is_none() || self.batch.is_some() {
            return Ok(match self.next_row_within(deadline)? {
                ScanStep::Row(cells) => {
                    for c in &cells {
                        sink.cell(&c.family, &CellRef::from_cell(c));
                    }
                    match cells.into_iter().next() {
                        Some(first) => VisitStep::Row(first.row),
                        None => VisitStep::Row(Bytes::new()),
                    }
                }
                ScanStep::End => VisitStep::End,
                ScanStep::TimedOut => VisitStep::TimedOut,
            });
        }
        // No filter, no batch: `next_row_within`'s loop with the filter's answers known
        // (no row skipped by key, every visible cell kept, a row without cells dropped).
        let mut examined = false;
        loop {
            if self.done || self.limit.is_some_and(|l| self.returned >= l) {
                return Ok(VisitStep::End);
            }
            if examined && deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(VisitStep::TimedOut);
            }
            examined = true;
            let Some(row) = self.next_row_key()? else {
                self.done = true;
                return Ok(VisitStep::End);
            };
            self.position = Some(row.clone());
            let start = self.reversed.then(|| CellKey::first_on_row(row.clone()));
            let mut lent = 0;
            for f in &mut self.families {
                if let Some(start) = &start {
                    f.cursor.seek(start)?;
                }
                let family = &f.family;
                let read = RowRead {
                    family,
                    qualifiers: f.qualifiers.as_ref(),
                    visibility: &mut f.visibility,
                    filter: &mut self.filter,
                    per_family: f.per_family,
                };
                lent += visit_row(&mut f.cursor, read, &row, |c, _| sink.cell(family, c))?;
            }
            if lent == 0 {
                continue;
            }
            self.returned += 1;
            return Ok(VisitStep::Row(row));
        }
    }
}
