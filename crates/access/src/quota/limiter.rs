//! One throttle's rate limiter, as HBase's `AverageIntervalRateLimiter`: what may be spent
//! refills continuously at the limit's rate, up to one time unit's worth (a throttle of
//! `100req/sec` lets an idle client send 100 requests at once, then 100 a second).

use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// A continuously refilled allowance.
#[derive(Debug)]
pub struct RateLimiter {
    /// Units per second.
    rate: f64,
    /// The most that may be held (one time unit's worth).
    cap: f64,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// What may be spent now; negative after a charge made after the fact (a read's size).
    available: f64,
    refilled: Instant,
}

impl RateLimiter {
    /// A full limiter of `amount` per `per`.
    pub fn new(amount: u64, per: Duration) -> RateLimiter {
        let cap = amount as f64;
        RateLimiter {
            rate: cap / per.as_secs_f64(),
            cap,
            state: Mutex::new(State {
                available: cap,
                refilled: Instant::now(),
            }),
        }
    }

    fn refill(&self, state: &mut State, now: Instant) {
        let elapsed = now.saturating_duration_since(state.refilled).as_secs_f64();
        state.available = (state.available + elapsed * self.rate).min(self.cap);
        state.refilled = now;
    }

    /// `None` if `amount` may be spent now (nothing is spent); else how long until it may.
    /// An amount of zero asks that nothing be owed (a read whose size is charged later).
    pub fn wait_for(&self, amount: u64, now: Instant) -> Option<Duration> {
        let mut state = self.state.lock();
        self.refill(&mut state, now);
        // An amount larger than the cap can never be held: it waits for a full allowance.
        let wanted = (amount as f64).min(self.cap);
        let owed = if amount == 0 {
            -state.available
        } else {
            wanted - state.available
        };
        if owed <= 0.0 {
            return None;
        }
        Some(Duration::from_secs_f64(owed / self.rate))
    }

    /// Spends `amount` (it may go below zero: the debt is repaid before the next request).
    pub fn spend(&self, amount: u64, now: Instant) {
        if amount == 0 {
            return;
        }
        let mut state = self.state.lock();
        self.refill(&mut state, now);
        state.available -= amount as f64;
    }
}
