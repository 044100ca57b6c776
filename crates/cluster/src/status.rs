//! A read-only view of a cluster straight from etcd, for operators (`strata cluster status`).

use std::collections::BTreeMap;
use std::fmt;

use crate::kv::{range_all, Kv, KvResult};
use crate::layout::Layout;
use crate::load::ServerLoad;
use crate::record::{Procedure, RegionRecord, RegionState, TableRecord, TableState};

/// What etcd says about a cluster.
#[derive(Debug, Clone, Default)]
pub struct ClusterStatus {
    /// Master addresses in election order (the first is active).
    pub masters: Vec<String>,
    /// Registered region servers.
    pub servers: Vec<String>,
    /// Tables with their state and number of regions.
    pub tables: Vec<(String, TableState, u32)>,
    /// Regions per state.
    pub regions_by_state: BTreeMap<String, usize>,
    /// Open regions per server.
    pub regions_by_server: BTreeMap<String, usize>,
    /// Procedures in progress.
    pub procedures: Vec<(String, Procedure)>,
    /// The live servers' last load reports.
    pub loads: BTreeMap<String, ServerLoad>,
    /// Dead servers: crashes recovered or in recovery, until the host:port registers again.
    pub dead: Vec<String>,
    /// Decommissioned servers.
    pub decommissioned: Vec<String>,
    /// The balancer switch, if an operator set it (else each master's configured default).
    pub balancer: Option<bool>,
}

impl ClusterStatus {
    /// Reads the cluster under `layout` (in pages of 1,000 keys).
    ///
    /// # Errors
    /// The store is unavailable.
    pub fn read<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> KvResult<ClusterStatus> {
        let mut s = ClusterStatus::default();
        let mut masters = range_all(kv, &layout.election(), 1000)?.kvs;
        masters.sort_by_key(|m| m.create_revision);
        s.masters = masters
            .into_iter()
            .map(|m| String::from_utf8_lossy(&m.value).into_owned())
            .collect();
        let servers = layout.servers();
        s.servers = range_all(kv, &servers, 1000)?
            .kvs
            .iter()
            .filter_map(|k| k.key.strip_prefix(&servers))
            .map(str::to_string)
            .collect();
        let tables = layout.tables();
        for kv in range_all(kv, &tables, 1000)?.kvs {
            if let (Some(name), Ok(rec)) =
                (kv.key.strip_prefix(&tables), TableRecord::decode(&kv.value))
            {
                s.tables.push((name.to_string(), rec.state, rec.regions()));
            }
        }
        for kv in range_all(kv, &layout.regions(), 1000)?.kvs {
            let Ok(rec) = RegionRecord::decode(&kv.value) else {
                continue;
            };
            *s.regions_by_state
                .entry(format!("{:?}", rec.state).to_lowercase())
                .or_default() += 1;
            if let (RegionState::Open, Some(server)) = (rec.state, rec.server) {
                *s.regions_by_server.entry(server).or_default() += 1;
            }
        }
        let procs = layout.procs();
        for kv in range_all(kv, &procs, 1000)?.kvs {
            if let (Some(id), Ok(p)) = (kv.key.strip_prefix(&procs), Procedure::decode(&kv.value)) {
                s.procedures.push((id.to_string(), p));
            }
        }
        let loads = layout.loads();
        for kv in range_all(kv, &loads, 1000)?.kvs {
            if let (Some(server), Ok(l)) =
                (kv.key.strip_prefix(&loads), ServerLoad::decode(&kv.value))
            {
                s.loads.insert(server.to_string(), l);
            }
        }
        let names = |prefix: String| -> KvResult<Vec<String>> {
            Ok(range_all(kv, &prefix, 1000)?
                .kvs
                .iter()
                .filter_map(|k| k.key.strip_prefix(&prefix))
                .map(str::to_string)
                .collect())
        };
        s.dead = names(layout.deads())?;
        for (_, p) in &s.procedures {
            if let Procedure::ServerCrash { server, .. } = p {
                if !s.dead.contains(server) {
                    s.dead.push(server.clone());
                }
            }
        }
        s.decommissioned = names(layout.drains())?;
        s.balancer = kv.get(&layout.balancer_switch())?.map(|v| v.value == b"on");
        Ok(s)
    }
}

impl ClusterStatus {
    /// Regions recorded open on servers that are no longer registered.
    pub fn open_on_dead_servers(&self) -> usize {
        self.regions_by_server
            .iter()
            .filter(|(s, _)| !self.servers.contains(s))
            .map(|(_, n)| n)
            .sum()
    }

    /// Whether every region is open on a live server and nothing is in transition.
    pub fn settled(&self) -> bool {
        self.procedures.is_empty()
            && self.open_on_dead_servers() == 0
            && self
                .regions_by_state
                .keys()
                .all(|s| s == "open" || s == "closed")
    }
}

impl fmt::Display for ClusterStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.masters.split_first() {
            Some((active, standby)) => writeln!(
                f,
                "active master: {active}; standing by: {}",
                standby.join(", ")
            )?,
            None => writeln!(f, "no master")?,
        }
        writeln!(f, "{} live region servers", self.servers.len())?;
        for s in &self.servers {
            let load = self.loads.get(s).map_or_else(
                || "no load report yet".to_string(),
                |l| format!("{:.1} requests/s", l.requests_per_sec()),
            );
            let drained = if self.decommissioned.contains(s) {
                ", decommissioned"
            } else {
                ""
            };
            writeln!(
                f,
                "  {s}: {} regions open, {load}{drained}",
                self.regions_by_server.get(s).copied().unwrap_or(0)
            )?;
        }
        writeln!(f, "{} dead region servers", self.dead.len())?;
        for s in &self.dead {
            writeln!(f, "  {s}")?;
        }
        writeln!(
            f,
            "balancer: {}",
            match self.balancer {
                Some(true) => "on",
                Some(false) => "off",
                None => "default (on unless a master runs with it off)",
            }
        )?;
        writeln!(f, "{} tables", self.tables.len())?;
        for (t, state, n) in &self.tables {
            writeln!(f, "  {t}: {state:?}, {n} regions")?;
        }
        let states: Vec<String> = self
            .regions_by_state
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        writeln!(
            f,
            "regions: {}",
            if states.is_empty() {
                "none".into()
            } else {
                states.join(", ")
            }
        )?;
        writeln!(
            f,
            "{} procedures in progress{}",
            self.procedures.len(),
            if self.settled() { "; settled" } else { "" }
        )?;
        for (id, p) in self.procedures.iter().take(20) {
            writeln!(f, "  {id}: {p:?}")?;
        }
        Ok(())
    }
}
