//! Region placement through the admin service (HBase's `move`, `assign`, `unassign`,
//! `balancer`, `decommission_regionservers`, `recommission_regionserver`,
//! `list_decommissioned_regionservers`), written once for every front end: the gRPC admin
//! service, HBase RPC (through it) and the shell (through the Rust client). Names typed by an
//! operator are resolved against the coordination store first, so a typo or a dead server is
//! a clear error that changes nothing; then the request goes to the active master
//! (`request/<id>`), and a region's move, assign or unassign is awaited until its procedure
//! finished.

use std::time::Instant;

use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::master::AdminRequest;
use strata_cluster::record::{RegionRecord, RegionState};
use strata_hbase_rpc::region_name::{parse_region_name, region_name, RegionRef};
use strata_proto::pb::{self, ErrorCode};
use tonic::Status;

use crate::admin::{submit_and_wait, unavailable, ADMIN_WAIT};
use crate::admin_path::Poll;
use crate::names::region_id;

fn invalid(message: String) -> Status {
    strata_server::status::invalid(message)
}

fn no_region(message: String) -> Status {
    strata_proto::status(ErrorCode::RegionNotFound, message)
}

/// The live servers' names (`host:port:startcode`).
fn live<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> Result<Vec<String>, Status> {
    let prefix = layout.servers();
    Ok(range_all(kv, &prefix, 1000)
        .map_err(unavailable)?
        .kvs
        .iter()
        .filter_map(|kv| kv.key.strip_prefix(&prefix))
        .map(str::to_string)
        .collect())
}

/// The one name of `names` that `name` designates: the full `host:port:startcode` (or HBase's
/// `host,port,startcode`), or the `host:port` of exactly one.
fn pick(names: &[String], name: &str) -> Result<String, Vec<String>> {
    let name = name.trim().replace(',', ":");
    if names.contains(&name) {
        return Ok(name);
    }
    let matches: Vec<String> = names
        .iter()
        .filter(|s| s.rsplit_once(':').is_some_and(|(hp, _)| hp == name))
        .cloned()
        .collect();
    match <[String; 1]>::try_from(matches) {
        Ok([one]) => Ok(one),
        Err(several) => Err(several),
    }
}

/// The live server `name` designates: `host:port:startcode`, HBase's `host,port,startcode`,
/// or `host:port` (`host,port`) of exactly one live server.
///
/// # Errors
/// `INVALID_ARGUMENT`: no live server (or more than one) has that name.
pub fn resolve_server<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    name: &str,
) -> Result<String, Status> {
    let live = live(kv, layout)?;
    pick(&live, name).map_err(|several| {
        let name = name.trim().replace(',', ":");
        if several.is_empty() {
            invalid(format!(
                "no live region server {name}; live servers: {}",
                if live.is_empty() {
                    "none".to_string()
                } else {
                    live.join(", ")
                }
            ))
        } else {
            invalid(format!(
                "{name} matches several live servers ({}): give the start code too",
                several.join(", ")
            ))
        }
    })
}

