//! Warnings about bad input from clients, rate-limited per client address and kind of
//! mistake, so a misconfigured client is visible at WARN without flooding the log: the first
//! of a kind from an address is logged, then at most one per [`INTERVAL`], carrying how many
//! were left out meanwhile.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// At most one line per client address and kind in this interval.
pub const INTERVAL: Duration = Duration::from_secs(10);

/// Past this many (address, kind) pairs the record starts over (a scan of the port from many
/// addresses must not grow it without bound).
const MAX_KEYS: usize = 4096;

/// A client address and a kind of mistake.
type Key = (IpAddr, &'static str);

/// When each (address, kind) was last logged and how many were left out since.
#[derive(Default)]
pub struct Limiter {
    last: Mutex<HashMap<Key, (Instant, u64)>>,
}

impl Limiter {
    /// Whether to log a `kind` mistake of `client` now; `Some(n)` with the number left out
    /// since the last line.
    pub fn admit(&self, client: IpAddr, kind: &'static str, now: Instant) -> Option<u64> {
        let mut last = self.last.lock();
        if last.len() >= MAX_KEYS && !last.contains_key(&(client, kind)) {
            last.clear();
        }
        match last.get_mut(&(client, kind)) {
            Some((at, skipped)) if now.saturating_duration_since(*at) < INTERVAL => {
                *skipped += 1;
                None
            }
            Some((at, skipped)) => {
                let n = *skipped;
                *at = now;
                *skipped = 0;
                Some(n)
            }
            None => {
                last.insert((client, kind), (now, 0));
                Some(0)
            }
        }
    }
}

/// The process's limiter.
fn limiter() -> &'static Limiter {
    static LIMITER: std::sync::OnceLock<Limiter> = std::sync::OnceLock::new();
    LIMITER.get_or_init(Limiter::default)
}

/// Logs `what` at WARN for `client`, unless a `kind` line for its address was logged within
/// [`INTERVAL`].
pub fn warn(client: SocketAddr, kind: &'static str, what: &str) {
    if let Some(suppressed) = limiter().admit(client.ip(), kind, Instant::now()) {
        tracing::warn!(client = %client, kind, suppressed, "bad Thrift request: {what}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_address_and_kind_per_interval_counting_the_rest() {
        let l = Limiter::default();
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        assert_eq!(l.admit(a, "malformed", t0), Some(0));
        assert_eq!(l.admit(a, "malformed", t0 + Duration::from_secs(1)), None);
        assert_eq!(l.admit(a, "malformed", t0 + Duration::from_secs(2)), None);
        assert_eq!(l.admit(a, "compact", t0), Some(0), "another kind");
        assert_eq!(l.admit(b, "malformed", t0), Some(0), "another address");
        assert_eq!(l.admit(a, "malformed", t0 + INTERVAL), Some(2));
        assert_eq!(l.admit(a, "malformed", t0 + INTERVAL), None);
    }
}
