//! Access checks on HBase RPC (RFC 0026): the caller of a connection is the name its TLS
//! client certificate proves (the ConnectionHeader's `effective_user` is a claim, never
//! believed); each call runs with it and the server's guard set for its thread, and the
//! data calls ask [`strata_access::Guard`] as Strata's own data service does. A refusal is
//! HBase's `AccessDeniedException`.

use std::cell::RefCell;
use std::sync::Arc;

use strata_access::quota::{self, Cost};
use strata_access::{Caller, Denied, Guard, Readable};
use strata_model::ops::{Columns, Condition, Mutation, RowMutations};
use strata_server::HostedRegion;

use crate::error::{HBaseError, HResult};

thread_local! {
    static CURRENT: RefCell<Option<(Arc<Guard>, Caller)>> = const { RefCell::new(None) };
}

/// Runs `f` as `caller`, checked by `guard` (and throttled by its quotas, RFC 0029).
pub fn with_caller<R>(guard: &Arc<Guard>, caller: &Caller, f: impl FnOnce() -> R) -> R {
    if !guard.is_on() && !guard.quotas().any() && !guard.quotas().space().any() {
        return f();
    }
    let before = CURRENT.with(|c| c.replace(Some((guard.clone(), caller.clone()))));
    let out = f();
    CURRENT.with(|c| *c.borrow_mut() = before);
    out
}

/// The caller of the call running on this thread (anonymous outside one).
pub fn current_caller() -> Caller {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .map_or_else(|| Caller::anonymous(None), |(_, caller)| caller.clone())
    })
}

fn denied(d: Denied) -> HBaseError {
    HBaseError {
        class: "org.apache.hadoop.hbase.security.AccessDeniedException",
        message: d.message,
        do_not_retry: true,
    }
}

/// Allows the administrative call running on this thread by the rule of the gRPC `Admin`
/// rpc `rpc` it amounts to (`strata_access::admin::rule`), on `table` if it names one.
///
/// # Errors
/// `AccessDeniedException`.
pub(crate) fn check_admin(rpc: &str, table: Option<&str>) -> HResult<()> {
    CURRENT.with(|c| {
        let Some((guard, caller)) = &*c.borrow() else {
            return Ok(());
        };
        guard.admin(caller, rpc, table).map_err(denied)
    })
}

/// For each of `wanted`, whether `user` (the caller when `None`) holds it (HBase's
/// `hasUserPermissions`; `strata_access::Guard::has_permissions`).
///
/// # Errors
/// `AccessDeniedException`; access control off.
pub(crate) fn has_permissions(
    user: Option<&str>,
    wanted: &[(strata_access::Scope, strata_access::Perms)],
) -> HResult<Vec<bool>> {
    CURRENT.with(|c| match &*c.borrow() {
        Some((guard, caller)) if guard.is_on() => {
            guard.has_permissions(caller, user, wanted).map_err(denied)
        }
        // HBase without its AccessController: DoNotRetryIOException.
        _ => Err(HBaseError::do_not_retry(
            "access control is off: start the server with --auth",
        )),
    })
}

/// Admits the call running on this thread on `h`'s table costing `cost` under the throttles
/// in force (RFC 0029).
///
/// # Errors
/// HBase's `RpcThrottlingException`, whose message the Java client reads the wait from.
pub(crate) fn throttle(h: &HostedRegion, cost: Cost) -> HResult<()> {
    CURRENT.with(|c| {
        let Some((guard, caller)) = &*c.borrow() else {
            return Ok(());
        };
        guard
            .throttle(caller, &table(h), cost)
            .map_err(|t| HBaseError {
                class: quota::HBASE_CLASS,
                message: t.to_string(),
                do_not_retry: false,
            })
    })
}

/// The space quota states this server enforces, by table (RFC 0029): none where no guard
/// runs the call.
pub(crate) fn space_states() -> Vec<(String, strata_access::quota::SpaceState)> {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .map(|(guard, _)| guard.quotas().space().all())
            .unwrap_or_default()
    })
}

