//! `MasterService.GetQuotaStates` and `GetSpaceQuotaRegionSizes` (HBase's
//! `Admin.getCurrentSpaceQuotaSnapshot(table | namespace)` and `getSpaceQuotaTableSizes()`)
//! through [`MasterOps::space_quota_states`]: the space quotas' states and the tables' sizes
//! as the master last decided them (RFC 0029).
//!
//! [`MasterOps::space_quota_states`]: crate::ops::MasterOps::space_quota_states

use prost::Message;

use crate::context::Context;
use crate::error::HResult;
use crate::ops::SpaceQuotaState;
use crate::pb;
use crate::schema::table_name_pb;

fn snapshot(s: &SpaceQuotaState) -> pb::SpaceQuotaSnapshot {
    pb::SpaceQuotaSnapshot {
        quota_status: Some(pb::SpaceQuotaStatus {
            violation_policy: pb::SpaceViolationPolicy::from_str_name(&s.policy).map(|p| p as i32),
            in_violation: Some(s.in_violation),
        }),
        quota_usage: Some(s.usage),
        quota_limit: Some(s.limit),
    }
}

/// Answers the two methods; `None` for any other.
pub(crate) fn call(ctx: &Context, method: &str, _param: &[u8]) -> Option<HResult<Vec<u8>>> {
    let ops = ctx.ops.as_ref();
    let answer = match method {
        "GetSpaceQuotaRegionSizes" => ops.space_quota_states().map(|s| {
            use pb::get_space_quota_region_sizes_response::RegionSizes;
            let sizes = s
                .table_sizes
                .iter()
                .map(|(table, size)| RegionSizes {
                    table_name: Some(table_name_pb(table)),
                    size: Some(*size),
                })
                .collect();
            pb::GetSpaceQuotaRegionSizesResponse { sizes }.encode_to_vec()
        }),
        "GetQuotaStates" => ops.space_quota_states().map(|s| {
            use pb::get_quota_states_response::{NamespaceQuotaSnapshot, TableQuotaSnapshot};
            pb::GetQuotaStatesResponse {
                table_snapshots: s
                    .tables
                    .iter()
                    .map(|t| TableQuotaSnapshot {
                        table_name: Some(table_name_pb(&t.name)),
                        snapshot: Some(snapshot(t)),
                    })
                    .collect(),
                ns_snapshots: s
                    .namespaces
                    .iter()
                    .map(|n| NamespaceQuotaSnapshot {
                        namespace: Some(n.name.clone()),
                        snapshot: Some(snapshot(n)),
                    })
                    .collect(),
            }
            .encode_to_vec()
        }),
        _ => return None,
    };
    Some(answer)
}
