//! The framed protocol's server side (`strata_proto::frame`, docs/rfcs/0013-request-path.md
//! Decision 5): one task per connection runs the data service's own methods, serving what
//! completes at once in place and spawning what waits.
//!
//! [`sort_connections`] is the accept loop both protocols share: a connection whose first
//! byte is the framed preface's is served here, any other is handed to tonic.

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
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tonic::{Request, Response, Status};

use strata_proto::convert::decode_put_batch;

use strata_proto::bad_input;

use crate::service::DataService;
use crate::status::invalid;

/// Most calls of one connection waiting at once (on the blocking pool or the disk); beyond
/// it the connection's socket is not read until some finish.
pub const MAX_WAITING_CALLS: usize = 1024;

/// How long a new connection may take to send its first byte before it is handed to tonic
/// (whose own timeouts then apply).
const SNIFF_TIMEOUT: Duration = Duration::from_secs(10);

/// A call's encoded response frame, ready to write.
type Answer = Pin<Box<dyn Future<Output = BytesMut> + Send>>;

/// The gRPC connections [`split_listener`] hands on, for tonic's `serve_with_incoming*`.
pub type GrpcIncoming = tokio_stream::wrappers::UnboundedReceiverStream<io::Result<TcpStream>>;

/// Starts accepting `listener`'s connections on a task ([`sort_connections`]); returns the
/// gRPC ones as a stream, and the handle that stops accepting and closes the framed
/// connections.
pub fn split_listener(listener: TcpListener, service: DataService) -> (GrpcIncoming, Accepting) {
    let (grpc, incoming) = mpsc::unbounded_channel();
    let (stop, stopped) = watch::channel(false);
    let task = tokio::spawn(sort_connections(listener, service, grpc, stopped));
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
/// Ends when `grpc` is closed (the gRPC server stopped).
pub async fn sort_connections(
    listener: TcpListener,
    service: DataService,
    grpc: mpsc::UnboundedSender<io::Result<TcpStream>>,
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
        let (service, grpc, stop) = (service.clone(), grpc.clone(), stop.clone());
        tokio::spawn(async move {
            let mut first = [0u8; 1];
            let sniffed = match tokio::time::timeout(SNIFF_TIMEOUT, stream.peek(&mut first)).await {
                Ok(Ok(1)) => Some(first[0]),
                _ => None,
            };
            let framed = sniffed == Some(PREFACE[0]);
            let peer = stream.peer_addr().ok();
            if framed {
                if let Err(e) = serve_connection(service, stream, stop).await {
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
                let _ = grpc.send(Ok(stream));
            }
        });
    }
}

/// Serves one framed connection until the client closes it and every call is answered, or
/// until `stop` turns true (or its sender is dropped).
///
/// # Errors
/// The preface or a frame's length is malformed, or the socket failed.
pub async fn serve_connection(
    service: DataService,
    mut stream: TcpStream,
    mut stop: watch::Receiver<bool>,
) -> io::Result<()> {
    let peer = stream.peer_addr().ok();
    let mut preface = [0u8; 8];
    stream.read_exact(&mut preface).await?;
    check_preface(&preface).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let (mut reader, mut writer) = stream.split();
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
            let mut answer = dispatch(&service, peer, frame.id, frame.kind, frame.body);
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
            writer.write_all(&output).await?;
            output.clear();
        }
        if (closed && waiting == 0) || *stop.borrow() {
            return Ok(());
        }
        if input.capacity() - input.len() < 4096 {
            input.reserve(16 << 10);
        }
        // Idle: a lone caller's next request may be a few microseconds away.
        if !closed && waiting == 0 {
            match spin.read(reader.as_ref(), &mut input).await? {
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
            read = reader.read_buf(&mut input), if !closed && waiting < MAX_WAITING_CALLS => {
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
    peer: Option<SocketAddr>,
    id: u32,
    kind: u8,
    body: bytes::Bytes,
) -> Answer {
    let service = service.clone();
    let at = Report { peer, id };
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
            Some(batch) => answer(at, "batch", async move {
                service.batch_of_puts(batch, body.len()).await
            }),
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
#[derive(Clone, Copy)]
struct Report {
    peer: Option<SocketAddr>,
    id: u32,
}

impl Report {
    /// The error frame of `status`, logged (rate-limited) when it is a mistake of the client.
    fn error(self, status: &Status, method: &str) -> BytesMut {
        if let Some(peer) = self.peer {
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
        Ok(request) => answer(at, name, method(Request::new(request))),
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
