//! [`ScanRow`]: a row handed out by a [`Scanner`](crate::Scanner) as a view of the page it
//! came in: its cells are read in place from the page's buffer when asked for, instead of
//! becoming two reference-counted buffers per cell on arrival.

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_proto::convert::{self, CellBlockIter, CellView, PageRow};
use strata_proto::pb;

use crate::error::Error;

/// One row of a scan (or, with `batch`, one piece of a row), checked when its page arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanRow {
    page: PageRow,
}

impl ScanRow {
    /// The row key.
    pub fn row(&self) -> &Bytes {
        &self.page.row
    }

    /// How many cells the row holds (at least one).
    pub fn len(&self) -> usize {
        self.page.cells
    }

    /// Always false: a scan hands out no empty row.
    pub fn is_empty(&self) -> bool {
        self.page.cells == 0
    }

    /// The cells in order, borrowed from the page (no copy; sequence ids are not sent).
    pub fn cells(&self) -> impl Iterator<Item = CellView<'_>> {
        // The block was checked on arrival, so the walk meets no error.
        CellBlockIter::new(&self.page.block).map_while(Result::ok)
    }

    /// The cells as owned [`Cell`]s, sharing the page's buffer (sequence ids 0).
    pub fn to_cells(&self) -> Vec<Cell> {
        convert::decode_cell_block(&self.page.block).unwrap_or_default()
    }

    /// A row from a page block's entry.
    pub(crate) fn from_page(page: PageRow) -> ScanRow {
        ScanRow { page }
    }

    /// A row from one `Result` of a page sent row by row (a server without page blocks);
    /// `None` for a result without cells.
    pub(crate) fn from_result(result: pb::Result) -> Result<Option<ScanRow>, Error> {
        let block = if result.cells.is_empty() {
            result.cell_block
        } else {
            // Cells sent one message each (checked as a get's are), re-encoded as a block.
            let cells = convert::result_from_pb(result).map_err(Error::bad_response)?;
            convert::encode_cell_block(&cells)
        };
        let row = PageRow::from_block(block).map_err(Error::bad_response)?;
        Ok(row.map(ScanRow::from_page))
    }
}
