//! The listener: one task per connection reads every whole call the socket has, answers in
//! place the reads that complete at once (gets and multi-gets from memtables and cached
//! blocks, as the gRPC and framed services do: [`strata_server::inline`]), runs the others
//! (writes, which wait for the WAL; reads that miss the cache; scans; admin) on blocking
//! threads, and writes all ready replies with one write. Calls on one connection thus run
//! concurrently and their replies go out as they are ready, in any order, as HBase's client
//! expects.
//!
//! A connection whose preamble, header or framing is wrong gets a
//! `FatalConnectionException` naming the problem (when it can be framed) and is closed;
//! other connections are unaffected. With TLS (`HBaseRpcConfig::tls`), the handshake comes
//! first; a plaintext client gets a `FatalConnectionException` saying TLS is required, and a
//! TLS client of a plaintext listener is closed.

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use prost::Message;
use strata_proto::bad_input;
use strata_server::{HostedRegion, RegionServer};
use strata_tls::{Accepted, Stream, HANDSHAKE_RECORD};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::cellblock::{self, Codec};
use crate::config::HBaseRpcConfig;
use crate::context::{CellsOut, Context, Directory};
use crate::error::HBaseError;
use crate::frame::{self, Call, FrameError};
use crate::meta::ServerIdentity;
use crate::ops::MasterOps;
use crate::scanners::Scanners;
use crate::slow_calls::Timed;
use crate::{admin_svc, client_svc, kerberos, master_svc, pb, registry, write_now};
use strata_access::Caller;

/// Largest connection header accepted.
const MAX_HEADER_BYTES: usize = 64 << 10;
/// The call id of replies that belong to no call (HBase sends -1).
const NO_CALL: u32 = u32::MAX;
/// Calls of one connection running at once on blocking threads; beyond it the connection's
/// socket is not read until one finishes, so a client that floods calls (or does not read its
/// replies) is held back instead of filling the server.
const MAX_IN_FLIGHT: usize = 128;
/// Room made in a connection's input buffer before each read.
const READ_CHUNK: usize = 16 << 10;
/// Most room made at once for a large frame still arriving (it grows as its bytes do).
const MAX_READ_RESERVE: usize = 4 << 20;

/// The services a connection can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Service {
    ClientMeta,
    Client,
    Master,
    Admin,
}

impl Service {
    fn parse(name: &str) -> Option<Service> {
        match name {
            "ClientMetaService" => Some(Service::ClientMeta),
            "ClientService" => Some(Service::Client),
            "MasterService" => Some(Service::Master),
            "AdminService" => Some(Service::Admin),
            _ => None,
        }
    }
}

/// A running HBase RPC listener.
pub struct HBaseRpcServer {
    addr: SocketAddr,
    context: Arc<Context>,
    stop: Option<oneshot::Sender<()>>,
    accepting: JoinHandle<()>,
}

impl HBaseRpcServer {
    /// Binds `config.listen` and serves, for a process of a cluster, the regions `server`
    /// holds (a region server; `None`: a master, which holds none): `hbase:meta` and the
    /// registry are answered from `directory`, `MasterService` by `ops`; `cluster_id` and
    /// `start_code` (the process's, in its cluster name) are what clients are told.
    ///
    /// # Errors
    /// The address cannot be bound, or it is a wildcard address and no advertised host is set.
    pub async fn start_cluster(
        config: HBaseRpcConfig,
        server: Option<Arc<RegionServer>>,
        directory: Arc<dyn Directory>,
        ops: Arc<dyn MasterOps>,
        cluster_id: String,
        start_code: u64,
    ) -> std::io::Result<Self> {
        Self::start_with(
            config,
            server,
            directory,
            move |_| ops,
            cluster_id,
            start_code,
        )
        .await
    }

