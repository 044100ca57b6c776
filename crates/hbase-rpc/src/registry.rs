//! `ClientMetaService`: how a 2.x client configured with `RpcConnectionRegistry` (or
//! `MasterRegistry`) finds the cluster without ZooKeeper — cluster id, active master, meta's
//! location, and the bootstrap nodes. In standalone mode all are this one listener. On a
//! cluster, meta is answered by whichever listener is asked (each reads etcd), the bootstrap
//! nodes are every published listener, and the active master is the active Strata master's
//! listener if it runs one (else the listener asked: every listener takes `MasterService`).

use prost::Message;

use crate::context::Context;
use crate::error::{HBaseError, HResult};
use crate::meta::ServerIdentity;
use crate::pb;
use crate::region_name::{META_REGION_ID, META_TABLE};
use crate::schema::region_info_pb;
use bytes::Bytes;

/// Meta's location, as the registry reports it.
pub fn meta_location(ctx: &Context) -> pb::RegionLocation {
    pb::RegionLocation {
        region_info: region_info_pb(META_TABLE, Bytes::new(), Bytes::new(), META_REGION_ID),
        server_name: Some(ctx.identity.to_pb()),
        seq_num: 0,
    }
}

/// The master clients are told to use.
pub fn active_master(ctx: &Context) -> ServerIdentity {
    ctx.directory
        .masters()
        .into_iter()
        .find_map(|(m, active)| active.then_some(m))
        .unwrap_or_else(|| ctx.identity.clone())
}

/// Every master with whether it is active (the active one alone if none is published).
fn masters(ctx: &Context) -> Vec<pb::GetMastersResponseEntry> {
    let active = active_master(ctx);
    let mut out: Vec<pb::GetMastersResponseEntry> = ctx
        .directory
        .masters()
        .into_iter()
        .map(|(m, _)| pb::GetMastersResponseEntry {
            is_active: m == active,
            server_name: m.to_pb(),
        })
        .collect();
    if !out.iter().any(|e| e.is_active) {
        out.insert(
            0,
            pb::GetMastersResponseEntry {
                server_name: active.to_pb(),
                is_active: true,
            },
        );
    }
    out
}

/// Runs one `ClientMetaService` method (the request messages are empty).
///
/// # Errors
/// An unknown method.
pub fn call(ctx: &Context, method: &str) -> HResult<Vec<u8>> {
    Ok(match method {
        "GetClusterId" => pb::GetClusterIdResponse {
            cluster_id: Some(ctx.cluster_id.clone()),
        }
        .encode_to_vec(),
        "GetActiveMaster" => pb::GetActiveMasterResponse {
            server_name: Some(active_master(ctx).to_pb()),
        }
        .encode_to_vec(),
        "GetMasters" => pb::GetMastersResponse {
            master_servers: masters(ctx),
        }
        .encode_to_vec(),
        "GetMetaRegionLocations" => pb::GetMetaRegionLocationsResponse {
            meta_locations: vec![meta_location(ctx)],
        }
        .encode_to_vec(),
        "GetBootstrapNodes" => pb::GetBootstrapNodesResponse {
            server_name: ctx
                .directory
                .servers()
                .iter()
                .map(ServerIdentity::to_pb)
                .collect(),
        }
        .encode_to_vec(),
        _ => return Err(HBaseError::unknown_method("ClientMetaService", method)),
    })
}
