//! Bad requests on Strata's own port are logged at WARN with the client's address and the
//! kind of mistake, once per address and kind within the rate limit, over the framed
//! protocol and gRPC alike: a missing table, an unknown family, a bad filter, garbage.
#![allow(clippy::unwrap_used)]

mod support;

use bytes::Bytes;
use strata_client::{ClientOptions, Connection, Protocol};
use strata_model::ops::parse_filter;
use strata_model::ops::{Get, Put, Scan};
use strata_testkit::Captured;
use support::*;
use tokio::io::AsyncWriteExt;

/// The log lines, shared with the subscriber.
fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_logged_with_the_client_once_per_kind() {
    let log = Captured::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let dir = tempfile::tempdir().unwrap();
    let (server, framed) = start_with(dir.path(), Protocol::Frames).await;
    let addr = server.addr().to_string();
    framed
        .admin()
        .create_table(&table("t", &["f"]), &[])
        .await
        .unwrap();
    let grpc = Connection::connect_with(
        &addr,
        ClientOptions {
            protocol: Protocol::Grpc,
            ..ClientOptions::default()
        },
    )
    .await
    .unwrap();

    // The framed protocol: a missing table three times (one line), an unknown family.
    for _ in 0..3 {
        let missing = framed.table("missing").unwrap();
        missing.get(&Get::new(b("r"))).await.unwrap_err();
    }
    let t = framed.table("t").unwrap();
    t.put(&Put::new(b("r")).add(b("nosuch"), b("q"), b("v")))
        .await
        .unwrap_err();
    // gRPC: a scan with a filter the server refuses (a regex that does not compile).
    let g = grpc.table("t").unwrap();
    let mut scan = Scan::new();
    scan.filter = Some(parse_filter("RowFilter(=, 'regexstring:(')").unwrap());
    let refused = g.scan_all(&scan).await;
    assert!(refused.is_err(), "{refused:?}");
    // Garbage on the port.
    let mut junk = tokio::net::TcpStream::connect(&addr).await.unwrap();
    junk.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    drop(junk);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // A fine request logs nothing.
    t.put(&Put::new(b("r")).add(b("f"), b("q"), b("v")))
        .await
        .unwrap();
    server.stop().unwrap();

    let text = log.text();
    let of_kind = |kind: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(&format!("kind=\"{kind}\"")))
            .map(str::to_owned)
            .collect()
    };
    let missing = of_kind("missing table");
    assert_eq!(missing.len(), 1, "rate-limited to one line:\n{text}");
    assert!(missing[0].contains(" WARN "), "{text}");
    assert!(missing[0].contains("client=127.0.0.1:"), "{text}");
    assert!(
        missing[0].contains("bad Strata admin request: locate"),
        "{text}"
    );
    assert!(missing[0].contains("missing"), "{text}");
    let family = of_kind("unknown family");
    assert_eq!(family.len(), 1, "{text}");
    assert!(family[0].contains("nosuch"), "{text}");
    let filter = of_kind("invalid request");
    assert!(
        filter
            .iter()
            .any(|l| l.contains("bad Strata gRPC request") && l.contains("scan")),
        "{text}"
    );
    let garbage = of_kind("garbage");
    assert_eq!(garbage.len(), 1, "{text}");
    assert!(garbage[0].contains("client=127.0.0.1:"), "{text}");
}