    async fn start_with(
        config: HBaseRpcConfig,
        server: Option<Arc<RegionServer>>,
        directory: Arc<dyn Directory>,
        ops: impl FnOnce(&ServerIdentity) -> Arc<dyn MasterOps>,
        cluster_id: String,
        start_code: u64,
    ) -> std::io::Result<Self> {
        if config.advertised_host.is_none() && config.listen.ip().is_unspecified() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "listening on {} needs an advertised host name for clients (meta and the \
                     registry name this server)",
                    config.listen
                ),
            ));
        }
        let listener = TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        let identity = ServerIdentity {
            host: config
                .advertised_host
                .clone()
                .unwrap_or_else(|| addr.ip().to_string()),
            port: addr.port(),
            start_code,
        };
        // Procedure ids start at the start code times 1000, so ids handed out before a
        // restart are not reported as this process's.
        let first_procedure = start_code.saturating_mul(1000);
        let context = Arc::new(Context {
            ops: ops(&identity),
            cluster_id,
            identity,
            scanners: Scanners::new(config.scanner_lease, config.max_open_scanners),
            procedures: AtomicU64::new(first_procedure),
            first_procedure,
            trace: std::env::var_os("STRATA_HBASE_RPC_TRACE").is_some_and(|v| v == "1"),
            server,
            directory,
            config,
        });
        let (stop, stopped) = oneshot::channel();
        let accepting = tokio::spawn(accept_loop(listener, context.clone(), stopped));
        Ok(HBaseRpcServer {
            addr,
            context,
            stop: Some(stop),
            accepting,
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `host:port` as clients are told to reach this server (for
    /// `hbase.client.bootstrap.servers`).
    pub fn advertised(&self) -> String {
        format!(
            "{}:{}",
            self.context.identity.host, self.context.identity.port
        )
    }

    /// The cluster id clients are told.
    pub fn cluster_id(&self) -> &str {
        &self.context.cluster_id
    }

    /// Stops accepting connections (open ones end when their clients close them or the
    /// runtime stops).
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.accepting).await;
    }
}

async fn accept_loop(listener: TcpListener, ctx: Arc<Context>, mut stop: oneshot::Receiver<()>) {
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(open_connection(ctx.clone(), stream));
                }
                Err(e) => {
                    eprintln!("strata hbase-rpc: accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            },
        }
    }
}

fn fatal(message: impl Into<String>) -> Bytes {
    let e = HBaseError {
        class: "org.apache.hadoop.hbase.ipc.FatalConnectionException",
        message: message.into(),
        do_not_retry: true,
    };
    frame::encode_exception(NO_CALL, e.to_response())
}

/// Completes TLS's handshake if the listener has TLS, then serves the connection.
async fn open_connection(ctx: Arc<Context>, tcp: TcpStream) {
    let peer = tcp.peer_addr().ok();
    let Some(tls) = &ctx.config.tls else {
        let mut first = [0u8; 1];
        if matches!(tcp.peek(&mut first).await, Ok(1)) && first[0] == HANDSHAKE_RECORD {
            if let Some(peer) = peer {
                bad_input::warn(
                    peer,
                    "HBase RPC",
                    "TLS on a plaintext port",
                    "the client opened a TLS handshake, but this server runs without \
                     --tls-cert (set hbase.client.netty.tls.enabled=false, or start the \
                     server with TLS)",
                );
            }
            return;
        }
        return serve_connection(ctx, Stream::Plain(tcp)).await;
    };
    match tls.accept(tcp).await {
        Ok(Accepted::Tls(stream)) => serve_connection(ctx, stream).await,
        Ok(Accepted::Plaintext(mut tcp, _)) => {
            if let Some(peer) = peer {
                bad_input::warn(
                    peer,
                    "HBase RPC",
                    "plaintext on a TLS port",
                    "the client does not speak TLS (hbase.client.netty.tls.enabled)",
                );
            }
            // The preamble, then the answer: a client reads it after sending its header.
            let mut preamble = [0u8; 6];
            let read = tokio::time::timeout(
                std::time::Duration::from_secs(2),
                tcp.read_exact(&mut preamble),
            )
            .await;
            if matches!(read, Ok(Ok(_))) {
                let reply = fatal(
                    "this server requires TLS: set hbase.client.netty.tls.enabled=true and \
                     trust its CA (hbase.rpc.tls.truststore.location)",
                );
                let _ = tcp.write_all(&reply).await;
                let _ = tcp.shutdown().await;
                // Read what the client still sends, so the close does not reset the answer.
                let mut sink = [0u8; 4096];
                let _ = tokio::time::timeout(std::time::Duration::from_secs(2), async {
                    while matches!(tcp.read(&mut sink).await, Ok(n) if n > 0) {}
                })
                .await;
            }
        }
        Err(e) => {
            if let (Some(peer), false) = (peer, e.kind() == std::io::ErrorKind::UnexpectedEof) {
                bad_input::warn(peer, "HBase RPC", "TLS handshake", &e.to_string());
            }
        }
    }
}

