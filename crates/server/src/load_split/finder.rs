//! Which row splits a region's load in two: a reservoir of [`CANDIDATES`] rows sampled from
//! its requests (each request equally likely to be kept), and for each candidate the
//! requests recorded after it was kept that fell below it and at or above it. After a split
//! at a candidate, the requests below it go to the lower daughter, the others to the upper,
//! so the candidate whose counts are closest to even is the median of the sampled load (the
//! approach of CockroachDB's load-based splitter).
//!
//! A candidate needs [`MIN_COUNTED`] requests counted to be trusted, and is refused when its
//! sides differ by [`MOST_IMBALANCE`] of the requests or more: a region whose requests all go
//! to one row has no such candidate (every request is at or above it), and is not split;
//! nor at its start row (the lower daughter would be empty).

/// Candidate rows kept.
pub const CANDIDATES: usize = 20;
/// Requests a candidate must have counted before it may be chosen.
pub const MIN_COUNTED: u64 = 100;
/// Least difference between a candidate's sides, as a fraction of its counted requests, that
/// refuses it.
pub const MOST_IMBALANCE: f64 = 0.25;

#[derive(Clone, Debug, Default)]
struct Candidate {
    row: Vec<u8>,
    below: u64,
    at_or_above: u64,
}

/// The reservoir of candidate split rows of one region.
#[derive(Clone, Debug, Default)]
pub struct Finder {
    candidates: Vec<Candidate>,
    recorded: u64,
}

/// A chosen split row and how the sampled requests counted against it fall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitChoice {
    /// The first row of the upper daughter.
    pub row: Vec<u8>,
    /// Counted requests below it.
    pub below: u64,
    /// Counted requests at or above it.
    pub at_or_above: u64,
}

impl SplitChoice {
    /// The share of the counted requests the lower daughter would take, in percent.
    pub fn lower_percent(&self) -> u64 {
        let total = self.below + self.at_or_above;
        (self.below * 100).checked_div(total).unwrap_or(0)
    }
}

impl Finder {
    /// Records one request to `row`; `random` is a uniformly random number (which decides
    /// whether the row replaces a candidate).
    pub fn record(&mut self, row: &[u8], random: u64) {
        let seen = self.recorded;
        self.recorded += 1;
        // Reservoir sampling: the n-th request (from 0) is kept with chance CANDIDATES/(n+1).
        let keep = if self.candidates.len() < CANDIDATES {
            Some(self.candidates.len())
        } else {
            usize::try_from(random % (seen + 1))
                .ok()
                .filter(|slot| *slot < CANDIDATES)
        };
        for (i, c) in self.candidates.iter_mut().enumerate() {
            if Some(i) == keep {
                continue;
            }
            if row < c.row.as_slice() {
                c.below += 1;
            } else {
                c.at_or_above += 1;
            }
        }
        let fresh = Candidate {
            row: row.to_vec(),
            below: 0,
            at_or_above: 0,
        };
        match keep {
            Some(slot) if slot < self.candidates.len() => self.candidates[slot] = fresh,
            Some(_) => self.candidates.push(fresh),
            None => {}
        }
    }

    /// Requests recorded.
    pub fn recorded(&self) -> u64 {
        self.recorded
    }

    /// The candidate above `start` (the region's start row) whose sides are closest to even,
    /// if one has counted enough requests and its sides differ by less than
    /// [`MOST_IMBALANCE`].
    pub fn choose(&self, start: &[u8]) -> Option<SplitChoice> {
        let mut best: Option<(f64, &Candidate)> = None;
        for c in &self.candidates {
            let total = c.below + c.at_or_above;
            if total < MIN_COUNTED || c.row.as_slice() <= start {
                continue;
            }
            let imbalance = c.below.abs_diff(c.at_or_above) as f64 / total as f64;
            if imbalance >= MOST_IMBALANCE {
                continue;
            }
            if best.is_none_or(|(score, _)| imbalance < score) {
                best = Some((imbalance, c));
            }
        }
        best.map(|(_, c)| SplitChoice {
            row: c.row.clone(),
            below: c.below,
            at_or_above: c.at_or_above,
        })
    }

