//! The balancer: spreads each table's regions across the live servers that are not
//! decommissioned, evens out their region counts, then evens out their request load.
//!
//! It plans on a copy of the placement, in three passes, and starts one move transit for each
//! region whose planned server differs from its current one (moves are ordinary transit
//! procedures, as safe and resumable as any other):
//!
//! 1. **Per table**: while a table has two regions more on one server than on another, move one
//!    from the server with the most (ties: the server with most regions overall) to the one
//!    with the fewest.
//! 2. **Region count** (HBase's simple balancer): while a server has two regions more than
//!    another, move one of a table it holds more of than the other does, so pass 1 stays true.
//! 3. **Request load** (only with load reports, at most once per `balance_period_ms`): while
//!    the busiest server's request rate is above the mean by more than [`LOAD_SLOP`], move a
//!    busy region to the least busy server, or swap it with a quieter region of the same table
//!    there, whichever evens the pair most; only moves that keep passes 1 and 2 true and cut
//!    the pair's difference by at least a tenth are taken, and only once the same server was
//!    found overloaded in two rounds in a row (a noisy period alone moves nothing).
//!
//! The balancer runs only when no procedure is in flight and its switch is on.

use std::collections::{BTreeMap, BTreeSet};

use super::{Halt, Kv, Master};
use crate::layout::region_table;
use crate::lease::Millis;
use crate::load::ServerLoad;
use crate::record::TransitStep;
use crate::wal::WalFencer;

/// Moves planned per round, at most.
const MOVES_PER_TICK: usize = 100;

/// How far above the mean request rate the busiest server may be before pass 3 acts (20 %).
pub const LOAD_SLOP: f64 = 0.2;

/// Request rate differences below this (thousandths of a request per second) are ignored.
const LOAD_FLOOR_MILLI: u64 = 1000;

/// Load moves per round, at most (each waits for fresh reports before the next round).
const LOAD_MOVES: usize = 8;

/// A plan's input: the regions on each eligible server.
pub(crate) type Placement = BTreeMap<String, Vec<String>>;

struct Plan {
    at: BTreeMap<String, String>,
    servers: BTreeSet<String>,
}

impl Plan {
    fn new(placement: &Placement) -> Plan {
        let mut at = BTreeMap::new();
        for (s, regions) in placement {
            for r in regions {
                at.insert(r.clone(), s.clone());
            }
        }
        Plan {
            at,
            servers: placement.keys().cloned().collect(),
        }
    }

    fn totals(&self) -> BTreeMap<&str, usize> {
        let mut t: BTreeMap<&str, usize> = self.servers.iter().map(|s| (s.as_str(), 0)).collect();
        for s in self.at.values() {
            *t.entry(s.as_str()).or_default() += 1;
        }
        t
    }

    fn of_table(&self, table: &str) -> BTreeMap<&str, usize> {
        let mut t: BTreeMap<&str, usize> = self.servers.iter().map(|s| (s.as_str(), 0)).collect();
        for (r, s) in &self.at {
            if region_table(r) == table {
                *t.entry(s.as_str()).or_default() += 1;
            }
        }
        t
    }

    fn on(&self, server: &str) -> Vec<String> {
        self.at
            .iter()
            .filter(|(_, s)| s.as_str() == server)
            .map(|(r, _)| r.clone())
            .collect()
    }

    fn set(&mut self, region: &str, server: &str) {
        self.at.insert(region.to_string(), server.to_string());
    }

    /// Pass 1: every table within one region per server.
    fn spread_tables(&mut self, budget: usize) {
        let tables: BTreeSet<String> = self
            .at
            .keys()
            .map(|r| region_table(r).to_string())
            .collect();
        for table in tables {
            for _ in 0..budget {
                let per = self.of_table(&table);
                let totals = self.totals();
                let ranked: Vec<(usize, usize, String)> = per
                    .iter()
                    .map(|(s, n)| (*n, totals[s], s.to_string()))
                    .collect();
                let (Some(most), Some(least)) = (
                    ranked.iter().max().map(|r| r.2.clone()),
                    ranked.iter().min().map(|r| r.2.clone()),
                ) else {
                    break;
                };
                if per[most.as_str()] < per[least.as_str()] + 2 {
                    break;
                }
                let region = self
                    .on(&most)
                    .into_iter()
                    .rev()
                    .find(|r| region_table(r) == table);
                let Some(region) = region else { break };
                self.set(&region, &least);
            }
        }
    }

