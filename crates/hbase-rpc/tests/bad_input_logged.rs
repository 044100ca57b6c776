//! Bad input on HBase's RPC port is logged at WARN with the client's address, once per
//! address and kind within the rate limit: garbage instead of a preamble, an unknown
//! service, a call of a method that does not exist.
#![allow(missing_docs, clippy::unwrap_used)]

use std::net::SocketAddr;
use std::time::Duration;
use strata_testkit::Captured;

use prost::Message;
use strata_hbase_rpc::frame::encode_request;
use strata_hbase_rpc::pb;
use strata_testkit::Single;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Connects with a preamble and a connection header for `service`.
async fn open(addr: SocketAddr, service: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let header = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: "test".into(),
            real_user: None,
        }),
        service_name: Some(service.into()),
        ..pb::ConnectionHeader::default()
    }
    .encode_to_vec();
    let mut hello = b"HBas\x00\x50".to_vec();
    hello.extend_from_slice(&u32::try_from(header.len()).unwrap().to_be_bytes());
    hello.extend_from_slice(&header);
    stream.write_all(&hello).await.unwrap();
    stream
}

/// Reads what the server sends until it closes or a short quiet spell.
async fn drain(s: &mut TcpStream) {
    let mut buf = vec![0u8; 4096];
    while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_millis(500), s.read(&mut buf)).await {
        if n == 0 {
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_hbase_rpc_input_is_logged_with_the_client_once_per_kind() {
    let log = Captured::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let dir = tempfile::tempdir().unwrap();
    let single = Single::start(dir.path());
    let addr = single.hbase_rpc();

    for _ in 0..3 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        drain(&mut s).await;
    }
    let mut s = open(addr, "ClientService").await;
    s.write_all(&encode_request(1, "NoSuchMethod", &pb::Empty {}, &[]))
        .await
        .unwrap();
    drain(&mut s).await;
    drop(s);
    single.stop().unwrap();

    let text = log.text();
    let of_kind = |kind: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(&format!("kind=\"{kind}\"")))
            .map(str::to_owned)
            .collect()
    };
    let malformed = of_kind("malformed HBase RPC");
    assert_eq!(malformed.len(), 1, "rate-limited to one line:\n{text}");
    assert!(malformed[0].contains(" WARN "), "{text}");
    assert!(malformed[0].contains("client=127.0.0.1:"), "{text}");
    assert!(malformed[0].contains("bad HBase RPC request"), "{text}");
    let invalid = of_kind("invalid request");
    assert_eq!(invalid.len(), 1, "{text}");
    assert!(invalid[0].contains("NoSuchMethod"), "{text}");
}
