//! The cluster-wide split and merge switches (HBase's `splitormerge_switch` and
//! `splitormerge_enabled`): set through the active master, which refuses split and merge
//! procedures while their switch is off (`strata_cluster::master::Switch`); read from the
//! coordination store.

use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::master::{AdminRequest, Switch};
use strata_proto::pb;
use tonic::Status;

use crate::admin::{submit_and_wait, unavailable};

/// The switch `name` names (`split` or `merge`, any case).
///
/// # Errors
/// `INVALID_ARGUMENT` for any other name.
pub fn parse(name: &str) -> Result<Switch, Status> {
    Switch::parse(name.trim()).ok_or_else(|| {
        strata_server::status::invalid(format!("unknown switch '{name}': expected SPLIT or MERGE"))
    })
}

/// Turns `switch` on or off through the master; answers what it was.
///
/// # Errors
/// The master is unavailable, or etcd failed.
pub fn set<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    switch: Switch,
    on: bool,
) -> Result<pb::SwitchResponse, Status> {
    let answer = submit_and_wait(kv, layout, &AdminRequest::SetSwitch { switch, on })?;
    Ok(pb::SwitchResponse {
        on: answer.ends_with(" was on"),
    })
}

/// Whether `switch` is on (never set: on).
///
/// # Errors
/// etcd failed.
pub fn get<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    switch: Switch,
) -> Result<pb::SwitchResponse, Status> {
    let found = kv.get(&layout.switch(switch.name())).map_err(unavailable)?;
    Ok(pb::SwitchResponse {
        on: found.is_none_or(|v| v.value != b"off"),
    })
}
