//! [`ServerTls`]: a listener's TLS configuration, from PEM files, reloaded when they change.
//!
//! Thread safety: a `ServerTls` is shared by clones; the configuration in force is behind a
//! mutex held only to compare the files' stamps (at most every [`RELOAD_CHECK`]) or to swap
//! in a reloaded configuration, never during a handshake.
//!
//! Invariants: the configuration in force was built from one consistent set of files (a
//! certificate with its own key); a set that fails to load never replaces it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use parking_lot::Mutex;
use tokio::net::TcpStream;

use crate::{pem, Error, Stream, HANDSHAKE_RECORD};

/// How often, at most, the files are looked at for changes (on a new connection).
pub const RELOAD_CHECK: Duration = Duration::from_secs(2);

/// Longest a client may take to send its first byte and complete the handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a server's certificate, key and (for mutual TLS) client CA are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerFiles {
    /// The certificate chain, PEM, the server's certificate first.
    pub cert: PathBuf,
    /// The certificate's private key, PEM (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// The CAs clients' certificates must chain to, PEM. When set, every client must present
    /// a certificate (mutual TLS).
    pub client_ca: Option<PathBuf>,
}

impl ServerFiles {
    fn paths(&self) -> impl Iterator<Item = &Path> {
        [Some(&self.cert), Some(&self.key), self.client_ca.as_ref()]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path)
    }
}

/// What a file looked like when last loaded: a replaced or rewritten file differs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp(Option<(SystemTime, u64)>);

fn stamps(files: &ServerFiles) -> Vec<Stamp> {
    files
        .paths()
        .map(|p| {
            Stamp(
                std::fs::metadata(p)
                    .ok()
                    .and_then(|m| Some((m.modified().ok()?, m.len()))),
            )
        })
        .collect()
}

/// A listener's TLS configuration. Cheap to clone; clones share the configuration in force.
#[derive(Clone)]
pub struct ServerTls {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTls")
            .field("files", &self.shared.files)
            .finish_non_exhaustive()
    }
}

/// Two configurations are equal when they come from the same files with the same protocols.
impl PartialEq for ServerTls {
    fn eq(&self, other: &ServerTls) -> bool {
        self.shared.files == other.shared.files && self.shared.alpn == other.shared.alpn
    }
}

impl Eq for ServerTls {}

struct Shared {
    files: ServerFiles,
    /// ALPN protocols offered (empty: none).
    alpn: Vec<Vec<u8>>,
    /// The configuration in force, the files' stamps it was (or failed to be) built from,
    /// and when they were last compared.
    state: Mutex<State>,
}

struct State {
    config: Arc<rustls::ServerConfig>,
    stamps: Vec<Stamp>,
    checked: Instant,
}

/// What [`ServerTls::accept`] made of a new connection.
#[derive(Debug)]
pub enum Accepted {
    /// A TLS connection, its handshake done.
    Tls(Stream),
    /// The client's first byte (given) is not a TLS handshake's: it speaks plaintext. The
    /// socket is returned untouched (nothing read) for the listener to answer in its own
    /// protocol and close.
    Plaintext(TcpStream, u8),
}

impl ServerTls {
    /// Loads `files`; `alpn` are the application protocols to agree on (`h2` for gRPC,
    /// `http/1.1` for HTTP; none for protocols without ALPN).
    ///
    /// # Errors
    /// A file is missing, unreadable or holds no certificate or key, or the key is not the
    /// certificate's.
    pub fn load(files: ServerFiles, alpn: &[&[u8]]) -> Result<ServerTls, Error> {
        let alpn: Vec<Vec<u8>> = alpn.iter().map(|p| p.to_vec()).collect();
        let before = stamps(&files);
        let config = build(&files, &alpn)?;
        Ok(ServerTls {
            shared: Arc::new(Shared {
                files,
                alpn,
                state: Mutex::new(State {
                    config: Arc::new(config),
                    stamps: before,
                    checked: Instant::now(),
                }),
            }),
        })
    }

