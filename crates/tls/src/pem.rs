//! Reading certificates and keys from PEM files, with errors that name the file.

use std::path::Path;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::Error;

fn read(what: &'static str, path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|source| Error::Read {
        what,
        path: path.to_path_buf(),
        source,
    })
}

/// Every certificate of the PEM file at `path` (a chain: the leaf first), at least one.
pub(crate) fn certificates(
    what: &'static str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, Error> {
    let bytes = read(what, path)?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::content(what, path, format!("not valid PEM: {e}")))?;
    if certs.is_empty() {
        return Err(Error::content(
            what,
            path,
            "no certificate in it (expected PEM blocks of BEGIN CERTIFICATE)",
        ));
    }
    Ok(certs)
}

/// The private key of the PEM file at `path` (PKCS#8, PKCS#1 or SEC1).
pub(crate) fn private_key(
    what: &'static str,
    path: &Path,
) -> Result<PrivateKeyDer<'static>, Error> {
    let bytes = read(what, path)?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| {
        let why = match e {
            rustls_pki_types::pem::Error::NoItemsFound => {
                "no private key in it (expected a PEM block of BEGIN PRIVATE KEY, BEGIN RSA \
                 PRIVATE KEY or BEGIN EC PRIVATE KEY)"
                    .to_owned()
            }
            e => format!("not a valid PEM private key: {e}"),
        };
        Error::content(what, path, why)
    })
}

/// The trust anchors of the CA file at `path`: every certificate in it.
pub(crate) fn roots(what: &'static str, path: &Path) -> Result<rustls::RootCertStore, Error> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in certificates(what, path)? {
        roots
            .add(cert)
            .map_err(|e| Error::content(what, path, format!("not a usable CA certificate: {e}")))?;
    }
    Ok(roots)
}

/// Checks that `key` is the private key of `certs`' leaf.
pub(crate) fn check_pair(
    certs: &[CertificateDer<'static>],
    key: &PrivateKeyDer<'static>,
    (cert_path, key_path): (&Path, &Path),
) -> Result<(), Error> {
    let provider = crate::provider();
    let signing = provider
        .key_provider
        .load_private_key(key.clone_key())
        .map_err(|e| {
            Error::content(
                "TLS key file",
                key_path,
                format!("not a key TLS can use: {e}"),
            )
        })?;
    let certified = rustls::sign::CertifiedKey::new(certs.to_vec(), signing);
    match certified.keys_match() {
        Ok(()) | Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => Ok(()),
        Err(_) => Err(Error::Config(format!(
            "the TLS key {} is not the key of the certificate {} (the pair does not match)",
            key_path.display(),
            cert_path.display()
        ))),
    }
}