    /// Pass 2: region counts within one, keeping pass 1.
    fn even_counts(&mut self, budget: usize) {
        for _ in 0..budget {
            let totals = self.totals();
            let (Some((most, m)), Some((least, l))) = (
                totals.iter().max_by_key(|(s, n)| (**n, s.to_string())),
                totals.iter().min_by_key(|(s, n)| (**n, s.to_string())),
            ) else {
                break;
            };
            if *m < l + 2 {
                break;
            }
            let (most, least) = (most.to_string(), least.to_string());
            // The table `most` holds most more of than `least` (one exists: it holds more).
            let mut best: Option<(usize, String)> = None;
            for r in self.on(&most) {
                let t = region_table(&r);
                let per = self.of_table(t);
                let gap = per[most.as_str()].saturating_sub(per[least.as_str()]);
                if gap > 0 && best.as_ref().is_none_or(|(g, _)| gap > *g) {
                    best = Some((gap, r));
                }
            }
            let Some((_, region)) = best else { break };
            self.set(&region, &least);
        }
    }

    /// Pass 3: request load, keeping passes 1 and 2.
    fn even_load(&mut self, rates: &BTreeMap<String, u64>) {
        let rate = |r: &str| rates.get(r).copied().unwrap_or(0);
        for _ in 0..LOAD_MOVES {
            let mut load: BTreeMap<&str, u64> =
                self.servers.iter().map(|s| (s.as_str(), 0)).collect();
            for (r, s) in &self.at {
                *load.entry(s.as_str()).or_default() += rate(r);
            }
            let total: u64 = load.values().sum();
            // Precision loss is harmless: a threshold.
            let mean = total as f64 / load.len().max(1) as f64;
            let (Some((hot, lh)), Some((cold, lc))) = (
                load.iter().max_by_key(|(s, l)| (**l, s.to_string())),
                load.iter().min_by_key(|(s, l)| (**l, s.to_string())),
            ) else {
                return;
            };
            let (hot, cold, lh, lc) = (hot.to_string(), cold.to_string(), *lh, *lc);
            if (lh as f64) <= mean * (1.0 + LOAD_SLOP) || lh - lc < LOAD_FLOOR_MILLI {
                return;
            }
            let totals = self.totals();
            let (th, tc) = (totals[hot.as_str()], totals[cold.as_str()]);
            let on_cold = self.on(&cold);
            let diff = |h: u64, c: u64| h.abs_diff(c);
            let now_diff = lh - lc;
            // (new difference, region to cold, region to hot)
            let mut best: Option<(u64, String, Option<String>)> = None;
            for r in self.on(&hot) {
                let rr = rate(&r);
                if rr == 0 {
                    continue;
                }
                let t = region_table(&r);
                let per = self.of_table(t);
                if th > tc && per[hot.as_str()] > per[cold.as_str()] {
                    let d = diff(lh - rr, lc + rr);
                    if best.as_ref().is_none_or(|(b, ..)| d < *b) {
                        best = Some((d, r.clone(), None));
                    }
                }
                for other in on_cold.iter().filter(|o| region_table(o) == t) {
                    let ro = rate(other);
                    if ro >= rr {
                        continue;
                    }
                    let d = diff(lh - rr + ro, lc + rr - ro);
                    if best.as_ref().is_none_or(|(b, ..)| d < *b) {
                        best = Some((d, r.clone(), Some(other.clone())));
                    }
                }
            }
            let Some((d, to_cold, to_hot)) = best else {
                return;
            };
            if d.saturating_mul(10) > now_diff.saturating_mul(9) {
                return;
            }
            self.set(&to_cold, &cold);
            if let Some(o) = to_hot {
                self.set(&o, &hot);
            }
        }
    }
}

/// The moves `(region, target)` that balance `placement` (the regions on each eligible server),
/// by table and count, and by load if `rates` (requests per second per region, thousandths)
/// are given. At most [`MOVES_PER_TICK`].
pub(crate) fn plan_moves(
    placement: &Placement,
    rates: Option<&BTreeMap<String, u64>>,
) -> Vec<(String, String)> {
    if placement.len() < 2 {
        return Vec::new();
    }
    let mut plan = Plan::new(placement);
    let budget = plan.at.len() + 1;
    plan.spread_tables(budget);
    plan.even_counts(budget);
    if let Some(rates) = rates {
        plan.even_load(rates);
    }
    let mut moves = Vec::new();
    for (s, regions) in placement {
        for r in regions {
            if let Some(to) = plan.at.get(r) {
                if to != s {
                    moves.push((r.clone(), to.clone()));
                }
            }
        }
    }
    moves.truncate(MOVES_PER_TICK);
    moves
}