    /// The same files with other ALPN protocols (a configuration of its own, reloaded on its
    /// own).
    ///
    /// # Errors
    /// As [`ServerTls::load`].
    pub fn with_alpn(&self, alpn: &[&[u8]]) -> Result<ServerTls, Error> {
        ServerTls::load(self.shared.files.clone(), alpn)
    }

    /// The files this configuration is loaded from.
    pub fn files(&self) -> &ServerFiles {
        &self.shared.files
    }

    /// Whether clients must present a certificate.
    pub fn mutual(&self) -> bool {
        self.shared.files.client_ca.is_some()
    }

    /// The configuration for a new connection: the files are compared with those in force if
    /// [`RELOAD_CHECK`] passed since the last look, and reloaded if they changed. A changed
    /// set that does not load is logged at ERROR once and the configuration in force kept.
    pub fn config(&self) -> Arc<rustls::ServerConfig> {
        let mut state = self.shared.state.lock();
        if state.checked.elapsed() >= RELOAD_CHECK {
            state.checked = Instant::now();
            let now = stamps(&self.shared.files);
            if now != state.stamps {
                // Stamped before reading: a write finishing after the read changes them again.
                state.stamps = now;
                match build(&self.shared.files, &self.shared.alpn) {
                    Ok(config) => {
                        tracing::info!(
                            cert = %self.shared.files.cert.display(),
                            "TLS certificate files changed: reloaded for new connections"
                        );
                        state.config = Arc::new(config);
                    }
                    Err(e) => tracing::error!(
                        "TLS certificate files changed but cannot be loaded ({e}): new \
                         connections keep the certificate in force"
                    ),
                }
            }
        }
        state.config.clone()
    }

    /// Waits (at most [`HANDSHAKE_TIMEOUT`]) for the client's first byte and, if it opens a
    /// TLS handshake, completes the handshake.
    ///
    /// # Errors
    /// The client sent nothing or did not finish the handshake in time (`TimedOut`), the
    /// handshake failed (`InvalidData`, with rustls' reason: an untrusted or missing client
    /// certificate, no protocol in common), or the socket failed.
    pub async fn accept(&self, tcp: TcpStream) -> io::Result<Accepted> {
        let timed_out = || {
            io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the TLS handshake did not finish within {} s",
                    HANDSHAKE_TIMEOUT.as_secs()
                ),
            )
        };
        let deadline = tokio::time::Instant::now() + HANDSHAKE_TIMEOUT;
        let mut first = [0u8; 1];
        let n = tokio::time::timeout_at(deadline, tcp.peek(&mut first))
            .await
            .map_err(|_| timed_out())??;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the client closed the connection before the TLS handshake",
            ));
        }
        if first[0] != HANDSHAKE_RECORD {
            return Ok(Accepted::Plaintext(tcp, first[0]));
        }
        let acceptor = tokio_rustls::TlsAcceptor::from(self.config());
        let tls = tokio::time::timeout_at(deadline, acceptor.accept(tcp))
            .await
            .map_err(|_| timed_out())?
            .map_err(|e| {
                io::Error::new(io::ErrorKind::InvalidData, format!("TLS handshake: {e}"))
            })?;
        Ok(Accepted::Tls(Stream::Tls(Box::new(tls.into()))))
    }
}

/// The configuration `files` give.
fn build(files: &ServerFiles, alpn: &[Vec<u8>]) -> Result<rustls::ServerConfig, Error> {
    let certs = pem::certificates("TLS certificate file (--tls-cert)", &files.cert)?;
    let key = pem::private_key("TLS key file (--tls-key)", &files.key)?;
    pem::check_pair(&certs, &key, (&files.cert, &files.key))?;
    let builder = rustls::ServerConfig::builder_with_provider(crate::provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Config(e.to_string()))?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let roots = pem::roots("TLS client CA file (--tls-client-ca)", ca)?;
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                crate::provider(),
            )
            .build()
            .map_err(|e| Error::Config(format!("client CA {}: {e}", ca.display())))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(certs, key)
        .map_err(|e| Error::Config(format!("TLS certificate and key: {e}")))?;
    config.alpn_protocols = alpn.to_vec();
    Ok(config)
}
