//! Background work shared by the regions of a process: a bounded pool of threads for flushes
//! and compactions, and the global memtable budget.
//!
//! A region asks for a flush when its memtables pass `MEMSTORE_FLUSHSIZE`; the budget asks the
//! largest regions to flush when all memtables together pass its limit, and makes writers wait
//! (bounded) while they stay above it — backpressure instead of running out of memory.
//!
//! Thread safety: everything takes `&self`; jobs run on the pool's threads. A region's flush
//! lock keeps two flushes of one region from overlapping.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::region::Region;

/// Work the pool runs.
pub enum Job {
    /// Flush a region's memtables.
    Flush(Region),
    /// Compact a region's stores if a policy finds something to do.
    Compact(Region),
    /// Move a region's store files whose tier changed (windows that aged), without compacting.
    MoveTiers(Region),
    /// The in-memory compaction a seal of one store's active segment asked for.
    CompactInMemory(Region, bytes::Bytes),
}

/// A fixed set of worker threads for flushes and disk compactions, and one more thread of
/// its own for in-memory compactions (short, CPU-only, and what keeps memtable pipelines
/// short: they must not queue behind a disk compaction that a throughput limit slows down).
pub struct Background {
    sender: Mutex<Option<mpsc::Sender<Job>>>,
    in_memory: Mutex<Option<mpsc::Sender<Job>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// Jobs that failed (the region keeps its data and the job is asked for again later).
    pub failures: AtomicU64,
    /// Flushes queued and not started yet.
    pub queued_flushes: AtomicU64,
    /// Disk compactions (and tier moves) queued and not started yet.
    pub queued_compactions: AtomicU64,
}

