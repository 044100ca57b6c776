//! A one-process Strata in a temporary directory, and helpers for tests.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;

use strata_client::{ClientOptions, Connection, Protocol};
use strata_cluster_node::single::SingleConfig;
use strata_model::schema::TableDescriptor;
use strata_testkit::Single;

pub fn config(dir: &Path) -> SingleConfig {
    strata_testkit::config(dir)
}

pub async fn start(dir: &Path) -> (Single, Connection) {
    start_with(dir, Protocol::Grpc).await
}

/// A server, and a connection whose data requests use `protocol`.
pub async fn start_with(dir: &Path, protocol: Protocol) -> (Single, Connection) {
    let server = Single::start_with(config(dir)).unwrap();
    let options = ClientOptions {
        protocol,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_with(&server.address(), options)
        .await
        .unwrap();
    (server, conn)
}

#[allow(unused_imports)]
pub use strata_testkit::fixtures::{b, key};

/// Table `name` with `families`, each keeping 3 versions.
pub fn table(name: &str, families: &[&str]) -> TableDescriptor {
    strata_testkit::fixtures::table_with(name, families, |f| f.versions = 3)
}

/// How a test connection reaches the server's data service.
#[derive(Clone, Copy, Debug)]
pub enum Link {
    /// gRPC over the server's port.
    Grpc,
    /// The framed protocol over the server's port.
    Frames,
    /// In this process ([`Connection::serve_in_process`]), as `strata standalone`'s gateway.
    InProcess,
}

/// The server's data service, counting the calls handed to it.
pub struct Counted {
    inner: strata_server::DataService,
    calls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

macro_rules! counted {
    ($($name:ident($req:ident) -> $resp:ident;)*) => {
        #[tonic::async_trait]
        impl strata_proto::pb::data_server::Data for Counted {
            $(
                async fn $name(
                    &self,
                    request: tonic::Request<strata_proto::pb::$req>,
                ) -> Result<tonic::Response<strata_proto::pb::$resp>, tonic::Status> {
                    self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    self.inner.$name(request).await
                }
            )*
        }
    };
}

counted! {
    get(GetRequest) -> GetResponse;
    multi_get(MultiGetRequest) -> MultiGetResponse;
    mutate(MutateRequest) -> MutateResponse;
    batch(BatchRequest) -> BatchResponse;
    check_and_mutate(CheckAndMutateRequest) -> CheckAndMutateResponse;
    scan(ScanRequest) -> ScanResponse;
}

/// A server, a connection reaching it over `link`, and the count of data calls handed to it
/// in process (stays 0 for the network links).
pub async fn start_linked(
    dir: &Path,
    link: Link,
) -> (
    Single,
    Connection,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    let calls = std::sync::Arc::default();
    match link {
        Link::Grpc => {
            let (server, conn) = start_with(dir, Protocol::Grpc).await;
            (server, conn, calls)
        }
        Link::Frames => {
            let (server, conn) = start_with(dir, Protocol::Frames).await;
            (server, conn, calls)
        }
        Link::InProcess => {
            let (server, conn) = start_with(dir, Protocol::Frames).await;
            let service = Counted {
                inner: server.data().clone(),
                calls: std::sync::Arc::clone(&calls),
            };
            conn.serve_in_process(&server.address(), std::sync::Arc::new(service))
                .unwrap();
            (server, conn, calls)
        }
    }
}
