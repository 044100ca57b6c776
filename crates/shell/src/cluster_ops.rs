//! Operating a cluster through etcd, for `strata cluster …` and the shell's cluster commands
//! (`move`, `assign`, `unassign`, `balancer`, `balance_switch`, decommissioning, `status`):
//! names typed by an operator are resolved against etcd first, so a typo or a dead server is a
//! clear error and changes nothing; then the request goes to the active master through etcd
//! (`request/<id>`) and its answer is awaited.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_cluster::etcd::EtcdKv;
use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::master::{parse_result, submit_request, take_result, AdminRequest};
use strata_cluster::record::RegionRecord;
use strata_cluster::status::ClusterStatus;
use strata_cluster_node::names::region_id;

/// How long a request waits for the active master's answer.
const ANSWER_WAIT: Duration = Duration::from_secs(30);

/// A cluster's etcd and keys.
pub struct ClusterOps {
    kv: EtcdKv,
    layout: Layout,
}

static SHELL_CLUSTER: OnceLock<Arc<ClusterOps>> = OnceLock::new();

/// Makes `ops` the cluster the shell's cluster commands act on (set once, by
/// `strata shell --etcd`).
pub fn set_shell_cluster(ops: ClusterOps) {
    let _ = SHELL_CLUSTER.set(Arc::new(ops));
}

/// The cluster the shell was started on, if it was started with `--etcd`.
pub fn shell_cluster() -> Option<Arc<ClusterOps>> {
    SHELL_CLUSTER.get().cloned()
}

fn millis_since_epoch() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

impl ClusterOps {
    /// Connects to `etcd` for cluster `cluster`.
    ///
    /// # Errors
    /// No etcd endpoint answered.
    pub fn connect(etcd: &[String], cluster: &str) -> Result<ClusterOps, String> {
        Ok(ClusterOps {
            kv: strata_cluster::node::connect(etcd)?,
            layout: Layout::new(&format!("/strata/{cluster}")),
        })
    }

    /// What etcd says about the cluster.
    ///
    /// # Errors
    /// etcd is unavailable.
    pub fn status(&self) -> Result<ClusterStatus, String> {
        ClusterStatus::read(&self.kv, &self.layout).map_err(|e| e.to_string())
    }

    /// The live servers' names (`host:port:startcode`).
    fn live(&self) -> Result<Vec<String>, String> {
        let prefix = self.layout.servers();
        Ok(range_all(&self.kv, &prefix, 1000)
            .map_err(|e| e.to_string())?
            .kvs
            .iter()
            .filter_map(|kv| kv.key.strip_prefix(&prefix))
            .map(str::to_string)
            .collect())
    }

