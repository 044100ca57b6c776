//! [`Scanner`]: the client side of the scan protocol (see `ScanRequest` in `strata.proto`).
//!
//! A scan is stateless on the server. Each page is read from one region at a [`Position`]:
//! forward, from a start row or strictly after the last row received; in reverse, from the
//! start (highest) row or strictly before the last row. When a region is exhausted the scan
//! continues at its boundary (forward: from `region_end`; reverse: before `region_start`),
//! taken from the response, not from the cache, so a split between pages neither skips nor
//! repeats rows.
//!
//! With `batch`, one row may come in several pieces; the server ends pages only between rows,
//! so resuming after the last row loses no piece.
//!
//! Prefetch (`ClientOptions::scan_prefetch`): once a page is accepted, the request for the
//! next one (whose position that page fixed) is sent at once on a task of its own, so the
//! server reads it while the caller consumes this one. At most one page is in flight; a
//! dropped scanner aborts it.
//!
//! Invariants: `lower`/`upper` are the scan's ascending bounds (prefix applied); every row
//! handed out lies within them, in scan order, once. `limit` is counted here, across
//! regions; each request asks only for what is left.

use std::collections::VecDeque;
use std::ops::{Bound, RangeBounds};

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::Scan;
use strata_proto::pb::ErrorCode;
use strata_proto::{convert, pb};

use crate::error::Error;
use crate::locate::Position;
use crate::retry::Idempotence;
use crate::scan_row::{page_of, ScanRow};
use crate::table::Table;

/// Rows of a scan, fetched a page at a time as they are read.
#[derive(Debug)]
pub struct Scanner {
    table: Table,
    /// The scan as sent; `start_row` moves forward region by region.
    wire: pb::Scan,
    reversed: bool,
    lower: Bound<Bytes>,
    upper: Bound<Bytes>,
    position: Position,
    limit: Option<u64>,
    /// Rows handed out (pieces of one row, with `batch`, count once).
    returned: u64,
    last_returned: Option<Bytes>,
    buffer: VecDeque<ScanRow>,
    done: bool,
    /// A validation error, reported by the first `next_row`.
    invalid: Option<Error>,
    /// The next page, requested at `position` while the buffer is consumed.
    prefetch: Option<tokio::task::JoinHandle<Result<pb::ScanResponse, Error>>>,
}

impl Drop for Scanner {
    fn drop(&mut self) {
        if let Some(page) = self.prefetch.take() {
            page.abort();
        }
    }
}

impl Scanner {
    pub(crate) fn new(table: Table, scan: Scan) -> Scanner {
        let (lower, upper) = scan.bounds();
        let invalid = scan.validate().err().map(Error::from);
        Scanner::with_bounds(table, &scan, lower, upper, invalid)
    }

    /// A scanner over `scan` restricted to the ascending range `lower..upper` (a sub-range
    /// of the scan's own bounds).
    pub(crate) fn with_bounds(
        table: Table,
        scan: &Scan,
        lower: Bound<Bytes>,
        upper: Bound<Bytes>,
        invalid: Option<Error>,
    ) -> Scanner {
        let options = table.conn.options();
        let mut wire = convert::scan_to_pb(scan);
        wire.caching = Some(scan.caching.unwrap_or(options.scan_caching).max(1));
        let (near, far) = if scan.reversed {
            (&upper, &lower)
        } else {
            (&lower, &upper)
        };
        let position = match near {
            Bound::Included(row) => Position::From(row.clone()),
            Bound::Excluded(row) => Position::After(row.clone()),
            Bound::Unbounded => Position::From(Bytes::new()),
        };
        wire.start_row = match near {
            Bound::Included(row) | Bound::Excluded(row) => row.clone(),
            Bound::Unbounded => Bytes::new(),
        };
        // The stop row is exclusive. Bounds it cannot express exactly are left open here and
        // enforced on the rows received.
        wire.stop_row = match (far, scan.reversed) {
            (Bound::Excluded(row), _) => row.clone(),
            (Bound::Included(row), false) => [row.as_ref(), &[0]].concat().into(),
            (Bound::Included(_), true) | (Bound::Unbounded, _) => Bytes::new(),
        };
        wire.include_stop_row = false;
        Scanner {
            table,
            wire,
            reversed: scan.reversed,
            lower,
            upper,
            position,
            limit: scan.limit,
            returned: 0,
            last_returned: None,
            buffer: VecDeque::new(),
            done: false,
            invalid,
            prefetch: None,
        }
    }

    /// The next row's cells, or `None` after the last row.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed scan; else the error of a page that could not be
    /// read within the retry budget. The scanner is finished after an error.
    pub async fn next_row(&mut self) -> Result<Option<Vec<Cell>>, Error> {
        Ok(self.next_scan_row().await?.map(|row| row.to_cells()))
    }

    /// The next row as a view of the page it came in (cells read in place, no copy), or
    /// `None` after the last row; otherwise as [`next_row`](Self::next_row).
    ///
    /// # Errors
    /// As [`next_row`](Self::next_row).
    pub async fn next_scan_row(&mut self) -> Result<Option<ScanRow>, Error> {
        if let Some(e) = self.invalid.take() {
            self.done = true;
            self.buffer.clear();
            return Err(e);
        }
        loop {
            if let Some(row) = self.buffer.pop_front() {
                return Ok(self.hand_out(row));
            }
            if self.done {
                return Ok(None);
            }
            if let Err(e) = self.fetch().await {
                self.done = true;
                return Err(e);
            }
        }
    }

