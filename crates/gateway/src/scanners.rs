//! [`Scanners`]: open scanners by Thrift scanner id, each on a lease.
//!
//! Thread safety: the map is behind a short `parking_lot::Mutex` that is never held across
//! an await; each scanner has its own async mutex, held while a `scannerGet*` call pages
//! through it, so two calls on one id run one after the other.
//!
//! Invariants: an id is handed out once (ids increase, skipping any still open); a scanner
//! not touched for the lease is dropped by [`Scanners::expire`] unless a call is using it
//! right now; a connection's scanners are dropped when it closes ([`Scanners::close_owned`]),
//! since no other connection can know their ids in practice.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_client::Scanner;
use strata_model::cell::Cell;

/// An open scanner and how its rows are answered.
#[derive(Debug)]
pub struct OpenScanner {
    /// The client scanner.
    pub scanner: Scanner,
    /// Answer with `sortedColumns` instead of the `columns` map.
    pub sorted: bool,
    /// A row read ahead (at open, to report errors there), handed out first.
    pub peeked: Option<Vec<Cell>>,
}

#[derive(Debug)]
struct Entry {
    scanner: Arc<tokio::sync::Mutex<OpenScanner>>,
    last_used: Instant,
    owner: u64,
}

/// The gateway's open scanners.
#[derive(Debug)]
pub struct Scanners {
    lease: Duration,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    open: HashMap<i32, Entry>,
    next_id: i32,
}

impl Scanners {
    /// An empty registry whose scanners expire after `lease` unused.
    pub fn new(lease: Duration) -> Scanners {
        Scanners {
            lease,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// Registers a scanner opened by connection `owner`; returns its id.
    pub fn open(&self, scanner: OpenScanner, owner: u64) -> i32 {
        self.expire();
        let mut inner = self.inner.lock();
        let id = loop {
            inner.next_id = inner.next_id.checked_add(1).unwrap_or(1);
            if !inner.open.contains_key(&inner.next_id) {
                break inner.next_id;
            }
        };
        inner.open.insert(
            id,
            Entry {
                scanner: Arc::new(tokio::sync::Mutex::new(scanner)),
                last_used: Instant::now(),
                owner,
            },
        );
        id
    }

    /// The scanner `id`, its lease renewed; `None` if unknown, closed or expired.
    pub fn get(&self, id: i32) -> Option<Arc<tokio::sync::Mutex<OpenScanner>>> {
        let mut inner = self.inner.lock();
        let entry = inner.open.get_mut(&id)?;
        if entry.last_used.elapsed() >= self.lease && Arc::strong_count(&entry.scanner) == 1 {
            inner.open.remove(&id);
            return None;
        }
        entry.last_used = Instant::now();
        Some(entry.scanner.clone())
    }

    /// Renews `id`'s lease (after a long page, so the lease counts from its end).
    pub fn touch(&self, id: i32) {
        if let Some(entry) = self.inner.lock().open.get_mut(&id) {
            entry.last_used = Instant::now();
        }
    }

    /// Closes `id`; false if it was not open.
    pub fn close(&self, id: i32) -> bool {
        self.inner.lock().open.remove(&id).is_some()
    }

    /// Closes every scanner of connection `owner`.
    pub fn close_owned(&self, owner: u64) {
        self.inner.lock().open.retain(|_, e| e.owner != owner);
    }

    /// Drops scanners whose lease ran out and that no call is using; returns how many.
    pub fn expire(&self) -> usize {
        let mut inner = self.inner.lock();
        let before = inner.open.len();
        let lease = self.lease;
        inner
            .open
            .retain(|_, e| e.last_used.elapsed() < lease || Arc::strong_count(&e.scanner) > 1);
        before - inner.open.len()
    }

    /// Scanners open now.
    pub fn len(&self) -> usize {
        self.inner.lock().open.len()
    }

    /// The lease.
    pub fn lease(&self) -> Duration {
        self.lease
    }
}
