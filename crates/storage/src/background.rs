//! Background work shared by the regions of a process: bounded lanes of threads for flushes,
//! disk compactions (at a lower CPU priority) and in-memory compactions, and the global
//! memtable budget.
//!
//! A region asks for a flush when its memtables pass `MEMSTORE_FLUSHSIZE`; the budget asks the
//! largest regions to flush when all memtables together pass its limit, and makes writers wait
//! (bounded) while they stay above it — backpressure instead of running out of memory.
//!
//! Thread safety: everything takes `&self`; jobs run on the pool's threads. A region's flush
//! lock keeps two flushes of one region from overlapping.

use std::collections::HashMap;
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

/// How many steps below the process's CPU priority (a nice increment) disk compactions, tier
/// moves and in-memory compactions run. They rewrite data nobody waits for, while writes and
/// reads wait on the CPU they take: at a lower priority the scheduler lets a request thread
/// preempt them at once (RocksDB's `Env::LowerThreadPoolCPUPriority` lowers its compaction
/// pool to nice 19 the same way). Flushes keep the process's priority: writers wait for them
/// when the memtable budget fills; so do compactions of a store over its blocking file count.
pub const DEFAULT_COMPACTION_NICE: i32 = 19;

/// Worker threads for flushes, for disk compactions and for in-memory compactions, each kind
/// on its own lane: a flush never queues behind a compaction that a throughput limit slows
/// down, and in-memory compactions (short, CPU-only, what keeps memtable pipelines short)
/// queue behind neither.
pub struct Background {
    flushes: Mutex<Option<mpsc::Sender<Job>>>,
    compactions: Mutex<Option<mpsc::Sender<Job>>>,
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
    /// [`Background::with_priority`] at [`DEFAULT_COMPACTION_NICE`].
    pub fn new(threads: usize) -> Arc<Background> {
        Self::with_priority(threads, DEFAULT_COMPACTION_NICE)
    }

    /// Starts `threads` flush workers (at least one) at the process's CPU priority, as many
    /// disk compaction workers and one in-memory compaction thread `compaction_nice` steps
    /// lower (0: the same priority).
    pub fn with_priority(threads: usize, compaction_nice: i32) -> Arc<Background> {
        let (flush_tx, flush_rx) = mpsc::channel::<Job>();
        let (compact_tx, compact_rx) = mpsc::channel::<Job>();
        let (imc_tx, imc_rx) = mpsc::channel::<Job>();
        let bg = Arc::new(Background {
            flushes: Mutex::new(Some(flush_tx)),
            compactions: Mutex::new(Some(compact_tx)),
            in_memory: Mutex::new(Some(imc_tx)),
            threads: Mutex::new(Vec::new()),
            failures: AtomicU64::new(0),
            queued_flushes: AtomicU64::new(0),
            queued_compactions: AtomicU64::new(0),
        });
        let threads = threads.max(1);
        let (flush_rx, compact_rx) = (
            Arc::new(Mutex::new(flush_rx)),
            Arc::new(Mutex::new(compact_rx)),
        );
        let lanes = (0..threads)
            .map(|i| (format!("strata-flush-{i}"), flush_rx.clone(), 0))
            .chain((0..threads).map(|i| {
                (
                    format!("strata-compact-{i}"),
                    compact_rx.clone(),
                    compaction_nice,
                )
            }))
            .chain(std::iter::once((
                "strata-imc".to_owned(),
                Arc::new(Mutex::new(imc_rx)),
                compaction_nice,
            )));
        for (name, rx, nice) in lanes {
            let weak = Arc::downgrade(&bg);
            let handle = std::thread::Builder::new()
                .name(name)
                .spawn(move || {
                    lower_priority(nice);
                    worker(&rx, &weak);
                })
                .ok();
            if let Some(h) = handle {
                bg.threads.lock().push(h);
            }
        }
        bg
    }

