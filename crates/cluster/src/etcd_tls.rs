//! TLS towards etcd (RFC 0024, "etcd"): the CA that signs etcd's certificate and, for etcd's
//! `--client-cert-auth`, the client certificate and key this process presents.
//!
//! Every etcd client of a process uses the same credentials, so they are a process-wide
//! setting ([`use_tls`], called once by the command line before anything connects) rather
//! than an argument of each of the many places that connect. The PEM files are read at each
//! connection, so replaced files take effect at the next one (a region server's next
//! incarnation, the next admin command) without a restart.

use std::path::PathBuf;
use std::sync::RwLock;

use etcd_client::{Certificate, Identity, TlsOptions};

use crate::kv::{KvError, KvResult};

/// How a process reaches etcd over TLS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdTls {
    /// PEM file of the CA (or CAs) that etcd's certificate must chain to.
    pub ca: PathBuf,
    /// PEM files of the client certificate and its key, presented to etcd (needed when etcd
    /// runs with `--client-cert-auth`).
    pub identity: Option<(PathBuf, PathBuf)>,
}

static TLS: RwLock<Option<EtcdTls>> = RwLock::new(None);

/// Makes every etcd connection of this process from now on use `tls` (`None`: plaintext).
pub fn use_tls(tls: Option<EtcdTls>) {
    *TLS.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = tls;
}

/// Makes every etcd connection of this process use the files given (`None`: plaintext):
/// the CA, and the client certificate with its key.
pub fn use_files(files: Option<(PathBuf, Option<(PathBuf, PathBuf)>)>) {
    use_tls(files.map(|(ca, identity)| EtcdTls { ca, identity }));
}

/// The process's setting.
pub fn current() -> Option<EtcdTls> {
    TLS.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

fn read(what: &str, path: &PathBuf) -> KvResult<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| KvError::Invalid(format!("etcd TLS: {what} {}: {e}", path.display())))
}

/// The client's TLS options from the files named by `tls`.
///
/// # Errors
/// A file cannot be read, or holds no PEM block.
pub(crate) fn options(tls: &EtcdTls) -> KvResult<TlsOptions> {
    let ca = read("CA", &tls.ca)?;
    if !String::from_utf8_lossy(&ca).contains("-----BEGIN CERTIFICATE-----") {
        return Err(KvError::Invalid(format!(
            "etcd TLS: CA {} holds no PEM certificate",
            tls.ca.display()
        )));
    }
    let mut options = TlsOptions::new().ca_certificate(Certificate::from_pem(ca));
    if let Some((cert, key)) = &tls.identity {
        let (cert_pem, key_pem) = (read("certificate", cert)?, read("key", key)?);
        options = options.identity(Identity::from_pem(cert_pem, key_pem));
    }
    Ok(options)
}

/// `endpoint` as a URL: `https://` added to a bare `host:port` under TLS; a scheme given is
/// kept, but `http://` under TLS is refused (it would send credentials in the clear).
///
/// # Errors
/// An `http://` endpoint while TLS is on.
pub(crate) fn url(endpoint: &str, tls: bool) -> KvResult<String> {
    match (endpoint.split_once("://"), tls) {
        (Some(("http", _)), true) => Err(KvError::Invalid(format!(
            "etcd TLS: endpoint {endpoint} is plaintext (give host:port or https://host:port)"
        ))),
        (Some(_), _) => Ok(endpoint.to_owned()),
        (None, true) => Ok(format!("https://{endpoint}")),
        (None, false) => Ok(endpoint.to_owned()),
    }
}

/// How `urls` are reached, for errors: in plaintext, or over TLS with or without a client
/// certificate, with what to check when the connection fails.
pub(crate) fn describe(urls: &[String], tls: Option<&EtcdTls>) -> String {
    let at = urls.join(",");
    match tls {
        None => format!("etcd at {at} (plaintext; if etcd serves TLS, give its CA)"),
        Some(EtcdTls { identity: None, .. }) => format!(
            "etcd at {at} (TLS without a client certificate; if etcd requires one, give a \
             certificate and key)"
        ),
        Some(EtcdTls {
            identity: Some((cert, _)),
            ca,
        }) => format!(
            "etcd at {at} (TLS, client certificate {}; etcd must trust its CA, and its own \
             certificate must chain to {})",
            cert.display(),
            ca.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_get_the_scheme_of_the_setting() {
        assert_eq!(url("10.0.0.1:2379", true).unwrap(), "https://10.0.0.1:2379");
        assert_eq!(url("10.0.0.1:2379", false).unwrap(), "10.0.0.1:2379");
        assert_eq!(url("https://e:2379", true).unwrap(), "https://e:2379");
        assert!(url("http://e:2379", true).is_err());
        assert_eq!(url("http://e:2379", false).unwrap(), "http://e:2379");
    }

    #[test]
    fn unreadable_or_empty_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = EtcdTls {
            ca: dir.path().join("none.pem"),
            identity: None,
        };
        let e = options(&missing).unwrap_err().to_string();
        assert!(e.contains("etcd TLS: CA") && e.contains("none.pem"), "{e}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, b"not a certificate").unwrap();
        let e = options(&EtcdTls {
            ca: empty,
            identity: None,
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("holds no PEM certificate"), "{e}");
    }
}
