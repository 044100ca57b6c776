//! Region-server load reports: each server puts `load/<server>` under its lease every few
//! seconds (one small write, so etcd's load grows by a fraction of the lease renewals), with its
//! region count, the request rate of each busy region and that region's reads and writes in the
//! interval the report covers. The balancer reads the reports in one range when it weighs load;
//! `status` shows them; the masters' key-access heatmap adds up their counts.
//!
//! A report is one line: `load2 <regions> <total req/s> <interval ms> <region>=<req/s>:<reads>:<writes> …`
//! (rates in thousandths of a request per second; `-` when no region is busy; region names
//! hold no space). At most [`MAX_REPORTED_REGIONS`] regions are listed, the busiest ones, so a
//! report stays under about 10 KB whatever the server holds; the total counts every region.
//! `load1 <regions> <total> <region>=<req/s> …` (no counts) is still read.

use std::collections::BTreeMap;

use crate::lease::Millis;
use crate::record::DecodeError;

/// Most regions one report lists (the busiest; the others count in the total only).
pub const MAX_REPORTED_REGIONS: usize = 256;

/// Requests one region served: cumulative counters, or the difference over an interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Accesses {
    /// Reads (gets and scanned rows' requests).
    pub reads: u64,
    /// Writes (mutations).
    pub writes: u64,
}

impl Accesses {
    /// Reads and writes.
    pub fn total(&self) -> u64 {
        self.reads.saturating_add(self.writes)
    }
}

/// One server's load, as reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerLoad {
    /// Regions open on the server.
    pub regions: u32,
    /// Requests per second over all regions, in thousandths.
    pub total_milli: u64,
    /// Requests per second of each region that served any, in thousandths.
    pub per_region: BTreeMap<String, u64>,
    /// The interval the report covers, ms (0: unknown, a `load1` report or the first one).
    pub interval_ms: u64,
    /// Reads and writes of each listed region over the interval.
    pub counts: BTreeMap<String, Accesses>,
}

impl ServerLoad {
    /// Requests per second over all regions.
    pub fn requests_per_sec(&self) -> f64 {
        // Precision loss is harmless: a rate for display.
        self.total_milli as f64 / 1000.0
    }