    /// Queues a job on its lane (a compaction of a region with a store over its blocking file
    /// count on the flush lane); dropped silently after [`shutdown`](Background::shutdown).
    pub fn submit(&self, job: Job) {
        let (lane, queued) = match &job {
            Job::Flush(_) => (&self.flushes, Some(&self.queued_flushes)),
            // Writers to a store over the blocking file count wait for its compaction: it
            // runs on the flush lane, at the process's priority.
            Job::Compact(region) if region.has_too_many_files() => {
                (&self.flushes, Some(&self.queued_compactions))
            }
            Job::Compact(_) | Job::MoveTiers(_) => {
                (&self.compactions, Some(&self.queued_compactions))
            }
            Job::CompactInMemory(..) => (&self.in_memory, None),
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
        self.flushes.lock().take();
        self.compactions.lock().take();
        self.in_memory.lock().take();
        let threads = std::mem::take(&mut *self.threads.lock());
        for t in threads {
            let _ = t.join();
        }
    }
}

/// Lowers the calling thread's CPU priority by `nice` steps (Linux keeps a nice value per
/// thread; 19 is the lowest). Best effort: where the system refuses, or elsewhere than Linux,
/// the thread keeps the process's priority.
fn lower_priority(nice: i32) {
    if nice <= 0 {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getpriority_process, setpriority_process};
        let tid = Some(rustix::thread::gettid());
        let lowered =
            getpriority_process(tid).and_then(|now| setpriority_process(tid, (now + nice).min(19)));
        if let Err(e) = lowered {
            tracing::debug!(error = %e, "a background thread keeps the process's CPU priority");
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
pub const FLUSH_MARK_PERCENT: u64 = 90;

/// The memory all memtables of a process may hold: flushes start at [`FLUSH_MARK_PERCENT`] of the
/// limit, writers wait only past the limit itself.
///
/// The limit may change while regions write ([`MemoryBudget::set_limit`], the server's memory
/// tuner): a lower limit asks for flushes at once, a higher one wakes waiting writers.
pub struct MemoryBudget {
    limit: AtomicU64,
    used: AtomicU64,
    /// The most bytes accounted since [`MemoryBudget::take_peak`] last asked.
    peak: AtomicU64,
    /// Times the budget asked regions to flush because memtables together passed the flush
    /// mark (HBase's "unblocked" flushes: flushes for memory pressure, not for a region's size).
    pressure_flushes: AtomicU64,
    /// Writes that found the budget over its limit and waited for flushes (HBase's "blocked"
    /// flushes).
    blocked_writes: AtomicU64,
    /// Open regions, by instance (a map: a start or stop of 10,000 regions must not be
    /// quadratic).
    regions: Mutex<HashMap<usize, Region>>,
    freed: Condvar,
    freed_lock: Mutex<()>,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget {
            limit: AtomicU64::new(limit),
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            pressure_flushes: AtomicU64::new(0),
            blocked_writes: AtomicU64::new(0),
            regions: Mutex::new(HashMap::new()),
            freed: Condvar::new(),
            freed_lock: Mutex::new(()),
        })
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::Relaxed)
    }

    /// Changes the limit. Lowered below what the memtables hold past the new flush mark, it
    /// asks the largest regions to flush (writers wait only while memory stays past the new
    /// limit, bounded as ever); raised, it wakes the writers waiting for memory.
    pub fn set_limit(&self, limit: u64) {
        let before = self.limit.swap(limit, Ordering::Relaxed);
        if limit < before {
            // As `relieve`, but not counted as pressure: the caller chose it.
            let used = self.used();
            if used > self.flush_mark() {
                self.flush_largest(used.saturating_sub(limit / 2));
            }
        } else {
            let _g = self.freed_lock.lock();
            self.freed.notify_all();
        }
    }

    /// The most bytes accounted since the previous call (or since the budget was made), and
    /// starts a new watch from the bytes accounted now.
    pub fn take_peak(&self) -> u64 {
        let now = self.used();
        self.peak.swap(now, Ordering::Relaxed).max(now)
    }

    /// Times the budget asked regions to flush for memory pressure, since it was made.
    pub fn pressure_flushes(&self) -> u64 {
        self.pressure_flushes.load(Ordering::Relaxed)
    }

    /// Writes that waited because the budget was over its limit, since it was made.
    pub fn blocked_writes(&self) -> u64 {
        self.blocked_writes.load(Ordering::Relaxed)
    }

