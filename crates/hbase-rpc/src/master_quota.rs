//! `MasterService.SetQuota` (HBase's `Admin.setQuota` with `QuotaSettingsFactory`'s
//! `throttleUser`, `throttleTable`, `throttleNamespace` and their `unthrottle…`, and its
//! `limitTableSpace`, `limitNamespaceSpace` and their `remove…SpaceLimit`) through
//! [`MasterOps`], in HBase's messages (`Quota.proto`), as HBase's `MasterQuotaManager` reads
//! them (RFC 0029).
//!
//! [`MasterOps`]: crate::ops::MasterOps

use prost::Message;
use strata_access::quota::{Limit, Per, SpacePolicy, Subject, ThrottleType};

use crate::context::Context;
use crate::error::{HBaseError, HResult};
use crate::pb;

fn refuse(message: impl Into<String>) -> HBaseError {
    HBaseError::do_not_retry(message.into())
}

/// The subject a request names: exactly one of a user, a table or a namespace.
fn subject_of(req: &pb::SetQuotaRequest) -> HResult<Subject> {
    if req.user_group.is_some() || req.region_server.is_some() {
        return Err(refuse(
            "quotas of user groups and region servers are not supported by Strata (RFC 0029)",
        ));
    }
    if req.user_name.is_some() && (req.table_name.is_some() || req.namespace.is_some()) {
        return Err(refuse(
            "quotas of a user on one table or namespace are not supported by Strata; \
             throttle the user, the table or the namespace (RFC 0029)",
        ));
    }
    if let Some(user) = &req.user_name {
        return Ok(Subject::User(user.clone()));
    }
    if let Some(t) = &req.table_name {
        let ns = String::from_utf8(t.namespace.to_vec())
            .map_err(|_| refuse("the namespace is not UTF-8"))?;
        let q = String::from_utf8(t.qualifier.to_vec())
            .map_err(|_| refuse("the table name is not UTF-8"))?;
        return Ok(Subject::table(&format!("{ns}:{q}")));
    }
    match &req.namespace {
        Some(ns) => Ok(Subject::Namespace(ns.clone())),
        None => Err(refuse("a quota names a user, a table or a namespace")),
    }
}

/// The type a throttle request names (`None`: none, every type).
fn kind_of(t: &pb::ThrottleRequest) -> HResult<Option<ThrottleType>> {
    let Some(n) = t.r#type else {
        return Ok(None);
    };
    ThrottleType::from_number(n).map(Some).ok_or_else(|| {
        let name = pb::ThrottleType::try_from(n)
            .map_or_else(|_| n.to_string(), |k| k.as_str_name().to_owned());
        refuse(format!(
            "throttle type {name} is not supported by Strata: capacity units and atomic \
             operations have no throttles here (RFC 0029)"
        ))
    })
}

/// The limit a timed quota gives for `kind`.
fn limit_of(kind: ThrottleType, q: &pb::TimedQuota) -> HResult<Limit> {
    if q.scope.is_some() && q.scope() == pb::QuotaScope::Cluster {
        return Err(refuse(
            "QuotaScope.CLUSTER is not supported by Strata: each region server limits what it \
             serves (MACHINE, HBase's default; RFC 0029)",
        ));
    }
    if q.share.is_some() {
        return Err(refuse("throttles by share are not supported by Strata"));
    }
    let per = Per::from_number(q.time_unit).ok_or_else(|| {
        refuse("a throttle's time unit is SECONDS, MINUTES, HOURS or DAYS in Strata")
    })?;
    let amount = q
        .soft_limit
        .filter(|&l| l > 0)
        .ok_or_else(|| refuse("a throttle's limit must be at least 1"))?;
    Ok(Limit {
        amount,
        unit: kind.unit,
        per,
    })
}

