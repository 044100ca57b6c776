//! The framed protocol's server side (`strata_proto::frame`, docs/rfcs/0013-request-path.md
//! Decision 5): one task per connection runs the data service's own methods, serving what
//! completes at once in place and spawning what waits.
//!
//! [`sort_connections`] is the accept loop both protocols share: a connection whose first
//! byte is the framed preface's is served here, any other is handed to tonic. With TLS
//! (`crate::tls_port`), the handshake comes first and the byte is the first one inside it.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::BytesMut;
use prost::Message;
use strata_proto::frame::{
    check_preface, error_detail, put_frame, take_frame, Method, PREFACE, RESPONSE_ERROR,
    RESPONSE_OK,
};
use strata_proto::pb::data_server::Data;
use strata_proto::read_soon::SpinPolicy;
use strata_tls::{Accepted, ServerTls, Stream, HANDSHAKE_RECORD};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tonic::{Request, Response, Status};

use strata_proto::convert::decode_put_batch;

use strata_proto::bad_input;

use crate::service::DataService;
use crate::status::invalid;
use crate::tls_port::{self, GrpcStream};
use strata_access::Caller;

/// Most calls of one connection waiting at once (on the blocking pool or the disk); beyond
/// it the connection's socket is not read until some finish.
pub const MAX_WAITING_CALLS: usize = 1024;

/// How long a new connection may take to send its first byte before it is handed to tonic
/// (whose own timeouts then apply).
const SNIFF_TIMEOUT: Duration = Duration::from_secs(10);

/// A call's encoded response frame, ready to write.
type Answer = Pin<Box<dyn Future<Output = BytesMut> + Send>>;

/// The gRPC connections [`split_listener`] hands on, for tonic's `serve_with_incoming*`.
pub type GrpcIncoming = tokio_stream::wrappers::UnboundedReceiverStream<io::Result<GrpcStream>>;

/// Starts accepting `listener`'s connections on a task ([`sort_connections`]), over TLS if
/// `tls` is given; returns the gRPC ones as a stream, and the handle that stops accepting and
/// closes the framed connections.
pub fn split_listener(
    listener: TcpListener,
    service: DataService,
    tls: Option<ServerTls>,
) -> (GrpcIncoming, Accepting) {
    let (grpc, incoming) = mpsc::unbounded_channel();
    let (stop, stopped) = watch::channel(false);
    let task = tokio::spawn(sort_connections(listener, service, tls, grpc, stopped));
    (GrpcIncoming::new(incoming), Accepting { task, stop })
}

/// The accept loop of [`split_listener`]. Stopped by [`Accepting::stop`] or when dropped.
#[derive(Debug)]
pub struct Accepting {
    task: tokio::task::JoinHandle<()>,
    stop: watch::Sender<bool>,
}

impl Accepting {
    /// Stops accepting connections and closes every framed connection (after writing the
    /// responses it has ready; calls still running are dropped). gRPC connections are
    /// tonic's to close.
    pub fn stop(&self) {
        self.task.abort();
        self.stop.send_replace(true);
    }
}

impl Drop for Accepting {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Accepts connections on `listener` for ever: framed ones are served with `service` until
/// `stop` turns true, the others (gRPC) are sent to `grpc`, with `TCP_NODELAY` set on both.
/// With `tls`, every connection must open with a TLS handshake (plaintext clients are
/// answered with an error naming TLS and closed); without, one that does is closed. Ends when
/// `grpc` is closed (the gRPC server stopped).
pub async fn sort_connections(
    listener: TcpListener,
    service: DataService,
    tls: Option<ServerTls>,
    grpc: mpsc::UnboundedSender<io::Result<GrpcStream>>,
    stop: watch::Receiver<bool>,
) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: pause rather than spin.
                tracing::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if grpc.is_closed() {
            return;
        }
        // Small request/response calls: without TCP_NODELAY, Nagle's algorithm and delayed
        // acknowledgements add ~40 ms to a pipelined request.
        let _ = stream.set_nodelay(true);
        let (service, grpc, stop, tls) = (service.clone(), grpc.clone(), stop.clone(), tls.clone());
        tokio::spawn(async move {
            let peer = stream.peer_addr().ok();
            let Some((stream, first, sniffed)) = open(stream, tls.as_ref(), peer).await else {
                return;
            };
            if sniffed == Some(PREFACE[0]) {
                if let Err(e) = serve_connection(service, stream, first.is_some(), stop).await {
                    match peer {
                        Some(peer) if e.kind() == io::ErrorKind::InvalidData => {
                            bad_input::warn(peer, "Strata", "malformed frame", &e.to_string());
                        }
                        _ => tracing::debug!("framed connection closed: {e}"),
                    }
                }
            } else {
                // Neither a framed preface nor HTTP/2's (`PRI * HTTP/2.0`): tonic drops it.
                if let (Some(peer), Some(byte)) = (peer, sniffed.filter(|b| *b != b'P')) {
                    bad_input::warn(
                        peer,
                        "Strata",
                        "garbage",
                        &format!(
                            "the connection opened with byte 0x{byte:02x}, which starts \
                             neither Strata's framed protocol nor HTTP/2 (gRPC)"
                        ),
                    );
                }
                let _ = grpc.send(Ok(GrpcStream::new(stream, first)));
            }
        });
    }
}

