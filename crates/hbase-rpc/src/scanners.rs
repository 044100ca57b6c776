//! Open scanners, by id, with leases: a scanner not touched for the lease period is closed
//! the next time any scanner is opened (HBase's `hbase.client.scanner.timeout.period`, 60 s by
//! default), so abandoned scanners cannot pin a region's read point or files for long.
//!
//! Each scanner reads one region (or meta) and keeps one row of look-ahead, so a response
//! can tell the client exactly whether the region has more rows.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::Mutex;
use strata_model::cell::Cell;
use strata_storage::region::RegionScanner;

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

    fn read(&mut self) -> HResult<Option<Vec<Cell>>> {
        loop {
            let row = match &mut self.source {
                Source::Region(s) => s.next_row().map_err(|e| HBaseError::from(&e))?,
                Source::Meta(rows) => rows.pop_front(),
            };
            if let (Some(skip), Some(cells)) = (&self.skip, &row) {
                if cells.first().is_some_and(|c| c.row == *skip) {
                    continue;
                }
            }
            self.skip = None;
            return Ok(row);
        }
    }

    /// Up to `rows` rows (results; a `batch` splits wide rows into several) and at most
    /// about `max_bytes`, plus whether the source has more.
    ///
    /// # Errors
    /// A read error (the scanner should be closed).
    pub fn next_batch(&mut self, rows: usize, max_bytes: u64) -> HResult<(Vec<Vec<Cell>>, bool)> {
        self.last_used = Instant::now();
        let mut out = Vec::new();
        let mut bytes = 0u64;
        while out.len() < rows.max(1) && bytes < max_bytes {
            let next = match self.ahead.take() {
                Some(row) => Some(row),
                None => self.read()?,
            };
            let Some(cells) = next else {
                return Ok((out, false));
            };
            bytes += cells.iter().map(|c| c.raw_size() as u64).sum::<u64>();
            out.push(cells);
        }
        self.ahead = self.read()?;
        let more = self.ahead.is_some();
        Ok((out, more))
    }
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
