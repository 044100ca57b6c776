//! [`RowFilter`]: runs a read's filter over its rows, as HBase's region scanner does.

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::Filter;
use strata_sstable::CellRef;

use super::compile::CompiledFilter;
use super::hint::Hint;
use super::{Advance, FilterError, ReturnCode};

/// The filter of one get or scan, applied row by row. Without a filter every call is a no-op
/// that hands the cells back untouched.
///
/// # How a reader drives it
/// Create one per read (`Page` counts and "done" flags span rows), then for each row in read
/// order:
///
/// ```text
/// let mut filter = RowFilter::new(scan.filter.as_ref(), scan.reversed)?;
/// while let Some(row) = next_row_key() {
///     if filter.is_done() { break }              // 1. no later row can pass: end the scan
///     if filter.skip_row(&row) { continue }      // 2. skip the row, unread (move past it)
///     let cells = visible_cells(&row);           // 3. every family's visible cells
///     if let Some(cells) = filter.finish_row(cells) {
///         emit(cells)                            // 4. count it toward the scan's limit
///     }
/// }
/// ```
///
/// A get does steps 2–4 at once with [`RowFilter::apply`]. A reader that filters each cell as
/// it reads it (between the version check and the version count, as HBase's
/// `UserScanQueryMatcher` does) calls [`RowFilter::filter_cell`] and
/// [`RowFilter::transform_cell`] per cell instead and hands the kept cells to
/// [`RowFilter::end_row`]. The cells handed to
/// [`RowFilter::finish_row`] must be the row's cells that [`Visibility`](crate::read::Visibility)
/// included (and that the read's column selection asked for), grouped by family with each
/// family's cells in store order: qualifier ascending, then timestamp descending; families in
/// ascending order. The result is what to return: cells in the same order, `KeyOnly` applied,
/// or `None` if the row is filtered out or empty. With a filter that
/// [needs whole rows](RowFilter::has_filter_row), never split a row before `finish_row`; batch
/// its result instead.
#[derive(Clone, Debug, Default)]
pub struct RowFilter {
    filter: Option<CompiledFilter>,
}

impl RowFilter {
    /// The driver for a read's filter; `None` passes everything at no cost. `reversed`: rows
    /// come in descending order.
    ///
    /// # Errors
    /// The filter does not compile ([`CompiledFilter::compile`]).
    pub fn new(filter: Option<&Filter>, reversed: bool) -> Result<RowFilter, FilterError> {
        Ok(RowFilter {
            filter: filter
                .map(|f| CompiledFilter::compile(f, reversed))
                .transpose()?,
        })
    }

    /// True if there is no filter.
    pub fn is_pass_all(&self) -> bool {
        self.filter.is_none()
    }

    /// True if rows must reach [`RowFilter::finish_row`] whole (`SingleColumnValue`, `Page`).
    pub fn has_filter_row(&self) -> bool {
        self.filter
            .as_ref()
            .is_some_and(CompiledFilter::has_filter_row)
    }

    /// True when the scan has no filter: every row is read and every visible cell kept.
    pub fn is_none(&self) -> bool {
        self.filter.is_none()
    }

    /// True once no later row can pass (HBase's `filterAllRemaining`): stop reading. Check it
    /// before each row.
    #[inline]
    pub fn is_done(&self) -> bool {
        self.filter
            .as_ref()
            .is_some_and(CompiledFilter::filter_all_remaining)
    }

    /// Starts `row`: resets the per-row state and asks the row-key filters. True: skip the row
    /// without reading its cells (and do not call [`RowFilter::finish_row`] for it).
    #[inline]
    pub fn skip_row(&mut self, row: &[u8]) -> bool {
        match &mut self.filter {
            None => false,
            Some(f) => {
                f.reset();
                f.filter_row_key(row)
            }
        }
    }

    /// Step 3 for one cell of the current row, in read order: the filter's answer
    /// ([`ReturnCode::Include`] without a filter).
    #[inline]
    pub fn filter_cell(&mut self, cell: &CellRef<'_>, family: &[u8]) -> ReturnCode {
        match &mut self.filter {
            None => ReturnCode::Include,
            Some(f) => f.filter_cell(cell, family),
        }
    }

