//! Operating a cluster through etcd, for `strata cluster …` and the shell's `status` in
//! cluster mode: names typed by an operator are resolved against etcd first (by
//! `strata_cluster_node::placement`, as the admin service resolves them), so a typo or a dead
//! server is a clear error and changes nothing; then the request goes to the active master
//! through etcd (`request/<id>`) and its answer is awaited.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_cluster::etcd::EtcdKv;
use strata_cluster::layout::Layout;
use strata_cluster::master::{parse_result, submit_request, take_result, AdminRequest};
use strata_cluster::record::RegionRecord;
use strata_cluster::status::ClusterStatus;
use strata_cluster_node::placement;

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

    /// The live server `name` designates: `host:port:startcode`, HBase's
    /// `host,port,startcode`, or `host:port` (`host,port`) of exactly one live server.
    ///
    /// # Errors
    /// No live server (or more than one) has that name.
    pub fn resolve_server(&self, name: &str) -> Result<String, String> {
        placement::resolve_server(&self.kv, &self.layout, name).map_err(|s| s.message().into())
    }

    /// The region `name` designates: its cluster name (`table,seq`), HBase's name
    /// (`table,start,id.encoded.`, as `list_regions` prints it) or its encoded part alone, or
    /// its numeric id (as `status 'detailed'` and clients show it).
    ///
    /// # Errors
    /// No region has that name.
    pub fn resolve_region(&self, name: &str) -> Result<String, String> {
        placement::resolve_region(&self.kv, &self.layout, name).map_err(|s| s.message().into())
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
    /// The region vanished, or it was still in transition.
    pub fn wait_settled(&self, region: &str) -> Result<RegionRecord, String> {
        placement::wait_settled(&self.kv, &self.layout, region).map_err(|s| s.message().into())
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
        placement::recommission(&self.kv, &self.layout, &[server.to_string()])
            .map(|r| format!("{} is recommissioned", r.servers.join(", ")))
            .map_err(|s| s.message().into())
    }
}
