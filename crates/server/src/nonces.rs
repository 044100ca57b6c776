//! Nonces of client operations (HBase's `ServerNonceManager`; RFC 0032): an increment or
//! append sent again with the nonce of one this server applied is not applied twice.
//!
//! ```text
//! start(nonce) ──unknown──▶ Running ──succeeded──▶ Done (kept for the grace period)
//!      │                       └──failed/dropped──▶ forgotten (the retry runs)
//!      ├──Running──▶ waits for it to end, then as above
//!      └──Done─────▶ Start::Done: the caller answers without applying
//! region opened after a crash ──replayed entry's nonce──▶ Done
//! ```
//!
//! # Invariants
//! 1. At most one operation with a given nonce runs at a time on this server: a second one
//!    waits for the first to end ([`Nonces::start`]).
//! 2. A nonce whose operation succeeded is remembered for the grace period after it ended
//!    (HBase: `hbase.server.hashNonce.gracePeriod`, 30 minutes); one whose operation failed is
//!    forgotten at once, so the client's next attempt runs.
//! 3. A nonce found in a replayed WAL entry counts as succeeded, unless it was logged more than
//!    1.5 grace periods ago (as HBase's `reportOperationFromWal`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use strata_storage::wal::Nonce;

/// How long a succeeded operation's nonce is kept (HBase's default).
pub const GRACE: Duration = Duration::from_secs(30 * 60);

/// The nonces of the operations this server runs and ran.
///
/// Thread safety: shared by every request thread; one lock, held for map operations only.
pub struct Nonces {
    ops: Mutex<Ops>,
    ended: Condvar,
    grace: Duration,
}

struct Ops {
    by_nonce: HashMap<Nonce, State>,
    last_sweep: Instant,
}

#[derive(Clone, Copy)]
enum State {
    Running,
    Done(Instant),
}

/// What [`Nonces::start`] decided.
pub enum Start<'a> {
    /// No operation with this nonce succeeded here: run it, then say how it went.
    Run(Running<'a>),
    /// An operation with this nonce succeeded here: do not apply it again.
    Done,
}

/// An operation started with its nonce. Dropped without [`Running::succeeded`], it failed:
/// its nonce is forgotten and a waiting attempt runs.
pub struct Running<'a> {
    nonces: &'a Nonces,
    nonce: Nonce,
    ended: bool,
}

impl Running<'_> {
    /// The operation was applied: its nonce is done.
    pub fn succeeded(mut self) {
        self.ended = true;
        self.nonces.end(self.nonce, true);
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if !self.ended {
            self.nonces.end(self.nonce, false);
        }
    }
}

impl Default for Nonces {
    fn default() -> Nonces {
        Nonces::new(GRACE)
    }
}

impl Nonces {
    /// Nonces kept for `grace` after their operations succeeded.
    pub fn new(grace: Duration) -> Nonces {
        Nonces {
            ops: Mutex::new(Ops {
                by_nonce: HashMap::new(),
                last_sweep: Instant::now(),
            }),
            ended: Condvar::new(),
            grace,
        }
    }

    /// Starts the operation with `nonce` unless one with it succeeded here; waits up to
    /// `wait` for one with it that is running to end.
    ///
    /// # Errors
    /// One with the same nonce is still running after `wait` (the caller answers with a
    /// retryable error: the client sends it again later).
    pub fn start(&self, nonce: Nonce, wait: Duration) -> Result<Start<'_>, String> {
        let deadline = Instant::now() + wait;
        let mut ops = self.ops.lock();
        self.sweep(&mut ops);
        loop {
            match ops.by_nonce.get(&nonce) {
                None => {
                    ops.by_nonce.insert(nonce, State::Running);
                    return Ok(Start::Run(Running {
                        nonces: self,
                        nonce,
                        ended: false,
                    }));
                }
                Some(State::Done(_)) => return Ok(Start::Done),
                Some(State::Running) => {
                    if self.ended.wait_until(&mut ops, deadline).timed_out()
                        && matches!(ops.by_nonce.get(&nonce), Some(State::Running))
                    {
                        return Err(format!(
                            "an operation with nonce {}:{} is still running here after {} ms",
                            nonce.group,
                            nonce.nonce,
                            wait.as_millis()
                        ));
                    }
                }
            }
        }
    }

    /// Records that a replayed WAL entry, logged at `logged_ms` (ms since the epoch; `now_ms`
    /// is now), applied the operation with `nonce`.
    pub fn report_from_wal(&self, nonce: Nonce, logged_ms: i64, now_ms: i64) {
        let age =
            Duration::from_millis(u64::try_from(now_ms.saturating_sub(logged_ms)).unwrap_or(0));
        if age > self.grace.mul_f64(1.5) {
            return;
        }
        let mut ops = self.ops.lock();
        // Kept for the grace period from its logging, as far as this process's clock can say.
        let done = Instant::now().checked_sub(age).unwrap_or_else(Instant::now);
        ops.by_nonce.entry(nonce).or_insert(State::Done(done));
    }

    /// Nonces known here (running or done), for `/metrics`.
    pub fn len(&self) -> usize {
        self.ops.lock().by_nonce.len()
    }

    /// True when no nonce is known here.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn end(&self, nonce: Nonce, success: bool) {
        let mut ops = self.ops.lock();
        if success {
            ops.by_nonce.insert(nonce, State::Done(Instant::now()));
        } else {
            ops.by_nonce.remove(&nonce);
        }
        drop(ops);
        self.ended.notify_all();
    }

    /// Forgets the nonces done longer than the grace period ago; at most every fifth of it
    /// (HBase's cleanup chore runs as often).
    fn sweep(&self, ops: &mut Ops) {
        let now = Instant::now();
        if now.duration_since(ops.last_sweep) < self.grace / 5 {
            return;
        }
        ops.last_sweep = now;
        let grace = self.grace;
        ops.by_nonce.retain(|_, state| match state {
            State::Running => true,
            State::Done(at) => now.duration_since(*at) < grace,
        });
    }
}

#[cfg(test)]
mod tests;
