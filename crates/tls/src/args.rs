//! The `--tls-*` flags (docs/rfcs/0024-tls.md): a server process's certificate, key and
//! client CA ([`ListenArgs`]), and what a process or client trusts when it connects to Strata
//! ([`ConnectArgs`]). Settable in the configuration file like every flag (RFC 0022); the
//! files' paths show on `/config`, never their contents.

use std::path::PathBuf;

use crate::{ClientFiles, ClientTls, ProcessTls, ServerFiles};

/// TLS on a server process's listeners.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ListenArgs {
    /// PEM certificate chain (the server's certificate first) presented on every listener of
    /// this process: the data port, HBase RPC, Thrift and HTTP. With --tls-key, turns TLS on
    /// for all of them; replaced files take effect for new connections within seconds.
    #[arg(long)]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert (PKCS#8, PKCS#1 or SEC1).
    #[arg(long)]
    pub tls_key: Option<PathBuf>,
    /// PEM CA certificates client certificates must chain to: with it, every client must
    /// present a certificate (mutual TLS). Needs --tls-cert.
    #[arg(long)]
    pub tls_client_ca: Option<PathBuf>,
}

/// TLS of the connections a process or client opens to Strata servers.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ConnectArgs {
    /// PEM CA certificates a server's certificate must chain to: with it, connections to
    /// Strata servers use TLS [default for server processes: --tls-client-ca].
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
    /// PEM client certificate presented to servers that require one (mutual TLS), with
    /// --tls-client-key [default for server processes: --tls-cert when --tls-client-ca is
    /// given].
    #[arg(long)]
    pub tls_client_cert: Option<PathBuf>,
    /// PEM private key of --tls-client-cert.
    #[arg(long)]
    pub tls_client_key: Option<PathBuf>,
}

/// TLS towards etcd (cluster mode, RFC 0024 "etcd"): what etcd's certificate must chain to,
/// and the client certificate presented to an etcd that requires one (its
/// `--client-cert-auth`). Read at each connection to etcd.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct EtcdArgs {
    /// PEM CA certificates etcd's certificate must chain to: with it, etcd is reached over
    /// TLS (endpoints without a scheme get `https://`).
    #[arg(long)]
    pub etcd_ca: Option<PathBuf>,
    /// PEM client certificate presented to etcd, with --etcd-key.
    #[arg(long)]
    pub etcd_cert: Option<PathBuf>,
    /// PEM private key of --etcd-cert.
    #[arg(long)]
    pub etcd_key: Option<PathBuf>,
}

/// The files of [`EtcdArgs`]: the CA, and the client certificate with its key.
pub type EtcdFiles = (PathBuf, Option<(PathBuf, PathBuf)>);

impl EtcdArgs {
    /// The files given, `None` without --etcd-ca (plaintext).
    ///
    /// # Errors
    /// A certificate without its key or the other way round, or either without --etcd-ca.
    pub fn files(&self) -> Result<Option<EtcdFiles>, String> {
        let identity = match (&self.etcd_cert, &self.etcd_key) {
            (Some(c), Some(k)) => Some((c.clone(), k.clone())),
            (None, None) => None,
            _ => return Err("--etcd-cert and --etcd-key go together".to_owned()),
        };
        match (&self.etcd_ca, identity) {
            (Some(ca), identity) => Ok(Some((ca.clone(), identity))),
            (None, None) => Ok(None),
            (None, Some(_)) => Err(
                "--etcd-cert and --etcd-key need --etcd-ca (the CA that signed etcd's \
                 certificate)"
                    .to_owned(),
            ),
        }
    }
}

impl ConnectArgs {
    /// The client configuration, `None` without --tls-ca.
    ///
    /// # Errors
    /// A client certificate or key without --tls-ca, or a file that does not load.
    pub fn load(&self) -> Result<Option<ClientTls>, String> {
        let Some(ca) = &self.tls_ca else {
            if self.tls_client_cert.is_some() || self.tls_client_key.is_some() {
                return Err(
                    "--tls-client-cert and --tls-client-key need --tls-ca (the CA \
                            that signed the servers' certificates)"
                        .to_owned(),
                );
            }
            return Ok(None);
        };
        ClientTls::load(ClientFiles {
            ca: ca.clone(),
            cert: self.tls_client_cert.clone(),
            key: self.tls_client_key.clone(),
        })
        .map(Some)
        .map_err(|e| e.to_string())
    }
}

/// The certificate a server process presents to other Strata servers: --tls-client-cert,
/// else, with mutual TLS, its --tls-cert (as [`load_process`] chooses).
pub fn presented_certificate(listen: &ListenArgs, connect: &ConnectArgs) -> Option<PathBuf> {
    connect
        .tls_client_cert
        .clone()
        .or_else(|| listen.tls_client_ca.as_ref().and(listen.tls_cert.clone()))
}

/// A server process's TLS from its flags, `None` without --tls-cert.
///
/// # Errors
/// A certificate without its key (or the reverse), a client CA without a certificate, or a
/// file that does not load: the message names the flag and the file.
pub fn load_process(
    listen: &ListenArgs,
    connect: &ConnectArgs,
) -> Result<Option<ProcessTls>, String> {
    let (cert, key) = match (&listen.tls_cert, &listen.tls_key) {
        (Some(cert), Some(key)) => (cert.clone(), key.clone()),
        (None, None) => {
            if listen.tls_client_ca.is_some() {
                return Err(
                    "--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is \
                            TLS with client certificates)"
                        .to_owned(),
                );
            }
            return Ok(None);
        }
        (Some(_), None) => return Err("--tls-cert needs --tls-key".to_owned()),
        (None, Some(_)) => return Err("--tls-key needs --tls-cert".to_owned()),
    };
    let mutual = listen.tls_client_ca.is_some();
    let client = connect
        .tls_ca
        .clone()
        .or_else(|| listen.tls_client_ca.clone())
        .map(|ca| {
            let (cert, key) = match (&connect.tls_client_cert, &connect.tls_client_key) {
                (None, None) if mutual => (Some(cert.clone()), Some(key.clone())),
                (c, k) => (c.clone(), k.clone()),
            };
            ClientFiles { ca, cert, key }
        });
    let files = ServerFiles {
        cert,
        key,
        client_ca: listen.tls_client_ca.clone(),
    };
    ProcessTls::load(files, client)
        .map(Some)
        .map_err(|e| e.to_string())
}