    /// The live server `name` designates: `host:port:startcode`, HBase's
    /// `host,port,startcode`, or `host:port` (`host,port`) of exactly one live server.
    ///
    /// # Errors
    /// No live server (or more than one) has that name.
    pub fn resolve_server(&self, name: &str) -> Result<String, String> {
        let name = name.trim().replace(',', ":");
        let live = self.live()?;
        if live.contains(&name) {
            return Ok(name);
        }
        let matches: Vec<&String> = live
            .iter()
            .filter(|s| s.rsplit_once(':').is_some_and(|(hp, _)| hp == name))
            .collect();
        match matches.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(format!(
                "no live region server {name}; live servers: {}",
                if live.is_empty() {
                    "none".to_string()
                } else {
                    live.join(", ")
                }
            )),
            _ => Err(format!(
                "{name} matches several live servers ({}): give the start code too",
                matches
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The region `name` designates: its cluster name (`table,seq`), HBase's name
    /// (`table,start,id.encoded.`, as `list_regions` prints it) or its encoded part alone, or
    /// its numeric id (as `status 'detailed'` and clients show it).
    ///
    /// # Errors
    /// No region has that name.
    pub fn resolve_region(&self, name: &str) -> Result<String, String> {
        let name = name.trim();
        let hbase_id = match strata_hbase_rpc::region_name::parse_region_name(name.as_bytes()) {
            Ok(strata_hbase_rpc::region_name::RegionRef::User { region_id, .. })
                if name.matches(',').count() >= 2 =>
            {
                Some(region_id)
            }
            _ => None,
        };
        let encoded = (name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| name.to_ascii_lowercase());
        if hbase_id.is_some() || encoded.is_some() {
            let prefix = self.layout.regions();
            let regions = range_all(&self.kv, &prefix, 1000).map_err(|e| e.to_string())?;
            let found = regions.kvs.iter().find_map(|kv| {
                let region = kv.key.strip_prefix(&prefix)?;
                let (table, id) = region_id(region)?;
                let matches = match (&hbase_id, &encoded) {
                    (Some(wanted), _) => *wanted == id,
                    (None, Some(wanted)) => {
                        let rec = RegionRecord::decode(&kv.value).ok()?;
                        let full =
                            strata_hbase_rpc::region_name::region_name(&table, &rec.start, id);
                        full.len() > 33
                            && full[full.len() - 33..full.len() - 1] == *wanted.as_bytes()
                    }
                    (None, None) => false,
                };
                matches.then(|| region.to_string())
            });
            return found.ok_or_else(|| format!("no region {name}"));
        }
        if name.contains(',') {
            let found = self
                .kv
                .get(&self.layout.region(name))
                .map_err(|e| e.to_string())?;
            return match found {
                Some(kv) if RegionRecord::decode(&kv.value).is_ok() => Ok(name.to_string()),
                _ => Err(format!("no region {name}")),
            };
        }
        let Ok(id) = name.parse::<u64>() else {
            return Err(format!(
                "no region {name}: give its name (table,seq) or its numeric id"
            ));
        };
        let prefix = self.layout.regions();
        let regions = range_all(&self.kv, &prefix, 1000).map_err(|e| e.to_string())?;
        regions
            .kvs
            .iter()
            .filter_map(|kv| kv.key.strip_prefix(&prefix))
            .find(|r| region_id(r).is_some_and(|(_, n)| n == id))
            .map(str::to_string)
            .ok_or_else(|| format!("no region with id {id}"))
    }

    /// Leaves `req` for the active master and waits for its answer (`accepted …`).
    ///
    /// # Errors
    /// The master rejected it (the reason; nothing changed), etcd is unavailable, or no master
    /// answered within 30 s (the request stays queued for the next active master).
    pub fn request(&self, req: &AdminRequest) -> Result<String, String> {
        let id = format!("{}-{}", millis_since_epoch(), std::process::id());
        submit_request(&self.kv, &self.layout, &id, req).map_err(|e| e.to_string())?;
        let start = Instant::now();
        loop {
            if let Some(result) =
                take_result(&self.kv, &self.layout, &id).map_err(|e| e.to_string())?
            {
                return parse_result(&result).map_err(|r| r.message);
            }
            if start.elapsed() > ANSWER_WAIT {
                return Err(format!(
                    "no active master took request {id} within {} s (it stays queued)",
                    ANSWER_WAIT.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until no procedure holds `region` (its move, assign or unassign finished);
    /// returns its record.
    ///
    /// # Errors
    /// The region vanished, or it was still in transition after 30 s.
    pub fn wait_settled(&self, region: &str) -> Result<RegionRecord, String> {
        let start = Instant::now();
        loop {
            let found = self
                .kv
                .get(&self.layout.region(region))
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("region {region} was dropped"))?;
            let rec = RegionRecord::decode(&found.value).map_err(|e| e.to_string())?;
            if rec.proc.is_none() {
                return Ok(rec);
            }
            if start.elapsed() > ANSWER_WAIT {
                return Err(format!(
                    "region {region} is still in transition after {} s ({:?})",
                    ANSWER_WAIT.as_secs(),
                    rec.state
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Moves `region` (to `server` if given, else where the master picks).
    ///
    /// # Errors
    /// An unknown region or server, or the master's refusal.
    pub fn move_region(&self, region: &str, server: Option<&str>) -> Result<String, String> {
        let region = self.resolve_region(region)?;
        let target = server.map(|s| self.resolve_server(s)).transpose()?;
        self.request(&AdminRequest::Move { region, target })
    }

    /// Opens a closed region.
    ///
    /// # Errors
    /// An unknown region, or the master's refusal.
    pub fn assign(&self, region: &str) -> Result<String, String> {
        let region = self.resolve_region(region)?;
        self.request(&AdminRequest::Assign { region })
    }

    /// Closes an open region; it stays closed until assigned.
    ///
    /// # Errors
    /// An unknown region, or the master's refusal.
    pub fn unassign(&self, region: &str) -> Result<String, String> {
        let region = self.resolve_region(region)?;
        self.request(&AdminRequest::Unassign { region })
    }

    /// Runs the balancer now.
    ///
    /// # Errors
    /// The balancer is off or regions are in transition (the master's answer).
    pub fn balance(&self) -> Result<String, String> {
        self.request(&AdminRequest::Balance)
    }

    /// Sets the balancer switch; returns whether it was on.
    ///
    /// # Errors
    /// etcd or the master is unavailable.
    pub fn balance_switch(&self, on: bool) -> Result<bool, String> {
        let answer = self.request(&AdminRequest::SetBalancer { on })?;
        Ok(answer == "balancer was on")
    }

    /// Decommissions each of `servers` (drains it, assigns nothing to it).
    ///
    /// # Errors
    /// An unknown or dead server (checked for all before any is decommissioned), or the
    /// master's refusal.
    pub fn decommission(&self, servers: &[String]) -> Result<Vec<String>, String> {
        let names = servers
            .iter()
            .map(|s| self.resolve_server(s))
            .collect::<Result<Vec<_>, _>>()?;
        names
            .into_iter()
            .map(|server| self.request(&AdminRequest::Decommission { server }))
            .collect()
    }

    /// Lets decommissioned `server` take regions again.
    ///
    /// # Errors
    /// The server is not decommissioned.
    pub fn recommission(&self, server: &str) -> Result<String, String> {
        let wanted = server.trim().replace(',', ":");
        let drained = self.status()?.decommissioned;
        let server = if drained.contains(&wanted) {
            wanted
        } else {
            let matches: Vec<&String> = drained
                .iter()
                .filter(|s| s.rsplit_once(':').is_some_and(|(hp, _)| hp == wanted))
                .collect();
            match matches.as_slice() {
                [one] => (*one).clone(),
                _ => return Err(format!("{wanted} is not decommissioned")),
            }
        };
        self.request(&AdminRequest::Recommission { server })
    }
}
