//! Kerberos for Strata's servers: GSSAPI through the system's MIT library
//! (`libgssapi_krb5.so.2`, loaded when first needed, so a process without Kerberos configured
//! never needs it).
//!
//! - [`Acceptor`]: a service principal's keys from a keytab; each connection gets an
//!   [`Context`] from [`Acceptor::context`] and feeds it the client's tokens
//!   ([`Acceptor::accept`]) until established, then knows the client's principal.
//! - [`initiate`]: a client's context (the default ticket cache), as Strata's tests use it.
//! - [`Principal`]: a principal's parts, and HBase's default mapping of a principal to a short
//!   user name.
//!
//! No key, ticket or token is ever logged or kept beyond the context that needs it.

mod principal;
mod sys;

use std::fmt;
use std::path::Path;
use std::sync::Arc;

pub use principal::Principal;
pub use sys::{available, Context, Step, LIBRARY};

/// A failed GSSAPI call: what was being done and the library's message.
#[derive(Debug, Clone)]
pub struct Error {
    what: &'static str,
    major: u32,
    message: String,
}

impl Error {
    fn new(what: &'static str, major: u32, message: String) -> Error {
        Error {
            what,
            major,
            message,
        }
    }

    fn nul() -> Error {
        Error::new("reading the keytab", 0, "the path holds a NUL byte".into())
    }

    /// GSSAPI's major status (0 when the failure is not the library's).
    pub fn major(&self) -> u32 {
        self.major
    }

    /// The library's message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.message)
    }
}

impl std::error::Error for Error {}

/// A service principal's keys, to accept clients' contexts. Shared by every connection.
#[derive(Clone)]
pub struct Acceptor {
    principal: Principal,
    cred: Arc<sys::Cred>,
}

impl fmt::Debug for Acceptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Acceptor")
            .field("principal", &self.principal.to_string())
            .finish_non_exhaustive()
    }
}

impl Acceptor {
    /// `principal`'s keys from `keytab`.
    ///
    /// # Errors
    /// The principal does not parse or has no realm, the library cannot be loaded, or the
    /// keytab is unreadable or holds no key of the principal.
    pub fn from_keytab(principal: &str, keytab: &Path) -> Result<Acceptor, Error> {
        let parsed =
            Principal::parse(principal).map_err(|e| Error::new("reading the principal", 0, e))?;
        if parsed.realm().is_none() {
            return Err(Error::new(
                "reading the principal",
                0,
                format!("{principal} has no realm (service/host@REALM)"),
            ));
        }
        let cred = sys::Cred::acceptor(principal, keytab)?;
        Ok(Acceptor {
            principal: parsed,
            cred: Arc::new(cred),
        })
    }

    /// The service principal.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// A new context for one client.
    pub fn context(&self) -> Context {
        Context::accepting()
    }

    /// Feeds the client's `token` to `context`.
    ///
    /// # Errors
    /// The token is malformed, for another service, expired, replayed, or does not decrypt.
    pub fn accept(&self, context: &mut Context, token: &[u8]) -> Result<Step, Error> {
        context.accept(&self.cred, token)
    }
}

/// A client's context towards `target` (`service/host@REALM`), with the credentials of the
/// default ticket cache (KRB5CCNAME).
///
/// # Errors
/// The library cannot be loaded, the name does not parse, or there is no valid ticket.
pub fn initiate(target: &str) -> Result<Context, Error> {
    Context::initiating(target)
}

impl Context {
    /// Produces the client's next token from the server's last one (empty at first).
    ///
    /// # Errors
    /// No valid ticket, or the server's token does not verify.
    pub fn step(&mut self, server_token: &[u8]) -> Result<Step, Error> {
        self.initiate(server_token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_keytab_or_a_bad_principal_is_a_clear_error() {
        let e = Acceptor::from_keytab("hbase/localhost", Path::new("/nonexistent/k.keytab"))
            .expect_err("no realm");
        assert!(e.to_string().contains("has no realm"), "{e}");
        let e = Acceptor::from_keytab("hbase/a/b@R", Path::new("/nonexistent/k.keytab"))
            .expect_err("malformed");
        assert!(e.to_string().contains("not a Kerberos principal"), "{e}");
        let e = Acceptor::from_keytab("hbase/localhost@R", Path::new("/nonexistent/k.keytab"))
            .expect_err("no keytab");
        match available() {
            // The library's own words name the problem (no such file, no key).
            Ok(()) => assert!(e.to_string().starts_with("reading the keytab: "), "{e}"),
            Err(_) => assert!(e.to_string().contains(LIBRARY), "{e}"),
        }
    }
}
