//! Whether a connection serves one sequential caller on an otherwise quiet process: the case
//! where polling for its next bytes pays (docs/rfcs/0013-request-path.md, Decision 25).
//!
//! A lone caller waits for each answer before it sends the next request, so between two
//! requests its connection is idle for one round trip and nothing else in the process needs
//! the core; polling saves the wake-up at each end. Where requests overlap (several callers
//! share the connection) or several connections take turns, the next request is already on
//! its way or other work is waiting: a poll only takes CPU from it (Decision 12's YCSB
//! figures). [`Solo`] tells the two apart from what each connection already sees: whether a
//! request arrived while another was in flight, and which connection took the last request.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Requests in a row without overlap after one that overlapped, before a connection counts
/// as serving one sequential caller again.
pub const QUIET_REQUESTS: u32 = 64;

/// How long after two connections last took turns before either counts as alone.
pub const QUIET_FOR: Duration = Duration::from_millis(1);

/// The connection that took the last request in this process (0: none yet).
static LAST: AtomicU64 = AtomicU64::new(0);
/// When a request last came on a different connection than the one before it, in
/// microseconds since [`now_micros`]'s epoch (0: never).
static MIXED_AT: AtomicU64 = AtomicU64::new(0);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Microseconds since the first call in this process.
pub(crate) fn now_micros() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// One connection's view of whether it serves a lone sequential caller.
#[derive(Debug)]
pub struct Solo {
    id: u64,
    /// Requests left before an overlap is forgotten.
    overlapped: AtomicU32,
}

impl Default for Solo {
    fn default() -> Solo {
        Solo::new()
    }
}

impl Solo {
    /// A connection that has seen no request yet.
    pub fn new() -> Solo {
        Solo {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            overlapped: AtomicU32::new(0),
        }
    }

    /// Records a request (a call, on a client's connection); `overlapping`: another one was
    /// in flight on this connection when it came.
    pub fn request(&self, overlapping: bool) {
        if overlapping {
            self.overlapped.store(QUIET_REQUESTS, Ordering::Relaxed);
        } else {
            let left = self.overlapped.load(Ordering::Relaxed);
            if left > 0 {
                self.overlapped.store(left - 1, Ordering::Relaxed);
            }
        }
        // Only a change of connection writes the shared words.
        if LAST.load(Ordering::Relaxed) != self.id {
            let before = LAST.swap(self.id, Ordering::Relaxed);
            if before != 0 && before != self.id {
                MIXED_AT.store(now_micros().max(1), Ordering::Relaxed);
            }
        }
    }

    /// Whether this connection's recent requests came one at a time, and no other
    /// connection of the process took one for [`QUIET_FOR`].
    pub fn alone(&self) -> bool {
        if self.overlapped.load(Ordering::Relaxed) > 0 || LAST.load(Ordering::Relaxed) != self.id {
            return false;
        }
        let mixed = MIXED_AT.load(Ordering::Relaxed);
        let quiet = u64::try_from(QUIET_FOR.as_micros()).unwrap_or(u64::MAX);
        mixed == 0 || now_micros().saturating_sub(mixed) >= quiet
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    // The process-wide words are shared by every test of this crate: the tests below run
    // their steps under one lock and start from a connection of their own.
    pub(crate) static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

    pub(crate) fn wait_quiet() {
        std::thread::sleep(QUIET_FOR + Duration::from_millis(1));
    }

    #[test]
    fn a_sequential_connection_is_alone_and_an_overlap_takes_its_requests_to_forget() {
        let _serial = SERIAL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let solo = Solo::new();
        assert!(!solo.alone(), "no request yet");
        solo.request(false);
        wait_quiet();
        assert!(solo.alone());
        solo.request(true);
        assert!(!solo.alone());
        for _ in 1..QUIET_REQUESTS {
            solo.request(false);
        }
        assert!(!solo.alone(), "one request short");
        solo.request(false);
        assert!(solo.alone());
    }

    #[test]
    fn connections_taking_turns_are_not_alone_until_one_has_been_quiet() {
        let _serial = SERIAL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let a = Solo::new();
        let b = Solo::new();
        a.request(false);
        b.request(false);
        assert!(!a.alone(), "b took the last request");
        assert!(!b.alone(), "a took one a moment ago");
        wait_quiet();
        assert!(b.alone());
        a.request(false);
        assert!(!a.alone() && !b.alone());
    }
}
