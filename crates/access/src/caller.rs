//! [`Caller`]: who made a call and how they proved it, as the connection that carried it
//! knows.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

/// How a caller proved who it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// Nothing: a plaintext connection, or TLS without a client certificate.
    None,
    /// A client certificate verified by the server's `--tls-client-ca`.
    Certificate,
    /// Kerberos (SASL GSSAPI).
    Kerberos,
    /// A call of this process to itself (the shell's one-shot commands, the in-process
    /// gateway): the process's own user.
    Process,
}

impl AuthMethod {
    /// HBase's name for it, as `whoami` prints it (`auth:CERTIFICATE`).
    pub fn name(self) -> &'static str {
        match self {
            AuthMethod::None => "SIMPLE",
            AuthMethod::Certificate => "CERTIFICATE",
            AuthMethod::Kerberos => "KERBEROS",
            AuthMethod::Process => "PROCESS",
        }
    }
}

/// The caller of one request: its authenticated name (if any), how, and its address.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The authenticated name, if the connection proved one.
    pub user: Option<Arc<str>>,
    /// How.
    pub how: AuthMethod,
    /// The client's address.
    pub addr: Option<SocketAddr>,
}

impl Caller {
    /// A caller that proved nothing.
    pub fn anonymous(addr: Option<SocketAddr>) -> Caller {
        Caller {
            user: None,
            how: AuthMethod::None,
            addr,
        }
    }

    /// A caller with a certificate naming `user`.
    pub fn certified(user: &str, addr: Option<SocketAddr>) -> Caller {
        Caller {
            user: Some(Arc::from(user)),
            how: AuthMethod::Certificate,
            addr,
        }
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.user {
            Some(u) => write!(f, "{u} (auth:{})", self.how.name()),
            None => write!(f, "unknown (auth:{})", self.how.name()),
        }
    }
}
