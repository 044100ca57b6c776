//! The endpoint over TLS: an `axum` listener whose connections have completed TLS's
//! handshake. Handshakes run on tasks of their own, so a slow or silent client delays no
//! other; a plaintext client gets a `400` naming TLS, a failed handshake is logged.

use std::net::SocketAddr;

use strata_tls::{Accepted, ServerTls, Stream};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Connections that completed a handshake waiting for `axum` to take them.
const READY: usize = 64;

/// What a plaintext client of the TLS endpoint reads.
const TLS_REQUIRED: &str =
    "This port requires TLS (the server runs with --tls-cert): use https://\n";

/// The TLS connections of one listening socket.
pub(crate) struct TlsListener {
    addr: SocketAddr,
    ready: mpsc::Receiver<(Stream, SocketAddr)>,
    accepting: JoinHandle<()>,
}

impl TlsListener {
    pub(crate) fn new(listener: TcpListener, tls: ServerTls) -> std::io::Result<TlsListener> {
        let addr = listener.local_addr()?;
        let (tx, ready) = mpsc::channel(READY);
        let accepting = tokio::spawn(accept_forever(listener, tls, tx));
        Ok(TlsListener {
            addr,
            ready,
            accepting,
        })
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = Stream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Stream, SocketAddr) {
        match self.ready.recv().await {
            Some(ready) => ready,
            // The accepting task ended (its runtime stops): no more connections.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.addr)
    }
}

async fn accept_forever(
    listener: TcpListener,
    tls: ServerTls,
    ready: mpsc::Sender<(Stream, SocketAddr)>,
) {
    loop {
        let (tcp, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!("HTTP endpoint: accepting a connection failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let (tls, ready) = (tls.clone(), ready.clone());
        tokio::spawn(async move {
            match tls.accept(tcp).await {
                Ok(Accepted::Tls(stream)) => {
                    let _ = ready.send((stream, peer)).await;
                }
                Ok(Accepted::Plaintext(mut tcp, _)) => {
                    tracing::debug!(client = %peer, "HTTP endpoint: plaintext client refused");
                    let mut request = [0u8; 4096];
                    let _ = tokio::time::timeout(
                        std::time::Duration::from_secs(1),
                        tcp.read(&mut request),
                    )
                    .await;
                    let answer = format!(
                        "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\
                         connection: close\r\ncontent-length: {}\r\n\r\n{TLS_REQUIRED}",
                        TLS_REQUIRED.len()
                    );
                    let _ = tcp.write_all(answer.as_bytes()).await;
                    let _ = tcp.shutdown().await;
                }
                Err(e) => {
                    tracing::debug!(client = %peer, "HTTP endpoint: TLS handshake failed: {e}");
                }
            }
        });
    }
}
