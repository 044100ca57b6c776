//! When a region is hot enough, long enough, to split by load: one [`Decider`] per open
//! region, kept by the region server's upkeep (never on the request path), which looks at the
//! region's request count every few seconds.

use std::time::{Duration, Instant};

use super::{LoadSplitConfig, RegionLoad};

/// What a look found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// Below the threshold, or not measured yet (the first look); not sampling.
    Cool {
        /// Requests per second since the previous look.
        rate: u64,
    },
    /// At or above the threshold for less than the window; sampling.
    Warming {
        /// Requests per second since the previous look.
        rate: u64,
    },
    /// At or above the threshold for the whole window: choose a split row.
    Due {
        /// Requests per second since the previous look.
        rate: u64,
        /// How long it has been hot.
        hot_for: Duration,
    },
}

/// The load history of one region.
#[derive(Clone, Debug, Default)]
pub struct Decider {
    /// The previous look: when, and the region's request count then.
    last: Option<(Instant, u64)>,
    /// Since when every look found the region hot.
    hot_since: Option<Instant>,
}

impl Decider {
    /// Looks at `load` at `now`: its rate since the previous look against `config`; starts,
    /// adjusts or stops its sampling accordingly.
    pub fn look(&mut self, now: Instant, load: &RegionLoad, config: &LoadSplitConfig) -> Look {
        let requests = load.requests();
        let previous = self.last.replace((now, requests));
        let rate = match previous {
            Some((then, before)) if now > then && requests >= before => {
                let secs = now.duration_since(then).as_secs_f64();
                ((requests - before) as f64 / secs) as u64
            }
            // The first look, or the count started again: nothing to measure yet.
            _ => {
                self.cool(load);
                return Look::Cool { rate: 0 };
            }
        };
        if !config.enabled() || rate < config.qps {
            self.cool(load);
            return Look::Cool { rate };
        }
        load.sample_at(rate);
        let since = *self.hot_since.get_or_insert(now);
        let hot_for = now.duration_since(since);
        if hot_for >= config.window {
            Look::Due { rate, hot_for }
        } else {
            Look::Warming { rate }
        }
    }

    /// Starts the window again (no balanced row was found: the samples are dropped, and the
    /// region must stay hot for another window).
    pub fn again(&mut self, now: Instant, load: &RegionLoad) {
        self.hot_since = Some(now);
        load.restart_sampling();
    }

    fn cool(&mut self, load: &RegionLoad) {
        self.hot_since = None;
        load.stop_sampling();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> LoadSplitConfig {
        LoadSplitConfig {
            qps: 100,
            window: Duration::from_secs(10),
            min_bytes: 0,
        }
    }

    /// `n` requests to distinct rows.
    fn hit(load: &RegionLoad, n: u64) {
        for i in 0..n {
            load.note_read(format!("r{i:06}").as_bytes());
        }
    }

    #[test]
    fn hot_for_a_whole_window_is_due_and_a_dip_starts_over() {
        let (load, cfg) = (RegionLoad::new(true), config());
        let mut d = Decider::default();
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert_eq!(d.look(at(0), &load, &cfg), Look::Cool { rate: 0 });
        hit(&load, 100); // 50/s
        assert_eq!(d.look(at(2), &load, &cfg), Look::Cool { rate: 50 });
        assert!(!load.is_sampling());
        hit(&load, 400); // 200/s
        assert_eq!(d.look(at(4), &load, &cfg), Look::Warming { rate: 200 });
        assert!(load.is_sampling());
        for s in [6, 8, 10, 12] {
            hit(&load, 400);
            assert_eq!(d.look(at(s), &load, &cfg), Look::Warming { rate: 200 });
        }
        assert!(load.sampled() > 0);
        hit(&load, 400);
        assert_eq!(
            d.look(at(14), &load, &cfg),
            Look::Due {
                rate: 200,
                hot_for: Duration::from_secs(10)
            }
        );
        // One quiet interval: cool again, samples dropped, the window starts over.
        hit(&load, 10);
        assert_eq!(d.look(at(16), &load, &cfg), Look::Cool { rate: 5 });
        assert_eq!((load.is_sampling(), load.sampled()), (false, 0));
        hit(&load, 400);
        assert_eq!(d.look(at(18), &load, &cfg), Look::Warming { rate: 200 });
    }

    #[test]
    fn again_restarts_the_window_and_the_samples() {
        let (load, cfg) = (RegionLoad::new(true), config());
        let mut d = Decider::default();
        let t0 = Instant::now();
        d.look(t0, &load, &cfg);
        for s in (2..=12).step_by(2) {
            hit(&load, 1000);
            d.look(t0 + Duration::from_secs(s), &load, &cfg);
        }
        assert!(load.sampled() > 0);
        d.again(t0 + Duration::from_secs(12), &load);
        assert_eq!(load.sampled(), 0);
        assert!(load.is_sampling());
        hit(&load, 1000);
        assert!(matches!(
            d.look(t0 + Duration::from_secs(14), &load, &cfg),
            Look::Warming { .. }
        ));
    }

    #[test]
    fn off_never_samples() {
        let load = RegionLoad::new(true);
        let mut d = Decider::default();
        let t0 = Instant::now();
        d.look(t0, &load, &LoadSplitConfig::off());
        hit(&load, 100_000);
        assert!(matches!(
            d.look(t0 + Duration::from_secs(1), &load, &LoadSplitConfig::off()),
            Look::Cool { .. }
        ));
        assert!(!load.is_sampling());
    }
}