/// The connection's service and codec, from its preamble and header, after the SASL exchange
/// of a Kerberos client (which sets `caller`). `Ok(None)`: the connection only asked for the
/// cluster id, which was sent.
async fn handshake(
    ctx: &Context,
    stream: &mut Stream,
    caller: &mut Caller,
) -> Result<Option<(Service, Option<Codec>, Option<String>)>, (FrameError, Option<Bytes>)> {
    let mut preamble = [0u8; 6];
    loop {
        stream
            .read_exact(&mut preamble)
            .await
            .map_err(|e| (FrameError::Io(e), None))?;
        if &preamble == frame::REGISTRY_PREAMBLE {
            let reply = pb::GetConnectionRegistryResponse {
                cluster_id: ctx.cluster_id.clone(),
            };
            let _ = stream
                .write_all(&frame::encode_reply(NO_CALL, &reply.encode_to_vec(), None))
                .await;
            return Ok(None);
        }
        if &preamble != frame::SECURITY_PREAMBLE {
            break;
        }
        let reply = match &ctx.config.kerberos {
            Some(acceptor) => {
                let principal = pb::SecurityPreamableResponse {
                    server_principal: acceptor.principal().to_string(),
                };
                frame::encode_reply(NO_CALL, &principal.encode_to_vec(), None)
            }
            None => {
                let e = HBaseError {
                    class: "org.apache.hadoop.hbase.ipc.SecurityNotEnabledException",
                    message: "security is not enabled".into(),
                    do_not_retry: true,
                };
                frame::encode_exception(NO_CALL, e.to_response())
            }
        };
        stream
            .write_all(&reply)
            .await
            .map_err(|e| (FrameError::Io(e), None))?;
    }
    if let Err(e) = frame::check_preamble(&preamble) {
        let reply = fatal(e.to_string());
        return Err((e, Some(reply)));
    }
    if preamble[5] == frame::AUTH_KERBEROS {
        kerberos::authenticate(ctx, stream, caller).await?;
    } else if ctx.config.guard.is_on() && caller.user.is_none() {
        // HBase answers SIMPLE on a secure server with an AccessDeniedException on call -1,
        // which its 2.6 client drops ("Connection closed"); as a FatalConnectionException the
        // client shows the reason.
        let message = format!(
            "org.apache.hadoop.hbase.security.AccessDeniedException: {}",
            kerberos::AUTHENTICATION_REQUIRED
        );
        return Err((FrameError::Refused(message.clone()), Some(fatal(message))));
    }
    let header = frame::read_frame(stream, MAX_HEADER_BYTES)
        .await
        .map_err(|e| (e, None))?
        .ok_or((FrameError::Truncated, None))?;
    let header = frame::decode_connection_header(&header).map_err(|e| {
        let reply = fatal(e.to_string());
        (e, Some(reply))
    })?;
    let refuse = |e: HBaseError| {
        (
            FrameError::Malformed(e.message.clone()),
            Some(frame::encode_exception(NO_CALL, e.to_response())),
        )
    };
    let name = header.service_name();
    let service = Service::parse(name).ok_or_else(|| refuse(HBaseError::unknown_service(name)))?;
    let codec = match header.cell_block_codec_class.as_deref() {
        None | Some("") => None,
        Some(class) => Some(
            Codec::from_class(class).ok_or_else(|| refuse(HBaseError::unsupported_codec(class)))?,
        ),
    };
    if let Some(c) = header
        .cell_block_compressor_class
        .as_deref()
        .filter(|c| !c.is_empty())
    {
        return Err(refuse(HBaseError::unsupported_compressor(c)));
    }
    // The user the client says it is (HBase's SIMPLE authentication): believed only without
    // access control, and then only to name the caller for throttles and `whoami`.
    let claimed = header
        .user_info
        .as_ref()
        .map(|u| u.effective_user.clone())
        .filter(|u| !u.is_empty() && !ctx.config.guard.is_on());
    Ok(Some((service, codec, claimed)))
}

