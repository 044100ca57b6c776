//! Requests per second, sampled every [`EVERY`] from the observer's totals, so the UI shows a
//! recent rate rather than an average since start.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_server::RegionServer;

/// How often totals are sampled.
pub const EVERY: Duration = Duration::from_secs(5);
const KEPT: usize = 13;

/// Request totals per table at sampling times.
#[derive(Debug, Default)]
pub struct Rates {
    samples: Mutex<VecDeque<(Instant, HashMap<String, u64>)>>,
}

impl Rates {
    /// Adds a sample of the totals now.
    pub fn sample(&self, host: &RegionServer) {
        let totals = host
            .observer()
            .tables()
            .iter()
            .map(|t| (t.name().to_owned(), t.requests()))
            .collect();
        let mut s = self.samples.lock();
        if s.len() >= KEPT {
            s.pop_front();
        }
        s.push_back((Instant::now(), totals));
    }

    /// Requests per second of each table over the last minute or so (empty before two
    /// samples).
    pub fn per_table(&self) -> HashMap<String, f64> {
        let s = self.samples.lock();
        let (Some((t0, first)), Some((t1, last))) = (s.front(), s.back()) else {
            return HashMap::new();
        };
        let secs = t1.saturating_duration_since(*t0).as_secs_f64();
        if secs <= 0.0 {
            return HashMap::new();
        }
        last.iter()
            .map(|(table, n)| {
                let before = first.get(table).copied().unwrap_or(0);
                #[expect(clippy::cast_precision_loss, reason = "a rate for display")]
                let rate = n.saturating_sub(before) as f64 / secs;
                (table.clone(), rate)
            })
            .collect()
    }
}

/// Samples every [`EVERY`] until aborted.
pub async fn sample_forever(rates: Arc<Rates>, host: Arc<RegionServer>) {
    let mut tick = tokio::time::interval(EVERY);
    loop {
        tick.tick().await;
        rates.sample(&host);
    }
}
