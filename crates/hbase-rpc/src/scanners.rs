//! Open scanners, by id, with leases: a scanner not touched for the lease period is closed
//! the next time any scanner is opened (HBase's `hbase.client.scanner.timeout.period`, 60 s by
//! default), so abandoned scanners cannot pin a region's read point or files for long.
//!
//! Each scanner reads one region (or meta) and keeps one row of look-ahead, so a response
//! can tell the client exactly whether the region has more rows.
//!
//! As HBase's `RSRpcServices` does for a client that handles them: a row larger than what is
//! left of the response's size budget is cut into **partial** results (the cells that fit; the
//! rest go out first in the next response), and a call that has spent its time limit skipping
//! rows (a filter that matches few) answers with a **heartbeat** — what it has so far, and
//! "more in this region" — instead of holding the call past the client's timeout.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::Mutex;
use strata_model::cell::Cell;
use strata_storage::region::{RegionScanner, ScanStep};

use crate::error::{HBaseError, HResult};

/// Where a scanner's rows come from.
pub enum Source {
    /// A user region's scanner.
    Region(Box<RegionScanner>),
    /// Meta rows chosen when the scanner opened.
    Meta(VecDeque<Vec<Cell>>),
}

/// One open scanner.
pub struct OpenScanner {
    source: Source,
    /// A row read ahead and not yet returned.
    ahead: Option<Vec<Cell>>,
    /// Skip a first row equal to this (reversed scans that exclude their start row).
    skip: Option<Bytes>,
    /// The `next_call_seq` the next call must carry.
    pub next_call_seq: u64,
    /// Most bytes per response (the client's `max_result_size`), if it set one.
    pub max_result_bytes: Option<u64>,
    last_used: Instant,
}

impl OpenScanner {
    /// A scanner over `source`; `skip` drops a first row with exactly that key.
    pub fn new(source: Source, skip: Option<Bytes>, max_result_bytes: Option<u64>) -> Self {
        OpenScanner {
            source,
            ahead: None,
            skip,
            next_call_seq: 0,
            max_result_bytes,
            last_used: Instant::now(),
        }
    }

    /// The next row of the source (after the skipped start row), its end, or the deadline.
    fn read(&mut self, deadline: Option<Instant>) -> HResult<Read> {
        loop {
            let row = match &mut self.source {
                Source::Region(s) => {
                    match s
                        .next_row_within(deadline)
                        .map_err(|e| HBaseError::from(&e))?
                    {
                        ScanStep::Row(cells) => Some(cells),
                        ScanStep::End => None,
                        ScanStep::TimedOut => return Ok(Read::TimedOut),
                    }
                }
                Source::Meta(rows) => rows.pop_front(),
            };
            if let (Some(skip), Some(cells)) = (&self.skip, &row) {
                if cells.first().is_some_and(|c| c.row == *skip) {
                    continue;
                }
            }
            self.skip = None;
            return Ok(match row {
                Some(cells) => Read::Row(cells),
                None => Read::End,
            });
        }
    }

