//! The cluster-wide switches: split and merge (HBase's `splitormerge_switch` and
//! `splitormerge_enabled`), which the master checks before every split and merge procedure
//! (`strata_cluster::master::Switch`), and the balancer (HBase's `balance_switch` and
//! `balancer_enabled`). Set through the active master; read from the coordination store.

use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::master::{AdminRequest, Switch};
use strata_proto::pb;
use tonic::Status;

use crate::admin::{submit_and_wait, unavailable};

/// A switch by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// Splits or merges.
    Procedure(Switch),
    /// The balancer.
    Balancer,
}

/// The switch `name` names (`split`, `merge` or `balancer`, any case).
///
/// # Errors
/// `INVALID_ARGUMENT` for any other name.
pub fn parse(name: &str) -> Result<Named, Status> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("balancer") {
        return Ok(Named::Balancer);
    }
    Switch::parse(name).map(Named::Procedure).ok_or_else(|| {
        strata_server::status::invalid(format!(
            "unknown switch '{name}': expected SPLIT, MERGE or BALANCER"
        ))
    })
}

/// Turns `switch` on or off through the master; answers what it was.
///
/// # Errors
/// The master is unavailable, or etcd failed.
pub fn set<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    switch: Named,
    on: bool,
) -> Result<pb::SwitchResponse, Status> {
    let request = match switch {
        Named::Procedure(switch) => AdminRequest::SetSwitch { switch, on },
        Named::Balancer => AdminRequest::SetBalancer { on },
    };
    let answer = submit_and_wait(kv, layout, &request)?;
    Ok(pb::SwitchResponse {
        on: answer.ends_with(" was on"),
    })
}

/// Whether `switch` is on (never set: on, the master's default).
///
/// # Errors
/// etcd failed.
pub fn get<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    switch: Named,
) -> Result<pb::SwitchResponse, Status> {
    let key = match switch {
        Named::Procedure(switch) => layout.switch(switch.name()),
        Named::Balancer => layout.balancer_switch(),
    };
    let found = kv.get(&key).map_err(unavailable)?;
    Ok(pb::SwitchResponse {
        on: found.is_none_or(|v| v.value != b"off"),
    })
}

/// Whether the balancer is on.
///
/// # Errors
/// etcd failed.
pub fn balancer_on<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> Result<bool, Status> {
    get(kv, layout, Named::Balancer).map(|r| r.on)
}
