//! `ClientMetaService`: how a 2.x client configured with `RpcConnectionRegistry` (or
//! `MasterRegistry`) finds the cluster without ZooKeeper — cluster id, active master, meta's
//! location, and the bootstrap nodes. In standalone mode all are this one listener.

use prost::Message;

use crate::context::{Context, Tables};
use crate::error::{HBaseError, HResult};
use crate::meta::ServerIdentity;
use crate::pb;
use crate::region_name::{META_REGION_ID, META_TABLE};
use crate::schema::table_name_pb;

/// Meta's location, as the registry reports it.
pub fn meta_location(ctx: &Context) -> pb::RegionLocation {
    pb::RegionLocation {
        region_info: pb::RegionInfo {
            region_id: META_REGION_ID,
            table_name: table_name_pb(META_TABLE),
            start_key: Some(Default::default()),
            end_key: Some(Default::default()),
            offline: Some(false),
            split: Some(false),
            replica_id: Some(0),
        },
        server_name: Some(ctx.identity.to_pb()),
        seq_num: 0,
    }
}

/// Runs one `ClientMetaService` method (the request messages are empty).
///
/// # Errors
/// An unknown method.
pub fn call(ctx: &Context, method: &str) -> HResult<Vec<u8>> {
    let server = ctx.identity.to_pb();
    Ok(match method {
        "GetClusterId" => pb::GetClusterIdResponse {
            cluster_id: Some(ctx.cluster_id.clone()),
        }
        .encode_to_vec(),
        "GetActiveMaster" => pb::GetActiveMasterResponse {
            server_name: Some(server),
        }
        .encode_to_vec(),
        "GetMasters" => pb::GetMastersResponse {
            master_servers: vec![pb::GetMastersResponseEntry {
                server_name: server,
                is_active: true,
            }],
        }
        .encode_to_vec(),
        "GetMetaRegionLocations" => pb::GetMetaRegionLocationsResponse {
            meta_locations: vec![meta_location(ctx)],
        }
        .encode_to_vec(),
        "GetBootstrapNodes" => pb::GetBootstrapNodesResponse {
            server_name: match &ctx.tables {
                Tables::Standalone(_) => vec![server],
                Tables::Cluster(d) => d.servers().iter().map(ServerIdentity::to_pb).collect(),
            },
        }
        .encode_to_vec(),
        _ => return Err(HBaseError::unknown_method("ClientMetaService", method)),
    })
}
