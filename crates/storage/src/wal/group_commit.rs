//! Group commit: appenders queue their framed records; one of them, the *leader*, takes the
//! whole queue as a batch and writes it with one append and at most one sync while the others
//! (followers) wait and new appenders fill the next batch. A follower first polls for the
//! batch to finish (a write is one system call, often shorter than a sleep and a wake-up),
//! then sleeps on a condition variable.
//!
//! ```text
//!  appender ─▶ queue.buf (batch n+1 filling) ─┐
//!  appender ─▶                                 ├─ leader takes it ─▶ Writer::write ─▶ finished = n+1
//!  flusher (ASYNC_WAL, after the interval) ───┘                          notify_all ─▶ followers return
//! ```
//!
//! Invariants:
//! - At most one leader at a time (`Queue::leading`); batches are written in id order, so
//!   `Shared::finished` says which batches are finished.
//! - A caller waiting on batch `b` that finds `finished < b` and no leader is in batch
//!   `b == open_batch`, and leads it: every queued record is written by its own batch.
//! - A failed batch's error is kept in `failures` until each of its waiters took a copy.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use parking_lot::{Condvar, MutexGuard};

use super::error::{Error, Result};
use super::log::Shared;
use super::stats::Counters;
use super::writer::Batch;

/// Buffers larger than this are not kept for reuse after a burst.
const MAX_SPARE_CAPACITY: usize = 4 << 20;
/// Polls of `Shared::finished` (each a `spin_loop` hint) before a follower yields.
const POLL_SPINS: u32 = 512;
/// `yield_now` calls before a follower sleeps on the batch's condition variable.
const POLL_YIELDS: u32 = 2;

/// What an appender needs before it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// Nothing: the flusher or the next writer writes the records (`ASYNC_WAL`).
    Buffered,
    /// The records reached the OS (`SYNC_WAL`).
    Written,
    /// The records are fsync'd (`FSYNC_WAL`).
    Synced,
}

/// The batch being filled and the state of the one being written. Guarded by
/// `Shared::queue`.
#[derive(Debug, Default)]
pub(crate) struct Queue {
    /// The open batch: framed records, their (region, seq), their count.
    buf: Vec<u8>,
    regions: Vec<(u64, u64)>,
    entries: u64,
    sync: bool,
    waiters: usize,
    /// Id of the open batch (the first is 1).
    open_batch: u64,
    /// A leader is writing a batch.
    leading: bool,
    /// Failed batch id → (its error, waiters yet to take it).
    failures: HashMap<u64, (Error, usize)>,
    /// When the oldest `ASYNC_WAL` record of the open batch was queued.
    pub oldest_async: Option<Instant>,
    /// No more appends are accepted.
    pub closed: bool,
    /// The flusher thread should exit.
    pub shutdown: bool,
    /// An emptied buffer kept to be the next `buf`.
    spare: Vec<u8>,
}

impl Queue {
    /// An empty queue whose first batch is 1.
    pub fn new() -> Queue {
        Queue {
            open_batch: 1,
            ..Queue::default()
        }
    }

    fn take_batch(&mut self) -> Batch {
        let buf = std::mem::replace(&mut self.buf, std::mem::take(&mut self.spare));
        let batch = Batch {
            id: self.open_batch,
            buf,
            regions: std::mem::take(&mut self.regions),
            entries: std::mem::take(&mut self.entries),
            sync: std::mem::take(&mut self.sync),
            waiters: std::mem::take(&mut self.waiters),
        };
        self.open_batch += 1;
        self.oldest_async = None;
        self.leading = true;
        batch
    }
}

impl Shared {
    /// Queues framed `records` holding `regions.len()` entries and returns once `need` is met.
    ///
    /// # Errors
    /// [`Error::Closed`] after close; the batch's error if the batch holding the records
    /// failed (the records are then not in the log).
    pub(crate) fn submit(&self, records: &[u8], regions: &[(u64, u64)], need: Need) -> Result<()> {
        let q = self.queue.lock();
        if q.closed {
            return Err(Error::Closed);
        }
        self.submit_locked(q, records, regions, need)
    }

    /// [`submit`](Self::submit) with the queue locked and open.
    fn submit_locked(
        &self,
        mut q: MutexGuard<'_, Queue>,
        records: &[u8],
        regions: &[(u64, u64)],
        need: Need,
    ) -> Result<()> {
        q.buf.extend_from_slice(records);
        q.regions.extend_from_slice(regions);
        q.entries += regions.len() as u64;
        Counters::add(&self.counters.appends, regions.len() as u64);
        match need {
            Need::Buffered if q.buf.len() < self.options.async_buffer_limit => {
                if q.oldest_async.is_none() {
                    q.oldest_async = Some(Instant::now());
                    self.flusher_wake.notify_one();
                }
                return Ok(());
            }
            Need::Synced => q.sync = true,
            Need::Buffered | Need::Written => {}
        }
        self.wait_open_batch(&mut q)
    }

