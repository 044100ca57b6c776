//! The cluster-wide switches: split and merge (HBase's `splitormerge_switch` and
//! `splitormerge_enabled`), which the master checks before every split and merge procedure
//! (`strata_cluster::master::Switch`), and the balancer (HBase's `balance_switch` and
//! `balancer_enabled`), set through the active master; and the RPC throttle switch (HBase's
//! `enable_rpc_throttle` and `disable_rpc_throttle`), written beside the throttles it turns
//! off ([`crate::quota::set_enforced`]). All are read from the coordination store.

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
    /// Whether throttles refuse requests.
    RpcThrottle,
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
    if name.eq_ignore_ascii_case("rpc_throttle") {
        return Ok(Named::RpcThrottle);
    }
    Switch::parse(name).map(Named::Procedure).ok_or_else(|| {
        strata_server::status::invalid(format!(
            "unknown switch '{name}': expected SPLIT, MERGE, BALANCER or RPC_THROTTLE"
        ))
    })
}

/// Turns `switch` on or off (through the master, but for the RPC throttle switch); answers
/// what it was, and for the RPC throttle switch the store's revision written.
///
/// # Errors
/// The master is unavailable, or etcd failed.
pub fn set<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    switch: Named,
    on: bool,
) -> Result<(pb::SwitchResponse, Option<i64>), Status> {
    let request = match switch {
        Named::Procedure(switch) => AdminRequest::SetSwitch { switch, on },
        Named::Balancer => AdminRequest::SetBalancer { on },
        Named::RpcThrottle => {
            let (was, revision) = crate::quota::set_enforced(kv, layout, on)?;
            return Ok((pb::SwitchResponse { on: was }, Some(revision)));
        }
    };
    let answer = submit_and_wait(kv, layout, &request)?;
    Ok((
        pb::SwitchResponse {
            on: answer.ends_with(" was on"),
        },
        None,
    ))
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
        Named::RpcThrottle => {
            let on = crate::quota::enforced(kv, layout).map_err(unavailable)?;
            return Ok(pb::SwitchResponse { on });
        }
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
