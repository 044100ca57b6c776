//! `MasterService`'s region placement methods through [`MasterOps`]: HBase 2.6's
//! `Admin.move`, `assign`, `unassign`, `balance`, `balancerSwitch`, `isBalancerEnabled`,
//! `decommissionRegionServers`, `recommissionRegionServer` and
//! `listDecommissionedRegionServers`. Each has finished when it answers (a move once the
//! region is open again).
//!
//! [`MasterOps`]: crate::ops::MasterOps

use prost::Message;

use crate::context::Context;
use crate::error::{HBaseError, HResult};
use crate::meta::ServerIdentity;
use crate::ops::RegionMove;
use crate::pb;
use crate::region_name::{parse_region_name, RegionRef};

fn decode<M: Message + Default>(param: &[u8]) -> HResult<M> {
    M::decode(param).map_err(|e| HBaseError::do_not_retry(format!("malformed request: {e}")))
}

/// The name a region specifier gives, as the admin path resolves it: the encoded name, or
/// the numeric id inside a full region name (whose start row may be any bytes).
fn region_of(spec: &pb::RegionSpecifier) -> HResult<String> {
    use pb::region_specifier::RegionSpecifierType;
    if spec.r#type == RegionSpecifierType::RegionName as i32 {
        return match parse_region_name(&spec.value).map_err(HBaseError::do_not_retry)? {
            RegionRef::User { region_id, .. } => Ok(region_id.to_string()),
            RegionRef::Meta => Err(HBaseError::do_not_retry(
                "hbase:meta is served by every server and does not move",
            )),
        };
    }
    let encoded = String::from_utf8_lossy(&spec.value).into_owned();
    if encoded.len() != 32 || !encoded.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(HBaseError::unknown_region(format!("no region {encoded}")));
    }
    Ok(encoded)
}

fn server_of(s: &pb::ServerName) -> HResult<ServerIdentity> {
    let port = s
        .port
        .and_then(|p| u16::try_from(p).ok())
        .ok_or_else(|| HBaseError::do_not_retry(format!("server {} has no port", s.host_name)))?;
    Ok(ServerIdentity {
        host: s.host_name.clone(),
        port,
        start_code: s.start_code.unwrap_or(0),
    })
}

/// Runs one placement method of `MasterService`; `None` if `method` is not one.
pub(crate) fn call(ctx: &Context, method: &str, param: &[u8]) -> Option<HResult<Vec<u8>>> {
    let ops = ctx.ops.as_ref();
    let answer = match method {
        "MoveRegion" => (|| {
            let req: pb::MoveRegionRequest = decode(param)?;
            let target = req.dest_server_name.as_ref().map(server_of).transpose()?;
            ops.place_region(&region_of(&req.region)?, RegionMove::Move(target))?;
            Ok(pb::MoveRegionResponse {}.encode_to_vec())
        })(),
        "AssignRegion" => (|| {
            let req: pb::AssignRegionRequest = decode(param)?;
            ops.place_region(&region_of(&req.region)?, RegionMove::Assign)?;
            Ok(pb::AssignRegionResponse {}.encode_to_vec())
        })(),
        "UnassignRegion" => (|| {
            let req: pb::UnassignRegionRequest = decode(param)?;
            ops.place_region(&region_of(&req.region)?, RegionMove::Unassign)?;
            Ok(pb::UnassignRegionResponse {}.encode_to_vec())
        })(),
        // `ignore_rit` (HBase's force) is accepted: the balancer never plans a move over a
        // region in transition and answers "not ran" while procedures are in progress.
        "Balance" => (|| {
            let req: pb::BalanceRequest = decode(param)?;
            if req.dry_run == Some(true) {
                return Err(HBaseError::do_not_retry(
                    "a dry run of the balancer is not supported",
                ));
            }
            let (ran, moves) = ops.balance()?;
            Ok(pb::BalanceResponse {
                balancer_ran: ran,
                moves_calculated: Some(moves),
                moves_executed: Some(moves),
            }
            .encode_to_vec())
        })(),
        // `synchronous` is not waited for: a balancer round under way finishes its moves.
        "SetBalancerRunning" => (|| {
            // `on` is required: an empty message is malformed, not "off".
            if param.is_empty() {
                return Err(HBaseError::do_not_retry(
                    "malformed request: SetBalancerRunningRequest.on is required",
                ));
            }
            let req: pb::SetBalancerRunningRequest = decode(param)?;
            let was = ops.set_switch("balancer", req.on)?;
            Ok(pb::SetBalancerRunningResponse {
                prev_balance_value: Some(was),
            }
            .encode_to_vec())
        })(),
        "IsBalancerEnabled" => (|| {
            let enabled = ops.switch_enabled("balancer")?;
            Ok(pb::IsBalancerEnabledResponse { enabled }.encode_to_vec())
        })(),
        "DecommissionRegionServers" => (|| {
            let req: pb::DecommissionRegionServersRequest = decode(param)?;
            if !req.offload {
                return Err(HBaseError::do_not_retry(
                    "offload false is not supported: a decommissioned server is drained",
                ));
            }
            let servers = req
                .server_name
                .iter()
                .map(server_of)
                .collect::<HResult<Vec<_>>>()?;
            ops.decommission(&servers)?;
            Ok(pb::DecommissionRegionServersResponse {}.encode_to_vec())
        })(),
        "RecommissionRegionServer" => (|| {
            let req: pb::RecommissionRegionServerRequest = decode(param)?;
            if !req.region.is_empty() {
                return Err(HBaseError::do_not_retry(
                    "regions to load back are not supported: the balancer moves regions back",
                ));
            }
            ops.recommission(&server_of(&req.server_name)?)?;
            Ok(pb::RecommissionRegionServerResponse {}.encode_to_vec())
        })(),
        "ListDecommissionedRegionServers" => (|| {
            let server_name = ops
                .decommissioned()?
                .iter()
                .map(ServerIdentity::to_pb)
                .collect();
            Ok(pb::ListDecommissionedRegionServersResponse { server_name }.encode_to_vec())
        })(),
        _ => return None,
    };
    Some(answer)
}