/// The busiest server, if its request rate is above the mean by more than [`LOAD_SLOP`] (and
/// above the idlest by at least [`LOAD_FLOOR_MILLI`]).
pub(crate) fn overloaded(placement: &Placement, rates: &BTreeMap<String, u64>) -> Option<String> {
    let load: BTreeMap<&String, u64> = placement
        .iter()
        .map(|(s, rs)| {
            (
                s,
                rs.iter().map(|r| rates.get(r).copied().unwrap_or(0)).sum(),
            )
        })
        .collect();
    let total: u64 = load.values().sum();
    // Precision loss is harmless: a threshold.
    let mean = total as f64 / load.len().max(1) as f64;
    let (hot, lh) = load.iter().max_by_key(|(s, l)| (**l, s.to_string()))?;
    let lc = load.values().min().copied().unwrap_or(0);
    ((*lh as f64) > mean * (1.0 + LOAD_SLOP) && lh - lc >= LOAD_FLOOR_MILLI).then(|| (*hot).clone())
}

/// Per-region request rates from the servers' load reports.
pub(crate) fn rates_of(loads: &[ServerLoad]) -> BTreeMap<String, u64> {
    let mut rates = BTreeMap::new();
    for l in loads {
        for (r, m) in &l.per_region {
            *rates.entry(r.clone()).or_default() += m;
        }
    }
    rates
}

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Whether the balancer is on: its persisted switch, else the configured default.
    pub(super) fn balancer_on(&mut self) -> bool {
        let default = self.config.balance;
        self.lead().image.balancer_on.unwrap_or(default)
    }

    /// The servers regions may be placed on: live and not decommissioned.
    pub(super) fn eligible_servers(&mut self) -> Vec<String> {
        let image = &self.lead().image;
        image
            .live
            .iter()
            .filter(|s| !image.drained.contains(*s))
            .cloned()
            .collect()
    }

    /// The regions on each eligible server.
    fn placement(&mut self) -> Placement {
        let servers = self.eligible_servers();
        let image = &self.lead().image;
        servers
            .into_iter()
            .map(|s| {
                let regions = image
                    .by_server
                    .get(&s)
                    .map(|r| r.iter().cloned().collect())
                    .unwrap_or_default();
                (s, regions)
            })
            .collect()
    }

    /// Reads every server's load report (one range).
    fn read_loads(&self) -> Vec<ServerLoad> {
        let prefix = self.layout.loads();
        crate::kv::range_all(&self.kv, &prefix, 1000)
            .map(|p| {
                p.kvs
                    .iter()
                    .filter_map(|kv| ServerLoad::decode(&kv.value).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Plans and starts the moves of one balancing round, if the cluster is quiet and uneven;
    /// weighs load (reading the reports) at most once per `balance_period_ms`, or when
    /// `force`d. Returns the number of moves started.
    pub(super) fn balance_round(&mut self, now: Millis, force: bool) -> Result<usize, Halt> {
        if !self.balancer_on() || !self.lead().image.procs.is_empty() {
            return Ok(0);
        }
        let placement = self.placement();
        let by_load = force || now >= self.next_load_balance;
        let rates = if by_load {
            self.next_load_balance = now + self.config.balance_period_ms;
            let rates = rates_of(&self.read_loads());
            // Hysteresis: act on load only if the same server was overloaded in the previous
            // round too (or when asked), so one noisy period moves nothing.
            let hot = overloaded(&placement, &rates);
            let persisted = hot.is_some() && (force || hot == self.last_overloaded);
            self.last_overloaded = hot;
            persisted.then_some(rates)
        } else {
            None
        };
        let moves = plan_moves(&placement, rates.as_ref());
        let n = moves.len();
        for (region, target) in moves {
            self.start_transit(&region, Some(target), true, TransitStep::Close)?;
        }
        Ok(n)
    }

    /// One tick's balancing round.
    pub(super) fn balance(&mut self, now: Millis) -> Result<(), Halt> {
        self.balance_round(now, false).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(spec: &[(&str, &[&str])]) -> Placement {
        spec.iter()
            .map(|(s, rs)| (s.to_string(), rs.iter().map(|r| r.to_string()).collect()))
            .collect()
    }

    fn apply(p: &Placement, moves: &[(String, String)]) -> Placement {
        let mut at: BTreeMap<String, String> = BTreeMap::new();
        for (s, rs) in p {
            for r in rs {
                at.insert(r.clone(), s.clone());
            }
        }
        for (r, s) in moves {
            at.insert(r.clone(), s.clone());
        }
        let mut out: Placement = p.keys().map(|s| (s.clone(), Vec::new())).collect();
        for (r, s) in at {
            out.get_mut(&s).unwrap().push(r);
        }
        out
    }

    fn spread(p: &Placement, table: &str) -> usize {
        let counts: Vec<usize> = p
            .values()
            .map(|rs| rs.iter().filter(|r| region_table(r) == table).count())
            .collect();
        counts.iter().max().unwrap() - counts.iter().min().unwrap()
    }

    fn count_spread(p: &Placement) -> usize {
        let counts: Vec<usize> = p.values().map(Vec::len).collect();
        counts.iter().max().unwrap() - counts.iter().min().unwrap()
    }

    #[test]
    fn counts_even_out_and_each_table_spreads() {
        // Counts are even (3 each) but table a sits on s1 and table b on s2.
        let p = placement(&[
            ("s1", &["a,0", "a,1", "a,2"]),
            ("s2", &["b,0", "b,1", "b,2"]),
            ("s3", &["c,0", "c,1", "c,2"]),
        ]);
        let moves = plan_moves(&p, None);
        let after = apply(&p, &moves);
        for t in ["a", "b", "c"] {
            assert!(spread(&after, t) <= 1, "table {t} spread: {after:?}");
        }
        assert!(count_spread(&after) <= 1, "{after:?}");
        assert!(
            plan_moves(&after, None).is_empty(),
            "a balanced plan is stable"
        );

        // A new, empty server takes its share.
        let p = placement(&[("s1", &["a,0", "a,1", "b,0", "b,1"]), ("s2", &[])]);
        let after = apply(&p, &plan_moves(&p, None));
        assert_eq!(count_spread(&after), 0);
        assert_eq!(spread(&after, "a"), 0);
        assert_eq!(spread(&after, "b"), 0);
    }

    #[test]
    fn one_server_or_balanced_means_no_moves() {
        assert!(plan_moves(&placement(&[("s1", &["a,0", "a,1"])]), None).is_empty());
        let p = placement(&[("s1", &["a,0", "b,0"]), ("s2", &["a,1"])]);
        assert!(plan_moves(&p, None).is_empty());
    }

    #[test]
    fn load_moves_hot_regions_off_the_busiest_server() {
        // Even counts and tables, but both hot regions are on s1.
        let p = placement(&[("s1", &["a,0", "a,1"]), ("s2", &["a,2", "a,3"])]);
        let rates: BTreeMap<String, u64> = [
            ("a,0".to_string(), 100_000),
            ("a,1".to_string(), 90_000),
            ("a,2".to_string(), 1_000),
            ("a,3".to_string(), 0),
        ]
        .into_iter()
        .collect();
        assert!(plan_moves(&p, None).is_empty(), "by count it is balanced");
        let moves = plan_moves(&p, Some(&rates));
        assert_eq!(moves.len(), 2, "a swap: {moves:?}");
        let after = apply(&p, &moves);
        assert!(count_spread(&after) <= 1 && spread(&after, "a") <= 1);
        let load = |s: &str| after[s].iter().map(|r| rates[r]).sum::<u64>();
        assert!(load("s1").abs_diff(load("s2")) < 20_000, "{after:?}");
        assert!(
            plan_moves(&after, Some(&rates)).is_empty(),
            "balanced by load: no further moves"
        );
    }

    #[test]
    fn load_ignores_small_differences() {
        let p = placement(&[("s1", &["a,0"]), ("s2", &["a,1"])]);
        let rates: BTreeMap<String, u64> = [("a,0".to_string(), 900), ("a,1".to_string(), 0)]
            .into_iter()
            .collect();
        assert!(plan_moves(&p, Some(&rates)).is_empty(), "below 1 request/s");
        let rates: BTreeMap<String, u64> = [("a,0".to_string(), 50_000), ("a,1".to_string(), 0)]
            .into_iter()
            .collect();
        assert!(
            plan_moves(&p, Some(&rates)).is_empty(),
            "one region each: moving the hot one only moves the imbalance"
        );
    }

    #[test]
    fn rates_merge_reports() {
        let mut a = ServerLoad::default();
        a.per_region.insert("t,0".into(), 5);
        let mut b = ServerLoad::default();
        b.per_region.insert("t,1".into(), 7);
        let r = rates_of(&[a, b]);
        assert_eq!(r.len(), 2);
    }
}
