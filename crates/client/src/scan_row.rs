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

/// The rows of a page, sent as one page block or (by a server without them) row by row.
pub(crate) fn page_of(rows: Vec<pb::Result>, page_block: &Bytes) -> Result<Vec<ScanRow>, Error> {
    if page_block.is_empty() {
        let mut out = Vec::with_capacity(rows.len());
        for result in rows {
            out.extend(ScanRow::from_result(result)?);
        }
        return Ok(out);
    }
    if !rows.is_empty() {
        return Err(Error::bad_response(
            "a scan page carries both rows and a page block",
        ));
    }
    let rows = convert::page_rows(page_block).map_err(Error::bad_response)?;
    Ok(rows.into_iter().map(ScanRow::from_page).collect())
}

#[cfg(test)]
mod tests {
    use strata_model::cell::Cell;
    use strata_proto::convert::{encode_cell_block, result_to_pb_as, PageBlockWriter};

    use super::*;

    fn cells(row: &str) -> Vec<Cell> {
        vec![
            Cell::put(row.to_string(), "f", "a", 2, "x"),
            Cell::put(row.to_string(), "g", "b", 1, ""),
        ]
    }

    #[test]
    fn rows_come_the_same_from_either_form() {
        let rows = [cells("r1"), cells("r2")];
        let by_rows: Vec<pb::Result> = vec![
            result_to_pb_as(&rows[0], false),
            pb::Result::default(),
            result_to_pb_as(&rows[1], true),
        ];
        let mut w = PageBlockWriter::new();
        for row in &rows {
            w.begin_result();
            for c in row {
                w.cell(
                    &c.row,
                    &c.family,
                    &c.qualifier,
                    c.timestamp,
                    c.cell_type,
                    &c.value,
                );
            }
            w.end_result().unwrap();
        }
        let page = w.finish();
        let a = page_of(by_rows, &Bytes::new()).unwrap();
        let b = page_of(Vec::new(), &page).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 2, "the empty result is skipped");
        for (row, cells) in a.iter().zip(&rows) {
            assert_eq!(row.to_cells(), *cells);
            assert_eq!(row.row(), &cells[0].row);
            assert_eq!(row.len(), cells.len());
            let views: Vec<_> = row.cells().map(|v| (v.family, v.value)).collect();
            assert_eq!(views, [(&b"f"[..], &b"x"[..]), (&b"g"[..], &b""[..])]);
        }
    }

    #[test]
    fn malformed_pages_fail_with_a_clear_error() {
        let page = {
            let mut w = PageBlockWriter::new();
            w.cell(b"r", b"f", b"q", 1, strata_model::cell::CellType::Put, b"v");
            w.end_result().unwrap();
            w.finish()
        };
        let both = page_of(vec![result_to_pb_as(&cells("r"), true)], &page).unwrap_err();
        assert!(
            both.to_string().contains("both rows and a page block"),
            "{both}"
        );
        let cut = page_of(Vec::new(), &page.slice(..page.len() - 1)).unwrap_err();
        assert!(cut.to_string().contains("runs past the page"), "{cut}");
        let mut bad = encode_cell_block(&cells("r")).to_vec();
        bad.truncate(bad.len() - 1);
        let result = pb::Result {
            cells: Vec::new(),
            cell_block: Bytes::from(bad),
        };
        let e = page_of(vec![result], &Bytes::new()).unwrap_err();
        assert!(e.to_string().contains("cell block"), "{e}");
    }
}
