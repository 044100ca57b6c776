//! [`ProcessTls`]: the TLS of one Strata process, as its `--tls-*` flags give it.

use crate::{ClientFiles, ClientTls, Error, ServerFiles, ServerTls};

/// A process's TLS: a configuration per kind of listener (they differ only in the
/// application protocols they agree on, and reload on their own), and the client
/// configuration of its connections to other Strata processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessTls {
    /// The data port (gRPC and the framed protocol): ALPN `h2`.
    pub data: ServerTls,
    /// The HTTP endpoint: ALPN `http/1.1`.
    pub http: ServerTls,
    /// Protocols without ALPN: HBase RPC, Thrift.
    pub raw: ServerTls,
    /// Connections to other Strata processes (a region server forwarding a flush, the
    /// in-process Thrift gateway's admin calls): trusting `ca`, presenting the process's own
    /// certificate when the cluster requires client certificates. `None` without a CA.
    pub client: Option<ClientTls>,
}

impl ProcessTls {
    /// Loads the process's certificate files, and `client`, what it trusts (and presents)
    /// when it connects to other processes.
    ///
    /// # Errors
    /// A file is missing, unreadable, empty, or the key is not the certificate's.
    pub fn load(files: ServerFiles, client: Option<ClientFiles>) -> Result<ProcessTls, Error> {
        let data = ServerTls::load(files, &[b"h2"])?;
        let http = data.with_alpn(&[b"http/1.1"])?;
        let raw = data.with_alpn(&[])?;
        let client = client.map(ClientTls::load).transpose()?;
        Ok(ProcessTls {
            data,
            http,
            raw,
            client,
        })
    }

    /// The client configuration, or an error naming the flag that gives it.
    ///
    /// # Errors
    /// No CA was given.
    pub fn client_or_explain(&self, needed_for: &str) -> Result<&ClientTls, String> {
        self.client.as_ref().ok_or_else(|| {
            format!(
                "{needed_for} connects over TLS and needs a CA to trust: give --tls-ca (or \
                 --tls-client-ca)"
            )
        })
    }
}