    /// Bytes accounted now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    pub(crate) fn register(&self, region: Region) {
        self.regions.lock().insert(region.instance(), region);
    }

    /// Forgets `region`; another opening of its id, if any, stays.
    pub(crate) fn unregister(&self, region: &Region) {
        self.regions.lock().remove(&region.instance());
    }

    /// Accounts `bytes` more; true when flushes should be asked for: this addition crossed
    /// the flush mark (the flushes [`relieve`](MemoryBudget::relieve) then asks for cover
    /// down to half the limit, so writes between the mark and the limit need not ask again),
    /// or the budget is past its limit.
    pub(crate) fn add(&self, bytes: u64) -> bool {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        let after = before + bytes;
        self.peak.fetch_max(after, Ordering::Relaxed);
        let mark = self.flush_mark();
        (before <= mark && after > mark) || after > self.limit()
    }

    /// Past this many bytes the largest regions are asked to flush.
    fn flush_mark(&self) -> u64 {
        self.limit() / 100 * FLUSH_MARK_PERCENT
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
        if self.flush_largest(used.saturating_sub(self.limit() / 2)) {
            self.pressure_flushes.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Asks the largest regions to flush until the requests cover the bytes the memtables
    /// hold above `target` (the memory tuner, before the memtables give memory away). Not a
    /// flush for pressure: the budget's counters do not count it.
    pub fn flush_down_to(&self, target: u64) {
        let over = self.used().saturating_sub(target);
        if over > 0 {
            self.flush_largest(over);
        }
    }

    /// Asks the largest regions to flush until their memtables cover `target` bytes; true
    /// when it asked any.
    fn flush_largest(&self, target: u64) -> bool {
        let mut regions: Vec<(u64, Region)> = self
            .regions
            .lock()
            .values()
            .map(|r| (r.memtable_bytes(), r.clone()))
            .collect();
        regions.sort_by_key(|(b, _)| std::cmp::Reverse(*b));
        let mut covered = 0;
        for (bytes, region) in regions {
            if covered >= target || bytes == 0 {
                break;
            }
            region.request_flush();
            covered += bytes;
        }
        covered > 0
    }

    /// Waits (at most `timeout`) while the budget is over its limit.
    pub(crate) fn wait_below_limit(&self, timeout: Duration) {
        if self.used() > self.limit() {
            self.blocked_writes.fetch_add(1, Ordering::Relaxed);
        }
        let deadline = std::time::Instant::now() + timeout;
        let mut g = self.freed_lock.lock();
        while self.used() > self.limit() {
            if self.freed.wait_until(&mut g, deadline).timed_out() {
                return;
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod priority_tests {
    use rustix::process::getpriority_process;

    use super::*;

    /// The nice value of the calling thread.
    fn nice() -> i32 {
        getpriority_process(Some(rustix::thread::gettid())).expect("getpriority of this thread")
    }

    #[test]
    fn a_lowered_thread_runs_steps_below_its_creator_and_others_are_untouched() {
        let before = nice();
        let lowered = std::thread::spawn(move || {
            lower_priority(3);
            nice()
        })
        .join()
        .expect("thread");
        assert_eq!(lowered, (before + 3).min(19));
        let untouched = std::thread::spawn(|| {
            lower_priority(0);
            nice()
        })
        .join()
        .expect("thread");
        assert_eq!(untouched, before);
        assert_eq!(nice(), before, "only the lowered thread changed");
        let floored = std::thread::spawn(|| {
            lower_priority(100);
            nice()
        })
        .join()
        .expect("thread");
        assert_eq!(floored, 19);
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;

    #[test]
    fn the_peak_is_kept_until_taken_and_the_limit_moves() {
        let budget = MemoryBudget::new(1000);
        assert!(!budget.add(500));
        budget.release(400);
        assert_eq!(budget.take_peak(), 500, "the most held since the start");
        assert_eq!(
            budget.take_peak(),
            100,
            "a new watch starts from what is held"
        );
        budget.set_limit(200);
        assert_eq!(budget.limit(), 200);
        assert!(budget.add(90), "past the new flush mark (180)");
        budget.set_limit(2000);
        assert_eq!(budget.limit(), 2000);
        assert_eq!(
            budget.pressure_flushes(),
            0,
            "no region to flush: no pressure counted"
        );
    }

    #[test]
    fn a_raised_limit_wakes_a_waiting_writer() {
        let budget = MemoryBudget::new(100);
        budget.add(150);
        let waiter = {
            let budget = budget.clone();
            std::thread::spawn(move || {
                let started = std::time::Instant::now();
                budget.wait_below_limit(Duration::from_secs(30));
                started.elapsed()
            })
        };
        while budget.blocked_writes() == 0 {
            std::thread::yield_now();
        }
        budget.set_limit(1000);
        let waited = waiter.join().expect("waiter");
        assert!(waited < Duration::from_secs(30), "woken, not timed out");
        assert_eq!(budget.blocked_writes(), 1);
    }
}
