//! Bad input through the Thrift1 gateway is logged at WARN with the client's address and the
//! kind of mistake, once per address and kind within the rate limit: a compact-protocol
//! client, then garbage on the port.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use common::*;
use strata_gateway::protocol::Struct;
use strata_testkit::Captured;

/// The log lines, shared with the subscriber.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_clients_are_logged_at_warn_with_their_address_once_per_kind() {
    let log = Captured::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let h = Harness::default().await;
    for _ in 0..3 {
        let mut compact = h.client().await;
        compact.send_raw(&[0x82, 0x21, 0x01, 0x00]).await.unwrap();
        compact.read_to_close().await;
    }
    let mut junk = h.client().await;
    junk.send_raw(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    assert!(junk.is_closed().await);
    let mut fine = h.client().await;
    assert!(fine
        .call("getTableNames", Struct::new())
        .await
        .success()
        .is_some());
    h.stop().await;

    let text = log.text();
    let lines: Vec<&str> = text.lines().collect();
    let compact: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("unsupported_protocol"))
        .collect();
    assert_eq!(compact.len(), 1, "rate-limited to one line:\n{text}");
    assert!(compact[0].contains(" WARN "), "{text}");
    assert!(compact[0].contains("client=127.0.0.1:"), "{text}");
    assert!(compact[0].contains("the compact protocol"), "{text}");
    let garbage: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("kind=\"malformed\""))
        .collect();
    assert_eq!(garbage.len(), 1, "{text}");
    assert!(garbage[0].contains("client=127.0.0.1:"), "{text}");
}
