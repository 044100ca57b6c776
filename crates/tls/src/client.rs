//! [`ClientTls`]: how Strata's clients and processes open TLS connections.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rustls_pki_types::ServerName;
use tokio::net::TcpStream;

use crate::{pem, Error, Stream};

/// Where a client's trusted CAs and (for mutual TLS) its own certificate and key are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientFiles {
    /// The CAs a server's certificate must chain to, PEM.
    pub ca: PathBuf,
    /// The client's certificate chain, PEM, for servers that require one (with `key`).
    pub cert: Option<PathBuf>,
    /// The client certificate's private key, PEM.
    pub key: Option<PathBuf>,
}

/// A client's TLS configuration. Cheap to clone.
#[derive(Clone)]
pub struct ClientTls {
    config: Arc<rustls::ClientConfig>,
    files: ClientFiles,
}

impl std::fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTls")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl PartialEq for ClientTls {
    fn eq(&self, other: &ClientTls) -> bool {
        self.files == other.files && self.config.alpn_protocols == other.config.alpn_protocols
    }
}

impl Eq for ClientTls {}

impl ClientTls {
    /// Loads `files`.
    ///
    /// # Errors
    /// A file is missing, unreadable or holds no certificate or key; only one of the client
    /// certificate and key is given, or they do not match.
    pub fn load(files: ClientFiles) -> Result<ClientTls, Error> {
        let roots = pem::roots("TLS CA file (--tls-ca)", &files.ca)?;
        let builder = rustls::ClientConfig::builder_with_provider(crate::provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::Config(e.to_string()))?
            .with_root_certificates(roots);
        let config = match (&files.cert, &files.key) {
            (None, None) => builder.with_no_client_auth(),
            (Some(cert_path), Some(key_path)) => {
                let certs = pem::certificates("TLS client certificate file", cert_path)?;
                let key = pem::private_key("TLS client key file", key_path)?;
                pem::check_pair(&certs, &key, (cert_path, key_path))?;
                builder
                    .with_client_auth_cert(certs, key)
                    .map_err(|e| Error::Config(format!("TLS client certificate: {e}")))?
            }
            _ => {
                return Err(Error::Config(
                    "a TLS client certificate needs its key, and a key its certificate: give \
                     both or neither"
                        .to_owned(),
                ))
            }
        };
        Ok(ClientTls {
            config: Arc::new(config),
            files,
        })
    }

    /// The same configuration offering the application protocols `alpn` (`h2` for gRPC).
    pub fn with_alpn(&self, alpn: &[&[u8]]) -> ClientTls {
        let mut config = (*self.config).clone();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        ClientTls {
            config: Arc::new(config),
            files: self.files.clone(),
        }
    }

    /// The files this configuration was loaded from.
    pub fn files(&self) -> &ClientFiles {
        &self.files
    }

    /// The rustls configuration.
    pub fn config(&self) -> Arc<rustls::ClientConfig> {
        self.config.clone()
    }

    /// Completes a TLS handshake on `tcp`, connected to `addr` (`host:port`; the host is the
    /// name the server's certificate must carry, as a DNS name or an IP address).
    ///
    /// # Errors
    /// The host is not a valid name, or the handshake failed; the message names TLS and, when
    /// the server did not answer in TLS, says the port may not be serving TLS.
    pub async fn connect(&self, addr: &str, tcp: TcpStream) -> io::Result<Stream> {
        let name = server_name(addr)?;
        // Without a certificate of its own, the client notes whether the server asked for
        // one: under TLS 1.3 a server's refusal arrives only after the handshake, as an
        // alert that HTTP/2 would report as a cancelled call.
        let (config, asked) = if self.files.cert.is_none() {
            let asked = Arc::new(AtomicBool::new(false));
            let mut config = (*self.config).clone();
            config.client_auth_cert_resolver = Arc::new(NoCertificate(asked.clone()));
            (Arc::new(config), Some(asked))
        } else {
            (self.config.clone(), None)
        };
        let connector = tokio_rustls::TlsConnector::from(config);
        match tokio::time::timeout(crate::HANDSHAKE_TIMEOUT, connector.connect(name, tcp)).await {
            Ok(Ok(_)) if asked.is_some_and(|a| a.load(Ordering::Relaxed)) => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "TLS handshake with {addr} failed: the server requires a client \
                         certificate (mutual TLS): give one and its key (--tls-client-cert, \
                         --tls-client-key)"
                ),
            )),
            Ok(Ok(tls)) => Ok(Stream::Tls(Box::new(tls.into()))),
            Ok(Err(e)) => Err(handshake_error(addr, &e)),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "TLS handshake with {addr} timed out: is that port serving TLS? (a server \
                     started without --tls-cert speaks plaintext)"
                ),
            )),
        }
    }
}

/// The client certificate of a client that has none, noting whether the server asked.
#[derive(Debug)]
struct NoCertificate(Arc<AtomicBool>);

impl rustls::client::ResolvesClientCert for NoCertificate {
    fn resolve(
        &self,
        _root_hint_subjects: &[&[u8]],
        _sigschemes: &[rustls::SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        self.0.store(true, Ordering::Relaxed);
        None
    }

    fn has_certs(&self) -> bool {
        false
    }
}

/// The error of a failed handshake with `addr`, explained.
fn handshake_error(addr: &str, e: &io::Error) -> io::Error {
    let about_certificates = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .is_some_and(|r| {
            matches!(
                r,
                rustls::Error::InvalidCertificate(_)
                    | rustls::Error::NoCertificatesPresented
                    | rustls::Error::AlertReceived(
                        rustls::AlertDescription::CertificateRequired
                            | rustls::AlertDescription::BadCertificate
                            | rustls::AlertDescription::UnknownCA
                            | rustls::AlertDescription::CertificateExpired
                            | rustls::AlertDescription::CertificateUnknown
                            | rustls::AlertDescription::AccessDenied
                            | rustls::AlertDescription::DecryptError
                    )
            )
        });
    let hint = if about_certificates {
        ""
    } else {
        " (is that port serving TLS? a server started without --tls-cert speaks plaintext)"
    };
    io::Error::new(
        e.kind(),
        format!("TLS handshake with {addr} failed: {e}{hint}"),
    )
}

/// The name a server at `addr` (`host:port`, `[v6]:port` or a bare host) must prove.
fn server_name(addr: &str) -> io::Result<ServerName<'static>> {
    let addr = addr
        .strip_prefix("https://")
        .or_else(|| addr.strip_prefix("http://"))
        .unwrap_or(addr)
        .trim_end_matches('/');
    let host = if let Some(rest) = addr.strip_prefix('[') {
        rest.split(']').next().unwrap_or(rest)
    } else {
        match addr.rsplit_once(':') {
            Some((host, port)) if port.parse::<u16>().is_ok() => host,
            _ => addr,
        }
    };
    ServerName::try_from(host.to_owned()).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{host}' is not a name a TLS certificate can carry: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::server_name;

    #[test]
    fn server_names_come_from_the_host() {
        let name = |a: &str| server_name(a).map(|n| n.to_str().into_owned()).ok();
        assert_eq!(
            name("db1.example.com:16000").as_deref(),
            Some("db1.example.com")
        );
        assert_eq!(name("127.0.0.1:16000").as_deref(), Some("127.0.0.1"));
        assert_eq!(name("[::1]:16000").as_deref(), Some("::1"));
        assert_eq!(
            name("http://localhost:16000/").as_deref(),
            Some("localhost")
        );
        assert_eq!(name("localhost").as_deref(), Some("localhost"));
        assert_eq!(name("bad name:1"), None);
    }
}
