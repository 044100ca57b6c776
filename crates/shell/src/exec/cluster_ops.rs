//! Region placement (`move`, `assign`, `unassign`, `balancer`, `balance_switch`,
//! `balancer_enabled`, decommissioning) through the admin service, on a standalone server and
//! a cluster alike: the server resolves the names given, so an unknown region or a dead server
//! is an error that changes nothing, and `move`, `assign` and `unassign` answer once the
//! region's procedure finished. `status` in cluster mode (`strata shell --etcd … --cluster …`)
//! reads etcd (see `crate::cluster_ops`).

use std::io::Write;
use std::sync::Arc;

use strata_client::{Connection, RegionPlacement};
use strata_cluster::status::ClusterStatus;

use super::ExecError;
use crate::cluster_ops::ClusterOps;
use crate::command::ClusterOp;
use crate::StatusDetail;

/// Runs blocking etcd work off the async executor.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, ExecError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ExecError::Rejected(e.to_string()))?
        .map_err(ExecError::Rejected)
}

/// Runs `op` through the admin service.
pub(super) async fn run(
    conn: &Connection,
    op: ClusterOp,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    match op {
        ClusterOp::Move { region, server } => {
            let placed = admin.move_region(&region, server.as_deref()).await?;
            where_now(out, &placed)?;
        }
        ClusterOp::Assign(region) => where_now(out, &admin.assign(&region).await?)?,
        ClusterOp::Unassign(region) => where_now(out, &admin.unassign(&region).await?)?,
        ClusterOp::Balance => {
            // HBase's shell prints whether the balancer ran; so does this, with why.
            let outcome = admin.balance().await?;
            writeln!(out, "{} ({})", outcome.ran, outcome.message)?;
        }
        ClusterOp::BalanceSwitch(on) => {
            let was = admin.set_switch("balancer", on).await?;
            writeln!(out, "Previous balancer state : {was}")?;
        }
        ClusterOp::BalancerEnabled => {
            writeln!(out, "{}", admin.switch_enabled("balancer").await?)?;
        }
        ClusterOp::Decommission(servers) => {
            for s in admin.decommission(&servers).await? {
                writeln!(out, "{s} is decommissioned")?;
            }
        }
        ClusterOp::Recommission(server) => {
            for s in admin.recommission(&[server]).await? {
                writeln!(out, "{s} is recommissioned")?;
            }
        }
        ClusterOp::ListDecommissioned => {
            let servers = admin.decommissioned().await?;
            writeln!(out, "DECOMMISSIONED REGION SERVERS")?;
            for s in &servers {
                writeln!(out, " {s}")?;
            }
            writeln!(out, "{} row(s)", servers.len())?;
        }
    }
    Ok(())
}

fn where_now(out: &mut impl Write, placed: &RegionPlacement) -> Result<(), ExecError> {
    match &placed.server {
        Some(s) => writeln!(out, "region {} is open on {s}", placed.region)?,
        None => writeln!(out, "region {} is {}", placed.region, placed.state)?,
    }
    Ok(())
}

/// `status` in cluster mode, from etcd, in HBase's three forms: `summary` (the default) one
/// line of counts; `simple` the masters, live servers with their region counts and request
/// rates, dead servers and the aggregate load; `detailed` the regions in transition, each
/// server's regions and the decommissioned servers too.
pub(super) async fn status(
    ops: Arc<ClusterOps>,
    detail: StatusDetail,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let s = blocking(move || ops.status()).await?;
    write_status(&s, detail, out)
}

