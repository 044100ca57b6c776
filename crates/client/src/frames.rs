//! The framed protocol's client side (`strata_proto::frame`, docs/rfcs/0013-request-path.md
//! Decision 5): one TCP connection per region server, a writer task that drains every queued
//! request into one write, and a reader task that hands each response to its caller by call
//! id.
//!
//! Thread safety: a [`FrameClient`] is shared by clones; the map of calls in flight is locked
//! only to insert or remove one entry. A connection that fails is marked broken, fails its
//! calls in flight with `UNAVAILABLE`, and is replaced by the connection's next request
//! ([`FrameClient::is_broken`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use parking_lot::Mutex;
use prost::Message;
use strata_proto::frame::{self, Frame, Method, PREFACE, RESPONSE_ERROR, RESPONSE_OK};
use strata_proto::pb;
use strata_proto::read_soon::SpinPolicy;
use strata_tls::{ClientTls, Stream};
use tokio::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot, OnceCell};
use tonic::Status;

/// Calls in flight on one connection, by call id.
type Pending = Arc<Mutex<HashMap<u32, oneshot::Sender<Frame>>>>;

/// Bytes of queued requests written at once, at most (more wait for the next write).
const WRITE_BATCH_BYTES: usize = 256 << 10;

/// A framed connection to one region server, opened on first use.
#[derive(Clone, Debug)]
pub(crate) struct FrameClient {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// `host:port`.
    addr: String,
    connect_timeout: Duration,
    /// How long the reader polls before parking ([`SpinPolicy`]; plain TCP only).
    poll_before_park: Duration,
    /// TLS for the connection; `None`: plaintext.
    tls: Option<ClientTls>,
    link: OnceCell<Link>,
}

#[derive(Debug)]
struct Link {
    requests: mpsc::UnboundedSender<BytesMut>,
    pending: Pending,
    broken: Arc<AtomicBool>,
    /// Why reading the connection failed, once it did (a TLS alert names the refusal).
    why: Arc<Mutex<Option<String>>>,
    next_id: AtomicU32,
    /// The reader's record of calls: whether they come one at a time ([`SpinPolicy::solo`]).
    solo: Arc<strata_proto::solo::Solo>,
}

impl FrameClient {
    /// A client of the server at `addr` (`host:port`, or a `http://` URI whose host and port
    /// are used), over TLS if `tls` is given; connects on the first call.
    pub(crate) fn new(
        addr: &str,
        connect_timeout: Duration,
        poll_before_park: Duration,
        tls: Option<ClientTls>,
    ) -> FrameClient {
        let addr = addr.strip_prefix("http://").unwrap_or(addr);
        FrameClient {
            shared: Arc::new(Shared {
                addr: addr.trim_end_matches('/').to_string(),
                connect_timeout,
                poll_before_park,
                tls,
                link: OnceCell::new(),
            }),
        }
    }

    /// True once the connection failed: calls on it fail, and a new client should be made.
    pub(crate) fn is_broken(&self) -> bool {
        self.shared
            .link
            .get()
            .is_some_and(|l| l.broken.load(Ordering::Acquire))
    }

    /// Sends `request` as a call of `method` and waits for its response.
    ///
    /// # Errors
    /// `UNAVAILABLE` if the server cannot be reached or the connection is lost before the
    /// response arrives (the request may or may not have been applied); the server's error.
    pub(crate) async fn call<Req: Message, Resp: Message + Default>(
        &self,
        method: Method,
        request: &Req,
    ) -> Result<Resp, Status> {
        let mut bytes = BytesMut::new();
        frame::put_frame(&mut bytes, 0, method as u8, request);
        self.call_prepared(bytes).await
    }

    /// As [`call`](FrameClient::call) for a request frame made by [`frame::prepared_frame`]
    /// (its call id is set here).
    ///
    /// # Errors
    /// As [`call`](FrameClient::call).
    pub(crate) async fn call_prepared<Resp: Message + Default>(
        &self,
        mut bytes: BytesMut,
    ) -> Result<Resp, Status> {
        let link = self
            .shared
            .link
            .get_or_try_init(|| connect(&self.shared))
            .await?;
        let id = link.next_id.fetch_add(1, Ordering::Relaxed);
        frame::set_frame_id(&mut bytes, id);
        let (reply, answer) = oneshot::channel();
        let overlapping = {
            let mut pending = link.pending.lock();
            pending.insert(id, reply);
            pending.len() > 1
        };
        link.solo.request(overlapping);
        // After the insert: a connection that broke before it has already failed its calls,
        // so this one must see the flag (see `fail_all`).
        if link.broken.load(Ordering::Acquire) || link.requests.send(bytes).is_err() {
            // Not handed to the writer: the request was not sent.
            link.pending.lock().remove(&id);
            return Err(crate::error::unsent(lost(&self.shared.addr, &link.why)));
        }
        let frame = answer
            .await
            .map_err(|_| lost(&self.shared.addr, &link.why))?;
        match frame.kind {
            RESPONSE_OK => Resp::decode(frame.body)
                .map_err(|e| Status::internal(format!("undecodable response: {e}"))),
            RESPONSE_ERROR => {
                let detail = pb::ErrorDetail::decode(frame.body)
                    .map_err(|e| Status::internal(format!("undecodable error response: {e}")))?;
                Err(frame::status_of(&detail))
            }
            kind => Err(Status::internal(format!("unknown response kind {kind}"))),
        }
    }
}

