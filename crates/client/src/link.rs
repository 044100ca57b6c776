//! [`DataLink`]: a stub for a region server's data service over either protocol (gRPC or
//! the framed protocol, [`crate::Protocol`]) or in this process ([`LocalData`]), with the
//! methods and types of tonic's generated client so that callers do not care which.

use std::fmt;
use std::sync::Arc;

use bytes::BytesMut;
use strata_model::ops::RowMutations;
use strata_proto::convert::{self, BatchBody};
use strata_proto::frame::{self, Method};
use strata_proto::pb;
use strata_proto::pb::data_client::DataClient;
use strata_proto::pb::data_server::Data;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use crate::frames::FrameClient;

/// A region server's data service running in this process (a gateway beside its server):
/// requests are handed to it as they are, with no encoding and no socket.
#[derive(Clone)]
pub struct LocalData(pub Arc<dyn Data>);

impl fmt::Debug for LocalData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LocalData")
    }
}

/// A region server's data service.
#[derive(Clone, Debug)]
pub(crate) enum DataLink {
    /// Through tonic.
    Grpc(DataClient<Channel>),
    /// Through a framed connection.
    Frames(FrameClient),
    /// In this process.
    Local(LocalData),
}

/// How an in-process call runs. `direct`: in the caller's task (reads, which change
/// nothing, so a caller that gives up midway cancels nothing that matters). `detached`: on a
/// task of its own that the caller awaits, so that, as over a socket, a caller that gives up
/// (an attempt timeout) does not cancel a write or a scan page halfway.
macro_rules! local_call {
    (direct, $service:expr, $name:ident, $request:expr) => {
        $service.0.$name(Request::new($request)).await
    };
    (detached, $service:expr, $name:ident, $request:expr) => {{
        let service = $service.0.clone();
        let request = $request;
        tokio::spawn(async move { service.$name(Request::new(request)).await })
            .await
            .unwrap_or_else(|e| Err(Status::internal(format!("in-process call failed: {e}"))))
    }};
}

macro_rules! methods {
    ($($(#[$doc:meta])* $name:ident($method:ident, $req:ident) -> $resp:ident, $local:ident;)*) => {
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
                        DataLink::Local(service) => {
                            local_call!($local, service, $name, request)
                        }
                    }
                }
            )*
        }
    };
}

methods! {
    /// A single-row get.
    get(Get, GetRequest) -> GetResponse, direct;
    /// Gets of several rows.
    multi_get(MultiGet, MultiGetRequest) -> MultiGetResponse, direct;
    /// A single-row mutation.
    mutate(Mutate, MutateRequest) -> MutateResponse, detached;
    /// Mutations of several rows.
    batch(Batch, BatchRequest) -> BatchResponse, detached;
    /// A conditional mutation.
    check_and_mutate(CheckAndMutate, CheckAndMutateRequest) -> CheckAndMutateResponse, detached;
    /// A page of a scan.
    scan(Scan, ScanRequest) -> ScanResponse, detached;
}

/// A `Batch` call ready to send: over a framed link its frame is encoded straight from the
/// rows ([`BatchBody`]), otherwise its request message is built from them.
pub(crate) enum BatchCall {
    /// An encoded frame for a framed connection.
    Frame(FrameClient, BytesMut),
    /// A request for any other link.
    Message(DataLink, pb::BatchRequest),
}

impl DataLink {
    /// The `Batch` call applying `rows` to `table` through this link. Encodes or converts
    /// the rows now, so that the call holds no borrow of them.
    pub(crate) fn batch_rows(self, table: &str, rows: Vec<&RowMutations>) -> BatchCall {
        match self {
            DataLink::Frames(client) => {
                let body = BatchBody::new(table, rows);
                let frame = frame::prepared_frame(Method::Batch as u8, body.encoded_len(), |out| {
                    body.encode(out)
                });
                BatchCall::Frame(client, frame)
            }
            link => BatchCall::Message(
                link,
                pb::BatchRequest {
                    table: table.to_string(),
                    rows: rows.into_iter().map(convert::row_mutations_to_pb).collect(),
                },
            ),
        }
    }
}

impl BatchCall {
    /// Sends the call and waits for its response.
    pub(crate) async fn send(self) -> Result<pb::BatchResponse, Status> {
        match self {
            BatchCall::Frame(client, frame) => client.call_prepared(frame).await,
            BatchCall::Message(mut link, request) => {
                link.batch(request).await.map(Response::into_inner)
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::future::Future;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Waker};
    use std::time::Duration;

    use super::*;

    /// A data service whose writes take two steps with a pause between them, counting the
    /// steps done; reads answer at once.
    #[derive(Default)]
    struct TwoStep {
        steps: Arc<AtomicUsize>,
    }

    impl TwoStep {
        async fn write<T: Default>(&self) -> Result<Response<T>, Status> {
            self.steps.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(20)).await;
            self.steps.fetch_add(1, Ordering::SeqCst);
            Ok(Response::new(T::default()))
        }
    }

    #[tonic::async_trait]
    impl Data for TwoStep {
        async fn get(
            &self,
            _: Request<pb::GetRequest>,
        ) -> Result<Response<pb::GetResponse>, Status> {
            Ok(Response::new(pb::GetResponse::default()))
        }
        async fn multi_get(
            &self,
            _: Request<pb::MultiGetRequest>,
        ) -> Result<Response<pb::MultiGetResponse>, Status> {
            Ok(Response::new(pb::MultiGetResponse::default()))
        }
        async fn mutate(
            &self,
            _: Request<pb::MutateRequest>,
        ) -> Result<Response<pb::MutateResponse>, Status> {
            self.write().await
        }
        async fn batch(
            &self,
            _: Request<pb::BatchRequest>,
        ) -> Result<Response<pb::BatchResponse>, Status> {
            self.write().await
        }
        async fn check_and_mutate(
            &self,
            _: Request<pb::CheckAndMutateRequest>,
        ) -> Result<Response<pb::CheckAndMutateResponse>, Status> {
            self.write().await
        }
        async fn scan(
            &self,
            _: Request<pb::ScanRequest>,
        ) -> Result<Response<pb::ScanResponse>, Status> {
            self.write().await
        }
    }

    fn poll_once_and_drop<F: Future>(call: F) {
        let mut call = Box::pin(call);
        let _ = call.as_mut().poll(&mut Context::from_waker(Waker::noop()));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_caller_that_gives_up_does_not_cut_a_write_or_a_scan_page_short() {
        let service = TwoStep::default();
        let steps = service.steps.clone();
        let link = DataLink::Local(LocalData(Arc::new(service)));
        poll_once_and_drop(link.clone().mutate(pb::MutateRequest::default()));
        poll_once_and_drop(link.clone().batch(pb::BatchRequest::default()));
        poll_once_and_drop(
            link.clone()
                .check_and_mutate(pb::CheckAndMutateRequest::default()),
        );
        poll_once_and_drop(link.clone().scan(pb::ScanRequest::default()));
        // Each call runs on a task of its own, which finishes both of its steps.
        for _ in 0..500 {
            if steps.load(Ordering::SeqCst) == 8 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        assert_eq!(steps.load(Ordering::SeqCst), 8);
        // Reads answer in the caller's task.
        let mut link = link;
        assert!(link.get(pb::GetRequest::default()).await.is_ok());
        assert!(link.multi_get(pb::MultiGetRequest::default()).await.is_ok());
    }
}
