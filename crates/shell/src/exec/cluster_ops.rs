//! Cluster operations and `status` in cluster mode (`strata shell --etcd … --cluster …`): run
//! through etcd by the active master (see `crate::cluster_ops`). Each command resolves the
//! names it is given first, so an unknown region or a dead server is an error that changes
//! nothing; `move`, `assign` and `unassign` wait until the region's procedure finished.

use std::io::Write;
use std::sync::Arc;

use strata_cluster::record::RegionState;
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

fn not_cluster() -> ExecError {
    ExecError::Rejected(
        "this command needs cluster mode: start the shell with --etcd HOST:PORT --cluster NAME"
            .to_string(),
    )
}

/// Runs `op` on the shell's cluster.
pub(super) async fn run(
    cluster: Option<Arc<ClusterOps>>,
    op: ClusterOp,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let ops = cluster.ok_or_else(not_cluster)?;
    match op {
        ClusterOp::Move { region, server } => {
            let rec = blocking(move || {
                let name = ops.resolve_region(&region)?;
                ops.move_region(&name, server.as_deref())?;
                ops.wait_settled(&name).map(|r| (name, r))
            })
            .await?;
            where_now(out, &rec.0, &rec.1)?;
        }
        ClusterOp::Assign(region) => {
            let rec = blocking(move || {
                let name = ops.resolve_region(&region)?;
                ops.assign(&name)?;
                ops.wait_settled(&name).map(|r| (name, r))
            })
            .await?;
            where_now(out, &rec.0, &rec.1)?;
        }
        ClusterOp::Unassign(region) => {
            let rec = blocking(move || {
                let name = ops.resolve_region(&region)?;
                ops.unassign(&name)?;
                ops.wait_settled(&name).map(|r| (name, r))
            })
            .await?;
            where_now(out, &rec.0, &rec.1)?;
        }
        ClusterOp::Balance => {
            let answer = blocking(move || ops.balance()).await?;
            writeln!(out, "true ({answer})")?;
        }
        ClusterOp::BalanceSwitch(on) => {
            let was = blocking(move || ops.balance_switch(on)).await?;
            writeln!(out, "Previous balancer state : {was}")?;
        }
        ClusterOp::Decommission(servers) => {
            let answers = blocking(move || ops.decommission(&servers)).await?;
            for a in answers {
                writeln!(out, "{a}")?;
            }
        }
        ClusterOp::Recommission(server) => {
            let answer = blocking(move || ops.recommission(&server)).await?;
            writeln!(out, "{answer}")?;
        }
        ClusterOp::ListDecommissioned => {
            let status = blocking(move || ops.status()).await?;
            writeln!(out, "DECOMMISSIONED REGION SERVERS")?;
            for s in &status.decommissioned {
                writeln!(out, " {s}")?;
            }
            writeln!(out, "{} row(s)", status.decommissioned.len())?;
        }
    }
    Ok(())
}

fn where_now(
    out: &mut impl Write,
    region: &str,
    rec: &strata_cluster::record::RegionRecord,
) -> Result<(), ExecError> {
    match (rec.state, &rec.server) {
        (RegionState::Open, Some(s)) => writeln!(out, "region {region} is open on {s}")?,
        (state, _) => writeln!(
            out,
            "region {region} is {}",
            format!("{state:?}").to_lowercase()
        )?,
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