async fn serve_connection(ctx: Arc<Context>, mut stream: Stream) {
    let peer = stream.peer_addr().ok();
    let mut caller = strata_server::caller::of_stream(&stream);
    let (service, codec) = match handshake(&ctx, &mut stream, &mut caller).await {
        Ok(Some((service, codec, claimed))) => {
            if let (None, Some(name)) = (&caller.user, claimed) {
                caller.user = Some(name.into());
            }
            (service, codec)
        }
        Ok(None) => {
            let _ = stream.shutdown().await;
            return;
        }
        Err((e, reply)) => {
            if ctx.trace {
                eprintln!("hbase-rpc: connection refused: {e}");
            }
            // A client that connected and left says nothing wrong.
            let kind = match e {
                FrameError::Refused(_) => "authentication refused",
                _ => "malformed HBase RPC",
            };
            if let (Some(peer), false) = (peer, matches!(e, FrameError::Io(_))) {
                bad_input::warn(peer, "HBase RPC", kind, &e.to_string());
            }
            if let Some(reply) = reply {
                let _ = stream.write_all(&reply).await;
            }
            let _ = stream.shutdown().await;
            return;
        }
    };
    let mut conn = Connection {
        ctx,
        peer,
        caller,
        service,
        codec,
        output: BytesMut::new(),
        waiting: 0,
        writes: Vec::new(),
    };
    let _ = conn.serve(stream).await;
}

/// One connection past its handshake: its calls read in order, answered in any order.
struct Connection {
    ctx: Arc<Context>,
    /// The client's address.
    peer: Option<std::net::SocketAddr>,
    /// Who calls (RFC 0026): the name Kerberos or the client certificate proves, if any.
    caller: Caller,
    service: Service,
    codec: Option<Codec>,
    /// Replies ready to write.
    output: BytesMut,
    /// Calls running elsewhere (on the blocking pool).
    waiting: usize,
    /// `Mutate` calls read and not yet applied: applied together once every whole call read
    /// so far is started (one WAL append, Decision 27).
    writes: Vec<HeldWrite>,
}

/// A `Mutate` call to apply in place with the others read at the same time.
struct HeldWrite {
    call: Call,
    timed: Option<Timed>,
    ready: write_now::Ready,
}

impl Connection {
    /// Reads every whole call the socket has, answers in place those that can be, hands the
    /// others to blocking threads, and writes all ready replies with one write; until the
    /// client closes the connection (or breaks the protocol: a fatal exception, no more
    /// reads) and every call is answered.
    async fn serve(&mut self, mut stream: Stream) -> std::io::Result<()> {
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Bytes>();
        let max = self.ctx.config.max_frame_bytes;
        let mut input = BytesMut::with_capacity(READ_CHUNK);
        // The client closed its side (or reading failed); a protocol error was answered.
        let (mut eof, mut failed) = (false, false);
        loop {
            while !failed && self.waiting < MAX_IN_FLIGHT {
                match frame::take_frame(&mut input, max)
                    .and_then(|f| f.map(frame::decode_call).transpose())
                {
                    Ok(Some(call)) => self.start(call, &done_tx),
                    Ok(None) => break,
                    Err(e) => {
                        if let Some(peer) = self.peer {
                            let what = e.to_string();
                            bad_input::warn(peer, "HBase RPC", "malformed HBase RPC", &what);
                        }
                        // Nothing more is read; calls already running are still answered.
                        self.output.extend_from_slice(&fatal(e.to_string()));
                        failed = true;
                    }
                }
            }
            self.apply_writes(&done_tx);
            while let Ok(reply) = done_rx.try_recv() {
                self.waiting -= 1;
                self.output.extend_from_slice(&reply);
            }
            if !self.output.is_empty() {
                stream.write_all(&self.output).await?;
                self.output.clear();
            }
            let whole_frame = input.len() >= 4 && frame::frame_needs(&input, max) == 0;
            if !failed && self.waiting < MAX_IN_FLIGHT && whole_frame {
                // Calls held back by the in-flight limit, now that some finished.
                continue;
            }
            if (eof || failed) && self.waiting == 0 {
                return stream.shutdown().await;
            }
            let room = READ_CHUNK.max(frame::frame_needs(&input, max).min(MAX_READ_RESERVE));
            if input.capacity() - input.len() < room / 4 {
                input.reserve(room);
            }
            tokio::select! {
                read = stream.read_buf(&mut input),
                    if !eof && !failed && self.waiting < MAX_IN_FLIGHT =>
                {
                    match read {
                        Ok(0) => {
                            if !input.is_empty() && self.ctx.trace {
                                eprintln!("hbase-rpc: connection closed inside a frame");
                            }
                            eof = true;
                        }
                        Ok(_) => {}
                        Err(e) => {
                            if self.ctx.trace {
                                eprintln!("hbase-rpc: reading the connection failed: {e}");
                            }
                            eof = true;
                        }
                    }
                }
                Some(reply) = done_rx.recv(), if self.waiting > 0 => {
                    self.waiting -= 1;
                    self.output.extend_from_slice(&reply);
                }
            }
        }
    }