fn write_status(
    s: &ClusterStatus,
    detail: StatusDetail,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let servers = s.servers.len();
    let regions: usize = s.regions_by_server.values().sum();
    // Precision loss is harmless: an average for display.
    let average = regions as f64 / servers.max(1) as f64;
    let masters = s.masters.len();
    if detail == StatusDetail::Summary {
        writeln!(
            out,
            "{} active master, {} backup masters, {servers} servers, {} dead, {average:.4} \
             average load",
            usize::from(masters > 0),
            masters.saturating_sub(1),
            s.dead.len()
        )?;
        return Ok(());
    }
    if detail == StatusDetail::Detailed {
        writeln!(out, "{} regionsInTransition", s.procedures.len())?;
    }
    if let Some((active, backups)) = s.masters.split_first() {
        writeln!(out, "active master:  {active}")?;
        writeln!(out, "{} backup masters", backups.len())?;
        for b in backups {
            writeln!(out, "    {b}")?;
        }
    }
    let balancer = match s.balancer {
        Some(false) => "off",
        _ => "on",
    };
    writeln!(out, "balancer: {balancer}")?;
    writeln!(out, "{servers} live servers")?;
    for server in &s.servers {
        let load = s.loads.get(server);
        let rps = load.map_or(0.0, |l| l.requests_per_sec());
        let n = s.regions_by_server.get(server).copied().unwrap_or(0);
        let drained = if s.decommissioned.contains(server) {
            " (decommissioned)"
        } else {
            ""
        };
        writeln!(out, "    {server}{drained}")?;
        writeln!(
            out,
            "        requestsPerSecond={rps:.1}, numberOfOnlineRegions={n}"
        )?;
        if detail == StatusDetail::Detailed {
            if let Some(l) = load {
                for (region, milli) in &l.per_region {
                    // Precision loss is harmless: a rate for display.
                    let r = *milli as f64 / 1000.0;
                    writeln!(out, "        \"{region}\"")?;
                    writeln!(out, "            requestsPerSecond={r:.1}")?;
                }
            }
        }
    }
    writeln!(out, "{} dead servers", s.dead.len())?;
    for d in &s.dead {
        writeln!(out, "    {d}")?;
    }
    if detail == StatusDetail::Simple {
        let rps: f64 = s.loads.values().map(|l| l.requests_per_sec()).sum();
        writeln!(out, "Aggregate load: {rps:.0}, regions: {regions}")?;
    }
    if detail == StatusDetail::Detailed {
        writeln!(out, "{} decommissioned servers", s.decommissioned.len())?;
        for d in &s.decommissioned {
            writeln!(out, "    {d}")?;
        }
        for (id, p) in &s.procedures {
            writeln!(out, "procedure {id}: {p:?}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_cluster::load::ServerLoad;

    #[test]
    fn status_lists_live_dead_and_load() {
        let mut s = ClusterStatus {
            masters: vec!["m1:16000".into(), "m2:16000".into()],
            servers: vec!["h:1:5".into(), "h:2:6".into()],
            dead: vec!["h:3:4".into()],
            decommissioned: vec!["h:2:6".into()],
            ..ClusterStatus::default()
        };
        s.regions_by_server.insert("h:1:5".into(), 3);
        let mut load = ServerLoad {
            regions: 3,
            total_milli: 12_500,
            ..ServerLoad::default()
        };
        load.per_region.insert("t,00000001".into(), 12_500);
        s.loads.insert("h:1:5".into(), load);
        let mut out = Vec::new();
        write_status(&s, StatusDetail::Summary, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "1 active master, 1 backup masters, 2 servers, 1 dead, 1.5000 average load\n"
        );
        let mut out = Vec::new();
        write_status(&s, StatusDetail::Simple, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("active master:  m1:16000\n"), "{text}");
        assert!(
            text.ends_with("\nAggregate load: 12, regions: 3\n"),
            "{text}"
        );
        assert!(!text.contains("regionsInTransition"), "{text}");
        let mut out = Vec::new();
        write_status(&s, StatusDetail::Detailed, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for want in [
            "    h:1:5\n        requestsPerSecond=12.5, numberOfOnlineRegions=3",
            "    h:2:6 (decommissioned)",
            "\"t,00000001\"\n            requestsPerSecond=12.5",
            "1 dead servers\n    h:3:4",
            "active master:  m1:16000",
        ] {
            assert!(text.contains(want), "{want:?} missing from:\n{text}");
        }
    }
}
