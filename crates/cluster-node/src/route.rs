//! Flush and compaction in cluster mode: the admin service that receives one forwards it to
//! every region server hosting a region of the table, marked [`LOCAL`]; a marked request acts
//! only on the regions open on its server.

use std::time::Duration;

use strata_proto::pb::{self, ErrorCode};
use strata_server::RegionServer;
use tonic::{Request, Status};

/// Request metadata marking a flush or compaction forwarded by another region server: act on
/// the regions open here only.
pub const LOCAL: &str = "x-strata-local";

/// The distinct servers (`host:port`) of `regions`.
pub fn servers_of(regions: &[pb::RegionLocation]) -> std::collections::BTreeSet<String> {
    regions.iter().map(|r| r.server.clone()).collect()
}

/// An admin client of the region server at `addr`, over TLS if `tls` is given.
///
/// # Errors
/// `UNAVAILABLE` if it cannot be reached.
pub async fn admin_client(
    addr: &str,
    tls: Option<&strata_tls::ClientTls>,
) -> Result<pb::admin_client::AdminClient<tonic::transport::Channel>, Status> {
    let endpoint = strata_proto::channel::endpoint(addr, Duration::from_secs(5))
        .map_err(strata_server::status::invalid)?;
    let channel = strata_proto::channel::connect(&endpoint, tls)
        .await
        .map_err(|e| {
            strata_proto::status(ErrorCode::Unavailable, format!("region server {addr}: {e}"))
        })?;
    Ok(pb::admin_client::AdminClient::new(channel)
        .max_decoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
        .max_encoding_message_size(strata_proto::MAX_MESSAGE_BYTES))
}

/// `msg` as a request marked [`LOCAL`].
pub fn local_request<T>(msg: T) -> Request<T> {
    let mut req = Request::new(msg);
    req.metadata_mut()
        .insert(LOCAL, tonic::metadata::MetadataValue::from_static("1"));
    req
}

/// Runs `act` on each region of `regions` open on `server`; `NOT_SERVING_REGION` for one that
/// etcd places here but that is not open here (it moved: the caller retries).
///
/// # Errors
/// The first failure of `act`.
pub fn on_local_regions(
    server: &RegionServer,
    regions: &[pb::RegionLocation],
    mut act: impl FnMut(u64) -> strata_storage::Result<()>,
) -> Result<(), Status> {
    for r in regions {
        if server.region_stats(r.region_id).is_err() {
            continue;
        }
        act(r.region_id).map_err(|e| strata_server::status::from_storage(&e))?;
    }
    Ok(())
}
