//! Strata's HTTP endpoint (RFC 0015): Prometheus `/metrics` and a small server-rendered web
//! UI on one port of each process (HBase's master UI port 16010 by default, 127.0.0.1 only
//! unless configured).
//!
//! ```text
//!  GET /            the server: tables, regions, requests/s, caches, WAL, background work
//!  GET /table?name=T[&kind=reads|writes|all]   regions of T and its key-access heatmap (SVG)
//!  GET /region?id=N             families, memtable segments, store files of region N
//!  GET /slow                    the slow-operation log
//!  GET /config                  the effective configuration and the server's settings
//!  GET /metrics                 Prometheus / OpenMetrics text
//! ```
//!
//! Every process (`strata standalone`, `strata master`, `strata regionserver`) serves it from
//! a [`NodeView`] ([`HttpServer::start_node`], see [`node`]): its own page and figures, and for
//! a region server the engine's figures and region pages.
//!
//! Everything is read at request time from the figures the engine and the region server keep
//! (region stats, WAL and cache counters, the request observer), so serving the UI adds
//! nothing to the request path. The endpoint only reads: every route is `GET` (or `HEAD`),
//! other methods get 405, unknown paths 404, and oversized or malformed query strings 400
//! (see `query`).

mod metrics;
pub mod node;
mod page_error;
mod pages;
pub mod process_config;
mod query;
mod rates;
mod tls;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use metrics::render_node as render_node_metrics;
pub use metrics::{Figure, FigureKind, Labels};
pub use node::{NodeView, Section, TablePage};

/// The default address of the endpoint: HBase's master web UI port, loopback only.
pub const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 16010);

/// The default address of a cluster region server's endpoint: HBase's region server web UI
/// port, loopback only.
pub const DEFAULT_REGIONSERVER_LISTEN: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 16030);

/// The endpoint's listener: plain HTTP or HTTPS.
enum Either {
    Plain(TcpListener),
    Tls(tls::TlsListener),
}

/// A running HTTP endpoint.
pub struct HttpServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    serving: JoinHandle<()>,
    sampler: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Binds `listen` and serves `/metrics` and the pages of a cluster process described by
    /// `view` (see [`node`]), over TLS if `tls` is given (HTTPS); `settings` are extra rows
    /// for the configuration page.
    ///
    /// # Errors
    /// The address cannot be bound (in use, not local).
    pub async fn start_node(
        listen: SocketAddr,
        view: Arc<dyn NodeView>,
        settings: Vec<(String, String)>,
        tls: Option<strata_tls::ServerTls>,
    ) -> std::io::Result<HttpServer> {
        let listener = TcpListener::bind(listen).await?;
        let addr = listener.local_addr()?;
        let state = node::NodeState::new(view, settings, addr);
        let sampler = state
            .server()
            .map(|host| tokio::spawn(rates::sample_forever(state.rates.clone(), host)));
        let listener = match tls {
            None => Either::Plain(listener),
            Some(tls) => Either::Tls(tls::TlsListener::new(listener, tls)?),
        };
        Ok(Self::serve(listener, addr, node::router(state), sampler))
    }

    fn serve(
        listener: Either,
        addr: SocketAddr,
        app: axum::Router,
        sampler: Option<JoinHandle<()>>,
    ) -> HttpServer {
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let serving = tokio::spawn(async move {
            let stopped = async {
                let _ = stop_rx.await;
            };
            let served = match listener {
                Either::Plain(l) => axum::serve(l, app).with_graceful_shutdown(stopped).await,
                Either::Tls(l) => axum::serve(l, app).with_graceful_shutdown(stopped).await,
            };
            if let Err(e) = served {
                tracing::error!(error = %e, "HTTP endpoint stopped");
            }
        });
        HttpServer {
            addr,
            stop: Some(stop_tx),
            serving,
            sampler,
        }
    }

    /// The address the endpoint listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting connections and waits for requests in flight.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(sampler) = &self.sampler {
            sampler.abort();
        }
        let _ = (&mut self.serving).await;
    }
}
