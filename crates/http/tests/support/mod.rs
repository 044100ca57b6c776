//! A one-process Strata with its HTTP endpoint in a temporary directory, and a minimal
//! HTTP/1.1 client for the tests.
#![allow(dead_code, clippy::unwrap_used)]

pub mod exposition;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use strata_client::Connection;
use strata_cluster_node::single::SingleConfig;
use strata_testkit::Single;

/// Small settings on free ports, every request logged as slow; `edit` adjusts them.
pub fn config(dir: &Path) -> SingleConfig {
    let mut c = strata_testkit::config(dir);
    c.server.row_cache_bytes = 8 << 20;
    c.server.slow_op_threshold = Duration::ZERO;
    c
}

/// The HTTP endpoint of a running server.
pub struct Http(SocketAddr);

impl Http {
    pub fn addr(&self) -> SocketAddr {
        self.0
    }
}

/// A running server, its endpoint and a client connection.
pub struct Running {
    pub server: Single,
    pub http: Http,
    pub conn: Connection,
}

impl Running {
    pub async fn stop(self) {
        self.server.stop().unwrap();
    }
}

pub async fn start_with(config: SingleConfig) -> Running {
    let server = Single::start_with(config).unwrap();
    let http = Http(server.http());
    let conn = Connection::connect(&server.address()).await.unwrap();
    Running { server, http, conn }
}

pub async fn start(dir: &Path) -> Running {
    start_with(config(dir)).await
}

pub use strata_testkit::fixtures::table;

pub fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

/// A response: status code, headers (lower-case names) and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `method target` to `addr` and reads the whole response (connection closed by the
/// server after it).
pub fn request(addr: SocketAddr, method: &str, target: &str) -> Response {
    request_with(addr, method, target, "")
}

/// [`request`] with extra header lines (each ending in `\r\n`).
pub fn request_with(addr: SocketAddr, method: &str, target: &str, headers: &str) -> Response {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}Content-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Response {
        status,
        headers,
        body,
    }
}

pub async fn get(addr: SocketAddr, target: &str) -> Response {
    let target = target.to_owned();
    tokio::task::spawn_blocking(move || request(addr, "GET", &target))
        .await
        .unwrap()
}

/// The OpenMetrics `Accept` header Prometheus sends.
pub const ACCEPT_OPENMETRICS: &str = "Accept: application/openmetrics-text;version=1.0.0,\
    application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n";

/// `GET /metrics` asking for OpenMetrics, as Prometheus does.
pub async fn get_openmetrics(addr: SocketAddr) -> Response {
    tokio::task::spawn_blocking(move || request_with(addr, "GET", "/metrics", ACCEPT_OPENMETRICS))
        .await
        .unwrap()
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").unwrap();
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
}
