//! One page of a stateless scan (the protocol is documented in `strata.proto`): find the
//! region holding the next row in scan direction, read up to the page's row and byte limits,
//! and tell the client whether that region may hold more.

use std::ops::Bound;

use bytes::{BufMut, Bytes, BytesMut};
use strata_model::cell::Cell;
use strata_model::ops::Scan;
use strata_proto::convert::{result_to_pb_as, PageBlockWriter};
use strata_proto::pb;
use strata_sstable::CellRef;
use strata_storage::region::{CellSink, RegionScanner, VisitStep};
use tonic::Status;

use crate::host::{HostedRegion, RegionServer};
use crate::status::{from_storage, internal, invalid, not_serving};

/// Reads one page of `scan` on `table`, resuming strictly after `after_row` if given: the
/// rows in one page block when `page_block` is set, else each row as a cell block when
/// `cell_block` is set, else as `Cell` messages.
///
/// # Errors
/// An invalid scan, no region here for the next row (`NotServingRegion`), or a read error.
pub fn scan_page(
    server: &RegionServer,
    table: &str,
    scan: Scan,
    after_row: Option<Bytes>,
    max_result_bytes: u64,
    cell_block: bool,
    page_block: bool,
) -> Result<pb::ScanResponse, Status> {
    let (page, _) = scan_page_rows(
        server,
        table,
        scan,
        after_row,
        max_result_bytes,
        cell_block,
        page_block,
    )?;
    Ok(page)
}

/// [`scan_page`], with the keys of the rows the page returned, in order (what the table's
/// heatmap credits the page to).
///
/// # Errors
/// As [`scan_page`].
pub fn scan_page_rows(
    server: &RegionServer,
    table: &str,
    mut scan: Scan,
    after_row: Option<Bytes>,
    max_result_bytes: u64,
    cell_block: bool,
    page_block: bool,
) -> Result<(pb::ScanResponse, Vec<Bytes>), Status> {
    scan.validate().map_err(invalid)?;
    let mut skip_row = None;
    if let Some(after) = after_row {
        if scan.reversed {
            // Rows at or below `after`; the row itself was returned already.
            scan.start_row = after.clone();
            skip_row = Some(after);
            scan.limit = scan.limit.map(|l| l.saturating_add(1));
        } else {
            let mut next = BytesMut::with_capacity(after.len() + 1);
            next.put_slice(&after);
            next.put_u8(0);
            scan.start_row = next.freeze();
        }
        if range_is_empty(&scan) {
            return Ok((pb::ScanResponse::default(), Vec::new()));
        }
    }
    let hosted = match &skip_row {
        // Rows strictly below `after`: when `after` is a region's start (the client moving on
        // from an exhausted region) they live in the region before it.
        Some(after) => server
            .region_before(table, after)
            .ok_or_else(|| not_serving(table, after))?,
        None => locate(server, table, &scan)?,
    };
    let info = hosted.region.info().clone();
    let rows_wanted = scan
        .caching
        .unwrap_or(server.config().scan_default_rows)
        .max(1) as usize;
    let byte_limit = match max_result_bytes {
        0 => server.config().scan_max_result_bytes,
        n => n.min(server.config().scan_max_result_bytes),
    };
    let mut scanner = hosted.scan(&scan).map_err(|e| from_storage(&e))?;
    let mut out = if page_block {
        PageOut::Block(BlockSink::default())
    } else {
        PageOut::Rows {
            rows: Vec::new(),
            last: Vec::new(),
            cell_block,
        }
    };
    let (mut results, mut bytes) = (0usize, 0u64);
    let mut more = false;
    let mut last_row: Option<Bytes> = None;
    let mut read_rows = Vec::new();
    while let Some((row, size)) = out.read(&mut scanner)? {
        if skip_row.as_ref() == Some(&row) {
            out.drop_last();
            continue;
        }
        let same_row = last_row.as_ref() == Some(&row);
        // A page ends only between rows, so `after_row` resumes at a whole row; a piece of
        // the next row read here is read again by the next page.
        if !same_row && (results >= rows_wanted || bytes >= byte_limit) {
            out.drop_last();
            more = true;
            break;
        }
        bytes += size;
        if !same_row {
            read_rows.push(row.clone());
        }
        last_row = Some(row);
        out.keep()?;
        results += 1;
    }
    let (rows, page_block) = match out {
        PageOut::Rows { rows, .. } => (rows, Bytes::new()),
        PageOut::Block(sink) => (Vec::new(), sink.writer.finish()),
    };
    let page = pb::ScanResponse {
        rows,
        more_in_region: more,
        region_id: info.region_id,
        region_start: info.start_row,
        region_end: info.end_row,
        page_block,
    };
    Ok((page, read_rows))
}

