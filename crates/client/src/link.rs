//! [`DataLink`]: a stub for a region server's data service over either protocol (gRPC or
//! the framed protocol, [`crate::Protocol`]), with the methods and types of tonic's
//! generated client so that callers do not care which.

use strata_proto::frame::Method;
use strata_proto::pb;
use strata_proto::pb::data_client::DataClient;
use tonic::transport::Channel;
use tonic::{Response, Status};

use crate::frames::FrameClient;

/// A region server's data service.
#[derive(Clone, Debug)]
pub(crate) enum DataLink {
    /// Through tonic.
    Grpc(DataClient<Channel>),
    /// Through a framed connection.
    Frames(FrameClient),
}

macro_rules! methods {
    ($($(#[$doc:meta])* $name:ident($method:ident, $req:ident) -> $resp:ident;)*) => {
        impl DataLink {
            $(
                $(#[$doc])*
                pub(crate) async fn $name(
                    &mut self,
                    request: pb::$req,
                ) -> Result<Response<pb::$resp>, Status> {
                    match self {
                        DataLink::Grpc(client) => client.$name(request).await,
                        DataLink::Frames(client) => client
                            .call(Method::$method, &request)
                            .await
                            .map(Response::new),
                    }
                }
            )*
        }
    };
}

methods! {
    /// A single-row get.
    get(Get, GetRequest) -> GetResponse;
    /// Gets of several rows.
    multi_get(MultiGet, MultiGetRequest) -> MultiGetResponse;
    /// A single-row mutation.
    mutate(Mutate, MutateRequest) -> MutateResponse;
    /// Mutations of several rows.
    batch(Batch, BatchRequest) -> BatchResponse;
    /// A conditional mutation.
    check_and_mutate(CheckAndMutate, CheckAndMutateRequest) -> CheckAndMutateResponse;
    /// A page of a scan.
    scan(Scan, ScanRequest) -> ScanResponse;
}