/// The connection ready to serve: TLS's handshake done if `tls` is given, with its first
/// protocol byte (`sniffed`; `None` if none came in time) and whether that byte was consumed
/// (`first`: under TLS it must be read to be seen). `None`: the connection was refused.
async fn open(
    tcp: TcpStream,
    tls: Option<&ServerTls>,
    peer: Option<SocketAddr>,
) -> Option<(Stream, Option<u8>, Option<u8>)> {
    let Some(tls) = tls else {
        let mut first = [0u8; 1];
        let sniffed = match tokio::time::timeout(SNIFF_TIMEOUT, tcp.peek(&mut first)).await {
            Ok(Ok(1)) => Some(first[0]),
            _ => None,
        };
        if sniffed == Some(HANDSHAKE_RECORD) {
            tls_port::refuse_tls(peer);
            return None;
        }
        return Some((Stream::Plain(tcp), None, sniffed));
    };
    let mut stream = match tls.accept(tcp).await {
        Ok(Accepted::Tls(stream)) => stream,
        Ok(Accepted::Plaintext(tcp, first)) => {
            tls_port::refuse_plaintext(tcp, first, peer).await;
            return None;
        }
        Err(e) => {
            match peer {
                Some(peer) if e.kind() != io::ErrorKind::UnexpectedEof => {
                    bad_input::warn(peer, "Strata", "TLS handshake", &e.to_string());
                }
                _ => tracing::debug!("TLS connection closed before its handshake: {e}"),
            }
            return None;
        }
    };
    let mut first = [0u8; 1];
    match tokio::time::timeout(SNIFF_TIMEOUT, stream.read(&mut first)).await {
        Ok(Ok(1)) => Some((stream, Some(first[0]), Some(first[0]))),
        // Nothing in time: tonic's timeouts apply.
        Err(_) => Some((stream, None, None)),
        Ok(_) => None,
    }
}

/// Serves one framed connection until the client closes it and every call is answered, or
/// until `stop` turns true (or its sender is dropped). `first_read`: the preface's first byte
/// was already read (and was the preface's).
///
/// # Errors
/// The preface or a frame's length is malformed, or the socket failed.
pub async fn serve_connection(
    service: DataService,
    mut stream: Stream,
    first_read: bool,
    mut stop: watch::Receiver<bool>,
) -> io::Result<()> {
    let caller = crate::caller::of_stream(&stream);
    let mut preface = PREFACE;
    let skip = usize::from(first_read);
    stream.read_exact(&mut preface[skip..]).await?;
    check_preface(&preface).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<BytesMut>();
    let mut input = BytesMut::with_capacity(16 << 10);
    let mut output = BytesMut::new();
    let mut waiting = 0usize;
    let mut closed = false;
    let mut spin = SpinPolicy::new(service.poll_before_park());
    loop {
        let mut taken = 0usize;
        while let Some(frame) =
            take_frame(&mut input).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
        {
            // A request that came with another, or while one waits, overlaps.
            spin.solo().request(taken > 0 || waiting > 0);
            taken += 1;
            let mut answer = dispatch(&service, &caller, frame.id, frame.kind, frame.body);
            match answer
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()))
            {
                Poll::Ready(bytes) => output.extend_from_slice(&bytes),
                Poll::Pending => {
                    waiting += 1;
                    let done = done_tx.clone();
                    tokio::spawn(async move {
                        let _ = done.send(answer.await);
                    });
                }
            }
        }
        while let Ok(bytes) = done_rx.try_recv() {
            waiting -= 1;
            output.extend_from_slice(&bytes);
        }
        if !output.is_empty() {
            stream.write_all(&output).await?;
            output.clear();
        }
        if (closed && waiting == 0) || *stop.borrow() {
            return Ok(());
        }
        if input.capacity() - input.len() < 4096 {
            input.reserve(16 << 10);
        }
        // Idle: a lone caller's next request may be a few microseconds away (plain TCP only:
        // under TLS, bytes on the socket are not yet the protocol's).
        if let (false, 0, Some(tcp)) = (closed, waiting, stream.plain()) {
            match spin.read(tcp, &mut input).await? {
                Some(0) => {
                    closed = true;
                    continue;
                }
                Some(_) => continue,
                None => {}
            }
        }
        tokio::select! {
            _ = stop.changed() => return Ok(()),
            read = stream.read_buf(&mut input), if !closed && waiting < MAX_WAITING_CALLS => {
                if read? == 0 {
                    closed = true;
                }
            }
            Some(bytes) = done_rx.recv(), if waiting > 0 => {
                waiting -= 1;
                output.extend_from_slice(&bytes);
            }
        }
    }
}

