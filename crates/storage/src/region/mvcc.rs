//! Sequence ids and the MVCC read point.
//!
//! Every row mutation takes the next sequence id before it is logged, and completes after its
//! cells are in the memtable. The read point is the largest id below which every mutation has
//! completed; a reader that takes it sees each row mutation whole or not at all.
//!
//! Thread safety: all methods take `&self`; one short mutex guards the in-flight queue.
//!
//! Waiting: a writer acknowledges only once the read point reaches its own id, so it may wait
//! for an older writer still in flight (one whose WAL batch is behind its own). It spins
//! briefly, then yields a few times, then sleeps on a condition variable that `complete`
//! signals: on a machine with fewer cores than writers a writer that only spun or yielded
//! would take the CPU from the very writer it waits for (priority inversion).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Condvar, Mutex};

/// Busy polls of the read point before yielding (each a `spin_loop` hint, a few ns).
const SPINS: u32 = 256;
/// `yield_now` calls before sleeping.
const YIELDS: u32 = 4;

/// Ids in flight, oldest first, and whether each is complete.
#[derive(Debug)]
struct State {
    /// `(seq, completed)` for every id from the oldest not yet completed to the last handed
    /// out; ids are consecutive, so `seq` is the front's id plus the index.
    in_flight: VecDeque<(u64, bool)>,
    /// The last id handed out.
    last: u64,
    /// Writers sleeping in [`Mvcc::wait_for`].
    sleepers: usize,
}

/// Sequence ids and read point of one region.
#[derive(Debug)]
pub struct Mvcc {
    state: Mutex<State>,
    read_point: AtomicU64,
    advanced: Condvar,
}

impl Mvcc {
    /// Starts after `last_seq` (the largest id already used, e.g. recovered from the WAL).
    pub fn new(last_seq: u64) -> Mvcc {
        Mvcc {
            state: Mutex::new(State {
                in_flight: VecDeque::new(),
                last: last_seq,
                sleepers: 0,
            }),
            read_point: AtomicU64::new(last_seq),
            advanced: Condvar::new(),
        }
    }

    /// Takes the next sequence id; the caller must [`complete`](Mvcc::complete) it.
    pub fn begin(&self) -> u64 {
        let mut s = self.state.lock();
        s.last += 1;
        let seq = s.last;
        s.in_flight.push_back((seq, false));
        seq
    }

    /// Marks `seq` done (applied, or abandoned) and advances the read point.
    pub fn complete(&self, seq: u64) {
        let mut s = self.state.lock();
        let Some(&(front, _)) = s.in_flight.front() else {
            return;
        };
        let Some(slot) = seq
            .checked_sub(front)
            .and_then(|i| s.in_flight.get_mut(i as usize))
        else {
            return;
        };
        slot.1 = true;
        let mut popped = false;
        while s.in_flight.front().is_some_and(|&(_, done)| done) {
            s.in_flight.pop_front();
            popped = true;
        }
        if !popped {
            return;
        }
        let point = match s.in_flight.front() {
            Some(&(oldest, _)) => oldest - 1,
            None => s.last,
        };
        self.read_point.fetch_max(point, Ordering::SeqCst);
        if s.sleepers > 0 {
            self.advanced.notify_all();
        }
    }

    /// Waits until the read point reaches `seq`: a writer calls it after completing, so that
    /// once its write is acknowledged every later read sees it (read-your-writes; HBase's
    /// `completeAndWait`).
    pub fn wait_for(&self, seq: u64) {
        if crate::spin::poll_briefly(SPINS, YIELDS, || self.read_point() >= seq) {
            return;
        }
        let mut s = self.state.lock();
        s.sleepers += 1;
        // `complete` moves the read point under this lock: no wake-up is missed.
        while self.read_point() < seq {
            self.advanced.wait(&mut s);
        }
        s.sleepers -= 1;
    }

    /// Like [`wait_for`](Self::wait_for), but only spins briefly (never yields or sleeps):
    /// returns whether the read point reached `seq`.
    pub fn spin_for(&self, seq: u64) -> bool {
        crate::spin::poll_briefly(SPINS, 0, || self.read_point() >= seq)
    }

    /// What a reader starting now may see.
    pub fn read_point(&self) -> u64 {
        self.read_point.load(Ordering::SeqCst)
    }

    /// The last id handed out.
    pub fn last_seq(&self) -> u64 {
        self.state.lock().last
    }

    /// Waits until every id handed out so far is complete.
    pub fn wait_for_all(&self) {
        self.wait_for(self.last_seq());
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn read_point_waits_for_the_oldest_in_flight() {
        let m = Mvcc::new(10);
        let a = m.begin();
        let b = m.begin();
        assert_eq!((a, b), (11, 12));
        m.complete(b);
        assert_eq!(m.read_point(), 10);
        m.complete(a);
        assert_eq!(m.read_point(), 12);
        m.wait_for(12);
        m.wait_for_all();
    }

    #[test]
    fn completing_an_unknown_or_repeated_id_changes_nothing() {
        let m = Mvcc::new(0);
        let a = m.begin();
        m.complete(a + 5);
        m.complete(a);
        m.complete(a);
        assert_eq!(m.read_point(), a);
        let b = m.begin();
        m.complete(a);
        assert_eq!(m.read_point(), a);
        m.complete(b);
        assert_eq!(m.read_point(), b);
    }

    #[test]
    fn a_sleeping_writer_is_woken_when_an_older_write_completes() {
        let m = Arc::new(Mvcc::new(0));
        let older = m.begin();
        let newer = m.begin();
        m.complete(newer);
        let waiter = {
            let m = Arc::clone(&m);
            std::thread::spawn(move || m.wait_for(newer))
        };
        // Let the waiter get past its spins and yields to sleep.
        while m.state.lock().sleepers == 0 {
            std::thread::yield_now();
        }
        m.complete(older);
        waiter.join().expect("waiter");
        assert_eq!(m.read_point(), newer);
    }

    #[test]
    fn many_writers_each_see_their_own_id_visible() {
        let m = Arc::new(Mvcc::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let m = Arc::clone(&m);
                std::thread::spawn(move || {
                    for _ in 0..2_000 {
                        let seq = m.begin();
                        m.complete(seq);
                        m.wait_for(seq);
                        assert!(m.read_point() >= seq);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("writer");
        }
        assert_eq!(m.read_point(), 16_000);
        assert_eq!(m.last_seq(), 16_000);
    }
}
