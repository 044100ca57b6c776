//! The data service as gRPC serves it: each call goes to [`DataService`], and an answer that
//! means a mistake of the client (a missing table, an unknown family, a malformed request or
//! filter) is logged at WARN with the client's address, rate-limited
//! ([`strata_proto::bad_input`]). The framed protocol reports its own (`frames.rs`).

use strata_proto::bad_input;
use strata_proto::pb;
use strata_proto::pb::data_server::Data;
use tonic::{Request, Response, Status};

use crate::service::DataService;

/// [`DataService`] with its clients' mistakes logged.
#[derive(Clone)]
#[allow(missing_debug_implementations)]
pub struct Logged(pub DataService);

/// Logs `outcome`'s error as a mistake of `client` when it is one.
fn report<T>(
    client: Option<std::net::SocketAddr>,
    method: &str,
    outcome: Result<T, Status>,
) -> Result<T, Status> {
    bad_input::report(client, "Strata gRPC", method, outcome)
}

#[tonic::async_trait]
impl Data for Logged {
    async fn get(
        &self,
        request: Request<pb::GetRequest>,
    ) -> Result<Response<pb::GetResponse>, Status> {
        let client = crate::caller::caller(&request).addr;
        report(client, "get", self.0.get(request).await)
    }

    async fn multi_get(
        &self,
        request: Request<pb::MultiGetRequest>,
    ) -> Result<Response<pb::MultiGetResponse>, Status> {
        let client = crate::caller::caller(&request).addr;
        report(client, "multi_get", self.0.multi_get(request).await)
    }

    async fn mutate(
        &self,
        request: Request<pb::MutateRequest>,
    ) -> Result<Response<pb::MutateResponse>, Status> {
        let client = crate::caller::caller(&request).addr;
        report(client, "mutate", self.0.mutate(request).await)
    }

    async fn batch(
        &self,
        request: Request<pb::BatchRequest>,
    ) -> Result<Response<pb::BatchResponse>, Status> {
        let client = crate::caller::caller(&request).addr;
        report(client, "batch", self.0.batch(request).await)
    }

    async fn check_and_mutate(
        &self,
        request: Request<pb::CheckAndMutateRequest>,
    ) -> Result<Response<pb::CheckAndMutateResponse>, Status> {
        let client = crate::caller::caller(&request).addr;
        report(
            client,
            "check_and_mutate",
            self.0.check_and_mutate(request).await,
        )
    }

    async fn scan(
        &self,
        request: Request<pb::ScanRequest>,
    ) -> Result<Response<pb::ScanResponse>, Status> {
        let client = crate::caller::caller(&request).addr;
        report(client, "scan", self.0.scan(request).await)
    }
}