/// The region `name` designates: its cluster name (`table,seq`), HBase's name
/// (`table,start,id.encoded.`, as `list_regions` prints it) or its encoded part alone, or its
/// numeric id (as `status 'detailed'` and clients show it).
///
/// # Errors
/// `REGION_NOT_FOUND`: no region has that name.
pub fn resolve_region<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    name: &str,
) -> Result<String, Status> {
    let name = name.trim();
    let hbase_id = match parse_region_name(name.as_bytes()) {
        Ok(RegionRef::User { region_id, .. }) if name.matches(',').count() >= 2 => Some(region_id),
        _ => None,
    };
    let encoded = (name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| name.to_ascii_lowercase());
    let prefix = layout.regions();
    if hbase_id.is_some() || encoded.is_some() {
        let regions = range_all(kv, &prefix, 1000).map_err(unavailable)?;
        let found = regions.kvs.iter().find_map(|kv| {
            let region = kv.key.strip_prefix(&prefix)?;
            let (table, id) = region_id(region)?;
            let matches = match (&hbase_id, &encoded) {
                (Some(wanted), _) => *wanted == id,
                (None, Some(wanted)) => {
                    let rec = RegionRecord::decode(&kv.value).ok()?;
                    let full = region_name(&table, &rec.start, id);
                    full.len() > 33 && full[full.len() - 33..full.len() - 1] == *wanted.as_bytes()
                }
                (None, None) => false,
            };
            matches.then(|| region.to_string())
        });
        return found.ok_or_else(|| no_region(format!("no region {name}")));
    }
    if name.contains(',') {
        let found = kv.get(&layout.region(name)).map_err(unavailable)?;
        return match found {
            Some(kv) if RegionRecord::decode(&kv.value).is_ok() => Ok(name.to_string()),
            _ => Err(no_region(format!("no region {name}"))),
        };
    }
    let Ok(id) = name.parse::<u64>() else {
        return Err(no_region(format!(
            "no region {name}: give its name (table,seq) or its numeric id"
        )));
    };
    let regions = range_all(kv, &prefix, 1000).map_err(unavailable)?;
    regions
        .kvs
        .iter()
        .filter_map(|kv| kv.key.strip_prefix(&prefix))
        .find(|r| region_id(r).is_some_and(|(_, n)| n == id))
        .map(str::to_string)
        .ok_or_else(|| no_region(format!("no region with id {id}")))
}

/// Waits until no procedure holds `region` (its move, assign or unassign finished); returns
/// its record.
///
/// # Errors
/// The region vanished, or it was still in transition after the admin wait.
pub fn wait_settled<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    region: &str,
) -> Result<RegionRecord, Status> {
    let start = Instant::now();
    let mut poll = Poll::new();
    loop {
        let found = kv
            .get(&layout.region(region))
            .map_err(unavailable)?
            .ok_or_else(|| no_region(format!("region {region} was dropped")))?;
        let rec = RegionRecord::decode(&found.value).map_err(unavailable)?;
        if rec.proc.is_none() {
            return Ok(rec);
        }
        if start.elapsed() > ADMIN_WAIT {
            return Err(strata_proto::status(
                ErrorCode::Unavailable,
                format!(
                    "region {region} is still in transition after {} s ({:?})",
                    ADMIN_WAIT.as_secs(),
                    rec.state
                ),
            ));
        }
        poll.pause();
    }
}

/// What the shell and HBase report of a region once its procedure finished.
fn placement(region: String, rec: &RegionRecord) -> pb::RegionPlacement {
    let open = rec.state == RegionState::Open;
    pb::RegionPlacement {
        region,
        server: rec.server.clone().filter(|_| open).unwrap_or_default(),
        state: format!("{:?}", rec.state).to_lowercase(),
    }
}

/// Which placement change [`place`] makes.
#[derive(Clone, Copy, Debug)]
pub enum Placement {
    /// Close the region and open it again (on the request's server if given).
    Move,
    /// Open a closed region.
    Assign,
    /// Close an open region; it stays closed until assigned.
    Unassign,
}

/// Moves, assigns or unassigns the region `req` names and waits until its procedure
/// finished.
///
/// # Errors
/// An unknown region or server, or the master's refusal (nothing changed).
pub fn place<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    how: Placement,
    req: &pb::RegionPlacementRequest,
) -> Result<pb::RegionPlacement, Status> {
    let region = resolve_region(kv, layout, &req.region)?;
    let request = match how {
        Placement::Move => {
            let target = (!req.server.trim().is_empty())
                .then(|| resolve_server(kv, layout, &req.server))
                .transpose()?;
            // As HBase's `HMaster.move`: a region already open on the target is left where it
            // is, without an error (the master itself refuses such a move).
            if let Some(t) = &target {
                let found = kv.get(&layout.region(&region)).map_err(unavailable)?;
                let rec = found.and_then(|kv| RegionRecord::decode(&kv.value).ok());
                if let Some(rec) = rec.filter(|r| {
                    r.state == RegionState::Open && r.proc.is_none() && r.server.as_ref() == Some(t)
                }) {
                    return Ok(placement(region, &rec));
                }
            }
            AdminRequest::Move {
                region: region.clone(),
                target,
            }
        }
        Placement::Assign => AdminRequest::Assign {
            region: region.clone(),
        },
        Placement::Unassign => AdminRequest::Unassign {
            region: region.clone(),
        },
    };
    submit_and_wait(kv, layout, &request)?;
    let rec = wait_settled(kv, layout, &region)?;
    Ok(placement(region, &rec))
}