/// The error of a call whose connection ended: `UNAVAILABLE`, unless the server refused the
/// connection in TLS (an alert after the handshake: a client certificate it does not
/// accept), which is not worth retrying.
fn lost(addr: &str, why: &Mutex<Option<String>>) -> Status {
    match why.lock().as_deref() {
        Some(why) if why.contains("fatal alert") => Status::unknown(format!(
            "TLS handshake with {addr} failed: the server refused the connection: {why}"
        )),
        _ => Status::unavailable(format!("connection to {addr} lost")),
    }
}

/// Opens the connection (TLS's handshake first if configured), sends the preface and starts
/// its reader and writer tasks.
async fn connect(shared: &Shared) -> Result<Link, Status> {
    let unreachable =
        |e: String| crate::error::unsent(Status::unavailable(format!("{}: {e}", shared.addr)));
    let stream = tokio::time::timeout(shared.connect_timeout, TcpStream::connect(&shared.addr))
        .await
        .map_err(|_| unreachable("connect timed out".into()))?
        .map_err(|e| unreachable(e.to_string()))?;
    stream
        .set_nodelay(true)
        .map_err(|e| unreachable(e.to_string()))?;
    let pending = Pending::default();
    let broken = Arc::new(AtomicBool::new(false));
    let why = Arc::new(Mutex::new(None));
    let (requests, queued) = mpsc::unbounded_channel();
    let spin = SpinPolicy::new(shared.poll_before_park);
    let solo = spin.solo().clone();
    match &shared.tls {
        None => {
            let mut stream = stream;
            stream
                .write_all(&PREFACE)
                .await
                .map_err(|e| unreachable(e.to_string()))?;
            let (reader, writer) = stream.into_split();
            tokio::spawn(write_loop(writer, queued, pending.clone(), broken.clone()));
            tokio::spawn(read_loop(
                Source::Plain(reader),
                spin,
                pending.clone(),
                (broken.clone(), why.clone()),
            ));
        }
        Some(tls) => {
            // A failed handshake is not worth retrying: it fails alike until the
            // configuration changes (`UNKNOWN`, see `Error::from_status`).
            let mut stream = tls
                .connect(&shared.addr, stream)
                .await
                .map_err(|e| Status::unknown(e.to_string()))?;
            stream
                .write_all(&PREFACE)
                .await
                .map_err(|e| unreachable(e.to_string()))?;
            let (reader, writer) = tokio::io::split(stream);
            tokio::spawn(write_loop(writer, queued, pending.clone(), broken.clone()));
            tokio::spawn(read_loop(
                Source::Tls(reader),
                spin,
                pending.clone(),
                (broken.clone(), why.clone()),
            ));
        }
    }
    Ok(Link {
        requests,
        pending,
        broken,
        why,
        next_id: AtomicU32::new(0),
        solo,
    })
}

/// The read side of a connection: plain TCP may be polled for the next bytes
/// ([`SpinPolicy`]); TLS bytes must go through TLS.
enum Source {
    Plain(OwnedReadHalf),
    Tls(tokio::io::ReadHalf<Stream>),
}

impl Source {
    async fn read_buf(
        &mut self,
        input: &mut BytesMut,
        spin: &mut SpinPolicy,
    ) -> std::io::Result<usize> {
        match self {
            Source::Plain(reader) => match spin.read(reader.as_ref(), input).await? {
                Some(n) => Ok(n),
                None => reader.read_buf(input).await,
            },
            Source::Tls(reader) => reader.read_buf(input).await,
        }
    }
}

/// Writes queued request frames, as many as are queued per write, until the client is
/// dropped (the queue closes) or the socket fails.
async fn write_loop(
    mut writer: impl AsyncWrite + Unpin,
    mut queued: mpsc::UnboundedReceiver<BytesMut>,
    pending: Pending,
    broken: Arc<AtomicBool>,
) {
    let mut out = BytesMut::new();
    while let Some(first) = queued.recv().await {
        out.extend_from_slice(&first);
        while out.len() < WRITE_BATCH_BYTES {
            match queued.try_recv() {
                Ok(more) => out.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        if writer.write_all(&out).await.is_err() {
            fail_all(&pending, &broken);
            return;
        }
        out.clear();
    }
}

/// Hands each response frame to its call until the connection ends, then fails the rest.
async fn read_loop(
    mut reader: Source,
    mut spin: SpinPolicy,
    pending: Pending,
    (broken, why): (Arc<AtomicBool>, Arc<Mutex<Option<String>>>),
) {
    let mut input = BytesMut::with_capacity(64 << 10);
    loop {
        if input.capacity() - input.len() < 4096 {
            input.reserve(64 << 10);
        }
        // A lone caller's response, or its next call's, may be a few microseconds away.
        let read = reader.read_buf(&mut input, &mut spin).await;
        match read {
            Ok(0) => break,
            Err(e) => {
                *why.lock() = Some(e.to_string());
                break;
            }
            Ok(_) => {}
        }
        loop {
            match frame::take_frame(&mut input) {
                Ok(Some(frame)) => {
                    // A call whose caller gave up (timed out) is simply forgotten.
                    if let Some(reply) = pending.lock().remove(&frame.id) {
                        let _ = reply.send(frame);
                    }
                }
                Ok(None) => break,
                Err(_) => {
                    // Broken framing: nothing later on this connection can be trusted.
                    fail_all(&pending, &broken);
                    return;
                }
            }
        }
    }
    fail_all(&pending, &broken);
}

/// Marks the connection broken, then drops every call in flight (their callers see
/// `UNAVAILABLE`). A call inserted after the drain sees the flag and withdraws itself.
fn fail_all(pending: &Pending, broken: &AtomicBool) {
    broken.store(true, Ordering::Release);
    pending.lock().clear();
}
