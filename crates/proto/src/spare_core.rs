//! Whether the machine has a core to spare: no runnable thread is waiting for a CPU
//! (docs/rfcs/0013-request-path.md, Decision 25).
//!
//! A connection that polls for its next bytes ([`crate::read_soon`]) pays only where the core
//! it spins on would otherwise sit idle; where another thread waits for that core, polling
//! takes CPU from the work it waits for (often the very client whose bytes it expects). The
//! signal is the kernel's count of runnable threads machine-wide, the fourth field of
//! `/proc/loadavg` (`R/T`: R runnable now, the reader included), against the CPUs this
//! process may use: `R ≤ CPUs` means every runnable thread has one. (In a container the count
//! is the host's and the CPUs its quota: a busy host turns polling off.)
//!
//! One read of `/proc/loadavg` costs about a microsecond, so the answer is kept for
//! [`REFRESH`] and shared by every thread of the process. Where the file cannot be read (not
//! Linux, no `/proc`), there is never a core to spare: polls give up after
//! [`crate::read_soon::BUSY_FOR`].

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// How long one look at the run queue stands for.
pub const REFRESH: Duration = Duration::from_micros(10);

/// The last answer: microseconds since the process's first look when it was read, shifted left by one, with
/// the answer in the low bit; zero before the first look.
static LAST: AtomicU64 = AtomicU64::new(0);

struct Source {
    loadavg: Option<File>,
    cpus: u32,
}

fn source() -> &'static Source {
    static SOURCE: OnceLock<Source> = OnceLock::new();
    SOURCE.get_or_init(|| Source {
        loadavg: File::open("/proc/loadavg").ok(),
        cpus: std::thread::available_parallelism()
            .map_or(1, |n| u32::try_from(n.get()).unwrap_or(u32::MAX)),
    })
}

/// Whether no runnable thread on the machine waits for a CPU, as of at most [`REFRESH`] ago.
pub fn spare_core() -> bool {
    let source = source();
    let Some(file) = &source.loadavg else {
        return false;
    };
    let now = crate::solo::now_micros().min(u64::MAX >> 1);
    if let Some(spare) = cached(LAST.load(Ordering::Relaxed), now) {
        return spare;
    }
    let mut buf = [0u8; 128];
    let spare = match file.read_at(&mut buf, 0) {
        Ok(n) => runnable(&buf[..n]).is_some_and(|r| r <= source.cpus),
        Err(_) => false,
    };
    LAST.store(stamp(now, spare), Ordering::Relaxed);
    spare
}

/// [`LAST`]'s encoding of an answer read at `now` (µs since the epoch).
fn stamp(now: u64, spare: bool) -> u64 {
    (now.max(1) << 1) | u64::from(spare)
}

/// The answer `last` holds, if it was read less than [`REFRESH`] before `now`.
fn cached(last: u64, now: u64) -> Option<bool> {
    let refresh = u64::try_from(REFRESH.as_micros()).unwrap_or(u64::MAX);
    (last != 0 && now.saturating_sub(last >> 1) < refresh).then_some(last & 1 == 1)
}

/// The runnable count of a `/proc/loadavg` line (`0.67 1.14 0.62 1/79 7447`).
fn runnable(line: &[u8]) -> Option<u32> {
    let line = std::str::from_utf8(line).ok()?;
    let field = line.split_ascii_whitespace().nth(3)?;
    field.split_once('/')?.0.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runnable_count_is_the_fourth_field_before_its_slash() {
        assert_eq!(runnable(b"0.67 1.14 0.62 1/79 7447\n"), Some(1));
        assert_eq!(runnable(b"12.00 9.50 3.25 17/1204 99\n"), Some(17));
        assert_eq!(runnable(b"0.67 1.14 0.62"), None);
        assert_eq!(runnable(b"0.67 1.14 0.62 x/79 7447"), None);
        assert_eq!(runnable(b"0.67 1.14 0.62 179 7447"), None);
        assert_eq!(runnable(&[0xff, 0xfe]), None);
    }

    #[test]
    fn an_answer_stands_for_its_refresh_period() {
        let refresh = u64::try_from(REFRESH.as_micros()).expect("small");
        assert_eq!(cached(0, 5), None, "nothing read yet");
        assert_eq!(cached(stamp(100, true), 100), Some(true));
        assert_eq!(cached(stamp(100, false), 100 + refresh - 1), Some(false));
        assert_eq!(cached(stamp(100, true), 100 + refresh), None);
        // A clock that reads zero still stores an answer.
        assert_eq!(cached(stamp(0, true), 0), Some(true));
    }

    #[test]
    fn a_look_at_the_run_queue_is_stored() {
        let spare = spare_core();
        if source().loadavg.is_some() {
            // (Other tests' polls may have looked since; any look leaves a stamp.)
            assert_ne!(LAST.load(Ordering::Relaxed), 0);
        } else {
            assert!(!spare, "without /proc/loadavg nothing polls");
        }
    }
}