    /// Answers `call` in place if it is a read that completes at once (from memtables and
    /// cached blocks, no other read in flight: [`strata_server::inline`]); else runs it on a
    /// blocking thread (writes wait for the WAL, uncached reads for the disk), whose reply
    /// arrives on `done`. Gets and multis count as reads in flight until answered (a multi
    /// is known to hold writes only once tried, so one that was not tried counts too).
    fn start(&mut self, mut call: Call, done: &mpsc::UnboundedSender<Bytes>) {
        call.peer = self.peer;
        let timed = (self.service == Service::Client).then(|| Timed::start(&call));
        if self.service == Service::Client && call.header.method_name() == "Mutate" {
            if let Some(ready) = self.write_ready(&call) {
                self.writes.push(HeldWrite { call, timed, ready });
                return;
            }
        }
        let mut ticket = match (&self.ctx.server, self.service) {
            (Some(server), Service::Client)
                if matches!(call.header.method_name(), "Get" | "Multi") =>
            {
                Some(server.reads().enter())
            }
            _ => None,
        };
        if let Some(t) = &ticket {
            let (ctx, codec, caller) = (&*self.ctx, self.codec, &self.caller);
            let out = &mut self.output;
            let mark = out.len();
            let guard = &ctx.config.guard;
            match t.try_inline(|| {
                crate::access::with_caller(guard, caller, || {
                    answer_read_only(ctx, codec, &call, out)
                })
            }) {
                Some(true) => {
                    if let Some(timed) = &timed {
                        timed.check(ctx, &self.output[mark..]);
                    }
                    return;
                }
                // Not a read after all (a multi with writes): not counted as one.
                Some(false) => ticket = None,
                // A read that may block (not tried, or it needed an uncached block): counted
                // until it is answered; whatever reply the refused attempt made is dropped.
                None => self.output.truncate(mark),
            }
        }
        self.run_elsewhere(call, ticket, timed, done);
    }

    /// Runs `call` on a blocking thread; its reply arrives on `done`.
    fn run_elsewhere(
        &mut self,
        call: Call,
        ticket: Option<strata_server::inline::ReadTicket>,
        timed: Option<Timed>,
        done: &mpsc::UnboundedSender<Bytes>,
    ) {
        self.waiting += 1;
        let (ctx, service, codec, done) =
            (self.ctx.clone(), self.service, self.codec, done.clone());
        let caller = self.caller.clone();
        tokio::spawn(async move {
            let call_id = call.header.call_id();
            let reply = tokio::task::spawn_blocking(move || {
                let _ticket = ticket;
                let mut out = BytesMut::new();
                crate::access::with_caller(&ctx.config.guard, &caller, || {
                    handle(&ctx, service, codec, &call, &mut out);
                });
                if let Some(timed) = &timed {
                    timed.check(&ctx, &out);
                }
                out.freeze()
            })
            .await
            .unwrap_or_else(|e| {
                frame::encode_exception(
                    call_id,
                    HBaseError {
                        class: "java.io.IOException",
                        message: format!("internal error: {e}"),
                        do_not_retry: false,
                    }
                    .to_response(),
                )
            });
            let _ = done.send(reply);
        });
    }
}

impl Connection {
    /// A `Mutate` call that may be applied in place ([`write_now::ready`]); `None` when it
    /// takes the usual way.
    fn write_ready(&self, call: &Call) -> Option<write_now::Ready> {
        let block = match (call.cell_block.is_empty(), self.codec) {
            (true, _) => Vec::new(),
            (false, Some(codec)) => cellblock::decode(codec, &call.cell_block).ok()?,
            (false, None) => return None,
        };
        write_now::ready(&self.ctx, &call.param, block)
    }

    /// Applies the held `Mutate` calls together (one WAL append for those of one WAL) and
    /// answers each; a declined one takes the usual way, untouched.
    fn apply_writes(&mut self, done: &mpsc::UnboundedSender<Bytes>) {
        if self.writes.is_empty() {
            return;
        }
        let held = std::mem::take(&mut self.writes);
        let rows: Vec<_> = held.iter().map(|w| w.ready.row()).collect();
        let outcomes = HostedRegion::try_mutate_rows_now(&rows);
        for (w, now) in held.into_iter().zip(outcomes) {
            let mut cells = CellsOut::new(self.codec);
            match write_now::applied(&w.ready, now, &mut cells) {
                None => self.run_elsewhere(w.call, None, w.timed, done),
                Some(applied) => self.answer_written(&w.call, applied, cells, done, &w.timed),
            }
        }
    }

