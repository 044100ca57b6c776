//! TLS on a one-process Strata's listeners (docs/rfcs/0024-tls.md): round trips on the data
//! port (gRPC and the framed protocol), HBase RPC and HTTP; untrusted, expired and missing
//! certificates refused with errors naming TLS while other clients go on; plaintext to a TLS
//! port and TLS to a plaintext port refused clearly; certificate files replaced while the
//! server runs.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::{b, table};
use bytes::BytesMut;
use prost::Message;
use strata_client::{ClientOptions, Connection, Protocol};
use strata_model::ops::{Get, Put};
use strata_proto::frame::{put_frame, take_frame, Method, PREFACE, RESPONSE_ERROR};
use strata_proto::pb;
use strata_testkit::Single;
use strata_tls::ca::{self, Request};
use strata_tls::{ClientFiles, ClientTls, ProcessTls, ServerFiles, Stream};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Every test ends within this: a hung handshake fails the test.
const LIMIT: Duration = Duration::from_secs(60);

/// A test CA in a temporary directory with certificates `server` (for 127.0.0.1 and
/// localhost) and `client`.
fn authority() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ca::init(dir.path(), 30).unwrap();
    issue(dir.path(), "server", 30);
    issue(dir.path(), "client", 30);
    dir
}

fn issue(dir: &Path, name: &str, days: u32) -> (PathBuf, PathBuf) {
    let mut request = Request::new(name, days);
    request.dns = vec!["localhost".into()];
    request.ips = vec!["127.0.0.1".parse().unwrap()];
    ca::issue(dir, &request).unwrap()
}

/// A server with TLS on every listener (client certificates required if `mutual`).
fn start_tls(data: &Path, certs: &Path, mutual: bool) -> Single {
    let mut config = crate::support::config(data);
    let files = ServerFiles {
        cert: certs.join("server.pem"),
        key: certs.join("server.key"),
        client_ca: mutual.then(|| ca::ca_cert(certs)),
    };
    let client = ClientFiles {
        ca: ca::ca_cert(certs),
        cert: mutual.then(|| certs.join("server.pem")),
        key: mutual.then(|| certs.join("server.key")),
    };
    config.tls = Some(ProcessTls::load(files, Some(client)).unwrap());
    Single::start_with(config).unwrap()
}

fn client_tls(certs: &Path, cert: Option<&str>) -> ClientTls {
    ClientTls::load(ClientFiles {
        ca: ca::ca_cert(certs),
        cert: cert.map(|c| certs.join(format!("{c}.pem"))),
        key: cert.map(|c| certs.join(format!("{c}.key"))),
    })
    .unwrap()
}

async fn connect(
    server: &Single,
    tls: Option<ClientTls>,
    protocol: Protocol,
) -> Result<Connection, strata_client::Error> {
    let options = ClientOptions {
        protocol,
        tls,
        retries: 2,
        operation_timeout: Duration::from_secs(20),
        ..ClientOptions::default()
    };
    Connection::connect_with(&server.address(), options).await
}

/// Creates table `name`, writes a row and reads it back.
async fn round_trip(conn: &Connection, name: &str) -> Result<(), strata_client::Error> {
    conn.admin().create_table(&table(name, &["f"]), &[]).await?;
    let t = conn.table(name)?;
    t.put(&Put::new(b("r")).add(b("f"), b("q"), b("v"))).await?;
    let cells = t.get(&Get::new(b("r"))).await?;
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].value, b("v"));
    Ok(())
}

fn run(test: impl std::future::Future<Output = ()>) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            tokio::time::timeout(LIMIT, test)
                .await
                .expect("test timed out")
        });
}

#[test]
fn the_data_port_round_trips_over_tls_with_both_protocols() {
    run(async {
        let (data, certs) = (tempfile::tempdir().unwrap(), authority());
        let server = start_tls(data.path(), certs.path(), false);
        let tls = Some(client_tls(certs.path(), None));
        let frames = connect(&server, tls.clone(), Protocol::Frames)
            .await
            .unwrap();
        round_trip(&frames, "framed").await.unwrap();
        let grpc = connect(&server, tls, Protocol::Grpc).await.unwrap();
        round_trip(&grpc, "grpc").await.unwrap();
        server.stop().unwrap();
    });
}

