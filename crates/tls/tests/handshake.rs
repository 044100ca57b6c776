//! TLS between a [`ServerTls`] and a [`ClientTls`] over loopback: round trips, refusals with
//! clear errors, mutual TLS, and certificate files replaced while the server runs.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use strata_tls::ca::{self, Request};
use strata_tls::{Accepted, ClientFiles, ClientTls, ServerFiles, ServerTls};
use time::OffsetDateTime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Every test ends within this (a hung handshake fails the test).
const LIMIT: Duration = Duration::from_secs(30);

fn issue(dir: &Path, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut request = Request::new(name, 30);
    request.dns = vec!["localhost".into()];
    request.ips = vec!["127.0.0.1".parse().unwrap()];
    ca::issue(dir, &request).unwrap()
}

/// A CA in a temporary directory with a server certificate `server` and client `client`.
fn authority() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ca::init(dir.path(), 30).unwrap();
    issue(dir.path(), "server");
    issue(dir.path(), "client");
    dir
}

fn server_files(dir: &Path, mutual: bool) -> ServerFiles {
    ServerFiles {
        cert: dir.join("server.pem"),
        key: dir.join("server.key"),
        client_ca: mutual.then(|| ca::ca_cert(dir)),
    }
}

fn client(dir: &Path, with_cert: bool) -> ClientTls {
    ClientTls::load(ClientFiles {
        ca: ca::ca_cert(dir),
        cert: with_cert.then(|| dir.join("client.pem")),
        key: with_cert.then(|| dir.join("client.key")),
    })
    .unwrap()
}

/// Serves an echo of each TLS connection's first line; plaintext ones get `PLAINTEXT`.
async fn echo_server(tls: ServerTls) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let tls = tls.clone();
            tokio::spawn(async move {
                match tls.accept(tcp).await {
                    Ok(Accepted::Tls(mut s)) => {
                        let mut buf = [0u8; 5];
                        if s.read_exact(&mut buf).await.is_ok() {
                            let _ = s.write_all(&buf).await;
                            let _ = s.shutdown().await;
                        }
                    }
                    Ok(Accepted::Plaintext(mut s, _)) => {
                        let mut buf = [0u8; 5];
                        let _ = s.read_exact(&mut buf).await;
                        let _ = s.write_all(b"PLAINTEXT").await;
                    }
                    Err(_) => {}
                }
            });
        }
    });
    addr
}

async fn round_trip(client: &ClientTls, addr: std::net::SocketAddr) -> std::io::Result<Vec<u8>> {
    let tcp = TcpStream::connect(addr).await?;
    let mut s = client.connect(&addr.to_string(), tcp).await?;
    s.write_all(b"hello").await?;
    let mut back = Vec::new();
    s.read_to_end(&mut back).await?;
    Ok(back)
}

/// The DER of the certificate the server at `addr` presents.
async fn presented(client: &ClientTls, addr: std::net::SocketAddr) -> Vec<u8> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let s = client.connect(&addr.to_string(), tcp).await.unwrap();
    let strata_tls::Stream::Tls(tls) = s else {
        panic!("not TLS")
    };
    let (_, session) = tls.get_ref();
    session.peer_certificates().unwrap()[0].to_vec()
}

fn run(test: impl std::future::Future<Output = ()>) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        tokio::time::timeout(LIMIT, test)
            .await
            .expect("test timed out");
    });
}

#[test]
fn a_trusted_client_round_trips() {
    run(async {
        let dir = authority();
        let addr =
            echo_server(ServerTls::load(server_files(dir.path(), false), &[]).unwrap()).await;
        assert_eq!(
            round_trip(&client(dir.path(), false), addr).await.unwrap(),
            b"hello"
        );
        // Named by host rather than IP.
        let tcp = TcpStream::connect(addr).await.unwrap();
        let port = addr.port();
        assert!(client(dir.path(), false)
            .connect(&format!("localhost:{port}"), tcp)
            .await
            .is_ok());
    });
}

#[test]
fn an_untrusted_server_is_refused_and_others_are_unaffected() {
    run(async {
        let dir = authority();
        let other = authority();
        let addr =
            echo_server(ServerTls::load(server_files(dir.path(), false), &[]).unwrap()).await;
        let e = round_trip(&client(other.path(), false), addr)
            .await
            .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("TLS handshake") && text.contains("UnknownIssuer"),
            "{text}"
        );
        assert!(!text.contains("serving TLS?"), "{text}");
        assert_eq!(
            round_trip(&client(dir.path(), false), addr).await.unwrap(),
            b"hello"
        );
    });
}

