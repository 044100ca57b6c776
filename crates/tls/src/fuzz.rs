//! Entry point for the TLS fuzz target (`fuzz/`) and its corpus replay test: a client's bytes
//! on a new loopback connection to a mutual-TLS listener, through [`ServerTls::accept`] (the
//! first byte's dispatch between TLS and plaintext, rustls' handshake with the client
//! certificate verifier, the handshake's bound). The client closes its side after its bytes,
//! so every handshake ends at once. Nothing here is used by a server.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::ca::{self, Request};
use crate::{Accepted, ServerFiles, ServerTls};

/// Longest wait for one input (a bug that makes the accept hang shows as a slow input).
const BOUND: Duration = Duration::from_secs(5);

/// A mutual-TLS listener on loopback, made once for many inputs.
pub struct Harness {
    tls: ServerTls,
    listener: TcpListener,
    addr: SocketAddr,
}

impl Harness {
    /// A CA, a server certificate for 127.0.0.1 and the listener, in `dir`.
    ///
    /// # Errors
    /// The certificates cannot be written or loaded, or loopback cannot be bound.
    pub async fn new(dir: &Path) -> Result<Harness, String> {
        ca::init(dir, 30).map_err(|e| e.to_string())?;
        let mut server = Request::new("server", 30);
        server.ips = vec![std::net::Ipv4Addr::LOCALHOST.into()];
        let (cert, key) = ca::issue(dir, &server).map_err(|e| e.to_string())?;
        let files = ServerFiles {
            cert,
            key,
            client_ca: Some(ca::ca_cert(dir)),
        };
        let tls = ServerTls::load(files, &[b"h2"]).map_err(|e| e.to_string())?;
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        Ok(Harness {
            tls,
            listener,
            addr,
        })
    }

    /// Sends `data` on a new connection, closes the client's side and lets the listener
    /// accept it; whether it ended within its bound.
    pub async fn connection(&self, data: &[u8]) -> bool {
        tokio::time::timeout(BOUND, self.run(data)).await.is_ok()
    }

    async fn run(&self, data: &[u8]) {
        let Ok(mut client) = TcpStream::connect(self.addr).await else {
            return;
        };
        let Ok((server, _)) = self.listener.accept().await else {
            return;
        };
        let send = async {
            let _ = client.write_all(data).await;
            let _ = client.shutdown().await;
            // What the server answers is read and dropped, so its writes never block.
            let mut sink = [0u8; 4096];
            while matches!(client.read(&mut sink).await, Ok(n) if n > 0) {}
        };
        let serve = async {
            if let Ok(Accepted::Tls(mut stream)) = self.tls.accept(server).await {
                let mut buf = [0u8; 4096];
                while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
            }
        };
        tokio::join!(send, serve);
    }
}