#[test]
fn untrusted_and_plaintext_clients_are_refused_and_others_go_on() {
    run(async {
        let (data, certs, other) = (tempfile::tempdir().unwrap(), authority(), authority());
        let server = start_tls(data.path(), certs.path(), false);
        let trusted = connect(
            &server,
            Some(client_tls(certs.path(), None)),
            Protocol::Frames,
        )
        .await
        .unwrap();
        round_trip(&trusted, "before").await.unwrap();

        // A CA that did not sign the server's certificate.
        let e = connect(
            &server,
            Some(client_tls(other.path(), None)),
            Protocol::Frames,
        )
        .await
        .unwrap_err();
        assert!(
            e.message.contains("TLS handshake") && e.message.contains("UnknownIssuer"),
            "{e}"
        );
        assert!(!e.is_retryable(), "{e}");

        // Plaintext gRPC: the admin call is refused with a reason naming TLS, at once.
        let plain = connect(&server, None, Protocol::Frames).await.unwrap();
        let started = std::time::Instant::now();
        let e = plain.admin().table_exists("before").await.unwrap_err();
        assert!(e.message.contains("requires TLS"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5), "retried: {e}");

        // Plaintext framed protocol: the first call's answer names TLS.
        let mut tcp = TcpStream::connect(server.addr()).await.unwrap();
        let mut out = BytesMut::from(&PREFACE[..]);
        let get = pb::GetRequest::default();
        put_frame(&mut out, 7, Method::Get as u8, &get);
        tcp.write_all(&out).await.unwrap();
        let mut input = BytesMut::new();
        let frame = loop {
            if let Some(f) = take_frame(&mut input).unwrap() {
                break f;
            }
            assert!(
                tcp.read_buf(&mut input).await.unwrap() > 0,
                "closed unanswered"
            );
        };
        assert_eq!((frame.id, frame.kind), (7, RESPONSE_ERROR));
        let detail = pb::ErrorDetail::decode(frame.body).unwrap();
        assert!(detail.message.contains("requires TLS"), "{detail:?}");

        // The trusted client was not disturbed.
        round_trip(&trusted, "after").await.unwrap();
        server.stop().unwrap();
    });
}

#[test]
fn a_tls_client_of_a_plaintext_server_is_told_so() {
    run(async {
        let (data, certs) = (tempfile::tempdir().unwrap(), authority());
        let server = Single::start_with(crate::support::config(data.path())).unwrap();
        let e = connect(
            &server,
            Some(client_tls(certs.path(), None)),
            Protocol::Frames,
        )
        .await
        .unwrap_err();
        assert!(e.message.contains("is that port serving TLS?"), "{e}");
        let plain = connect(&server, None, Protocol::Frames).await.unwrap();
        round_trip(&plain, "t").await.unwrap();
        server.stop().unwrap();
    });
}

#[test]
fn mutual_tls_refuses_missing_untrusted_and_expired_client_certificates() {
    run(async {
        let (data, certs, other) = (tempfile::tempdir().unwrap(), authority(), authority());
        let server = start_tls(data.path(), certs.path(), true);
        let with_cert = connect(
            &server,
            Some(client_tls(certs.path(), Some("client"))),
            Protocol::Frames,
        )
        .await
        .unwrap();
        round_trip(&with_cert, "t").await.unwrap();

        // No client certificate: refused at connect, saying what is missing.
        let refused = async {
            let conn = connect(
                &server,
                Some(client_tls(certs.path(), None)),
                Protocol::Frames,
            )
            .await?;
            conn.admin().table_exists("t").await
        };
        let e = refused.await.unwrap_err();
        assert!(e.message.contains("requires a client certificate"), "{e}");
        assert!(!e.is_retryable(), "{e}");

        // A client certificate of another CA.
        issue(other.path(), "stranger", 30);
        let refused = async {
            let tls = client_tls(other.path(), Some("stranger"));
            let tls = ClientTls::load(ClientFiles {
                ca: ca::ca_cert(certs.path()),
                ..tls.files().clone()
            })
            .unwrap();
            let conn = connect(&server, Some(tls), Protocol::Frames).await?;
            conn.admin().table_exists("t").await
        };
        assert!(refused.await.is_err());

        // An expired client certificate of the right CA.
        let mut request = Request::new("old", 1);
        request.not_before = time::OffsetDateTime::now_utc() - time::Duration::days(10);
        request.not_after = time::OffsetDateTime::now_utc() - time::Duration::days(1);
        ca::issue(certs.path(), &request).unwrap();
        let refused = async {
            let conn = connect(
                &server,
                Some(client_tls(certs.path(), Some("old"))),
                Protocol::Frames,
            )
            .await?;
            conn.admin().table_exists("t").await
        };
        assert!(refused.await.is_err());

        assert!(with_cert.admin().table_exists("t").await.unwrap());
        server.stop().unwrap();
    });
}