#[test]
fn an_expired_server_certificate_is_refused() {
    run(async {
        let dir = authority();
        let mut request = Request::new("old", 1);
        request.ips = vec!["127.0.0.1".parse().unwrap()];
        request.not_before = OffsetDateTime::now_utc() - time::Duration::days(10);
        request.not_after = OffsetDateTime::now_utc() - time::Duration::days(1);
        let (cert, key) = ca::issue(dir.path(), &request).unwrap();
        let files = ServerFiles {
            cert,
            key,
            client_ca: None,
        };
        let addr = echo_server(ServerTls::load(files, &[]).unwrap()).await;
        let text = round_trip(&client(dir.path(), false), addr)
            .await
            .unwrap_err()
            .to_string();
        assert!(text.contains("expired"), "{text}");
    });
}

#[test]
fn mutual_tls_requires_a_client_certificate() {
    run(async {
        let dir = authority();
        let addr = echo_server(ServerTls::load(server_files(dir.path(), true), &[]).unwrap()).await;
        assert_eq!(
            round_trip(&client(dir.path(), true), addr).await.unwrap(),
            b"hello"
        );
        // Without a certificate: the client knows at once that the server asked for one.
        let refused = round_trip(&client(dir.path(), false), addr)
            .await
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("requires a client certificate"),
            "{refused}"
        );
        // A client certificate from another CA: TLS 1.3 tells the client on its first read.
        let other = authority();
        let refused = round_trip(&client(other.path(), true), addr).await;
        assert!(refused.is_err(), "{refused:?}");
    });
}

#[test]
fn plaintext_clients_are_told_apart() {
    run(async {
        let dir = authority();
        let addr =
            echo_server(ServerTls::load(server_files(dir.path(), false), &[]).unwrap()).await;
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        tcp.write_all(b"hello").await.unwrap();
        let mut back = Vec::new();
        tcp.read_to_end(&mut back).await.unwrap();
        assert_eq!(back, b"PLAINTEXT");
    });
}

#[test]
fn a_tls_client_of_a_plaintext_server_is_told_so() {
    run(async {
        let dir = authority();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 64];
            let _ = s.read(&mut buf).await;
            let _ = s.write_all(b"not tls at all\n").await;
        });
        let e = round_trip(&client(dir.path(), false), addr)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("is that port serving TLS?"), "{e}");
    });
}

#[test]
fn replaced_files_take_effect_for_new_connections() {
    run(async {
        let dir = authority();
        let tls = ServerTls::load(server_files(dir.path(), false), &[]).unwrap();
        let addr = echo_server(tls).await;
        let trusting = client(dir.path(), false);
        let first = presented(&trusting, addr).await;

        // A broken certificate file: the one in force stays.
        std::fs::write(dir.path().join("server.pem"), "garbage").unwrap();
        tokio::time::sleep(strata_tls::RELOAD_CHECK + Duration::from_millis(200)).await;
        assert_eq!(presented(&trusting, addr).await, first);

        // A new pair, written as `strata cert issue` writes (renamed into place).
        issue(dir.path(), "server");
        tokio::time::sleep(strata_tls::RELOAD_CHECK + Duration::from_millis(200)).await;
        let second = presented(&trusting, addr).await;
        assert_ne!(second, first);
        assert_eq!(round_trip(&trusting, addr).await.unwrap(), b"hello");
    });
}

#[test]
fn bad_files_are_named_at_load() {
    let dir = authority();
    let err = |files: ServerFiles| ServerTls::load(files, &[]).unwrap_err().to_string();
    let mut files = server_files(dir.path(), false);
    files.cert = dir.path().join("missing.pem");
    let text = err(files);
    assert!(
        text.contains("--tls-cert") && text.contains("missing.pem"),
        "{text}"
    );

    let mut files = server_files(dir.path(), false);
    files.key = dir.path().join("client.key");
    let text = err(files);
    assert!(
        text.contains("does not match") || text.contains("not the key"),
        "{text}"
    );

    let mut files = server_files(dir.path(), false);
    files.key = dir.path().join("server.pem");
    let text = err(files);
    assert!(text.contains("no private key"), "{text}");

    let mut files = server_files(dir.path(), true);
    files.client_ca = Some(dir.path().join("server.key"));
    let text = err(files);
    assert!(
        text.contains("--tls-client-ca") && text.contains("no certificate"),
        "{text}"
    );

    let only_cert = ClientTls::load(ClientFiles {
        ca: ca::ca_cert(dir.path()),
        cert: Some(dir.path().join("client.pem")),
        key: None,
    });
    assert!(only_cert.is_err());
}