/// A space quota set or removed, as HBase's `MasterQuotaManager.setQuota` reads a
/// `SpaceLimitRequest` (`QuotaSettingsFactory.limitTableSpace`, `limitNamespaceSpace`,
/// `removeTableSpaceLimit`, `removeNamespaceSpaceLimit`).
fn set_space(
    ctx: &Context,
    req: &pb::SetQuotaRequest,
    space: &pb::SpaceLimitRequest,
) -> HResult<()> {
    let subject = subject_of(req)?;
    if matches!(subject, Subject::User(_)) {
        return Err(refuse(
            "a space quota applies to a table or a namespace, not to a user",
        ));
    }
    let quota = space
        .quota
        .as_ref()
        .ok_or_else(|| refuse("a space limit request without its quota"))?;
    let limit = if quota.remove() || req.remove_all() {
        None
    } else {
        let bytes = quota
            .soft_limit
            .ok_or_else(|| refuse("Cannot handle SpaceQuota without a soft limit"))?;
        let policy = quota
            .violation_policy
            .and_then(SpacePolicy::from_number)
            .ok_or_else(|| refuse("Cannot handle SpaceQuota without a violation policy"))?;
        Some((bytes, policy))
    };
    ctx.ops.as_ref().set_space_quota(&subject, limit)
}

/// Answers `SetQuota`; `None` for any other method.
pub(crate) fn call(ctx: &Context, method: &str, param: &[u8]) -> Option<HResult<Vec<u8>>> {
    match method {
        "SetQuota" => Some(set_quota(ctx, param)),
        "SwitchRpcThrottle" => Some(switch_rpc_throttle(ctx, param)),
        "IsRpcThrottleEnabled" => Some(ctx.ops.switch_enabled("rpc_throttle").map(|on| {
            pb::IsRpcThrottleEnabledResponse {
                rpc_throttle_enabled: on,
            }
            .encode_to_vec()
        })),
        _ => None,
    }
}

/// `Admin.switchRpcThrottle`: throttles stay set and listed while it is off, and refuse
/// nothing; answers the previous state once this server follows the new one (RFC 0029).
fn switch_rpc_throttle(ctx: &Context, param: &[u8]) -> HResult<Vec<u8>> {
    // `rpc_throttle_enabled` is required: an empty message is malformed, not "off".
    if param.is_empty() {
        return Err(refuse(
            "malformed request: SwitchRpcThrottleRequest.rpc_throttle_enabled is required",
        ));
    }
    let req = pb::SwitchRpcThrottleRequest::decode(param)
        .map_err(|e| refuse(format!("malformed request: {e}")))?;
    let was = ctx
        .ops
        .set_switch("rpc_throttle", req.rpc_throttle_enabled)?;
    Ok(pb::SwitchRpcThrottleResponse {
        previous_rpc_throttle_enabled: was,
    }
    .encode_to_vec())
}

fn set_quota(ctx: &Context, param: &[u8]) -> HResult<Vec<u8>> {
    let req = pb::SetQuotaRequest::decode(param)
        .map_err(|e| refuse(format!("malformed request: {e}")))?;
    if let Some(space) = &req.space_limit {
        return set_space(ctx, &req, space).map(|()| pb::SetQuotaResponse {}.encode_to_vec());
    }
    if req.bypass_globals.is_some() {
        return Err(refuse(
            "BYPASS_GLOBALS is not supported by Strata (RFC 0029)",
        ));
    }
    let subject = subject_of(&req)?;
    let ops = ctx.ops.as_ref();
    match (&req.throttle, req.remove_all()) {
        (_, true) | (None, false) => ops.set_quota(&subject, "", None)?,
        (Some(t), false) => {
            let kind = kind_of(t)?;
            match (&t.timed_quota, kind) {
                (Some(q), Some(kind)) => {
                    let limit = limit_of(kind, q)?.to_string();
                    ops.set_quota(&subject, kind.name(), Some(&limit))?;
                }
                (None, Some(kind)) => ops.set_quota(&subject, kind.name(), None)?,
                (None, None) => ops.set_quota(&subject, "", None)?,
                (Some(_), None) => return Err(refuse("a throttle's limit without its type")),
            }
        }
    }
    Ok(pb::SetQuotaResponse {}.encode_to_vec())
}