/// Opens a TLS connection to `addr` offering `alpn`.
async fn tls_stream(tls: &ClientTls, addr: std::net::SocketAddr, alpn: &[&[u8]]) -> Stream {
    let tcp = TcpStream::connect(addr).await.unwrap();
    tls.with_alpn(alpn)
        .connect(&addr.to_string(), tcp)
        .await
        .unwrap()
}

#[test]
fn hbase_rpc_and_http_speak_tls_and_refuse_plaintext() {
    run(async {
        let (data, certs) = (tempfile::tempdir().unwrap(), authority());
        let server = start_tls(data.path(), certs.path(), false);
        let tls = client_tls(certs.path(), None);

        // HBase RPC: the registry preamble answers the cluster id over TLS.
        let mut s = tls_stream(&tls, server.hbase_rpc(), &[]).await;
        s.write_all(b"Regist").await.unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).await.unwrap();
        assert!(reply.len() > 8, "{reply:?}");
        // Plaintext: a FatalConnectionException saying TLS is required.
        let mut tcp = TcpStream::connect(server.hbase_rpc()).await.unwrap();
        tcp.write_all(b"HBas\x00\x50").await.unwrap();
        let mut reply = Vec::new();
        tcp.read_to_end(&mut reply).await.unwrap();
        let text = String::from_utf8_lossy(&reply);
        assert!(
            text.contains("FatalConnectionException") && text.contains("requires TLS"),
            "{text}"
        );

        // HTTP: /metrics over TLS; plaintext gets a 400 naming TLS.
        let mut s = tls_stream(&tls, server.http(), &[b"http/1.1"]).await;
        s.write_all(b"GET /metrics HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).await.unwrap();
        let text = String::from_utf8_lossy(&reply);
        assert!(
            text.starts_with("HTTP/1.1 200") && text.contains("# TYPE"),
            "{text}"
        );
        let mut tcp = TcpStream::connect(server.http()).await.unwrap();
        tcp.write_all(b"GET /metrics HTTP/1.1\r\nhost: localhost\r\n\r\n")
            .await
            .unwrap();
        let mut reply = Vec::new();
        tcp.read_to_end(&mut reply).await.unwrap();
        let text = String::from_utf8_lossy(&reply);
        assert!(
            text.starts_with("HTTP/1.1 400") && text.contains("requires TLS"),
            "{text}"
        );
        server.stop().unwrap();
    });
}

/// The certificate the data port presents to a new connection.
async fn presented(tls: &ClientTls, addr: std::net::SocketAddr) -> Vec<u8> {
    let Stream::Tls(s) = tls_stream(tls, addr, &[]).await else {
        panic!("not TLS")
    };
    s.get_ref().1.peer_certificates().unwrap()[0].to_vec()
}

#[test]
fn replaced_certificate_files_take_effect_without_a_restart() {
    run(async {
        let (data, certs) = (tempfile::tempdir().unwrap(), authority());
        let server = start_tls(data.path(), certs.path(), false);
        let tls = client_tls(certs.path(), None);
        let conn = connect(&server, Some(tls.clone()), Protocol::Frames)
            .await
            .unwrap();
        round_trip(&conn, "t").await.unwrap();
        let (data_before, http_before) = (
            presented(&tls, server.addr()).await,
            presented(&tls, server.http()).await,
        );
        issue(certs.path(), "server", 60);
        tokio::time::sleep(strata_tls::RELOAD_CHECK + Duration::from_millis(300)).await;
        assert_ne!(presented(&tls, server.addr()).await, data_before);
        assert_ne!(presented(&tls, server.http()).await, http_before);
        // Connections made before and after both work.
        assert!(conn.admin().table_exists("t").await.unwrap());
        let fresh = connect(&server, Some(tls), Protocol::Grpc).await.unwrap();
        assert!(fresh.admin().table_exists("t").await.unwrap());
        server.stop().unwrap();
    });
}
