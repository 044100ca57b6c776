//! The Thrift1 gateway over TLS: a TLS client's calls are served; a plaintext client of the
//! TLS gateway is closed without an answer, and the TLS client goes on unaffected.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use strata_gateway::protocol::Struct;
use strata_tls::ca::{self, Request};
use strata_tls::{ClientFiles, ClientTls, ServerFiles, ServerTls};
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_travel_over_tls_and_plaintext_is_refused() {
    tokio::time::timeout(Duration::from_secs(60), async {
        let certs = tempfile::tempdir().unwrap();
        ca::init(certs.path(), 30).unwrap();
        let mut request = Request::new("gateway", 30);
        request.ips = vec!["127.0.0.1".parse().unwrap()];
        let (cert, key) = ca::issue(certs.path(), &request).unwrap();
        let files = ServerFiles {
            cert,
            key,
            client_ca: None,
        };
        let tls = ServerTls::load(files, &[]).unwrap();
        let h = Harness::start_with(Duration::from_secs(60), 1 << 20, Some(tls)).await;
        let addr = h.gateway().addr();
        let client_tls = ClientTls::load(ClientFiles {
            ca: ca::ca_cert(certs.path()),
            cert: None,
            key: None,
        })
        .unwrap();
        let open = || async {
            let tcp = TcpStream::connect(addr).await.unwrap();
            client_tls.connect(&addr.to_string(), tcp).await.unwrap()
        };

        let mut c = Client::over(open().await, false);
        let names = c.call("getTableNames", Struct::new()).await;
        assert!(names.success().is_some(), "{names:?}");

        let mut plain = h.client().await;
        assert!(plain
            .try_call("getTableNames", Struct::new())
            .await
            .is_err());

        let mut framed = Client::over(open().await, true);
        assert!(framed
            .call("getTableNames", Struct::new())
            .await
            .success()
            .is_some());
        let names = c.call("getTableNames", Struct::new()).await;
        assert!(names.success().is_some(), "{names:?}");
        h.stop().await;
    })
    .await
    .expect("test timed out");
}