    /// Answers a `Mutate` applied in place. A write not yet visible is answered once it is,
    /// after a wait on a blocking thread.
    fn answer_written(
        &mut self,
        call: &Call,
        applied: write_now::Applied,
        cells: CellsOut,
        done: &mpsc::UnboundedSender<Bytes>,
        timed: &Option<Timed>,
    ) {
        if let Some(server) = &self.ctx.server {
            server
                .counters()
                .writes_in_place
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let mut out = BytesMut::new();
        let mark = self.output.len();
        let answer = match applied.pending {
            None => &mut self.output,
            Some(_) => &mut out,
        };
        reply(
            &self.ctx,
            Service::Client,
            call,
            applied.result,
            cells,
            answer,
        );
        let Some((region, seq)) = applied.pending else {
            if let Some(timed) = timed {
                timed.check(&self.ctx, &self.output[mark..]);
            }
            return;
        };
        self.waiting += 1;
        let done = done.clone();
        let (ctx, timed) = (self.ctx.clone(), timed.clone());
        tokio::spawn(async move {
            // The write is logged and applied; waiting only orders the answer after it is
            // visible, so even a failed wait (a panic) answers.
            let _ = tokio::task::spawn_blocking(move || region.wait_visible(seq)).await;
            if let Some(timed) = timed {
                timed.check(&ctx, &out);
            }
            let _ = done.send(out.freeze());
        });
    }
}

/// Appends the reply of `call`, a `ClientService` call, to `out` if it only reads user
/// regions ([`client_svc::call_read_only`]); false (and `out` unchanged) if it is another
/// call.
fn answer_read_only(ctx: &Context, codec: Option<Codec>, call: &Call, out: &mut BytesMut) -> bool {
    if !call.cell_block.is_empty() {
        return false;
    }
    let method = call.header.method_name();
    let mut cells = CellsOut::new(codec);
    let Some(result) = client_svc::call_read_only(ctx, method, &call.param, &mut cells) else {
        return false;
    };
    reply(ctx, Service::Client, call, result, cells, out);
    true
}

/// Runs one call and appends its reply frame to `out`.
fn handle(ctx: &Context, service: Service, codec: Option<Codec>, call: &Call, out: &mut BytesMut) {
    let mut cells = CellsOut::new(codec);
    let result = dispatch(ctx, service, codec, call, &mut cells);
    reply(ctx, service, call, result, cells, out);
}

/// Appends the reply frame of `call`'s `result` (and `cells`) to `out`.
fn reply(
    ctx: &Context,
    service: Service,
    call: &Call,
    result: Result<Vec<u8>, HBaseError>,
    cells: CellsOut,
    out: &mut BytesMut,
) {
    let call_id = call.header.call_id();
    if ctx.trace {
        let method = call.header.method_name();
        match &result {
            Ok(_) => eprintln!("hbase-rpc: {service:?}.{method} #{call_id}: ok"),
            Err(e) => eprintln!(
                "hbase-rpc: {service:?}.{method} #{call_id}: {} {}",
                e.class, e.message
            ),
        }
    }
    if let (Err(e), Some(peer)) = (&result, call.peer) {
        if let Some(kind) = e.client_mistake() {
            let method = call.header.method_name();
            let what = format!("{service:?}.{method}: {} {}", e.class, e.message);
            bad_input::warn(peer, "HBase RPC", kind, &what);
        }
    }
    match result {
        Ok(message) => frame::put_reply(out, call_id, &message, cells.finish().as_deref()),
        Err(e) => frame::put_exception(out, call_id, e.to_response()),
    }
}

fn dispatch(
    ctx: &Context,
    service: Service,
    codec: Option<Codec>,
    call: &Call,
    out: &mut CellsOut,
) -> Result<Vec<u8>, HBaseError> {
    let method = call.header.method_name();
    let block = if call.cell_block.is_empty() {
        Vec::new()
    } else {
        let codec = codec.ok_or_else(|| {
            HBaseError::do_not_retry("a cell block arrived on a connection without a codec")
        })?;
        cellblock::decode(codec, &call.cell_block)
            .map_err(|e| HBaseError::do_not_retry(e.to_string()))?
    };
    match service {
        Service::ClientMeta => registry::call(ctx, method),
        Service::Client => client_svc::call(ctx, method, &call.param, block, out),
        Service::Master => master_svc::call(ctx, method, &call.param),
        Service::Admin => admin_svc::call(ctx, method, &call.param),
    }
}
