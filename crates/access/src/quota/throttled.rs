//! [`Throttled`]: a request refused by a throttle, worded as HBase's `RpcThrottlingException`
//! so that HBase's Java client reads the wait from the message (it parses
//! `<reason> - wait <time>`, the time as HBase 2.6 writes it: `[Hhrs, ][Mmins, ][Ssec, ]Nms`),
//! and Strata's clients read it the same way ([`wait_of`]).

use std::fmt;
use std::time::Duration;

use super::settings::{Scope, ThrottleType, Unit};

/// A request refused by a throttle, and how long to wait before sending it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Throttled {
    /// The throttle's type that was exceeded.
    pub kind: ThrottleType,
    /// How long until the request would be admitted (at least 10 ms, so that refused
    /// clients do not spin).
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

/// `wait` as HBase 2.6's `RpcThrottlingException.stringFromMillis` writes it:
/// `[H hr(s), ][M min(s), ][S sec, ]N ms` without the spaces (`50ms`, `1sec, 500ms`,
/// `1hr, 2mins, 3sec, 4ms`).
pub fn format_wait(wait: Duration) -> String {
    let ms = wait.as_millis();
    let (hours, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (minutes, rest) = (rest / 60_000, rest % 60_000);
    let (seconds, millis) = (rest / 1000, rest % 1000);
    let mut out = String::new();
    if hours != 0 {
        out.push_str(&format!(
            "{hours}{}",
            if hours > 1 { "hrs, " } else { "hr, " }
        ));
    }
    if minutes != 0 {
        out.push_str(&format!(
            "{minutes}{}",
            if minutes > 1 { "mins, " } else { "min, " }
        ));
    }
    if seconds != 0 {
        out.push_str(&format!("{seconds}sec, "));
    }
    out.push_str(&format!("{millis}ms"));
    out
}

/// The wait a throttling message asks for (`None`: not such a message), as HBase 2.6's
/// `RpcThrottlingException(String)` reads it.
pub fn wait_of(message: &str) -> Option<Duration> {
    let at = message.find(WAIT)? + WAIT.len();
    let mut millis = 0u64;
    let mut any = false;
    for part in message[at..].split(", ") {
        let digits = part.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(n) = part[..digits].parse::<u64>() else {
            break;
        };
        let unit: String = part[digits..]
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        let factor = match unit.as_str() {
            "hr" | "hrs" => 3_600_000,
            "min" | "mins" => 60_000,
            "sec" => 1000,
            "ms" => 1,
            _ => break,
        };
        millis += n * factor;
        any = true;
        if factor == 1 {
            break;
        }
    }
    any.then(|| Duration::from_millis(millis))
}

impl fmt::Display for Throttled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{WAIT}{}", reason(self.kind), format_wait(self.wait))
    }
}

impl std::error::Error for Throttled {}
