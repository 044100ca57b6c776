//! A latency histogram of fixed buckets: one relaxed atomic add per bucket hit, a sum and a
//! count, read as a consistent-enough snapshot at scrape time (Prometheus' model).
//!
//! Thread safety: every method takes `&self`; recording never blocks.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the buckets in seconds (the last, `+Inf`, is implicit): 50 µs to 10 s,
/// about three per decade, as HBase's and Prometheus' defaults.
pub const BOUNDS_SECONDS: [f64; 16] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 10.0,
];

const BOUNDS_NANOS: [u64; 16] = [
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    10_000_000_000,
];

/// Counts of durations per bucket.
#[derive(Debug)]
pub struct Histogram {
    /// Per bucket (not cumulative); the last is `+Inf`.
    buckets: [AtomicU64; 17],
    sum_nanos: AtomicU64,
}

/// A histogram's figures at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Per bucket (not cumulative), as `(upper bound in seconds, count)`; the last bound is
    /// `f64::MAX` (`+Inf`).
    pub buckets: Vec<(f64, u64)>,
    /// Observations.
    pub count: u64,
    /// Sum of the observations in seconds.
    pub sum_seconds: f64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    /// An empty histogram.
    pub const fn new() -> Histogram {
        Histogram {
            buckets: [const { AtomicU64::new(0) }; 17],
            sum_nanos: AtomicU64::new(0),
        }
    }

    /// Counts one observation.
    pub fn record(&self, d: Duration) {
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let i = BOUNDS_NANOS.partition_point(|&b| b < nanos);
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// The figures now.
    pub fn snapshot(&self) -> Snapshot {
        let mut buckets = Vec::with_capacity(17);
        let mut count = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            let n = b.load(Ordering::Relaxed);
            count += n;
            buckets.push((BOUNDS_SECONDS.get(i).copied().unwrap_or(f64::MAX), n));
        }
        #[expect(clippy::cast_precision_loss, reason = "a sum of seconds for display")]
        let sum_seconds = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        Snapshot {
            buckets,
            count,
            sum_seconds,
        }
    }
}

impl Snapshot {
    /// The duration below which `q` (0..=1) of the observations fall, as the upper bound of
    /// the bucket holding it (`None` when empty or in the `+Inf` bucket).
    pub fn quantile_bound(&self, q: f64) -> Option<f64> {
        #[expect(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a rank among at most 2^53 observations"
        )]
        let rank = ((self.count as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for &(bound, n) in &self.buckets {
            seen += n;
            if self.count > 0 && seen >= rank {
                return (bound < f64::MAX).then_some(bound);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_bucket_of_their_upper_bound() {
        let h = Histogram::new();
        h.record(Duration::from_micros(50)); // exactly the first bound: first bucket
        h.record(Duration::from_micros(51));
        h.record(Duration::from_secs(60)); // beyond every bound: +Inf
        let s = h.snapshot();
        assert_eq!(s.count, 3);
        assert_eq!(s.buckets[0], (0.000_05, 1));
        assert_eq!(s.buckets[1], (0.000_1, 1));
        assert_eq!(s.buckets[16], (f64::MAX, 1));
        assert!((s.sum_seconds - 60.000_101).abs() < 1e-9);
        assert_eq!(s.quantile_bound(0.5), Some(0.000_1));
        assert_eq!(s.quantile_bound(1.0), None);
    }
}
