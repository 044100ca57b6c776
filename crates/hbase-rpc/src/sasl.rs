//! Kerberos on HBase RPC, as HBase 2.x does it (`ServerRpcConnection`,
//! `NettyHBaseSaslRpcServerHandler`, the client's `NettyHBaseSaslRpcClientHandler`): after a
//! preamble with auth byte 81 (`KERBEROS`), SASL GSSAPI (RFC 4752) runs before the
//! ConnectionHeader.
//!
//! ```text
//! client: 4-byte length, token            (each SASL response; the first is GSSAPI's AP-REQ)
//! server: 4-byte status 0 (SUCCESS), 4-byte length, token      (each challenge)
//!         4-byte status 1 (ERROR), Writable string class, Writable string message; then close
//!         4-byte status 0, 4-byte -88 (SWITCH_TO_SIMPLE_AUTH: this server runs without security)
//! ```
//!
//! The GSSAPI steps: the client's AP-REQ is accepted (the server answers with the AP-REP, the
//! client answers that with an empty token); the server then sends, wrapped, the security
//! layers it offers and its largest buffer; the client answers, wrapped, with the layer it
//! chose, its buffer and an optional authorization id, which must be the authenticated name
//! (HBase's `SaslGssCallbackHandler`). When the server has nothing more to say it says nothing:
//! the client, complete, sends its ConnectionHeader.
//!
//! Only the layer `auth` (authentication, HBase's `hbase.rpc.protection=authentication`) is
//! offered: a client that requires `integrity` or `privacy` stops with "No common protection
//! layer between client and server" (use TLS for confidentiality: RFC 0024).

use strata_gss::{Acceptor, Context, Step};
use tokio::io::{AsyncRead, AsyncReadExt};

/// HBase's `SaslStatus.SUCCESS`.
const SUCCESS: i32 = 0;
/// HBase's `SaslStatus.ERROR`.
const ERROR: i32 = 1;
/// HBase's `SaslUtil.SWITCH_TO_SIMPLE_AUTH`, sent in place of a token's length.
pub const SWITCH_TO_SIMPLE_AUTH: i32 = -88;
/// Largest SASL token accepted (tickets with large authorization data stay well under it).
pub const MAX_TOKEN_BYTES: usize = 256 << 10;

/// RFC 4752's security layers.
const LAYER_NONE: u8 = 1;
/// The largest wrapped message this server takes (unused with layer `auth`; sent as HBase does).
const MAX_BUFFER: u32 = 64 << 10;

/// A SUCCESS reply carrying `token`.
pub fn challenge(token: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + token.len());
    out.extend_from_slice(&SUCCESS.to_be_bytes());
    out.extend_from_slice(&(token.len() as i32).to_be_bytes());
    out.extend_from_slice(token);
    out
}

/// The reply that tells a Kerberos client this server runs without security.
pub fn switch_to_simple() -> Vec<u8> {
    let mut out = SUCCESS.to_be_bytes().to_vec();
    out.extend_from_slice(&SWITCH_TO_SIMPLE_AUTH.to_be_bytes());
    out
}

/// An ERROR reply: the exception's class and message, each a Hadoop `Writable` string (a
/// 4-byte length, then UTF-8).
pub fn error(class: &str, message: &str) -> Vec<u8> {
    let mut out = ERROR.to_be_bytes().to_vec();
    for s in [class, message] {
        out.extend_from_slice(&(s.len() as i32).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

/// Why a SASL exchange failed.
#[derive(Debug, thiserror::Error)]
pub enum SaslError {
    /// The connection ended or failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A token's length is negative or over [`MAX_TOKEN_BYTES`].
    #[error("a SASL token of {0} bytes (at most {MAX_TOKEN_BYTES})")]
    BadLength(i64),
    /// The client's tokens do not authenticate it.
    #[error("{0}")]
    Refused(String),
}

/// Reads one client token (4-byte big-endian length, then the token).
///
/// # Errors
/// A bad length, or the stream ends or fails.
pub async fn read_token<R: AsyncRead + Unpin>(reader: &mut R) -> Result<Vec<u8>, SaslError> {
    let len = reader.read_i32().await?;
    if len < 0 || len as usize > MAX_TOKEN_BYTES {
        return Err(SaslError::BadLength(i64::from(len)));
    }
    let mut token = vec![0u8; len as usize];
    reader.read_exact(&mut token).await?;
    Ok(token)
}

/// What the server does after a client token.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Send this challenge and read the client's next token.
    Challenge(Vec<u8>),
    /// Authenticated as this principal (`alice@REALM`); nothing more is sent.
    Authenticated(String),
}

/// Where the exchange is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Accepting the GSSAPI context.
    Accepting,
    /// Established and the AP-REP sent: the client answers it with an empty token.
    AwaitingEmpty,
    /// The offered layers sent: the client's choice comes, wrapped.
    AwaitingChoice,
    /// Authenticated, or failed: no more tokens.
    Over,
}

/// Why an exchange failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The tokens do not authenticate the client.
    Handshake(String),
    /// Authenticated, but the principal may not connect (the admission's reason).
    NotAdmitted(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Handshake(m) | Refusal::NotAdmitted(m) => f.write_str(m),
        }
    }
}

/// Decides whether an authenticated principal may connect (`Err`: why not).
pub type Admit = Box<dyn Fn(&str) -> Result<(), String> + Send>;

/// The server side of SASL GSSAPI for one connection.
pub struct GssapiServer {
    acceptor: Acceptor,
    context: Context,
    stage: Stage,
    admit: Admit,
}

