//! A lease kept alive by its holder, with the **self-fencing deadline**: the holder may act on
//! what the lease protects (serve a region, accept a write) only while `now < deadline`, where
//! `deadline = t_sent + TTL − margin` for the last renewal that was answered (`t_sent` read
//! before sending it). etcd expires a lease no earlier than TTL after it *received* the last
//! renewal, and `t_sent` precedes that, so the holder always stops before the lease can expire
//! and before anyone may take over (given clocks whose rates differ by less than the margin).
//!
//! Times are milliseconds of the caller's monotonic clock.

use crate::kv::{Kv, KvResult, LeaseId};

/// Milliseconds of a monotonic clock.
pub type Millis = u64;

/// Whether the lease still protects its holder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseStatus {
    /// Valid until the deadline.
    Held,
    /// Expired or deadline passed: stop acting on it, never resume with this lease.
    Lost,
}

/// A held lease and its deadline.
#[derive(Debug, Clone)]
pub struct LeaseKeeper {
    id: LeaseId,
    ttl_ms: Millis,
    margin_ms: Millis,
    deadline: Millis,
    next_renewal: Millis,
    lost: bool,
}

impl LeaseKeeper {
    /// Grants a lease of `ttl_secs` at time `now`; the deadline starts at `now + TTL − margin`.
    ///
    /// Requires: `margin_ms` smaller than the TTL granted.
    ///
    /// # Errors
    /// The store is unavailable.
    pub fn grant<K: Kv + ?Sized>(
        kv: &K,
        ttl_secs: i64,
        margin_ms: Millis,
        now: Millis,
    ) -> KvResult<LeaseKeeper> {
        let (id, ttl) = kv.grant(ttl_secs)?;
        let ttl_ms = u64::try_from(ttl).unwrap_or(0) * 1000;
        Ok(LeaseKeeper {
            id,
            ttl_ms,
            margin_ms,
            deadline: (now + ttl_ms).saturating_sub(margin_ms),
            next_renewal: now + ttl_ms / 3,
            lost: false,
        })
    }

    /// The lease id.
    pub fn id(&self) -> LeaseId {
        self.id
    }

    /// The self-fencing deadline.
    pub fn deadline(&self) -> Millis {
        self.deadline
    }

    /// Whether the holder may act at `now`.
    pub fn valid(&self, now: Millis) -> bool {
        !self.lost && now < self.deadline
    }

    /// Renews the lease if a renewal is due (every TTL/3); reports `Lost` once the deadline has
    /// passed or the store says the lease is gone. A failed renewal is retried at the next call.
    pub fn tick<K: Kv + ?Sized>(&mut self, kv: &K, now: Millis) -> LeaseStatus {
        if !self.valid(now) {
            self.lost = true;
            return LeaseStatus::Lost;
        }
        if now >= self.next_renewal {
            let sent = now;
            match kv.keep_alive(self.id) {
                Ok(Some(ttl)) => {
                    self.ttl_ms = u64::try_from(ttl).unwrap_or(0) * 1000;
                    self.deadline = self
                        .deadline
                        .max((sent + self.ttl_ms).saturating_sub(self.margin_ms));
                    self.next_renewal = sent + self.ttl_ms / 3;
                }
                Ok(None) => {
                    self.lost = true;
                    return LeaseStatus::Lost;
                }
                Err(_) => {}
            }
        }
        LeaseStatus::Held
    }
}
