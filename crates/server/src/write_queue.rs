//! Single-row writes gathered into mini-batches (docs/rfcs/0013-request-path.md, "Writes").
//!
//! A row mutation that arrives while its region is busy writing does not take a blocking
//! thread of its own: it waits in the region's queue, and a *drainer* (a task on the blocking
//! pool) takes every queued row, up to [`TAKE_MAX`], and applies them with one
//! `HostedRegion::batch` (one WAL entry, one sequence id, one MVCC wait per mini-batch), then
//! answers each row through its own channel. Under load, N concurrent puts to a region cost one
//! blocking-pool hand-off and one WAL group-commit submit instead of N; alone, a put costs what
//! it did (one hand-off).
//!
//! Invariants:
//! - At most [`DRAINERS_MAX`] drainers per region: while one waits for the WAL, another
//!   gathers the next mini-batch; more would only split the queue into smaller batches.
//! - A queued row is taken by a drainer: a row is pushed and a drainer started (if fewer than
//!   the most run) under the queue's lock, and a drainer exits only after finding the queue
//!   empty under that lock.
//! - Each region has its own queue, so a region slowed by backpressure (memtable budget,
//!   too many store files) delays only its own writes.
//! - Rows of one queue are applied in arrival order within a mini-batch; rows handed to two
//!   drainers are concurrent writes, ordered by their row locks as any two requests are.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_model::ops::RowMutations;
use strata_storage::region::MutationResult;
use strata_storage::Result;
use tokio::sync::oneshot;

use crate::host::HostedRegion;

/// The most rows a drainer applies as one batch.
pub const TAKE_MAX: usize = 1_000;
/// The most drainers working on one region's queue at once.
pub const DRAINERS_MAX: usize = 2;

/// A row's outcome, sent back to the request that queued it.
type Reply = oneshot::Sender<Result<MutationResult>>;

/// The write queues of one region server, one per region with writes in flight.
#[derive(Default)]
pub struct WriteQueues {
    queues: Mutex<HashMap<u64, Arc<Queue>>>,
}

struct Queue {
    region_id: u64,
    state: Mutex<State>,
}

struct State {
    /// The region the queued rows go to.
    hosted: HostedRegion,
    rows: VecDeque<(RowMutations, Reply)>,
    drainers: usize,
}

impl WriteQueues {
    /// Applies `rm` to `hosted` through its region's queue; resolves with its outcome. An
    /// `Err` of the receiver means the drainer died (a panic) before answering.
    pub fn submit(
        self: &Arc<Self>,
        hosted: HostedRegion,
        rm: RowMutations,
    ) -> oneshot::Receiver<Result<MutationResult>> {
        let (tx, rx) = oneshot::channel();
        let region_id = hosted.region.info().region_id;
        let queue = {
            let mut queues = self.queues.lock();
            queues
                .entry(region_id)
                .or_insert_with(|| {
                    Arc::new(Queue {
                        region_id,
                        state: Mutex::new(State {
                            hosted: hosted.clone(),
                            rows: VecDeque::new(),
                            drainers: 0,
                        }),
                    })
                })
                .clone()
        };
        let start = {
            let mut state = queue.state.lock();
            if state.drainers == 0 {
                // The region may have been reopened under the same id since the queue was
                // made: the newest handle serves.
                state.hosted = hosted;
            }
            state.rows.push_back((rm, tx));
            let start = state.drainers < DRAINERS_MAX;
            if start {
                state.drainers += 1;
            }
            start
        };
        if start {
            let queues = self.clone();
            tokio::task::spawn_blocking(move || queues.drain(&queue));
        }
        rx
    }

    /// Applies queued rows until the queue is empty, then forgets the queue if no one else
    /// uses it.
    fn drain(&self, queue: &Arc<Queue>) {
        loop {
            let (hosted, taken) = {
                let mut state = queue.state.lock();
                if state.rows.is_empty() {
                    state.drainers -= 1;
                    break;
                }
                let n = state.rows.len().min(TAKE_MAX);
                let taken: Vec<(RowMutations, Reply)> = state.rows.drain(..n).collect();
                (state.hosted.clone(), taken)
            };
            let (rows, replies): (Vec<RowMutations>, Vec<Reply>) = taken.into_iter().unzip();
            for (result, reply) in hosted.batch(&rows).into_iter().zip(replies) {
                // The request may have gone (its connection closed): nothing to answer.
                let _ = reply.send(result);
            }
        }
        let mut queues = self.queues.lock();
        let idle = {
            let state = queue.state.lock();
            state.drainers == 0 && state.rows.is_empty()
        };
        if idle
            && queues
                .get(&queue.region_id)
                .is_some_and(|q| Arc::ptr_eq(q, queue))
        {
            queues.remove(&queue.region_id);
        }
    }

    /// Regions with a queue now (for tests and status).
    pub fn len(&self) -> usize {
        self.queues.lock().len()
    }

    /// True when no region has a queue.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