/// Allows `mutations` on `h`'s table under the space quotas in force (RFC 0029).
///
/// # Errors
/// HBase's `SpaceLimitingException`, its message as HBase's server writes it (the class,
/// then the policy and the reason), so that HBase's client reads the policy back from it.
pub(crate) fn space(h: &HostedRegion, mutations: &[Mutation]) -> HResult<()> {
    CURRENT.with(|c| {
        let Some((guard, _)) = &*c.borrow() else {
            return Ok(());
        };
        guard
            .quotas()
            .space()
            .check_mutations(&table(h), mutations)
            .map_err(|s| HBaseError {
                class: quota::SPACE_HBASE_CLASS,
                message: format!("{}: {s}", quota::SPACE_HBASE_CLASS),
                do_not_retry: true,
            })
    })
}

/// Charges `bytes` read from `h` by the call running on this thread to size throttles.
pub(crate) fn charge_read(h: &HostedRegion, bytes: u64) {
    CURRENT.with(|c| {
        if let Some((guard, caller)) = &*c.borrow() {
            guard.charge_read(caller, &table(h), bytes);
        }
    });
}

/// What writing `m` costs a size throttle: its keys' and values' bytes.
pub(crate) fn mutation_bytes(m: &Mutation) -> u64 {
    let row = m.row().len();
    let cells: usize = match m {
        Mutation::Put(p) => p
            .cells
            .iter()
            .map(|c| row + c.family.len() + c.qualifier.len() + c.value.len())
            .sum(),
        Mutation::Append(a) => a
            .cells
            .iter()
            .map(|c| row + c.family.len() + c.qualifier.len() + c.value.len())
            .sum(),
        Mutation::Increment(i) => i
            .cells
            .iter()
            .map(|c| row + c.family.len() + c.qualifier.len() + 8)
            .sum(),
        Mutation::Delete(_) => row,
    };
    cells.max(row) as u64
}

fn table(h: &HostedRegion) -> String {
    h.region.info().table.clone()
}

/// Narrows `columns` to what the caller may read of `h`'s table; `false`: nothing.
///
/// # Errors
/// `AccessDeniedException` when it may read nothing of the table.
pub(crate) fn narrow_read(h: &HostedRegion, call: &str, columns: &mut Columns) -> HResult<bool> {
    CURRENT.with(|c| {
        let Some((guard, caller)) = &*c.borrow() else {
            return Ok(true);
        };
        match guard.readable(caller, call, &table(h)).map_err(denied)? {
            Readable::All => Ok(true),
            readable => match readable.narrow(columns) {
                Some(narrowed) => {
                    *columns = narrowed;
                    Ok(true)
                }
                None => Ok(false),
            },
        }
    })
}

/// Allows writing `mutations` to `h`'s table, and reading the column `condition` checks.
///
/// # Errors
/// `AccessDeniedException`.
pub(crate) fn check_write(
    h: &HostedRegion,
    call: &str,
    mutations: &[Mutation],
    condition: Option<&Condition>,
) -> HResult<()> {
    CURRENT.with(|c| {
        let Some((guard, caller)) = &*c.borrow() else {
            return Ok(());
        };
        let table = table(h);
        let rm = RowMutations {
            row: mutations
                .first()
                .map(|m| m.row().clone())
                .unwrap_or_default(),
            mutations: mutations.to_vec(),
        };
        if rm.mutations.is_empty() && condition.is_none() {
            return Ok(());
        }
        match condition {
            None => guard.mutation(caller, call, &table, &rm),
            Some(cond) => {
                let checked = match cond {
                    Condition::Column {
                        family, qualifier, ..
                    } => Some((&family[..], &qualifier[..])),
                    Condition::Filter(_) => None,
                };
                guard.check_and_mutate(caller, call, &table, checked, &rm)
            }
        }
        .map_err(denied)
    })
}