/// Where a page's rows go: one `Result` each, or one page block for them all.
enum PageOut {
    Rows {
        rows: Vec<pb::Result>,
        /// The row last read, until kept or dropped.
        last: Vec<Cell>,
        cell_block: bool,
    },
    Block(BlockSink),
}

impl PageOut {
    /// Reads the next row (or piece of one, with `batch`) into the page, pending
    /// [`PageOut::keep`]: its key and its cells' raw size; `None` at the end.
    fn read(&mut self, scanner: &mut RegionScanner) -> Result<Option<(Bytes, u64)>, Status> {
        match self {
            PageOut::Rows { last, .. } => {
                let (row, cells) = loop {
                    let Some(cells) = scanner.next_row().map_err(|e| from_storage(&e))? else {
                        return Ok(None);
                    };
                    if let Some(first) = cells.first() {
                        break (first.row.clone(), cells);
                    }
                };
                let size = cells.iter().map(|c| c.raw_size() as u64).sum();
                *last = cells;
                Ok(Some((row, size)))
            }
            PageOut::Block(sink) => {
                sink.writer.begin_result();
                sink.bytes = 0;
                match scanner
                    .next_row_visit(None, sink)
                    .map_err(|e| from_storage(&e))?
                {
                    VisitStep::Row(row) => Ok(Some((row, sink.bytes))),
                    VisitStep::End | VisitStep::TimedOut => {
                        sink.writer.discard_result();
                        Ok(None)
                    }
                }
            }
        }
    }

    /// Keeps the row last read.
    fn keep(&mut self) -> Result<(), Status> {
        match self {
            PageOut::Rows {
                rows,
                last,
                cell_block,
            } => {
                rows.push(result_to_pb_as(&std::mem::take(last), *cell_block));
                Ok(())
            }
            PageOut::Block(sink) => sink.writer.end_result().map_err(internal),
        }
    }

    /// Drops the row last read.
    fn drop_last(&mut self) {
        match self {
            PageOut::Rows { last, .. } => last.clear(),
            PageOut::Block(sink) => sink.writer.discard_result(),
        }
    }
}

/// Encodes the cells the region's scanner lends straight into the page block.
#[derive(Default)]
struct BlockSink {
    writer: PageBlockWriter,
    /// Raw size of the cells of the row being read (as `Cell::raw_size` counts it).
    bytes: u64,
}

impl CellSink for BlockSink {
    fn cell(&mut self, family: &[u8], c: &CellRef<'_>) {
        self.bytes +=
            (8 + 2 + c.row.len() + 1 + family.len() + c.qualifier.len() + 9 + c.value.len()) as u64;
        self.writer.cell(
            c.row,
            family,
            c.qualifier,
            c.timestamp,
            c.cell_type,
            c.value,
        );
    }
}

fn range_is_empty(scan: &Scan) -> bool {
    match scan.bounds() {
        (Bound::Included(lo), Bound::Excluded(hi)) => lo >= hi,
        (Bound::Included(lo), Bound::Included(hi)) => lo > hi,
        (Bound::Excluded(lo), Bound::Included(hi) | Bound::Excluded(hi)) => lo >= hi,
        _ => false,
    }
}

/// The region holding the first row of the scan in its direction.
fn locate(server: &RegionServer, table: &str, scan: &Scan) -> Result<HostedRegion, Status> {
    let (lower, upper) = scan.bounds();
    let found = if scan.reversed {
        match &upper {
            Bound::Unbounded => server.last_region(table),
            Bound::Included(row) => server.region_for(table, row),
            Bound::Excluded(row) => server.region_before(table, row),
        }
    } else {
        match &lower {
            Bound::Unbounded => server.region_for(table, b""),
            Bound::Included(row) => server.region_for(table, row),
            Bound::Excluded(row) => {
                let mut next = row.to_vec();
                next.push(0);
                server.region_for(table, &next)
            }
        }
    };
    found.ok_or_else(|| {
        let row = match if scan.reversed { upper } else { lower } {
            Bound::Included(r) | Bound::Excluded(r) => r,
            Bound::Unbounded => Bytes::new(),
        };
        not_serving(table, &row)
    })
}
