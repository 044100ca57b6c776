//! [`Quotas`]: the throttles in force on one server and their limiters. Each server limits
//! what it serves by itself (HBase's default `MACHINE` scope): a throttle of `100req/sec` on
//! a user lets it send 100 requests a second to each region server.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::RwLock;

use super::limiter::RateLimiter;
use super::settings::{Limit, Scope, Subject, Throttle, ThrottleType, Unit};
use super::space_in_force::SpaceStates;
use super::throttled::Throttled;
use crate::scope::split_table;

/// The shortest wait a refusal asks for (refused clients do not spin).
const MIN_WAIT: Duration = Duration::from_millis(10);

/// What one request costs, as it is known before it runs (a read's size is charged after,
/// with [`Quotas::charge_read`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    /// Gets, and scan calls.
    pub reads: u64,
    /// Rows written.
    pub writes: u64,
    /// Bytes written (the request's size).
    pub write_bytes: u64,
}

impl Cost {
    /// One read.
    pub const READ: Cost = Cost {
        reads: 1,
        writes: 0,
        write_bytes: 0,
    };

    /// `rows` written in `bytes`.
    pub fn writes(rows: u64, bytes: u64) -> Cost {
        Cost {
            reads: 0,
            writes: rows,
            write_bytes: bytes,
        }
    }

    /// What a throttle of `kind` counts of this request before it runs (`None`: it does not
    /// apply; `Some(0)`: it applies, and only a debt refuses it).
    fn amount(self, kind: ThrottleType) -> Option<u64> {
        match (kind.scope, kind.unit) {
            (Scope::Request, Unit::Number) => Some(self.reads + self.writes),
            (Scope::Request, Unit::Size) => Some(self.write_bytes),
            (Scope::Write, Unit::Number) => (self.writes > 0).then_some(self.writes),
            (Scope::Write, Unit::Size) => (self.writes > 0).then_some(self.write_bytes),
            (Scope::Read, Unit::Number) => (self.reads > 0).then_some(self.reads),
            (Scope::Read, Unit::Size) => (self.reads > 0).then_some(0),
        }
    }
}

type Limiters = Vec<(ThrottleType, Limit, Arc<RateLimiter>)>;

#[derive(Debug, Default)]
struct InForce {
    throttles: Vec<Throttle>,
    limiters: HashMap<Subject, Limiters>,
}

/// The throttles and space quota states in force on a server.
#[derive(Debug)]
pub struct Quotas {
    /// Throttles are installed and enforced: [`Quotas::admit`]'s one load.
    any: AtomicBool,
    /// Throttles are installed (some may be).
    installed: AtomicBool,
    /// The cluster's RPC throttle switch (HBase's `switchRpcThrottle`): throttles stay
    /// installed and listed while it is off, and refuse nothing.
    enforced: AtomicBool,
    state: RwLock<Arc<InForce>>,
    revision: AtomicI64,
    space: SpaceStates,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            any: AtomicBool::new(false),
            installed: AtomicBool::new(false),
            enforced: AtomicBool::new(true),
            state: RwLock::new(Arc::new(InForce::default())),
            revision: AtomicI64::new(-1),
            space: SpaceStates::default(),
        }
    }
}

impl Quotas {
    /// Puts `throttles`, read at `revision` of the coordination store, in force. A throttle
    /// that did not change keeps its limiter (what its subject spent still counts).
    pub fn install(&self, mut throttles: Vec<Throttle>, revision: i64) {
        throttles.sort_by(|a, b| (&a.subject, a.kind).cmp(&(&b.subject, b.kind)));
        let before = self.state.read().clone();
        let mut limiters: HashMap<Subject, Limiters> = HashMap::new();
        for t in &throttles {
            let kept = before.limiters.get(&t.subject).and_then(|ls| {
                ls.iter()
                    .find(|(k, l, _)| *k == t.kind && *l == t.limit)
                    .map(|(_, _, r)| r.clone())
            });
            let limiter = kept.unwrap_or_else(|| {
                Arc::new(RateLimiter::new(t.limit.amount, t.limit.per.duration()))
            });
            limiters
                .entry(t.subject.clone())
                .or_default()
                .push((t.kind, t.limit, limiter));
        }
        self.installed
            .store(!throttles.is_empty(), Ordering::Release);
        *self.state.write() = Arc::new(InForce {
            throttles,
            limiters,
        });
        self.refresh_any();
        self.revision.store(revision, Ordering::Release);
    }

