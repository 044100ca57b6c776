//! Warnings about bad input from clients, for every front end (Strata's framed protocol and
//! gRPC, HBase's RPC, the Thrift gateway), rate-limited per client address and kind of
//! mistake, so a misconfigured client is visible at WARN without flooding the log: the first
//! of a kind from an address is logged, then at most one per [`INTERVAL`], carrying how many
//! were left out meanwhile. One limiter serves the whole process.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use std::sync::Mutex;

use tonic::Status;

use crate::error::code_of;
use crate::pb::ErrorCode;

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
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
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

/// Logs `what` at WARN for `client` of `protocol` (`Strata`, `HBase RPC`, `Thrift`), unless
/// a `kind` line for its address was logged within [`INTERVAL`].
pub fn warn(client: SocketAddr, protocol: &str, kind: &'static str, what: &str) {
    if let Some(suppressed) = limiter().admit(client.ip(), kind, Instant::now()) {
        tracing::warn!(client = %client, kind, suppressed, "bad {protocol} request: {what}");
    }
}

/// The kind of client mistake an error answer means, or `None` for answers that are no
/// mistake of the client's (a moved region, a busy server, a failure of the server's own).
pub fn kind_of(status: &Status) -> Option<&'static str> {
    match code_of(status) {
        ErrorCode::InvalidArgument => Some("invalid request"),
        ErrorCode::NoSuchFamily => Some("unknown family"),
        ErrorCode::TableNotFound => Some("missing table"),
        ErrorCode::NamespaceNotFound => Some("missing namespace"),
        _ => None,
    }
}

/// Logs `status` as [`warn`] does when it answers a mistake of `client` ([`kind_of`]).
pub fn warn_status(client: SocketAddr, protocol: &str, what: &str, status: &Status) {
    if let Some(kind) = kind_of(status) {
        warn(
            client,
            protocol,
            kind,
            &format!("{what}: {}", status.message()),
        );
    }
}

/// Passes a gRPC call's `outcome` through, logging its error as [`warn_status`] does when
/// the call came from a known `client`.
///
/// # Errors
/// `outcome`'s own.
pub fn report<T>(
    client: Option<SocketAddr>,
    protocol: &str,
    what: &str,
    outcome: Result<T, Status>,
) -> Result<T, Status> {
    if let (Some(client), Err(status)) = (client, &outcome) {
        warn_status(client, protocol, what, status);
    }
    outcome
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

    #[test]
    fn client_mistakes_are_told_from_other_answers() {
        use crate::error::status;
        assert_eq!(
            kind_of(&status(ErrorCode::TableNotFound, "t")),
            Some("missing table")
        );
        assert_eq!(
            kind_of(&status(ErrorCode::NoSuchFamily, "f")),
            Some("unknown family")
        );
        assert_eq!(
            kind_of(&status(ErrorCode::InvalidArgument, "x")),
            Some("invalid request")
        );
        assert_eq!(kind_of(&status(ErrorCode::NotServingRegion, "r")), None);
        assert_eq!(kind_of(&status(ErrorCode::Unknown, "bug")), None);
    }
}
