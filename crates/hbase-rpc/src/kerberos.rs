//! A Kerberos client's connection (preamble auth byte 81): the SASL GSSAPI exchange
//! ([`crate::sasl`]) with the server's keys ([`HBaseRpcConfig::kerberos`]), then the caller is
//! the client's principal mapped to a user by HBase's default rule (`alice@REALM` and
//! `alice/host@REALM` are `alice`; another realm's principals are refused).
//!
//! Without keys, a server whose access control is off answers as HBase without security
//! (`SWITCH_TO_SIMPLE_AUTH`: the client falls back to SIMPLE if it may); one with access
//! control refuses. A refusal is a SASL ERROR reply, which the client raises as the named
//! exception, and the connection closes; nothing of the exchange (tokens, keys) is logged.
//!
//! [`HBaseRpcConfig::kerberos`]: crate::HBaseRpcConfig::kerberos

use std::sync::Arc;

use bytes::Bytes;
use strata_access::{AuthMethod, Caller};
use strata_gss::Principal;
use strata_tls::Stream;
use tokio::io::AsyncWriteExt;

use crate::context::Context;
use crate::frame::FrameError;
use crate::sasl::{self, GssapiServer, Outcome, Refusal, SaslError};

/// The message of the `AccessDeniedException` a SIMPLE client of a server with access control
/// gets, HBase's with what to do.
pub const AUTHENTICATION_REQUIRED: &str = "Authentication is required: this server checks \
     access (--auth); use Kerberos (hbase.security.authentication=kerberos) or a TLS client \
     certificate";

/// The class a failed exchange is reported as (HBase's, from its SASL server).
const SASL_EXCEPTION: &str = "javax.security.sasl.SaslException";
/// The class of a refusal of an authenticated principal (not retried by the client).
const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";

type Refused = (FrameError, Option<Bytes>);

fn refuse(class: &str, message: String) -> Refused {
    let reply = Bytes::from(sasl::error(class, &message));
    (FrameError::Refused(message), Some(reply))
}

/// Runs the exchange on `stream` (just after the preamble) and sets `caller` to the
/// authenticated user.
///
/// # Errors
/// The exchange failed or the principal is refused (with the SASL ERROR reply to send), or the
/// connection failed.
pub(crate) async fn authenticate(
    ctx: &Context,
    stream: &mut Stream,
    caller: &mut Caller,
) -> Result<(), Refused> {
    let io = |e: std::io::Error| (FrameError::Io(e), None);
    let Some(acceptor) = &ctx.config.kerberos else {
        if ctx.config.guard.is_on() {
            return Err(refuse(
                "org.apache.hadoop.hbase.ipc.BadAuthException",
                "this server does not accept Kerberos (it runs without --kerberos-keytab); \
                 use a TLS client certificate"
                    .to_owned(),
            ));
        }
        // HBase without security: the client falls back to SIMPLE (if it may) and goes on
        // with its connection header; its first SASL token is read and dropped.
        stream
            .write_all(&sasl::switch_to_simple())
            .await
            .map_err(io)?;
        return match sasl::read_token(stream).await {
            Ok(_) => Ok(()),
            Err(SaslError::Io(e)) => Err(io(e)),
            Err(e) => Err((FrameError::Malformed(e.to_string()), None)),
        };
    };
    let realm = acceptor.principal().realm().unwrap_or_default().to_owned();
    let user_of = move |principal: &str| {
        Principal::parse(principal).and_then(|p| p.short_name(&realm).map(str::to_owned))
    };
    let admit = user_of.clone();
    let mut server = GssapiServer::new(
        acceptor,
        Box::new(move |principal| admit(principal).map(|_| ())),
    );
    loop {
        let token = match sasl::read_token(stream).await {
            Ok(token) => token,
            Err(SaslError::Io(e)) => return Err(io(e)),
            Err(e) => return Err(refuse(SASL_EXCEPTION, e.to_string())),
        };
        // The library may touch its replay cache on disk: off the connection's thread.
        let (back, outcome) = tokio::task::spawn_blocking(move || {
            let outcome = server.step(&token);
            (server, outcome)
        })
        .await
        .map_err(|e| refuse(SASL_EXCEPTION, format!("internal error: {e}")))?;
        server = back;
        match outcome {
            Ok(Outcome::Challenge(reply)) => {
                stream
                    .write_all(&sasl::challenge(&reply))
                    .await
                    .map_err(io)?;
            }
            Ok(Outcome::Authenticated(principal)) => {
                let user = user_of(&principal).map_err(|e| refuse(ACCESS_DENIED, e))?;
                *caller = Caller {
                    user: Some(Arc::from(user.as_str())),
                    how: AuthMethod::Kerberos,
                    addr: caller.addr,
                };
                return Ok(());
            }
            Err(Refusal::NotAdmitted(message)) => return Err(refuse(ACCESS_DENIED, message)),
            Err(Refusal::Handshake(message)) => {
                return Err(refuse(
                    SASL_EXCEPTION,
                    format!("GSS initiate failed: {message}"),
                ))
            }
        }
    }
}
