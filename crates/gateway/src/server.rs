//! [`Gateway`]: accepts Thrift connections and serves each on its own task.
//!
//! One task accepts; every connection gets a task of its own, so a slow, idle or misbehaving
//! client never holds up another; a reaper task expires abandoned scanners. Shutdown stops
//! accepting and ends every connection task (in-flight calls are cut short; the client
//! sees a closed connection).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use strata_client::Connection;
use strata_proto::read_soon::SpinPolicy;
use strata_tls::{Accepted, Stream, HANDSHAKE_RECORD};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

use crate::config::GatewayConfig;
use crate::handler::Service;
use crate::protocol::{application_exception, encode_message, AppErrorKind, MessageKind};
use crate::scanners::Scanners;
use crate::transport::{Incoming, Transport};

/// A running Thrift gateway.
#[derive(Debug)]
pub struct Gateway {
    addr: SocketAddr,
    scanners: Arc<Scanners>,
    stop: watch::Sender<bool>,
    accept: JoinHandle<()>,
    reaper: JoinHandle<()>,
}

impl Gateway {
    /// Binds `config.listen` and starts serving through `conn`.
    ///
    /// # Errors
    /// Invalid settings, or the address cannot be bound.
    pub async fn start(config: GatewayConfig, conn: Connection) -> std::io::Result<Gateway> {
        config
            .validate()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let listener = TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        let scanners = Arc::new(Scanners::new(config.scanner_lease));
        let service = Arc::new(Service::new(
            conn,
            scanners.clone(),
            config.max_frame_bytes / 2,
        ));
        let (stop, stopped) = watch::channel(false);
        let accept = tokio::spawn(accept_loop(listener, service, config, stopped));
        let reaper = tokio::spawn(reap(scanners.clone()));
        Ok(Gateway {
            addr,
            scanners,
            stop,
            accept,
            reaper,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Scanners open now.
    pub fn open_scanners(&self) -> usize {
        self.scanners.len()
    }

    /// Stops accepting, closes every connection and waits for the tasks to end.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.accept.await;
        self.reaper.abort();
        let _ = self.reaper.await;
    }
}

async fn accept_loop(
    listener: TcpListener,
    service: Arc<Service>,
    config: GatewayConfig,
    mut stopped: watch::Receiver<bool>,
) {
    let next_id = AtomicU64::new(1);
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = stopped.changed() => break,
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let id = next_id.fetch_add(1, Ordering::Relaxed);
                connections.spawn(serve(stream, peer, service.clone(), config.clone(), id));
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
}

/// Completes TLS's handshake when the gateway has TLS (a plaintext client, or a TLS client of
/// a plaintext gateway, is closed with a warning), then serves the connection.
async fn serve(
    tcp: TcpStream,
    peer: SocketAddr,
    service: Arc<Service>,
    config: GatewayConfig,
    id: u64,
) {
    let refuse = |kind: &'static str, what: &str| {
        strata_proto::bad_input::warn(peer, "Thrift", kind, what);
    };
    let stream = match &config.tls {
        None => {
            let mut first = [0u8; 1];
            if matches!(tcp.peek(&mut first).await, Ok(1)) && first[0] == HANDSHAKE_RECORD {
                return refuse(
                    "TLS on a plaintext port",
                    "the client opened a TLS handshake, but this gateway runs without \
                     --tls-cert: closed",
                );
            }
            Stream::Plain(tcp)
        }
        Some(tls) => match tls.accept(tcp).await {
            Ok(Accepted::Tls(stream)) => stream,
            Ok(Accepted::Plaintext(..)) => {
                return refuse(
                    "plaintext on a TLS port",
                    "the client does not speak TLS, which this gateway requires (--tls-cert): \
                     closed",
                );
            }
            Err(e) => return refuse("TLS handshake", &e.to_string()),
        },
    };
    serve_stream(stream, peer, service, config, id).await;
}

/// Serves one connection until the client leaves, breaks the protocol beyond recovery, or
/// stays idle past the idle timeout. Its scanners are closed at the end.
async fn serve_stream(
    stream: Stream,
    peer: SocketAddr,
    service: Arc<Service>,
    config: GatewayConfig,
    id: u64,
) {
    let mut transport = Transport::new(stream, config.max_frame_bytes);
    let mut spin = SpinPolicy::new(config.poll_before_park);
    loop {
        // A lone caller's next call may be a few microseconds away.
        if transport.poll_soon(&mut spin).await.is_err() {
            break;
        }
        let next = match config.idle_timeout {
            Some(idle) => match tokio::time::timeout(idle, transport.next()).await {
                Ok(next) => next,
                Err(_) => break,
            },
            None => transport.next().await,
        };
        let reply = match next {
            Ok(Some(Incoming::Message { header, args })) => {
                // A message that came behind another overlaps (a pipelining client).
                spin.solo().request(transport.buffered());
                match header.kind {
                    MessageKind::Call => service.handle(&header, &args, id).await,
                    MessageKind::Oneway => {
                        let _ = service.handle(&header, &args, id).await;
                        continue;
                    }
                    MessageKind::Reply | MessageKind::Exception => encode_message(
                        &header.name,
                        MessageKind::Exception,
                        header.seqid,
                        &application_exception(
                            AppErrorKind::InvalidMessageType,
                            "the gateway takes calls only",
                        ),
                    ),
                }
            }
            Ok(Some(Incoming::Unsupported { reason, reply })) => {
                strata_proto::bad_input::warn(
                    peer,
                    "Thrift",
                    "unsupported_protocol",
                    &format!(
                        "the client speaks {reason}: answered with a TApplicationException and \
                         closed; use the binary protocol"
                    ),
                );
                let _ = transport.send_raw(&reply).await;
                break;
            }
            Ok(Some(Incoming::Malformed {
                header,
                reason,
                fatal,
            })) => {
                let action = if fatal { "closed" } else { "answered" };
                strata_proto::bad_input::warn(
                    peer,
                    "Thrift",
                    "malformed",
                    &format!("{reason} ({action})"),
                );
                if let Some(h) = header {
                    let body = application_exception(AppErrorKind::ProtocolError, &reason);
                    let reply = encode_message(&h.name, MessageKind::Exception, h.seqid, &body);
                    if transport.send(&reply).await.is_err() {
                        break;
                    }
                }
                if fatal {
                    break;
                }
                continue;
            }
            Ok(None) | Err(_) => break,
        };
        if transport.send(&reply).await.is_err() {
            break;
        }
    }
    service.scanners().close_owned(id);
}

/// Expires abandoned scanners, checking a few times per lease.
async fn reap(scanners: Arc<Scanners>) {
    let period = (scanners.lease() / 4).clamp(Duration::from_millis(10), Duration::from_secs(5));
    loop {
        tokio::time::sleep(period).await;
        scanners.expire();
    }
}
