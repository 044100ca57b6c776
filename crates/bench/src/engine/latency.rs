//! Latency recording: every operation's duration, summarised as percentiles overall and per
//! second of the run (to show stalls across flushes and compactions).

use std::time::Duration;

/// Latencies of one thread, in microseconds, with the second of the run each ended in.
#[derive(Default)]
pub struct Recorder {
    samples: Vec<(u32, u32)>,
}

impl Recorder {
    /// Records one operation that ended `at` after the run started.
    pub fn record(&mut self, at: Duration, took: Duration) {
        let us = u32::try_from(took.as_micros()).unwrap_or(u32::MAX);
        self.samples.push((at.as_secs() as u32, us));
    }

    /// Merges another thread's samples.
    pub fn merge(&mut self, other: Recorder) {
        self.samples.extend(other.samples);
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// (p50, p99, p99.9, max) in microseconds.
    pub fn percentiles(&self) -> (u32, u32, u32, u32) {
        let mut v: Vec<u32> = self.samples.iter().map(|s| s.1).collect();
        summarize(&mut v)
    }

    /// How many calls took `limit` or longer.
    pub fn count_at_least(&self, limit: std::time::Duration) -> usize {
        let us = u32::try_from(limit.as_micros()).unwrap_or(u32::MAX);
        self.samples.iter().filter(|s| s.1 >= us).count()
    }

    /// Per second of the run: (second, ops, p99, p99.9, max).
    pub fn per_second(&self) -> Vec<(u32, usize, u32, u32, u32)> {
        let mut by: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for (s, us) in &self.samples {
            by.entry(*s).or_default().push(*us);
        }
        by.into_iter()
            .map(|(s, mut v)| {
                let n = v.len();
                let (_, p99, p999, max) = summarize(&mut v);
                (s, n, p99, p999, max)
            })
            .collect()
    }
}

fn summarize(v: &mut [u32]) -> (u32, u32, u32, u32) {
    if v.is_empty() {
        return (0, 0, 0, 0);
    }
    v.sort_unstable();
    let at = |q: f64| v[((v.len() as f64 * q) as usize).min(v.len() - 1)];
    (at(0.5), at(0.99), at(0.999), v[v.len() - 1])
}
