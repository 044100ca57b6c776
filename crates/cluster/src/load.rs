//! Region-server load reports: each server puts `load/<server>` under its lease every few
//! seconds (one small write, so etcd's load grows by a fraction of the lease renewals), with its
//! region count and the request rate of each busy region. The balancer reads the reports in one
//! range when it weighs load; `status` shows them.
//!
//! A report is one line: `load1 <regions> <total req/s> <region>=<req/s> …` (rates in
//! thousandths of a request per second; `-` when no region is busy; region names hold no
//! space).

use std::collections::BTreeMap;

use crate::lease::Millis;
use crate::record::DecodeError;

/// One server's load, as reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerLoad {
    /// Regions open on the server.
    pub regions: u32,
    /// Requests per second over all regions, in thousandths.
    pub total_milli: u64,
    /// Requests per second of each region that served any, in thousandths.
    pub per_region: BTreeMap<String, u64>,
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
                .map(|(r, m)| format!("{r}={m}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!("load1 {} {} {regions}", self.regions, self.total_milli).into_bytes()
    }

    /// Decodes a report.
    ///
    /// # Errors
    /// Not a load report.
    pub fn decode(bytes: &[u8]) -> Result<ServerLoad, DecodeError> {
        let bad = |d: &str| DecodeError::new("load", d);
        let text = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8"))?;
        let f: Vec<&str> = text.split(' ').collect();
        let ["load1", regions, total, list @ ..] = f.as_slice() else {
            return Err(bad(text));
        };
        let mut per_region = BTreeMap::new();
        if list != ["-"] {
            for item in list {
                let (r, m) = item.rsplit_once('=').ok_or_else(|| bad(item))?;
                per_region.insert(r.to_string(), m.parse().map_err(|_| bad(item))?);
            }
        }
        Ok(ServerLoad {
            regions: regions.parse().map_err(|_| bad(regions))?,
            total_milli: total.parse().map_err(|_| bad(total))?,
            per_region,
        })
    }
}

/// Turns cumulative per-region request counters into rates between two reports.
#[derive(Debug, Default)]
pub struct LoadMeter {
    last: Option<(Millis, BTreeMap<String, u64>)>,
}

impl LoadMeter {
    /// The load since the previous call, given the counters now and the open region count;
    /// the first call reports every rate as 0. A counter that went down (the region was closed
    /// and reopened) counts from zero.
    pub fn report(&mut self, now: Millis, regions: u32, counters: &[(String, u64)]) -> ServerLoad {
        let current: BTreeMap<String, u64> = counters.iter().cloned().collect();
        let mut load = ServerLoad {
            regions,
            ..ServerLoad::default()
        };
        if let Some((then, before)) = &self.last {
            let elapsed = now.saturating_sub(*then).max(1);
            for (region, n) in &current {
                let prev = before.get(region).copied().unwrap_or(0);
                let delta = if *n >= prev { n - prev } else { *n };
                let milli = delta.saturating_mul(1_000_000) / elapsed;
                if milli > 0 {
                    load.per_region.insert(region.clone(), milli);
                    load.total_milli += milli;
                }
            }
        }
        self.last = Some((now, current));
        load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_round_trip() {
        let mut l = ServerLoad {
            regions: 3,
            total_milli: 2500,
            per_region: BTreeMap::new(),
        };
        assert_eq!(ServerLoad::decode(&l.encode()).unwrap(), l);
        l.per_region.insert("t,00000001".into(), 2000);
        l.per_region.insert("ns:u,0000000a".into(), 500);
        assert_eq!(ServerLoad::decode(&l.encode()).unwrap(), l);
        assert!(ServerLoad::decode(b"load1 x 0 -").is_err());
        assert!(ServerLoad::decode(b"load2 1 0 -").is_err());
    }

    #[test]
    fn meter_turns_counters_into_rates() {
        let mut m = LoadMeter::default();
        let first = m.report(1000, 2, &[("a,0".into(), 50), ("b,0".into(), 7)]);
        assert_eq!(first.total_milli, 0, "no rate before a second sample");
        let second = m.report(3000, 2, &[("a,0".into(), 250), ("b,0".into(), 7)]);
        assert_eq!(second.per_region.get("a,0"), Some(&100_000), "200 in 2 s");
        assert_eq!(
            second.per_region.get("b,0"),
            None,
            "idle regions are left out"
        );
        assert_eq!(second.total_milli, 100_000);
        let third = m.report(4000, 1, &[("a,0".into(), 10)]);
        assert_eq!(
            third.per_region.get("a,0"),
            Some(&10_000),
            "reopened: from zero"
        );
    }
}
