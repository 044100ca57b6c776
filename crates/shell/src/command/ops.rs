//! Cluster operations (cluster mode only): `move`, `assign`, `unassign`, `balancer`,
//! `balance_switch`, `decommission_regionservers`, `recommission_regionserver`,
//! `list_decommissioned_regionservers`.

use super::args::Args;
use super::Command;
use crate::value::Value;
use crate::ShellError;

/// An operation on a cluster's assignment, run through etcd by the active master.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterOp {
    /// `move 'REGION' [, 'SERVER']`.
    Move {
        /// The region (`table,seq` or its numeric id).
        region: String,
        /// The target server; `None` lets the master pick.
        server: Option<String>,
    },
    /// `assign 'REGION'`.
    Assign(String),
    /// `unassign 'REGION' [, force]`.
    Unassign(String),
    /// `balancer`.
    Balance,
    /// `balance_switch true|false`.
    BalanceSwitch(bool),
    /// `balancer_enabled`.
    BalancerEnabled,
    /// `decommission_regionservers 'SERVER' | ['SERVER', ...] [, offload]`.
    Decommission(Vec<String>),
    /// `recommission_regionserver 'SERVER'`.
    Recommission(String),
    /// `list_decommissioned_regionservers`.
    ListDecommissioned,
}

/// Parses the cluster operation `args` names.
pub(super) fn parse(mut args: Args) -> Result<Command, ShellError> {
    let op = match args.name() {
        "move" => {
            args.arity(1, 2)?;
            let v = args.required("region")?;
            let region = args.text(&v, "region")?;
            let server = match args.next() {
                Some(v) => Some(args.text(&v, "server name")?),
                None => None,
            };
            ClusterOp::Move { region, server }
        }
        "assign" => {
            args.arity(1, 1)?;
            let v = args.required("region")?;
            ClusterOp::Assign(args.text(&v, "region")?)
        }
        "unassign" => {
            args.arity(1, 2)?;
            let v = args.required("region")?;
            let region = args.text(&v, "region")?;
            if let Some(force) = args.next() {
                // HBase's `force` re-closes a region in transition; here every close is a
                // procedure the master finishes, so the flag is accepted and has no effect.
                args.boolean(&force, "force")?;
            }
            ClusterOp::Unassign(region)
        }
        "balancer" => {
            args.arity(0, 1)?;
            if let Some(v) = args.next() {
                // HBase's `balancer 'force'` runs despite regions in transition; ours never
                // plans moves over a region in transition.
                let word = args.text(&v, "option")?;
                if word != "force" {
                    return Err(args.usage(format!("unknown option '{word}'; use 'force'")));
                }
            }
            ClusterOp::Balance
        }
        "balance_switch" => {
            args.arity(1, 1)?;
            let v = args.required("true or false")?;
            ClusterOp::BalanceSwitch(args.boolean(&v, "the switch")?)
        }
        "decommission_regionservers" => {
            args.arity(1, 2)?;
            let v = args.required("server names")?;
            let servers = match v {
                Value::Array(items) => items
                    .iter()
                    .map(|i| args.text(i, "server name"))
                    .collect::<Result<Vec<_>, _>>()?,
                other => vec![args.text(&other, "server name")?],
            };
            if servers.is_empty() {
                return Err(args.invalid("no server named"));
            }
            if let Some(offload) = args.next() {
                // Regions are always moved off a decommissioned server.
                if !args.boolean(&offload, "offload")? {
                    return Err(args.invalid(
                        "offload false is not supported: a decommissioned server is drained",
                    ));
                }
            }
            ClusterOp::Decommission(servers)
        }
        "balancer_enabled" => {
            args.arity(0, 0)?;
            ClusterOp::BalancerEnabled
        }
        "recommission_regionserver" => {
            args.arity(1, 2)?;
            let v = args.required("server name")?;
            let server = args.text(&v, "server name")?;
            if let Some(regions) = args.next() {
                // HBase may load named regions back; the balancer does that here.
                if !matches!(regions, Value::Array(ref r) if r.is_empty()) {
                    return Err(args.invalid(
                        "regions to load back are not supported: the balancer moves regions back",
                    ));
                }
            }
            ClusterOp::Recommission(server)
        }
        _ => {
            args.arity(0, 0)?;
            ClusterOp::ListDecommissioned
        }
    };
    Ok(Command::ClusterOp(op))
}