    /// Why no candidate is chosen, for the log: one row taking the load, too few requests
    /// counted, or sides too far apart.
    pub fn why_none(&self, start: &[u8]) -> String {
        let Some(first) = self.candidates.first() else {
            return "no request sampled".to_owned();
        };
        if self.candidates.iter().all(|c| c.row == first.row) {
            return format!(
                "every sampled candidate is row '{}': one row takes the load",
                strata_model::ops::escape(&first.row)
            );
        }
        let few = self
            .candidates
            .iter()
            .filter(|c| c.below + c.at_or_above < MIN_COUNTED)
            .count();
        let least = self
            .candidates
            .iter()
            .filter(|c| c.below + c.at_or_above >= MIN_COUNTED && c.row.as_slice() > start)
            .map(|c| c.below.abs_diff(c.at_or_above) * 100 / (c.below + c.at_or_above))
            .min();
        match least {
            Some(p) => format!(
                "{few} of {} candidates counted too few requests; the others' sides differ by \
                 {p}% or more of their requests",
                self.candidates.len()
            ),
            None => format!(
                "{few} of {} candidates counted too few requests, none of the others is above \
                 the region's start",
                self.candidates.len()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded xorshift generator (the tests need no better).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        /// Uniform in [0, 1).
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn row(i: u64) -> Vec<u8> {
        format!("user{i:06}").into_bytes()
    }

    fn number(row: &[u8]) -> u64 {
        std::str::from_utf8(&row[4..]).unwrap().parse().unwrap()
    }

    /// Records `n` requests to the rows `pick` gives; answers them.
    fn feed(
        f: &mut Finder,
        rng: &mut Rng,
        n: usize,
        mut pick: impl FnMut(&mut Rng) -> u64,
    ) -> Vec<u64> {
        let mut sent = Vec::with_capacity(n);
        for _ in 0..n {
            let k = pick(rng);
            let random = rng.next();
            f.record(&row(k), random);
            sent.push(k);
        }
        sent
    }

    /// The share of `requests` below `split`, in percent.
    fn share_below(split: &[u8], requests: &[u64]) -> u64 {
        let below = requests
            .iter()
            .filter(|k| row(**k).as_slice() < split)
            .count() as u64;
        below * 100 / requests.len() as u64
    }

    #[test]
    fn uniform_load_splits_near_the_middle() {
        let mut rng = Rng(7);
        let mut f = Finder::default();
        let sent = feed(&mut f, &mut rng, 10_000, |r| r.below(100_000));
        let c = f.choose(b"").expect("a balanced candidate");
        let k = number(&c.row);
        assert!((35_000..65_000).contains(&k), "split at {k}");
        assert!((38..=62).contains(&c.lower_percent()), "{c:?}");
        assert!((35..=65).contains(&share_below(&c.row, &sent)));
    }

    #[test]
    fn a_hot_key_range_is_split_where_the_load_halves() {
        // Zipfian-like: 90% of requests go to rows 1000..1100 (skewed inside too), the rest
        // anywhere in 0..100_000. The split lands inside the hot range, not at the middle
        // of the key space, and both sides carry comparable load.
        let mut rng = Rng(11);
        let mut f = Finder::default();
        let sent = feed(&mut f, &mut rng, 20_000, |r| {
            if r.unit() < 0.9 {
                let x = r.unit();
                1000 + (x * x * 100.0) as u64
            } else {
                r.below(100_000)
            }
        });
        let c = f.choose(b"").expect("a balanced candidate");
        let k = number(&c.row);
        assert!(
            (1000..1100).contains(&k),
            "split at {k}, outside the hot range"
        );
        let below = share_below(&c.row, &sent);
        assert!((30..=70).contains(&below), "{below}% of the load below {k}");
    }

    #[test]
    fn a_single_hot_row_cannot_be_split() {
        let mut rng = Rng(3);
        let mut f = Finder::default();
        feed(&mut f, &mut rng, 10_000, |_| 42);
        assert_eq!(f.choose(b""), None);
        assert!(
            f.why_none(b"").contains("one row takes the load"),
            "{}",
            f.why_none(b"")
        );
        // Nearly all at one row, a little elsewhere: still no balanced split.
        let mut f = Finder::default();
        feed(&mut f, &mut rng, 10_000, |r| {
            if r.unit() < 0.97 {
                42
            } else {
                r.below(100)
            }
        });
        assert_eq!(f.choose(b""), None, "{}", f.why_none(b""));
    }

    #[test]
    fn never_at_or_below_the_region_start_nor_on_too_few_requests() {
        let mut rng = Rng(5);
        let mut f = Finder::default();
        feed(&mut f, &mut rng, 50, |r| r.below(1000));
        assert_eq!(f.choose(b""), None, "too few requests counted");
        let mut f = Finder::default();
        feed(&mut f, &mut rng, 10_000, |r| r.below(1000));
        let middle = f.choose(b"").expect("a balanced candidate").row;
        // Were the region to start at that row, no candidate at or below it would do.
        if let Some(c) = f.choose(&middle) {
            assert!(c.row > middle, "{c:?}");
        }
        assert_eq!(f.choose(&row(999)), None, "no candidate above the last row");
    }
}