    /// Like [`submit`](Self::submit) with `need` other than [`Need::Synced`], but never
    /// waits for another thread: the records are queued and written by this caller at once,
    /// with whatever else is queued, when no batch is being written, none asks for a sync and
    /// the write is one quick append (see `Writer::is_quick`). `None`: nothing was queued.
    ///
    /// # Errors
    /// As [`submit`](Self::submit).
    pub(crate) fn try_submit_now(
        &self,
        records: &[u8],
        regions: &[(u64, u64)],
        need: Need,
    ) -> Option<Result<()>> {
        let q = self.queue.lock();
        if q.closed {
            return Some(Err(Error::Closed));
        }
        let buffered =
            need == Need::Buffered && q.buf.len() + records.len() < self.options.async_buffer_limit;
        if !buffered
            && (need == Need::Synced || q.leading || q.sync || !self.writer.lock().is_quick())
        {
            return None;
        }
        Some(self.submit_locked(q, records, regions, need))
    }

    /// Writes everything queued so far, fsync'd if `sync`, and waits for it.
    ///
    /// # Errors
    /// The error of the batch that carried the queued records.
    pub(crate) fn flush(&self, q: &mut MutexGuard<'_, Queue>, sync: bool) -> Result<()> {
        q.sync |= sync;
        self.wait_open_batch(q)
    }

    /// The flusher thread: writes `ASYNC_WAL` records once the oldest has waited the flush
    /// interval, until shutdown.
    pub(crate) fn run_flusher(&self) {
        let mut q = self.queue.lock();
        while !q.shutdown {
            match q.oldest_async {
                None => self.flusher_wake.wait(&mut q),
                Some(since) => {
                    let due = since + self.options.async_flush_interval;
                    if Instant::now() < due {
                        self.flusher_wake.wait_until(&mut q, due);
                    } else {
                        // Failures are counted in the stats; nobody waits for async records.
                        let _ = self.flush(&mut q, false);
                    }
                }
            }
        }
    }

    /// Registers as a waiter of the open batch and waits until it is finished, leading it if
    /// no one else writes.
    fn wait_open_batch(&self, q: &mut MutexGuard<'_, Queue>) -> Result<()> {
        q.waiters += 1;
        let batch = q.open_batch;
        let mut may_poll = true;
        loop {
            if self.finished.load(Ordering::Acquire) >= batch {
                return take_result(q, batch);
            }
            if !q.leading {
                return self.lead(q);
            }
            // The lock is released while polling: what happened meanwhile is checked again
            // above before sleeping, so no wake-up is missed. A poll that saw a batch finish
            // may be followed by another (a leader may be writing this batch by now).
            if may_poll {
                may_poll = self.poll_finished(q);
            } else {
                self.batch_done(batch).wait(q);
            }
        }
    }

    /// A follower's short wait, without the lock, for the batch being written to finish:
    /// the write is one system call, so sleeping on the condition variable (and being woken,
    /// tens of µs on a busy machine) usually costs more than the write. Returns whether the
    /// leader finished; `false` after [`POLL_SPINS`] and [`POLL_YIELDS`] without it.
    fn poll_finished(&self, q: &mut MutexGuard<'_, Queue>) -> bool {
        let writing = self.finished.load(Ordering::Acquire);
        MutexGuard::unlocked(q, || {
            crate::spin::poll_briefly(POLL_SPINS, POLL_YIELDS, || {
                self.finished.load(Ordering::Acquire) != writing
            })
        })
    }

    /// Takes the open batch, writes it with the queue unlocked, publishes the outcome.
    fn lead(&self, q: &mut MutexGuard<'_, Queue>) -> Result<()> {
        let mut batch = q.take_batch();
        let outcome = MutexGuard::unlocked(q, || {
            self.writer
                .lock()
                .write(&batch, &self.segments, &self.counters)
        });
        q.leading = false;
        // Published under the queue lock: a waiter checks it, then sleeps, with the lock held.
        self.finished.store(batch.id, Ordering::Release);
        if batch.buf.capacity() <= MAX_SPARE_CAPACITY {
            batch.buf.clear();
            q.spare = std::mem::take(&mut batch.buf);
        }
        let result = match outcome {
            Ok(rolled) => Ok(rolled),
            Err(e) => {
                crate::events::wal_failed(&e);
                Counters::add(&self.counters.failed_batches, 1);
                Counters::add(&self.counters.failed_entries, batch.entries);
                if batch.waiters > 1 {
                    q.failures.insert(batch.id, (e.clone(), batch.waiters - 1));
                }
                Err(e)
            }
        };
        // Release this batch's followers, and wake one waiter of the next batch to lead it.
        self.batch_done(batch.id).notify_all();
        self.batch_done(batch.id + 1).notify_one();
        if matches!(result, Ok(true)) {
            // Deleting files is not the followers' business: they are released first. A
            // failure leaves the segment for the next attempt.
            if let Err(e) = MutexGuard::unlocked(q, || self.delete_obsolete()) {
                crate::events::wal_failed(&e);
            }
        }
        result.map(|_| ())
    }

    /// The condition variable the waiters of `batch` wait on. Batches alternate between two,
    /// so finishing a batch wakes its own waiters, not those of the batch filling behind it.
    fn batch_done(&self, batch: u64) -> &Condvar {
        &self.batch_done[(batch % 2) as usize]
    }
}

/// A follower's outcome for finished batch `batch`.
fn take_result(q: &mut Queue, batch: u64) -> Result<()> {
    let Some((error, left)) = q.failures.get_mut(&batch) else {
        return Ok(());
    };
    let error = error.clone();
    *left -= 1;
    if *left == 0 {
        q.failures.remove(&batch);
    }
    Err(error)
}
