//! The pressure-aware compaction throughput controller (HBase's
//! `PressureAwareCompactionThroughputController`): compactions write at a bounded rate that
//! rises with the store's pressure ([`super::pressure::pressure`]), so background rewrites do
//! not starve foreground reads and writes when few files wait, and go flat out when writers are
//! about to block.
//!
//! Rate for pressure `p`: `lower + (upper - lower) × p` for `p` in [0, 1]; unlimited above 1
//! (the store has more files than the blocking count) or when the controller is off.

use std::time::{Duration, Instant};

/// Bounds of the compaction write rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThroughputConfig {
    /// Bytes per second at zero pressure (HBase's
    /// `hbase.hstore.compaction.throughput.lower.bound`, 50 MiB/s).
    pub lower_bytes_per_sec: u64,
    /// Bytes per second at pressure 1 (`...higher.bound`, 100 MiB/s).
    pub upper_bytes_per_sec: u64,
    /// Off: compactions write as fast as they can.
    pub enabled: bool,
}

impl Default for ThroughputConfig {
    fn default() -> Self {
        ThroughputConfig {
            lower_bytes_per_sec: 50 << 20,
            upper_bytes_per_sec: 100 << 20,
            enabled: true,
        }
    }
}

impl ThroughputConfig {
    /// The write rate for `pressure`, or `None` for unlimited.
    pub fn rate(&self, pressure: f64) -> Option<u64> {
        if !self.enabled || pressure > 1.0 || !pressure.is_finite() {
            return None;
        }
        let (lo, hi) = (
            self.lower_bytes_per_sec as f64,
            self.upper_bytes_per_sec.max(self.lower_bytes_per_sec) as f64,
        );
        Some((lo + (hi - lo) * pressure.max(0.0)) as u64)
    }
}

/// Paces one compaction: told the bytes it wrote, answers how long to sleep to stay at its
/// rate. Checks every [`Limiter::CHECK_EVERY`] bytes so the cost per cell is an addition.
#[derive(Debug)]
pub struct Limiter {
    rate: Option<u64>,
    started: Instant,
    written: u64,
    unchecked: u64,
    paused: Duration,
}

impl Limiter {
    /// Bytes between two checks.
    pub const CHECK_EVERY: u64 = 256 << 10;

    /// A limiter at `rate` bytes per second (`None`: never sleeps), starting now.
    pub fn new(rate: Option<u64>) -> Limiter {
        Limiter {
            rate,
            started: Instant::now(),
            written: 0,
            unchecked: 0,
            paused: Duration::ZERO,
        }
    }

    /// Records `bytes` written; returns the pause that brings the average rate back to the
    /// limit, if it is ahead by more than a millisecond.
    pub fn wrote(&mut self, bytes: u64) -> Option<Duration> {
        let rate = self.rate.filter(|&r| r > 0)?;
        self.written += bytes;
        self.unchecked += bytes;
        if self.unchecked < Self::CHECK_EVERY {
            return None;
        }
        self.unchecked = 0;
        let due = Duration::from_secs_f64(self.written as f64 / rate as f64);
        due.checked_sub(self.started.elapsed())
            .filter(|d| *d > Duration::from_millis(1))
    }

    /// Sleeps for `pause` (as [`Limiter::wrote`] asked), counting it.
    pub fn sleep(&mut self, pause: Duration) {
        std::thread::sleep(pause);
        self.paused += pause;
    }

    /// Time spent pausing.
    pub fn paused(&self) -> Duration {
        self.paused
    }

    /// Bytes recorded.
    pub fn written(&self) -> u64 {
        self.written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_rises_with_pressure_and_is_unlimited_past_blocking() {
        let c = ThroughputConfig::default();
        assert_eq!(c.rate(0.0), Some(50 << 20));
        assert_eq!(c.rate(0.5), Some(75 << 20));
        assert_eq!(c.rate(1.0), Some(100 << 20));
        assert_eq!(c.rate(1.5), None);
        assert_eq!(c.rate(-1.0), Some(50 << 20));
        assert_eq!(c.rate(f64::NAN), None);
        let off = ThroughputConfig {
            enabled: false,
            ..c
        };
        assert_eq!(off.rate(0.0), None);
    }

    #[test]
    fn limiter_asks_for_a_pause_when_ahead_of_its_rate() {
        let mut unlimited = Limiter::new(None);
        assert_eq!(unlimited.wrote(1 << 30), None);
        // 1 MiB/s: writing 1 MiB at once is about a second ahead.
        let mut l = Limiter::new(Some(1 << 20));
        assert_eq!(l.wrote(1000), None, "checks only every CHECK_EVERY bytes");
        let pause = l.wrote(1 << 20).unwrap();
        assert!(pause > Duration::from_millis(900) && pause <= Duration::from_secs(2));
        assert_eq!(l.written(), (1 << 20) + 1000);
    }
}