    /// Turns enforcement of the installed throttles on or off (the RPC throttle switch, read
    /// with the throttles; set before [`Quotas::install`] so that the revision installed
    /// covers both). A throttle keeps its limiter across the switch.
    pub fn set_enforced(&self, on: bool) {
        self.enforced.store(on, Ordering::Release);
        self.refresh_any();
    }

    /// Whether throttles refuse requests (the RPC throttle switch; on unless turned off).
    pub fn enforced(&self) -> bool {
        self.enforced.load(Ordering::Acquire)
    }

    fn refresh_any(&self) {
        let any = self.installed.load(Ordering::Acquire) && self.enforced();
        self.any.store(any, Ordering::Release);
    }

    /// The space quota states in force.
    pub fn space(&self) -> &SpaceStates {
        &self.space
    }

    /// The revision of the throttles in force (-1: none read yet).
    pub fn revision(&self) -> i64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Whether any throttle is in force and enforced (one atomic load: the cost of quotas to
    /// a server that has none, or whose RPC throttle switch is off).
    pub fn any(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    /// The throttles in force, ordered by subject and type.
    pub fn throttles(&self) -> Vec<Throttle> {
        self.state.read().throttles.clone()
    }

    /// The limiters of `user`, of `table` and of its namespace.
    fn applicable(&self, user: &str, table: &str) -> Vec<(ThrottleType, Arc<RateLimiter>)> {
        let state = self.state.read();
        let (ns, t) = split_table(table);
        let subjects = [
            Subject::User(user.to_owned()),
            Subject::Table(format!("{ns}:{t}")),
            Subject::Namespace(ns.to_owned()),
        ];
        subjects
            .iter()
            .filter_map(|s| state.limiters.get(s))
            .flatten()
            .map(|(k, _, r)| (*k, r.clone()))
            .collect()
    }

    /// Admits a request of `user` on `table` costing `cost`, and spends it from every
    /// throttle that applies; or refuses it, spending nothing, with the longest wait among
    /// the throttles it would exceed.
    ///
    /// # Errors
    /// [`Throttled`]: the type exceeded and how long to wait.
    pub fn admit(&self, user: &str, table: &str, cost: Cost) -> Result<(), Throttled> {
        if !self.any() {
            return Ok(());
        }
        let limiters = self.applicable(user, table);
        let now = Instant::now();
        let mut refused: Option<Throttled> = None;
        for (kind, limiter) in &limiters {
            let Some(amount) = cost.amount(*kind) else {
                continue;
            };
            if let Some(wait) = limiter.wait_for(amount, now) {
                if refused.as_ref().is_none_or(|r| r.wait < wait) {
                    refused = Some(Throttled {
                        kind: *kind,
                        wait: wait.max(MIN_WAIT),
                    });
                }
            }
        }
        if let Some(r) = refused {
            return Err(r);
        }
        for (kind, limiter) in &limiters {
            if let Some(amount) = cost.amount(*kind) {
                limiter.spend(amount, now);
            }
        }
        Ok(())
    }

    /// Charges `bytes` read by an admitted request of `user` on `table` to the size throttles
    /// of reads and requests.
    pub fn charge_read(&self, user: &str, table: &str, bytes: u64) {
        if !self.any() || bytes == 0 {
            return;
        }
        let now = Instant::now();
        for (kind, limiter) in self.applicable(user, table) {
            if kind.unit == Unit::Size && kind.scope != Scope::Write {
                limiter.spend(bytes, now);
            }
        }
    }
}