#[test]
fn a_ca_is_never_overwritten() {
    let dir = authority();
    let e = ca::init(dir.path(), 30).unwrap_err().to_string();
    assert!(e.contains("already holds a CA"), "{e}");
    let e = ca::issue(dir.path(), &Request::new("../x", 30))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a certificate name"), "{e}");
}

/// A seeded xorshift generator: the same bytes on every run, so a failure replays.
fn bytes_from(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// The first bytes a real client sends: its ClientHello record.
async fn client_hello(client: &ClientTls) -> Vec<u8> {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let reader = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut hello = vec![0u8; 5];
        s.read_exact(&mut hello).await.unwrap();
        let len = u16::from_be_bytes([hello[3], hello[4]]) as usize;
        hello.resize(5 + len, 0);
        s.read_exact(&mut hello[5..]).await.unwrap();
        hello
    });
    let tcp = TcpStream::connect(addr).await.unwrap();
    // The handshake cannot finish: the other side never answers and is dropped.
    let _ = tokio::time::timeout(
        Duration::from_secs(5),
        client.connect(&addr.to_string(), tcp),
    )
    .await;
    reader.await.unwrap()
}

/// Bad bytes on the TLS handshake: a real ClientHello with bytes flipped, cut short, or
/// followed by garbage, and random records. Each connection gets an error (or is told apart as
/// plaintext when its first byte is not a handshake record) within the handshake's bound,
/// nothing panics, and a trusted client round-trips afterwards.
#[test]
fn bad_bytes_on_the_handshake_are_refused_and_others_go_on() {
    run(async {
        let dir = authority();
        let tls = ServerTls::load(server_files(dir.path(), true), &[]).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (outcomes, mut told) = tokio::sync::mpsc::unbounded_channel();
        let server = tls.clone();
        tokio::spawn(async move {
            loop {
                let (tcp, _) = listener.accept().await.unwrap();
                let (server, outcomes) = (server.clone(), outcomes.clone());
                tokio::spawn(async move {
                    let outcome = match server.accept(tcp).await {
                        Ok(Accepted::Tls(mut s)) => {
                            let mut buf = [0u8; 5];
                            if s.read_exact(&mut buf).await.is_ok() {
                                let _ = s.write_all(&buf).await;
                                let _ = s.shutdown().await;
                            }
                            "tls"
                        }
                        Ok(Accepted::Plaintext(..)) => "plaintext",
                        Err(_) => "refused",
                    };
                    let _ = outcomes.send(outcome);
                });
            }
        });
        let hello = client_hello(&client(dir.path(), true)).await;
        assert_eq!(hello[0], 0x16, "a ClientHello is a handshake record");
        let mut next = bytes_from(0x2545_f491_4f6c_dd1d);
        for case in 0..300u32 {
            let input: Vec<u8> = match case % 4 {
                // A few bytes of the real ClientHello flipped.
                0 => {
                    let mut h = hello.clone();
                    for _ in 0..1 + next() % 4 {
                        let at = (next() as usize) % h.len();
                        h[at] ^= 1 + (next() % 255) as u8;
                    }
                    h
                }
                // Cut short anywhere.
                1 => hello[..(next() as usize) % hello.len()].to_vec(),
                // Whole, then garbage where the client's next flight would be.
                2 => {
                    let mut h = hello.clone();
                    h.extend((0..next() % 512).map(|_| next() as u8));
                    h
                }
                // A record header of any type and length, then random bytes.
                _ => {
                    let len = (next() % 4096) as usize;
                    let mut r = vec![next() as u8, 3, (next() % 4) as u8];
                    r.extend_from_slice(&(len as u16).to_be_bytes());
                    r.extend((0..len).map(|_| next() as u8));
                    r
                }
            };
            let mut tcp = TcpStream::connect(addr).await.unwrap();
            let _ = tcp.write_all(&input).await;
            // The client is done: a server waiting for more bytes sees the end.
            let _ = tcp.shutdown().await;
            let mut rest = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(12), tcp.read_to_end(&mut rest)).await;
            let outcome = tokio::time::timeout(Duration::from_secs(12), told.recv())
                .await
                .unwrap_or_else(|_| panic!("case {case}: no outcome within the bound"))
                .unwrap();
            let plaintext = input.first().is_some_and(|&b| b != 0x16);
            let expected = if plaintext { "plaintext" } else { "refused" };
            assert_eq!(outcome, expected, "case {case}: {} bytes", input.len());
        }
        assert_eq!(
            round_trip(&client(dir.path(), true), addr).await.unwrap(),
            b"hello"
        );
    });
}