impl GssapiServer {
    /// A new exchange with `acceptor`'s keys; a client whose principal `admit` refuses is
    /// refused as soon as its ticket is accepted, while it still reads SASL replies (so it
    /// shows the reason).
    pub fn new(acceptor: &Acceptor, admit: Admit) -> GssapiServer {
        GssapiServer {
            context: acceptor.context(),
            acceptor: acceptor.clone(),
            stage: Stage::Accepting,
            admit,
        }
    }

    /// Takes the client's next token.
    ///
    /// # Errors
    /// The token does not authenticate the client (malformed, expired, replayed, for another
    /// service, a layer not offered, an authorization id other than the authenticated name),
    /// or comes after the end. The exchange is over then.
    pub fn step(&mut self, token: &[u8]) -> Result<Outcome, Refusal> {
        let out = self.advance(token);
        if out.is_err() {
            self.stage = Stage::Over;
        }
        out
    }

    fn advance(&mut self, token: &[u8]) -> Result<Outcome, Refusal> {
        match self.stage {
            Stage::Accepting => match self
                .acceptor
                .accept(&mut self.context, token)
                .map_err(|e| Refusal::Handshake(e.to_string()))?
            {
                Step::Continue(reply) => Ok(Outcome::Challenge(reply)),
                Step::Complete(reply) => {
                    let peer = self.context.peer().ok_or_else(|| {
                        Refusal::Handshake("SASL GSSAPI: no client name".to_owned())
                    })?;
                    (self.admit)(peer).map_err(Refusal::NotAdmitted)?;
                    if reply.is_empty() {
                        return self.offer_layers().map_err(Refusal::Handshake);
                    }
                    self.stage = Stage::AwaitingEmpty;
                    Ok(Outcome::Challenge(reply))
                }
            },
            Stage::AwaitingEmpty if token.is_empty() => {
                self.offer_layers().map_err(Refusal::Handshake)
            }
            Stage::AwaitingEmpty => Err(Refusal::Handshake(format!(
                "SASL GSSAPI: expected an empty token after the context was established, got \
                 {} bytes",
                token.len()
            ))),
            Stage::AwaitingChoice => self.take_choice(token).map_err(Refusal::Handshake),
            Stage::Over => Err(Refusal::Handshake(
                "SASL GSSAPI: a token after the exchange ended".to_owned(),
            )),
        }
    }

    /// Sends the layers offered (`auth` only) and the largest buffer, wrapped, unencrypted.
    fn offer_layers(&mut self) -> Result<Outcome, String> {
        let mut offer = MAX_BUFFER.to_be_bytes();
        offer[0] = LAYER_NONE;
        let wrapped = self
            .context
            .wrap(&offer, false)
            .map_err(|e| format!("SASL GSSAPI: {e}"))?;
        self.stage = Stage::AwaitingChoice;
        Ok(Outcome::Challenge(wrapped))
    }

    fn take_choice(&mut self, token: &[u8]) -> Result<Outcome, String> {
        let (choice, _) = self
            .context
            .unwrap(token)
            .map_err(|e| format!("SASL GSSAPI: the client's choice of layer: {e}"))?;
        if choice.len() < 4 {
            return Err(format!(
                "SASL GSSAPI: the client's choice of layer has {} bytes (at least 4)",
                choice.len()
            ));
        }
        if choice[0] != LAYER_NONE {
            return Err(format!(
                "SASL GSSAPI: the client chose security layer {:#04x}; this server offers \
                 authentication only (hbase.rpc.protection=authentication; TLS protects the data)",
                choice[0]
            ));
        }
        let peer = self
            .context
            .peer()
            .ok_or("SASL GSSAPI: no client name")?
            .to_owned();
        let authzid = &choice[4..];
        if !authzid.is_empty() && authzid != peer.as_bytes() {
            return Err(format!(
                "SASL GSSAPI: {peer} may not act as {:?}",
                String::from_utf8_lossy(authzid)
            ));
        }
        self.stage = Stage::Over;
        Ok(Outcome::Authenticated(peer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_framed_as_hbase_reads_them() {
        assert_eq!(
            challenge(b"tok"),
            [0, 0, 0, 0, 0, 0, 0, 3, b't', b'o', b'k']
        );
        assert_eq!(challenge(b""), [0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(switch_to_simple(), [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xa8]);
        let e = error("javax.security.sasl.SaslException", "no");
        let mut want = vec![0, 0, 0, 1, 0, 0, 0, 33];
        want.extend_from_slice(b"javax.security.sasl.SaslException");
        want.extend_from_slice(&[0, 0, 0, 2, b'n', b'o']);
        assert_eq!(e, want);
    }

    #[tokio::test]
    async fn tokens_are_read_by_their_length() {
        let mut input: &[u8] = &[0, 0, 0, 2, 7, 8, 0, 0, 0, 0];
        assert_eq!(read_token(&mut input).await.ok(), Some(vec![7, 8]));
        assert_eq!(read_token(&mut input).await.ok(), Some(vec![]));
        assert!(matches!(
            read_token(&mut input).await,
            Err(SaslError::Io(_))
        ));
        let mut negative: &[u8] = &[0xff, 0xff, 0xff, 0xff];
        assert!(matches!(
            read_token(&mut negative).await,
            Err(SaslError::BadLength(-1))
        ));
        let huge = ((MAX_TOKEN_BYTES + 1) as i32).to_be_bytes();
        assert!(matches!(
            read_token(&mut &huge[..]).await,
            Err(SaslError::BadLength(_))
        ));
        // A token cut short is an I/O error, not a panic or a short token.
        let mut short: &[u8] = &[0, 0, 0, 9, 1, 2];
        assert!(matches!(
            read_token(&mut short).await,
            Err(SaslError::Io(_))
        ));
    }
}
