//! [`Throttled`]: a request refused by a throttle, worded as HBase's `RpcThrottlingException`
//! so that HBase's Java client reads the wait from the message (it parses
//! `<reason> - wait <time>`, the time as Hadoop's `StringUtils.formatTime` writes it:
//! `[Hhrs, ][Mmins, ]S.SSsec`), and Strata's clients read it the same way ([`wait_of`]).

use std::fmt;
use std::time::Duration;

use super::settings::{Scope, ThrottleType, Unit};

/// A request refused by a throttle, and how long to wait before sending it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Throttled {
    /// The throttle's type that was exceeded.
    pub kind: ThrottleType,
    /// How long until the request would be admitted (at least 10 ms: the message's
    /// resolution).
    pub wait: Duration,
}

/// HBase's `RpcThrottlingException` class name.
pub const HBASE_CLASS: &str = "org.apache.hadoop.hbase.quotas.RpcThrottlingException";

const WAIT: &str = " - wait ";

/// HBase's reason for an exceeded throttle type (`RpcThrottlingException.MSG_TYPE`).
fn reason(kind: ThrottleType) -> &'static str {
    match (kind.scope, kind.unit) {
        (Scope::Request, Unit::Number) => "number of requests exceeded",
        (Scope::Request, Unit::Size) => "request size limit exceeded",
        (Scope::Read, Unit::Number) => "number of read requests exceeded",
        (Scope::Write, Unit::Number) => "number of write requests exceeded",
        (Scope::Write, Unit::Size) => "write size limit exceeded",
        (Scope::Read, Unit::Size) => "read size limit exceeded",
    }
}

/// `wait` as Hadoop's `StringUtils.formatTime` writes it, rounded up to the hundredth of a
/// second: `0.25sec`, `1mins, 0.50sec`, `2hrs, 0mins, 1.00sec`.
pub fn format_wait(wait: Duration) -> String {
    let hundredths = wait.as_millis().div_ceil(10);
    let (hours, rest) = (hundredths / 360_000, hundredths % 360_000);
    let (minutes, rest) = (rest / 6_000, rest % 6_000);
    let seconds = format!("{}.{:02}sec", rest / 100, rest % 100);
    match (hours, minutes) {
        (0, 0) => seconds,
        (0, m) => format!("{m}mins, {seconds}"),
        (h, m) => format!("{h}hrs, {m}mins, {seconds}"),
    }
}

/// The wait a throttling message asks for (`None`: not such a message), as HBase's
/// `RpcThrottlingException(String)` reads it.
pub fn wait_of(message: &str) -> Option<Duration> {
    let at = message.find(WAIT)? + WAIT.len();
    let text = message[at..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut millis = 0u64;
    for part in text.split(", ") {
        if let Some(h) = part.strip_suffix("hrs") {
            millis += h.parse::<u64>().ok()? * 3_600_000;
        } else if let Some(m) = part.strip_suffix("mins") {
            millis += m.parse::<u64>().ok()? * 60_000;
        } else {
            let s = part.split("sec").next()?;
            let secs: f64 = s.parse().ok()?;
            millis += (secs * 1000.0).round() as u64;
            return Some(Duration::from_millis(millis));
        }
    }
    None
}

impl fmt::Display for Throttled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{WAIT}{}", reason(self.kind), format_wait(self.wait))
    }
}

impl std::error::Error for Throttled {}