    /// After [`RowFilter::filter_cell`] answered [`ReturnCode::SeekNextUsingHint`] for
    /// `cell`: where to move (`None`: to the next cell).
    #[inline]
    pub fn next_cell_hint(&mut self, cell: &CellRef<'_>, family: &[u8]) -> Option<Hint> {
        self.filter.as_mut()?.next_cell_hint(cell, family)
    }

    /// After [`RowFilter::skip_row`] answered true for `row`: a later row to seek to, every
    /// row before it being skipped too (`None`: the next row).
    #[inline]
    pub fn row_hint(&self, row: &[u8]) -> Option<Bytes> {
        let hint = self.filter.as_ref()?.row_hint(row)?;
        (hint.as_ref() > row).then_some(hint)
    }

    /// Rewrites a cell [`RowFilter::filter_cell`] included (`KeyOnly`).
    #[inline]
    pub fn transform_cell(&self, cell: &mut Cell) {
        if let Some(f) = &self.filter {
            f.transform_cell(cell);
        }
    }

    /// Step 4 for the cells of the current row that [`RowFilter::filter_cell`] kept: the cells
    /// to return, or `None` if the row is dropped or has none.
    pub fn end_row(&mut self, mut cells: Vec<Cell>) -> Option<Vec<Cell>> {
        if let Some(f) = &mut self.filter {
            f.filter_row_cells(&mut cells);
            if !cells.is_empty() && f.filter_row() {
                return None;
            }
        }
        (!cells.is_empty()).then_some(cells)
    }

    /// Filters the visible cells of the row last started with [`RowFilter::skip_row`] (which
    /// answered false): the cells to return, or `None` if the row is dropped or has none.
    pub fn finish_row(&mut self, mut cells: Vec<Cell>) -> Option<Vec<Cell>> {
        let Some(f) = &mut self.filter else {
            return (!cells.is_empty()).then_some(cells);
        };
        // What the last answer skips, in a family: the rest of a column, the rest of the
        // family's row, or the cells before a hint.
        let mut skipping: Option<(Bytes, Skipping)> = None;
        let mut kept = 0;
        for i in 0..cells.len() {
            let cell = &cells[i];
            if let Some((family, skip)) = &skipping {
                if cell.family == family && skip.covers(&CellRef::from_cell(cell)) {
                    continue;
                }
            }
            if f.filter_all_remaining() {
                // Done mid-row (`WhileMatch`, `ColumnCountGet`): the rest of the row is not
                // read, as HBase's `DONE_SCAN`.
                break;
            }
            let c = CellRef::from_cell(cell);
            let rc = f.filter_cell(&c, &cell.family);
            let skip = match rc.advance() {
                Advance::Cell => None,
                Advance::Column => Some(Skipping::Column(cell.qualifier.clone())),
                Advance::Row => Some(Skipping::Row),
                Advance::Hint => f.next_cell_hint(&c, &cell.family).map(Skipping::Until),
            };
            skipping = skip.map(|s| (cell.family.clone(), s));
            if rc.includes() {
                f.transform_cell(&mut cells[i]);
                cells.swap(kept, i);
                kept += 1;
            }
        }
        cells.truncate(kept);
        f.filter_row_cells(&mut cells);
        if cells.is_empty() || f.filter_row() {
            return None;
        }
        Some(cells)
    }

    /// One row at once, for a get or a simple scan: `cells` are the row's visible cells
    /// (as for [`RowFilter::finish_row`]). Returns `None` for no cells, a finished filter or a
    /// row filtered out.
    pub fn apply(&mut self, cells: Vec<Cell>) -> Option<Vec<Cell>> {
        let row = cells.first()?.row.clone();
        if self.filter.is_none() {
            return Some(cells);
        }
        if self.is_done() || self.skip_row(&row) {
            return None;
        }
        self.finish_row(cells)
    }
}

/// What [`RowFilter::finish_row`] passes over in a family after an answer.
enum Skipping {
    /// The rest of this column.
    Column(Bytes),
    /// The rest of the family's row.
    Row,
    /// The cells before the hint.
    Until(Hint),
}

impl Skipping {
    fn covers(&self, cell: &CellRef<'_>) -> bool {
        match self {
            Skipping::Column(q) => cell.qualifier == q.as_ref(),
            Skipping::Row => true,
            Skipping::Until(hint) => hint.is_after(cell),
        }
    }
}