/// The response frame of one request frame, as a future: the service's method for `kind`
/// on the decoded body.
fn dispatch(
    service: &DataService,
    caller: &Caller,
    id: u32,
    kind: u8,
    body: bytes::Bytes,
) -> Answer {
    let service = service.clone();
    let at = Report {
        caller: caller.clone(),
        id,
    };
    match Method::from_kind(kind) {
        Some(Method::Get) => call(
            at,
            "get",
            body,
            move |r| async move { service.get(r).await },
        ),
        Some(Method::MultiGet) => call(at, "multi_get", body, move |r| async move {
            service.multi_get(r).await
        }),
        Some(Method::Mutate) => call(at, "mutate", body, move |r| async move {
            service.mutate(r).await
        }),
        // Batches of puts, the buffered writers' requests, skip prost's messages.
        Some(Method::Batch) => match decode_put_batch(&body) {
            Some(batch) => {
                let caller = at.caller.clone();
                answer(at, "batch", async move {
                    service.batch_of_puts(&caller, batch, body.len()).await
                })
            }
            None => call(
                at,
                "batch",
                body,
                move |r| async move { service.batch(r).await },
            ),
        },
        Some(Method::CheckAndMutate) => call(at, "check_and_mutate", body, move |r| async move {
            service.check_and_mutate(r).await
        }),
        Some(Method::Scan) => call(
            at,
            "scan",
            body,
            move |r| async move { service.scan(r).await },
        ),
        None => {
            let frame = at.error(&invalid(format!("unknown method {kind}")), "request");
            Box::pin(std::future::ready(frame))
        }
    }
}

/// Where a call's answer goes: its id, and the client whose mistakes are logged.
#[derive(Clone)]
struct Report {
    caller: Caller,
    id: u32,
}

impl Report {
    /// The error frame of `status`, logged (rate-limited) when it is a mistake of the client.
    fn error(&self, status: &Status, method: &str) -> BytesMut {
        if let Some(peer) = self.caller.addr {
            bad_input::warn_status(peer, "Strata", method, status);
        }
        error_frame(self.id, status)
    }
}

/// Decodes the request, runs `method` on it and encodes its outcome as the call's response.
fn call<Req, Resp, F, Fut>(at: Report, name: &'static str, body: bytes::Bytes, method: F) -> Answer
where
    Req: Message + Default + Send + 'static,
    Resp: Message + Send + 'static,
    F: FnOnce(Request<Req>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Response<Resp>, Status>> + Send + 'static,
{
    match Req::decode(body) {
        Err(e) => {
            let frame = at.error(&invalid(format!("undecodable request: {e}")), name);
            Box::pin(std::future::ready(frame))
        }
        Ok(request) => {
            let request = crate::caller::as_caller(Request::new(request), at.caller.clone());
            answer(at, name, method(request))
        }
    }
}

/// The call's response frame: `outcome`'s message or error.
fn answer<Resp, Fut>(at: Report, name: &'static str, outcome: Fut) -> Answer
where
    Resp: Message + Send + 'static,
    Fut: Future<Output = Result<Response<Resp>, Status>> + Send + 'static,
{
    Box::pin(async move {
        match outcome.await {
            Ok(response) => {
                let mut frame = BytesMut::new();
                put_frame(&mut frame, at.id, RESPONSE_OK, response.get_ref());
                frame
            }
            Err(status) => at.error(&status, name),
        }
    })
}

fn error_frame(id: u32, status: &Status) -> BytesMut {
    let mut frame = BytesMut::new();
    put_frame(&mut frame, id, RESPONSE_ERROR, &error_detail(status));
    frame
}