    /// Encodes the report.
    pub fn encode(&self) -> Vec<u8> {
        let regions = if self.per_region.is_empty() {
            "-".to_string()
        } else {
            self.per_region
                .iter()
                .map(|(r, m)| {
                    let c = self.counts.get(r).copied().unwrap_or_default();
                    format!("{r}={m}:{}:{}", c.reads, c.writes)
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "load2 {} {} {} {regions}",
            self.regions, self.total_milli, self.interval_ms
        )
        .into_bytes()
    }

    /// Decodes a report.
    ///
    /// # Errors
    /// Not a load report.
    pub fn decode(bytes: &[u8]) -> Result<ServerLoad, DecodeError> {
        let bad = |d: &str| DecodeError::new("load", d);
        let text = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8"))?;
        let f: Vec<&str> = text.split(' ').collect();
        let (regions, total, interval, list) = match f.as_slice() {
            ["load1", regions, total, list @ ..] => (*regions, *total, "0", list),
            ["load2", regions, total, interval, list @ ..] => (*regions, *total, *interval, list),
            _ => return Err(bad(text)),
        };
        let number = |s: &str| s.parse::<u64>().map_err(|_| bad(s));
        let mut load = ServerLoad {
            regions: regions.parse().map_err(|_| bad(regions))?,
            total_milli: number(total)?,
            interval_ms: number(interval)?,
            ..ServerLoad::default()
        };
        if list != ["-"] {
            for item in list {
                let (r, value) = item.rsplit_once('=').ok_or_else(|| bad(item))?;
                let mut parts = value.split(':');
                let milli = number(parts.next().unwrap_or_default())?;
                match (parts.next(), parts.next(), parts.next()) {
                    (None, None, None) => {}
                    (Some(reads), Some(writes), None) => {
                        let c = Accesses {
                            reads: number(reads)?,
                            writes: number(writes)?,
                        };
                        load.counts.insert(r.to_string(), c);
                    }
                    _ => return Err(bad(item)),
                }
                load.per_region.insert(r.to_string(), milli);
            }
        }
        Ok(load)
    }
}

/// Turns cumulative per-region request counters into rates and counts between two reports.
#[derive(Debug, Default)]
pub struct LoadMeter {
    last: Option<(Millis, BTreeMap<String, Accesses>)>,
}

impl LoadMeter {
    /// The load since the previous call, given the counters now and the open region count;
    /// the first call reports every rate as 0. A counter that went down (the region was closed
    /// and reopened) counts from zero. Lists the [`MAX_REPORTED_REGIONS`] busiest regions.
    pub fn report(
        &mut self,
        now: Millis,
        regions: u32,
        counters: &[(String, Accesses)],
    ) -> ServerLoad {
        let current: BTreeMap<String, Accesses> = counters.iter().cloned().collect();
        let mut load = ServerLoad {
            regions,
            ..ServerLoad::default()
        };
        if let Some((then, before)) = &self.last {
            let elapsed = now.saturating_sub(*then).max(1);
            load.interval_ms = elapsed;
            let since = |n: u64, prev: u64| if n >= prev { n - prev } else { n };
            let mut busy: Vec<(u64, &String, Accesses)> = Vec::new();
            for (region, n) in &current {
                let prev = before.get(region).copied().unwrap_or_default();
                let delta = Accesses {
                    reads: since(n.reads, prev.reads),
                    writes: since(n.writes, prev.writes),
                };
                let milli = delta.total().saturating_mul(1_000_000) / elapsed;
                if milli > 0 {
                    load.total_milli += milli;
                    busy.push((milli, region, delta));
                }
            }
            if busy.len() > MAX_REPORTED_REGIONS {
                busy.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
                busy.truncate(MAX_REPORTED_REGIONS);
            }
            for (milli, region, delta) in busy {
                load.per_region.insert(region.clone(), milli);
                load.counts.insert(region.clone(), delta);
            }
        }
        self.last = Some((now, current));
        load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(reads: u64, writes: u64) -> Accesses {
        Accesses { reads, writes }
    }

    #[test]
    fn reports_round_trip() {
        let mut l = ServerLoad {
            regions: 3,
            total_milli: 2500,
            interval_ms: 5000,
            ..ServerLoad::default()
        };
        assert_eq!(ServerLoad::decode(&l.encode()).unwrap(), l);
        l.per_region.insert("t,00000001".into(), 2000);
        l.counts.insert("t,00000001".into(), a(4, 6));
        l.per_region.insert("ns:u,0000000a".into(), 500);
        l.counts.insert("ns:u,0000000a".into(), a(0, 2));
        assert_eq!(ServerLoad::decode(&l.encode()).unwrap(), l);
        assert!(ServerLoad::decode(b"load1 x 0 -").is_err());
        assert!(ServerLoad::decode(b"load3 1 0 -").is_err());
        assert!(ServerLoad::decode(b"load2 1 5 5000 t,1=5:1").is_err());
        assert!(ServerLoad::decode(b"load2 1 5 5000 t,1=5:1:x").is_err());
    }

    #[test]
    fn first_format_reports_are_still_read() {
        let old = ServerLoad::decode(b"load1 2 1500 t,00000001=1500").unwrap();
        assert_eq!(old.per_region.get("t,00000001"), Some(&1500));
        assert!(old.counts.is_empty());
        assert_eq!(old.interval_ms, 0);
    }

    #[test]
    fn meter_turns_counters_into_rates_and_counts() {
        let mut m = LoadMeter::default();
        let first = m.report(
            1000,
            2,
            &[("a,0".into(), a(20, 30)), ("b,0".into(), a(7, 0))],
        );
        assert_eq!(first.total_milli, 0, "no rate before a second sample");
        let second = m.report(
            3000,
            2,
            &[("a,0".into(), a(120, 130)), ("b,0".into(), a(7, 0))],
        );
        assert_eq!(second.per_region.get("a,0"), Some(&100_000), "200 in 2 s");
        assert_eq!(second.counts.get("a,0"), Some(&a(100, 100)));
        assert_eq!(second.interval_ms, 2000);
        assert_eq!(
            second.per_region.get("b,0"),
            None,
            "idle regions are left out"
        );
        assert_eq!(second.total_milli, 100_000);
        let third = m.report(4000, 1, &[("a,0".into(), a(4, 6))]);
        assert_eq!(
            third.per_region.get("a,0"),
            Some(&10_000),
            "reopened: from zero"
        );
        assert_eq!(third.counts.get("a,0"), Some(&a(4, 6)));
    }

    #[test]
    fn a_report_lists_only_the_busiest_regions() {
        let mut m = LoadMeter::default();
        let n = MAX_REPORTED_REGIONS + 50;
        let zero: Vec<(String, Accesses)> =
            (0..n).map(|i| (format!("t,{i:08}"), a(0, 0))).collect();
        m.report(0, 1, &zero);
        let busy: Vec<(String, Accesses)> = (0..n)
            .map(|i| (format!("t,{i:08}"), a(0, i as u64 + 1)))
            .collect();
        let load = m.report(1000, 1, &busy);
        assert_eq!(load.per_region.len(), MAX_REPORTED_REGIONS);
        assert!(
            !load.per_region.contains_key("t,00000000"),
            "the idlest is left out"
        );
        assert!(load.per_region.contains_key(&format!("t,{:08}", n - 1)));
        let all: u64 = (1..=n as u64).sum::<u64>() * 1000;
        assert_eq!(load.total_milli, all, "the total counts every region");
        assert!(
            load.encode().len() < 10_000,
            "{} bytes",
            load.encode().len()
        );
    }
}