    /// Counts `row` against the limit; `None` once the limit is reached.
    fn hand_out(&mut self, row: ScanRow) -> Option<ScanRow> {
        let key = Some(row.row().clone());
        if key != self.last_returned {
            if self.limit.is_some_and(|limit| self.returned >= limit) {
                self.done = true;
                self.buffer.clear();
                return None;
            }
            self.returned += 1;
            self.last_returned = key;
        }
        Some(row)
    }

    /// Reads one page into the buffer (the one prefetched, if any) and moves the position on;
    /// then prefetches the next page if there may be one.
    async fn fetch(&mut self) -> Result<(), Error> {
        let response = match self.prefetch.take() {
            Some(page) => page.await.map_err(|e| {
                Error::new(ErrorCode::Unknown, format!("scan page task failed: {e}"))
            })??,
            None => self.request_page().await?,
        };
        self.accept(response)
    }

    /// The request for the page at `position`, as a future owning all it needs.
    fn request_page(
        &self,
    ) -> impl std::future::Future<Output = Result<pb::ScanResponse, Error>> + Send + 'static {
        let mut wire = self.wire.clone();
        if let Some(limit) = self.limit {
            wire.limit = Some(limit.saturating_sub(self.returned).max(1));
        }
        let request = pb::ScanRequest {
            table: self.table.name().to_string(),
            scan: Some(wire),
            after_row: match &self.position {
                Position::After(row) => Some(row.clone()),
                Position::From(_) => None,
            },
            max_result_bytes: self.table.conn.options().max_result_bytes,
            cell_block: true,
            page_block: true,
        };
        let (table, position, reversed) =
            (self.table.clone(), self.position.clone(), self.reversed);
        async move {
            let response = table
                .conn
                .call_at(
                    table.name(),
                    &position,
                    reversed,
                    Idempotence::Idempotent,
                    |mut client| {
                        let request = request.clone();
                        async move { client.scan(request).await }
                    },
                )
                .await?;
            Ok(response.into_inner())
        }
    }

    /// Buffers a page's rows within the bounds and moves the position past them; the next
    /// page's request (with prefetch) goes out as soon as that position is known.
    fn accept(&mut self, response: pb::ScanResponse) -> Result<(), Error> {
        let rows = page_of(response.rows, &response.page_block)?;
        // Rows come in scan order, so only the last can tell whether the page reaches the far
        // bound. If it does not, the next page's position is known before any row is
        // buffered: its request goes out first, and the server reads it meanwhile.
        let reaches_bound = rows.last().is_some_and(|r| self.past_far_bound(r.row()));
        if !reaches_bound {
            let before = self.position.clone();
            if let Some(last) = rows.last() {
                self.position = Position::After(last.row().clone());
            }
            if !response.more_in_region {
                self.next_region(response.region_start, response.region_end);
            }
            if !self.done && rows.is_empty() && self.position == before {
                // The protocol is stateless: the same request would get the same answer
                // forever.
                return Err(Error::new(
                    ErrorCode::Unknown,
                    format!(
                        "scan of {} made no progress at {:?} (server returned no rows and no new position)",
                        self.table.name(),
                        self.position
                    ),
                ));
            }
            if !self.done && self.limit.is_none() && self.table.conn.options().scan_prefetch {
                self.prefetch = Some(tokio::spawn(self.request_page()));
            }
        }
        for scan_row in rows {
            if reaches_bound && self.past_far_bound(scan_row.row()) {
                self.done = true;
                return Ok(());
            }
            if self.within(scan_row.row()) {
                self.buffer.push_back(scan_row);
            }
        }
        Ok(())
    }

    /// Moves to the region after the one just exhausted, or finishes.
    fn next_region(&mut self, region_start: Bytes, region_end: Bytes) {
        if self.reversed {
            // The next rows are all below `region_start`.
            let finished = region_start.is_empty()
                || match &self.lower {
                    Bound::Included(low) | Bound::Excluded(low) => region_start <= *low,
                    Bound::Unbounded => false,
                };
            if finished {
                self.done = true;
            } else {
                self.position = Position::After(region_start);
            }
        } else {
            // The next rows are all at or above `region_end`.
            let finished = region_end.is_empty()
                || match &self.upper {
                    Bound::Excluded(high) => region_end >= *high,
                    Bound::Included(high) => region_end > *high,
                    Bound::Unbounded => false,
                };
            if finished {
                self.done = true;
            } else {
                self.wire.start_row = region_end.clone();
                self.position = Position::From(region_end);
            }
        }
    }

    fn within(&self, row: &Bytes) -> bool {
        RangeBounds::<Bytes>::contains(&(self.lower.as_ref(), self.upper.as_ref()), row)
    }

    /// True if `row` lies beyond the bound the scan moves towards.
    fn past_far_bound(&self, row: &Bytes) -> bool {
        if self.reversed {
            match &self.lower {
                Bound::Included(low) => row < low,
                Bound::Excluded(low) => row <= low,
                Bound::Unbounded => false,
            }
        } else {
            match &self.upper {
                Bound::Included(high) => row > high,
                Bound::Excluded(high) => row >= high,
                Bound::Unbounded => false,
            }
        }
    }
}