impl Background {
    /// Starts `threads` workers (at least one) and the in-memory compaction thread.
    pub fn new(threads: usize) -> Arc<Background> {
        let (tx, rx) = mpsc::channel::<Job>();
        let (imc_tx, imc_rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let bg = Arc::new(Background {
            sender: Mutex::new(Some(tx)),
            in_memory: Mutex::new(Some(imc_tx)),
            threads: Mutex::new(Vec::new()),
            failures: AtomicU64::new(0),
            queued_flushes: AtomicU64::new(0),
            queued_compactions: AtomicU64::new(0),
        });
        let lanes = (0..threads.max(1))
            .map(|i| (format!("strata-bg-{i}"), rx.clone()))
            .chain(std::iter::once((
                "strata-imc".to_owned(),
                Arc::new(Mutex::new(imc_rx)),
            )));
        for (name, rx) in lanes {
            let weak = Arc::downgrade(&bg);
            let handle = std::thread::Builder::new()
                .name(name)
                .spawn(move || worker(&rx, &weak))
                .ok();
            if let Some(h) = handle {
                bg.threads.lock().push(h);
            }
        }
        bg
    }

    /// Queues a job (in-memory compactions on their own thread); dropped silently after
    /// [`shutdown`](Background::shutdown).
    pub fn submit(&self, job: Job) {
        let lane = match job {
            Job::CompactInMemory(..) => &self.in_memory,
            _ => &self.sender,
        };
        let queued = match job {
            Job::Flush(_) => Some(&self.queued_flushes),
            Job::Compact(_) | Job::MoveTiers(_) => Some(&self.queued_compactions),
            Job::CompactInMemory(..) => None,
        };
        if let Some(tx) = lane.lock().as_ref() {
            if tx.send(job).is_ok() {
                if let Some(q) = queued {
                    q.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    /// Stops taking jobs, lets queued ones finish, and joins the threads.
    pub fn shutdown(&self) {
        self.sender.lock().take();
        self.in_memory.lock().take();
        let threads = std::mem::take(&mut *self.threads.lock());
        for t in threads {
            let _ = t.join();
        }
    }
}

fn worker(rx: &Mutex<mpsc::Receiver<Job>>, bg: &Weak<Background>) {
    loop {
        let job = match rx.lock().recv() {
            Ok(job) => job,
            Err(_) => return,
        };
        if let Some(bg) = bg.upgrade() {
            let queued = match job {
                Job::Flush(_) => Some(&bg.queued_flushes),
                Job::Compact(_) | Job::MoveTiers(_) => Some(&bg.queued_compactions),
                Job::CompactInMemory(..) => None,
            };
            if let Some(q) = queued {
                let _ = q.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                    Some(n.saturating_sub(1))
                });
            }
        }
        let ok = match job {
            Job::Flush(region) => region.run_requested_flush().is_ok(),
            Job::Compact(region) => region.run_requested_compaction().is_ok(),
            Job::MoveTiers(region) => region.run_requested_tier_moves().is_ok(),
            Job::CompactInMemory(region, family) => {
                region.compact_in_memory(&family);
                true
            }
        };
        if !ok {
            if let Some(bg) = bg.upgrade() {
                bg.failures.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Flushes start once the memtables hold this share of the budget (HBase's
/// `hbase.regionserver.global.memstore.size.lower.limit`, 95% there). Starting them only at
/// the limit made every writer wait for the first flush to free memory: a 140–240 ms stall
/// of all writes in flight each time a YCSB load filled the budget. With the mark, flushes
/// run while writes go on, which wait only if memory grows past the limit regardless.
const FLUSH_MARK_PERCENT: u64 = 90;

/// The memory all memtables of a process may hold: flushes start at [`FLUSH_MARK_PERCENT`] of the
/// limit, writers wait only past the limit itself.
pub struct MemoryBudget {
    limit: u64,
    used: AtomicU64,
    regions: Mutex<Vec<Region>>,
    freed: Condvar,
    freed_lock: Mutex<()>,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget {
            limit,
            used: AtomicU64::new(0),
            regions: Mutex::new(Vec::new()),
            freed: Condvar::new(),
            freed_lock: Mutex::new(()),
        })
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes accounted now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    pub(crate) fn register(&self, region: Region) {
        self.regions.lock().push(region);
    }

    pub(crate) fn unregister(&self, region_id: u64) {
        self.regions
            .lock()
            .retain(|r| r.info().region_id != region_id);
    }

    /// Accounts `bytes` more; true when flushes should be asked for: this addition crossed
    /// the flush mark (the flushes [`relieve`](MemoryBudget::relieve) then asks for cover
    /// down to half the limit, so writes between the mark and the limit need not ask again),
    /// or the budget is past its limit.
    pub(crate) fn add(&self, bytes: u64) -> bool {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        let after = before + bytes;
        let mark = self.flush_mark();
        (before <= mark && after > mark) || after > self.limit
    }

    /// Past this many bytes the largest regions are asked to flush.
    fn flush_mark(&self) -> u64 {
        self.limit / 100 * FLUSH_MARK_PERCENT
    }

    pub(crate) fn release(&self, bytes: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
        let _g = self.freed_lock.lock();
        self.freed.notify_all();
    }

    /// Past the flush mark: asks the largest regions to flush until the requests bring the
    /// budget down to half its limit.
    pub(crate) fn relieve(&self) {
        let used = self.used();
        if used <= self.flush_mark() {
            return;
        }
        let mut regions: Vec<(u64, Region)> = self
            .regions
            .lock()
            .iter()
            .map(|r| (r.memtable_bytes(), r.clone()))
            .collect();
        regions.sort_by_key(|(b, _)| std::cmp::Reverse(*b));
        let mut covered = 0;
        for (bytes, region) in regions {
            if covered >= used - self.limit / 2 || bytes == 0 {
                break;
            }
            region.request_flush();
            covered += bytes;
        }
    }

    /// Waits (at most `timeout`) while the budget is over its limit.
    pub(crate) fn wait_below_limit(&self, timeout: Duration) {
        let deadline = std::time::Instant::now() + timeout;
        let mut g = self.freed_lock.lock();
        while self.used() > self.limit {
            if self.freed.wait_until(&mut g, deadline).timed_out() {
                return;
            }
        }
    }
}
