//! A test certificate authority (`strata cert init` and `strata cert issue`): a CA key and
//! certificate in a directory, and certificates for servers and clients signed by it.
//!
//! Files: `DIR/ca.pem` (the CA's certificate, what clients trust: `--tls-ca`, HBase's
//! `hbase.rpc.tls.truststore.location`, `--tls-client-ca`), `DIR/ca.key`, and for each issued
//! name `DIR/NAME.pem` and `DIR/NAME.key` (`--tls-cert`, `--tls-key`). Keys are ECDSA P-256,
//! PKCS#8, written readable by their owner only. Issued certificates are good for both
//! server and client authentication, so one pair serves a process that is both.
//!
//! For tests and trials: a production deployment uses its own CA.

use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};
use time::{Duration, OffsetDateTime};

/// The start of the CA's common name; the rest comes from its key, so that two test CAs
/// never share a subject (a client would then report a bad signature rather than an unknown
/// issuer).
const CA_NAME: &str = "Strata test CA";

/// Why a CA or certificate could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CaError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The request is not valid (a name, an existing CA).
    #[error("{0}")]
    Invalid(String),
    /// The certificate could not be made.
    #[error("cannot make the certificate: {0}")]
    Generate(#[from] rcgen::Error),
}

/// A certificate to issue.
#[derive(Clone, Debug)]
pub struct Request {
    /// The certificate's common name and its files' name (`NAME.pem`, `NAME.key`): letters,
    /// digits, `.`, `_` and `-`.
    pub name: String,
    /// DNS names it is valid for [default: `name`, when no IP address is given either].
    pub dns: Vec<String>,
    /// IP addresses it is valid for.
    pub ips: Vec<IpAddr>,
    /// Start of validity.
    pub not_before: OffsetDateTime,
    /// End of validity.
    pub not_after: OffsetDateTime,
}

impl Request {
    /// A certificate for `name`, valid from an hour ago for `days` days.
    pub fn new(name: &str, days: u32) -> Request {
        let now = OffsetDateTime::now_utc();
        Request {
            name: name.to_owned(),
            dns: Vec::new(),
            ips: Vec::new(),
            not_before: now - Duration::hours(1),
            not_after: now + Duration::days(i64::from(days)),
        }
    }
}

/// The CA's certificate file in `dir`.
pub fn ca_cert(dir: &Path) -> PathBuf {
    dir.join("ca.pem")
}

/// Makes a CA in `dir` (created if missing), valid for `days` days; returns its certificate
/// file.
///
/// # Errors
/// `dir` already holds a CA (it is never overwritten), or a file cannot be written.
pub fn init(dir: &Path, days: u32) -> Result<PathBuf, CaError> {
    let (cert_path, key_path) = (ca_cert(dir), dir.join("ca.key"));
    for path in [&cert_path, &key_path] {
        if path.exists() {
            return Err(CaError::Invalid(format!(
                "{} exists: {} already holds a CA (remove it to make a new one)",
                path.display(),
                dir.display()
            )));
        }
    }
    std::fs::create_dir_all(dir).map_err(|source| CaError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let key = KeyPair::generate()?;
    let mut params = ca_params(&key);
    let now = OffsetDateTime::now_utc();
    params.not_before = now - Duration::hours(1);
    params.not_after = now + Duration::days(i64::from(days));
    let cert = params.self_signed(&key)?;
    write(&key_path, &key.serialize_pem(), true)?;
    write(&cert_path, &cert.pem(), false)?;
    Ok(cert_path)
}

/// Issues `request` with the CA in `dir`; returns the certificate and key files.
///
/// # Errors
/// No CA in `dir`, a bad name, or a file cannot be read or written.
pub fn issue(dir: &Path, request: &Request) -> Result<(PathBuf, PathBuf), CaError> {
    let name = &request.name;
    let valid = !name.is_empty()
        && name != "ca"
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !valid {
        return Err(CaError::Invalid(format!(
            "'{name}' is not a certificate name: use letters, digits, '.', '_' and '-' (and not \
             'ca')"
        )));
    }
    if request.not_after <= request.not_before {
        return Err(CaError::Invalid(
            "the certificate would expire before it starts".to_owned(),
        ));
    }
    let key_path = dir.join("ca.key");
    let ca_key = std::fs::read_to_string(&key_path).map_err(|source| CaError::Io {
        path: key_path.clone(),
        source,
    })?;
    let ca_key = KeyPair::from_pem(&ca_key)
        .map_err(|e| CaError::Invalid(format!("{}: not a CA key: {e}", key_path.display())))?;
    // The issuer is the CA as `init` made it: its subject and key are what a signature names.
    let ca = ca_params(&ca_key).self_signed(&ca_key)?;

    let mut sans = Vec::new();
    let dns = if request.dns.is_empty() && request.ips.is_empty() {
        std::slice::from_ref(name)
    } else {
        &request.dns[..]
    };
    for d in dns {
        let ia5 = d
            .clone()
            .try_into()
            .map_err(|_| CaError::Invalid(format!("'{d}' is not a DNS name")))?;
        sans.push(SanType::DnsName(ia5));
    }
    sans.extend(request.ips.iter().map(|ip| SanType::IpAddress(*ip)));
    let mut params = CertificateParams::default();
    params.subject_alt_names = sans;
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, name.as_str());
    params.distinguished_name = dn;
    params.is_ca = IsCa::ExplicitNoCa;
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    params.not_before = request.not_before;
    params.not_after = request.not_after;
    params.use_authority_key_identifier_extension = true;
    let key = KeyPair::generate()?;
    let cert = params.signed_by(&key, &ca, &ca_key)?;
    let (cert_path, key_path) = (
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    );
    write(&key_path, &key.serialize_pem(), true)?;
    write(&cert_path, &cert.pem(), false)?;
    Ok((cert_path, key_path))
}

/// The CA's settings; its subject is named after `key`.
fn ca_params(key: &KeyPair) -> CertificateParams {
    let mut params = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    // An uncompressed EC point: a tag byte, then coordinates that differ from key to key.
    let tag: String = key
        .public_key_raw()
        .iter()
        .skip(1)
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect();
    dn.push(DnType::CommonName, format!("{CA_NAME} {tag}"));
    dn.push(DnType::OrganizationName, "Strata");
    params.distinguished_name = dn;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params
}

/// Writes `text` to `path` through a temporary file renamed over it (a reader never sees half
/// a file); `secret` files are readable by their owner only.
fn write(path: &Path, text: &str, secret: bool) -> Result<(), CaError> {
    let io = |source| CaError::Io {
        path: path.to_path_buf(),
        source,
    };
    let tmp = path.with_extension("tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = secret;
    let mut file = options.open(&tmp).map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}