    /// Up to `rows` results (a `batch` splits wide rows into several) and at most about
    /// `limits.max_bytes`, plus whether the source has more. With `limits.partials`, a row
    /// that does not fit is cut (at least one cell goes out); with `limits.deadline`, reading
    /// stops once it passes while rows are being skipped (a heartbeat).
    ///
    /// # Errors
    /// A read error (the scanner should be closed).
    pub fn next_batch(&mut self, rows: usize, limits: &Limits) -> HResult<Batch> {
        self.last_used = Instant::now();
        let mut batch = Batch::default();
        let mut bytes = 0u64;
        let mut whole = 0usize;
        while whole < rows.max(1) && bytes < limits.max_bytes {
            let cells = match self.ahead.take() {
                Some(row) => row,
                None => match self.read(limits.deadline)? {
                    Read::Row(cells) => cells,
                    Read::End => return Ok(batch),
                    Read::TimedOut => {
                        batch.more = true;
                        batch.heartbeat = true;
                        return Ok(batch);
                    }
                },
            };
            let size: u64 = cells.iter().map(|c| c.raw_size() as u64).sum();
            if limits.partials && bytes + size > limits.max_bytes && cells.len() > 1 {
                let mut fit = 0;
                let mut used = bytes;
                for c in &cells {
                    let n = c.raw_size() as u64;
                    if fit > 0 && used + n > limits.max_bytes {
                        break;
                    }
                    used += n;
                    fit += 1;
                }
                if fit < cells.len() {
                    let mut head = cells;
                    self.ahead = Some(head.split_off(fit));
                    batch.results.push((head, true));
                    batch.more = true;
                    return Ok(batch);
                }
            }
            bytes += size;
            batch.results.push((cells, false));
            whole += 1;
        }
        match self.read(limits.deadline)? {
            Read::Row(cells) => {
                self.ahead = Some(cells);
                batch.more = true;
            }
            Read::End => {}
            Read::TimedOut => {
                batch.more = true;
                batch.heartbeat = true;
            }
        }
        Ok(batch)
    }
}

/// What one read of a scanner's source gave.
enum Read {
    Row(Vec<Cell>),
    End,
    TimedOut,
}

/// The limits of one scan call.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Most bytes of cells in the response (about: a whole row may pass it).
    pub max_bytes: u64,
    /// The client accepts rows cut into partial results.
    pub partials: bool,
    /// When the call must answer (the client handles heartbeats).
    pub deadline: Option<Instant>,
}

/// The results of one scan call.
#[derive(Debug, Default)]
pub struct Batch {
    /// Results and whether each is partial (more cells of its row follow).
    pub results: Vec<(Vec<Cell>, bool)>,
    /// The region has more rows (or this call stopped early).
    pub more: bool,
    /// The call stopped at its time limit.
    pub heartbeat: bool,
}

/// The open scanners of one server.
pub struct Scanners {
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Mutex<OpenScanner>>>>,
    lease: Duration,
    max_open: usize,
}

impl Scanners {
    /// An empty registry; scanners idle longer than `lease` expire; at most `max_open` at once.
    pub fn new(lease: Duration, max_open: usize) -> Scanners {
        Scanners {
            next_id: AtomicU64::new(1),
            open: Mutex::new(HashMap::new()),
            lease,
            max_open,
        }
    }

    /// The lease period.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Registers a scanner, first expiring idle ones.
    ///
    /// # Errors
    /// Too many scanners open (`RegionTooBusyException`: the client backs off).
    pub fn open(&self, scanner: OpenScanner) -> HResult<(u64, Arc<Mutex<OpenScanner>>)> {
        let mut open = self.open.lock();
        let now = Instant::now();
        open.retain(|_, s| {
            s.try_lock()
                .is_none_or(|s| now.duration_since(s.last_used) < self.lease)
        });
        if open.len() >= self.max_open {
            return Err(HBaseError {
                class: "org.apache.hadoop.hbase.RegionTooBusyException",
                message: format!("{} scanners open; close some", open.len()),
                do_not_retry: false,
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let scanner = Arc::new(Mutex::new(scanner));
        open.insert(id, scanner.clone());
        Ok((id, scanner))
    }

    /// The scanner with this id.
    ///
    /// # Errors
    /// `UnknownScannerException`: never opened, closed, or expired.
    pub fn get(&self, id: u64) -> HResult<Arc<Mutex<OpenScanner>>> {
        let open = self.open.lock();
        let s = open
            .get(&id)
            .ok_or_else(|| HBaseError::unknown_scanner(id))?;
        if s.try_lock()
            .is_some_and(|s| s.last_used.elapsed() >= self.lease)
        {
            return Err(HBaseError::unknown_scanner(id));
        }
        Ok(s.clone())
    }

    /// Closes a scanner; true if it was open.
    pub fn close(&self, id: u64) -> bool {
        self.open.lock().remove(&id).is_some()
    }
}
