//! gRPC channels to Strata's servers, plain or over TLS: tonic's channel with [`Connector`],
//! which opens the TCP connection and, given a [`ClientTls`], completes the TLS handshake
//! (offering ALPN `h2`) before HTTP/2 starts.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::TokioIo;
use strata_tls::{ClientTls, Stream};
use tokio::net::TcpStream;
use tonic::transport::{Channel, Endpoint};

/// Opens a channel's connections: TCP with `TCP_NODELAY`, then TLS if configured.
#[derive(Clone, Debug)]
pub struct Connector {
    tls: ClientTls,
}

impl Connector {
    /// A connector that speaks TLS with `tls` (its ALPN set to `h2`).
    pub fn new(tls: &ClientTls) -> Connector {
        Connector {
            tls: tls.with_alpn(&[b"h2"]),
        }
    }
}

impl tower_service::Service<http::Uri> for Connector {
    type Response = TokioIo<Stream>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<TokioIo<Stream>>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: http::Uri) -> Self::Future {
        let tls = self.tls.clone();
        Box::pin(async move {
            let host = uri.host().ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, format!("no host in {uri}"))
            })?;
            let addr = format!("{host}:{}", uri.port_u16().unwrap_or(80));
            let tcp = TcpStream::connect(&addr).await?;
            tcp.set_nodelay(true)?;
            Ok(TokioIo::new(tls.connect(&addr, tcp).await?))
        })
    }
}

/// An endpoint for `addr` (`host:port`, or a URI), `http://` added to a bare address.
///
/// # Errors
/// `addr` is not a valid URI.
pub fn endpoint(addr: &str, connect_timeout: Duration) -> Result<Endpoint, String> {
    let uri = if addr.contains("://") {
        addr.to_string()
    } else {
        format!("http://{addr}")
    };
    let endpoint = Endpoint::from_shared(uri).map_err(|e| format!("bad address '{addr}': {e}"))?;
    Ok(endpoint.connect_timeout(connect_timeout).tcp_nodelay(true))
}

/// Connects `endpoint` now, over TLS if `tls` is given.
///
/// # Errors
/// The server cannot be reached, or the handshake failed; the message explains a refusal
/// that comes from TLS (the server requires it, or does not speak it).
pub async fn connect(endpoint: &Endpoint, tls: Option<&ClientTls>) -> Result<Channel, String> {
    let connected = match tls {
        None => endpoint.connect().await,
        Some(tls) => endpoint.connect_with_connector(Connector::new(tls)).await,
    };
    connected.map_err(|e| explain(&e))
}

/// A channel to `endpoint` that connects on first use, over TLS if `tls` is given.
pub fn connect_lazy(endpoint: &Endpoint, tls: Option<&ClientTls>) -> Channel {
    match tls {
        None => endpoint.connect_lazy(),
        Some(tls) => endpoint.connect_with_connector_lazy(Connector::new(tls)),
    }
}

/// The text of a transport error with its causes; a refusal by TLS is told plainly: the
/// failed handshake's own message, or that the server requires TLS.
pub fn explain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if more.starts_with("TLS handshake with") {
            return more;
        }
        if more.contains(INADEQUATE_SECURITY) {
            return TLS_REQUIRED.to_owned();
        }
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    if text.contains(INADEQUATE_SECURITY) {
        return TLS_REQUIRED.to_owned();
    }
    text
}

/// What a plaintext client is told when a TLS port turns it away.
const TLS_REQUIRED: &str = "the server requires TLS and refused this plaintext connection: \
                            connect with TLS, trusting the server's CA (--tls-ca)";

/// How h2 words the `GOAWAY` a TLS port sends a plaintext gRPC client
/// (`INADEQUATE_SECURITY`).
const INADEQUATE_SECURITY: &str = "security properties do not meet minimum requirements";

/// Whether an error's text ([`explain`]) says TLS refused the connection: a failed
/// handshake, or a TLS server turning a plaintext client away. Such a refusal repeats until
/// the configuration changes, so it is not worth retrying.
pub fn refused_by_tls(text: &str) -> bool {
    text.contains("TLS handshake with")
        || text.contains(INADEQUATE_SECURITY)
        || text.starts_with(TLS_REQUIRED)
}
