//! The name a client certificate proves: its subject's common name, or else its first DNS
//! name (`strata cert issue --name alice` makes both `alice`). RFC 0026 takes it as the
//! caller's user.

use rustls_pki_types::CertificateDer;

/// The user `cert` names, if it names one.
pub fn certificate_user(cert: &CertificateDer<'_>) -> Option<String> {
    let parsed = webpki::EndEntityCert::try_from(cert).ok()?;
    common_name(parsed.subject())
        .or_else(|| parsed.valid_dns_names().next().map(str::to_owned))
        .filter(|n| !n.is_empty())
}

/// The user the first certificate of the PEM file at `path` names (a process's own
/// certificate: the name it proves to other servers).
///
/// # Errors
/// The file cannot be read or holds no certificate.
pub fn certificate_file_user(path: &std::path::Path) -> Result<Option<String>, crate::Error> {
    let certs = crate::pem::certificates("certificate", path)?;
    Ok(certs.first().and_then(certificate_user))
}

/// One DER element: its tag, its contents and what follows it.
fn element(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (len, &rest[n..])
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

/// The common name (OID 2.5.4.3) of a subject's contents (its relative distinguished names,
/// without the outer SEQUENCE): the last one, as the most specific.
fn common_name(mut rdns: &[u8]) -> Option<String> {
    const SET: u8 = 0x31;
    const SEQUENCE: u8 = 0x30;
    const OID: u8 = 0x06;
    const CN: [u8; 3] = [0x55, 0x04, 0x03];
    let mut found = None;
    while !rdns.is_empty() {
        let (tag, mut set, rest) = element(rdns)?;
        rdns = rest;
        if tag != SET {
            return None;
        }
        while !set.is_empty() {
            let (tag, pair, rest) = element(set)?;
            set = rest;
            if tag != SEQUENCE {
                return None;
            }
            let (tag, oid, value) = element(pair)?;
            if tag == OID && oid == CN {
                // UTF8String, PrintableString, IA5String or T61String: bytes of text.
                let (_, text, _) = element(value)?;
                found = Some(String::from_utf8(text.to_vec()).ok()?);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_certificate_names_its_user() {
        let dir = tempfile::tempdir().unwrap();
        crate::ca::init(dir.path(), 1).unwrap();
        let mut request = crate::ca::Request::new("alice", 1);
        request.dns = vec!["localhost".into()];
        let files = crate::ca::issue(dir.path(), &request).unwrap();
        let certs = crate::pem::certificates("cert", &files.0).unwrap();
        assert_eq!(certificate_user(&certs[0]).as_deref(), Some("alice"));
    }

    #[test]
    fn garbage_names_no_one() {
        assert_eq!(
            certificate_user(&CertificateDer::from(vec![0x30, 0x03, 1, 2])),
            None
        );
        assert_eq!(common_name(&[0x31, 0x85, 0, 0]), None);
        assert_eq!(common_name(&[0x31, 0x10]), None);
    }
}
