//! TLS for Strata's listeners and for the connections Strata's clients and processes open
//! (docs/rfcs/0024-tls.md). No RPC dependency: each front end hands its accepted sockets to
//! [`ServerTls::accept`] and serves the [`Stream`] it gets, and each client wraps its socket
//! with [`ClientTls::connect`].
//!
//! - [`ServerTls`]: a server's configuration from a PEM certificate chain and key, with an
//!   optional client CA (mutual TLS: a client certificate is then required). The files are
//!   checked for changes at most every [`RELOAD_CHECK`] when a connection arrives; a changed
//!   set that loads replaces the configuration for new connections, one that does not is
//!   logged and the configuration in force is kept.
//! - [`ClientTls`]: a client's configuration from a CA file, with an optional client
//!   certificate and key.
//! - [`ca`]: a test certificate authority and the certificates it issues (`strata cert`).
//! - `args` (feature `cli`): the `--tls-*` flags of the `strata` binary and the shell.
//!
//! One crypto provider, *ring*, is named explicitly in every configuration, so nothing
//! depends on a process-wide default provider.

mod client;
mod error;
mod identity;
mod pem;
mod process;
mod server;
mod stream;

#[cfg(feature = "cli")]
pub mod args;
pub mod ca;
#[doc(hidden)]
pub mod fuzz;

pub use client::{ClientFiles, ClientTls};
pub use error::Error;
pub use identity::{certificate_file_user, certificate_user};
pub use process::ProcessTls;
pub use server::{Accepted, ServerFiles, ServerTls, HANDSHAKE_TIMEOUT, RELOAD_CHECK};
pub use stream::Stream;

/// The first byte of every TLS connection: a handshake record's content type. A connection
/// that opens with any other byte is not speaking TLS.
pub const HANDSHAKE_RECORD: u8 = 0x16;

/// The crypto provider of every configuration made here.
fn provider() -> std::sync::Arc<rustls::crypto::CryptoProvider> {
    std::sync::Arc::new(rustls::crypto::ring::default_provider())
}