/// Runs the balancer once. As HBase's `balance()`, a balancer that is off or a cluster with
/// procedures in progress answers `ran: false` with the reason rather than an error.
///
/// # Errors
/// The master is unavailable, or etcd failed.
pub fn balance<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> Result<pb::BalanceResponse, Status> {
    let not_run = |message: String| pb::BalanceResponse {
        ran: false,
        moves: 0,
        message,
    };
    if !crate::switches::balancer_on(kv, layout)? {
        return Ok(not_run(
            "the balancer is off (balance_switch true)".to_string(),
        ));
    }
    let busy = range_all(kv, &layout.procs(), 1000)
        .map_err(unavailable)?
        .kvs
        .len();
    if busy > 0 {
        return Ok(not_run(format!(
            "{busy} procedures in progress; balance when they are done"
        )));
    }
    let answer = submit_and_wait(kv, layout, &AdminRequest::Balance)?;
    let moves = answer
        .strip_prefix("balancer ran: ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Ok(pb::BalanceResponse {
        ran: true,
        moves,
        message: answer,
    })
}

/// Decommissions each of `servers` (drains it, assigns nothing to it); answers their full
/// names.
///
/// # Errors
/// An unknown or dead server (checked for all before any is decommissioned), or the master's
/// refusal.
pub fn decommission<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    servers: &[String],
) -> Result<pb::ServersResponse, Status> {
    if servers.is_empty() {
        return Err(invalid("name at least one server to decommission".into()));
    }
    let names = servers
        .iter()
        .map(|s| resolve_server(kv, layout, s))
        .collect::<Result<Vec<_>, _>>()?;
    submit_each(kv, layout, names, |server| AdminRequest::Decommission {
        server,
    })
}

/// Submits `request(server)` for each of `servers` in turn (resolved already); answers them.
fn submit_each<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    servers: Vec<String>,
    request: impl Fn(String) -> AdminRequest,
) -> Result<pb::ServersResponse, Status> {
    for server in &servers {
        submit_and_wait(kv, layout, &request(server.clone()))?;
    }
    Ok(pb::ServersResponse { servers })
}

/// The decommissioned servers (full names).
///
/// # Errors
/// etcd failed.
pub fn decommissioned<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<pb::ServersResponse, Status> {
    let prefix = layout.drains();
    let servers = range_all(kv, &prefix, 1000)
        .map_err(unavailable)?
        .kvs
        .iter()
        .filter_map(|kv| kv.key.strip_prefix(&prefix))
        .map(str::to_string)
        .collect();
    Ok(pb::ServersResponse { servers })
}

/// Lets each decommissioned server of `servers` take regions again; answers their full names.
///
/// # Errors
/// A server that is not decommissioned (checked for all first), or the master's refusal.
pub fn recommission<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    servers: &[String],
) -> Result<pb::ServersResponse, Status> {
    if servers.is_empty() {
        return Err(invalid("name at least one server to recommission".into()));
    }
    let drained = decommissioned(kv, layout)?.servers;
    let names = servers
        .iter()
        .map(|s| {
            pick(&drained, s).map_err(|_| invalid(format!("{} is not decommissioned", s.trim())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    submit_each(kv, layout, names, |server| AdminRequest::Recommission {
        server,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_picked_by_full_name_or_by_host_and_port() {
        let names = vec![
            "h:1:5".to_string(),
            "h:2:6".to_string(),
            "h:2:7".to_string(),
        ];
        assert_eq!(pick(&names, "h:1:5"), Ok("h:1:5".to_string()));
        assert_eq!(pick(&names, " h,1,5 "), Ok("h:1:5".to_string()));
        assert_eq!(pick(&names, "h:1"), Ok("h:1:5".to_string()));
        assert_eq!(pick(&names, "h:2").unwrap_err().len(), 2);
        assert!(pick(&names, "h:3").unwrap_err().is_empty());
    }
}
