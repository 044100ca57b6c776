//! The data port under TLS ([`crate::frames::split_listener`] with a [`ServerTls`]): what a
//! gRPC connection is handed to tonic as, and how clients that do not speak the port's
//! language are answered.
//!
//! A plaintext client of a TLS port is answered in its own protocol before the connection is
//! closed: a framed client gets an error frame for its first call naming TLS, a gRPC client
//! an HTTP/2 `GOAWAY` with `INADEQUATE_SECURITY` (RFC 9113's code for "TLS required"). A TLS
//! client of a plaintext port is closed at once (it reports a failed handshake).

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::BytesMut;
use strata_proto::bad_input;
use strata_proto::frame::{error_detail, put_frame, PREFACE, RESPONSE_ERROR};
use strata_tls::Stream;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tonic::transport::server::Connected;

use crate::status::invalid;

/// How long a refused client may take to send what its answer needs.
const REFUSAL_TIMEOUT: Duration = Duration::from_secs(2);

/// What a plaintext client of a TLS port is told.
pub const TLS_REQUIRED: &str = "this port requires TLS (the server runs with --tls-cert): \
                                connect with TLS, trusting the server's CA (--tls-ca)";

/// A gRPC connection for tonic: plain or TLS, with the byte the accept loop read to tell the
/// protocols apart given back first.
#[derive(Debug)]
pub struct GrpcStream {
    stream: Stream,
    /// A byte already read from `stream`, to be read again first.
    first: Option<u8>,
}

impl GrpcStream {
    pub(crate) fn new(stream: Stream, first: Option<u8>) -> GrpcStream {
        GrpcStream { stream, first }
    }
}

impl Connected for GrpcStream {
    /// The caller (RFC 0026): every request on the connection carries it in its extensions.
    type ConnectInfo = strata_access::Caller;

    fn connect_info(&self) -> strata_access::Caller {
        crate::caller::of_stream(&self.stream)
    }
}

impl AsyncRead for GrpcStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        if let Some(b) = me.first {
            if buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
            buf.put_slice(&[b]);
            me.first = None;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut me.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for GrpcStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Answers a plaintext client of a TLS port (`first`: its first byte, not yet read) and
/// closes the connection.
pub(crate) async fn refuse_plaintext(mut tcp: TcpStream, first: u8, peer: Option<SocketAddr>) {
    if let Some(peer) = peer {
        bad_input::warn(
            peer,
            "Strata",
            "plaintext on a TLS port",
            &format!("the connection opened with byte 0x{first:02x}, not a TLS handshake"),
        );
    }
    let answer = tokio::time::timeout(REFUSAL_TIMEOUT, async {
        if first == PREFACE[0] {
            // The preface, then the first call's header: its id is the one to answer.
            let mut head = [0u8; PREFACE.len() + strata_proto::frame::HEADER_BYTES];
            tcp.read_exact(&mut head).await?;
            let at = PREFACE.len() + 4;
            let id = u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
            let mut frame = BytesMut::new();
            put_frame(
                &mut frame,
                id,
                RESPONSE_ERROR,
                &error_detail(&invalid(TLS_REQUIRED)),
            );
            tcp.write_all(&frame).await
        } else {
            // A GOAWAY that reaches the client before it sent its first request cancels
            // that request without the reason: answer once the request is here (or after
            // a while, for a client that sends none).
            let _ = tokio::time::timeout(FIRST_REQUEST_WAIT, first_grpc_request(&mut tcp)).await;
            tcp.write_all(&goaway_inadequate_security()).await
        }
    })
    .await;
    if matches!(answer, Ok(Ok(()))) {
        let _ = tcp.shutdown().await;
        // Read what the client still sends, so the close does not reset the answer away.
        let mut sink = [0u8; 4096];
        let _ = tokio::time::timeout(REFUSAL_TIMEOUT, async {
            while matches!(tcp.read(&mut sink).await, Ok(n) if n > 0) {}
        })
        .await;
    }
}

/// How long a refused gRPC client may take to send its first request.
const FIRST_REQUEST_WAIT: Duration = Duration::from_secs(1);

/// Reads an HTTP/2 client's preface and its frames up to its first request (a `HEADERS`
/// frame).
async fn first_grpc_request(tcp: &mut TcpStream) -> io::Result<()> {
    const HEADERS: u8 = 0x1;
    let mut preface = [0u8; 24];
    tcp.read_exact(&mut preface).await?;
    let mut payload = vec![0u8; 1 << 14];
    loop {
        let mut head = [0u8; 9];
        tcp.read_exact(&mut head).await?;
        if head[3] == HEADERS {
            return Ok(());
        }
        let mut left = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
        while left > 0 {
            let n = left.min(payload.len());
            tcp.read_exact(&mut payload[..n]).await?;
            left -= n;
        }
    }
}

/// A server's HTTP/2 preface (an empty SETTINGS frame) and a GOAWAY with
/// `INADEQUATE_SECURITY` whose debug data names TLS.
fn goaway_inadequate_security() -> Vec<u8> {
    const INADEQUATE_SECURITY: u32 = 0xc;
    let mut out = vec![0, 0, 0, 0x4, 0, 0, 0, 0, 0];
    let debug = TLS_REQUIRED.as_bytes();
    let len = 8 + debug.len();
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.extend_from_slice(&[0x7, 0, 0, 0, 0, 0]);
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&INADEQUATE_SECURITY.to_be_bytes());
    out.extend_from_slice(debug);
    out
}

/// Closes a TLS client's connection to a plaintext port, saying so in the log.
pub(crate) fn refuse_tls(peer: Option<SocketAddr>) {
    if let Some(peer) = peer {
        bad_input::warn(
            peer,
            "Strata",
            "TLS on a plaintext port",
            "the client opened a TLS handshake, but this server runs without --tls-cert",
        );
    }
}
