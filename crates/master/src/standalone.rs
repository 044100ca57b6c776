//! Standalone mode (ARCHITECTURE.md, "Bird's-eye view"): the master, one region server and the gRPC
//! services in one process on one local data directory, every port on 127.0.0.1 unless configured.
//!
//! ```text
//!  <data-dir>/LOCK      held while running (a second process on the same directory fails)
//!  <data-dir>/catalog/  the master's catalog (LocalCoordinator)
//!  <data-dir>/wal/      the region server's write-ahead log
//!  <data-dir>/tables/   <namespace>/<table>/<region>/ store files and manifests
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use strata_server::{DataService, RegionServer, ServerConfig};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::coordinator::LocalCoordinator;
use crate::error::{MasterError, Result};
use crate::master::Master;
use crate::service::AdminService;

/// Settings of a standalone process.
#[derive(Clone, Debug)]
pub struct StandaloneConfig {
    /// The data directory.
    pub data_dir: PathBuf,
    /// Where the gRPC services listen (port 0 picks a free port).
    pub listen: SocketAddr,
    /// How often the master checks for regions to split and parents to clean up.
    pub upkeep_interval: Duration,
    /// Region-server settings; `data_dir` and `advertised_address` are filled in.
    pub server: ServerConfig,
}

impl StandaloneConfig {
    /// The default port of the gRPC services (HBase's master port).
    pub const DEFAULT_PORT: u16 = 16000;

    /// Defaults for `data_dir`: 127.0.0.1:16000, upkeep every second.
    pub fn new(data_dir: impl Into<PathBuf>) -> StandaloneConfig {
        let data_dir = data_dir.into();
        StandaloneConfig {
            server: ServerConfig::new(data_dir.clone(), String::new()),
            data_dir,
            listen: SocketAddr::from(([127, 0, 0, 1], Self::DEFAULT_PORT)),
            upkeep_interval: Duration::from_secs(1),
        }
    }
}

/// A running standalone process.
pub struct Standalone {
    addr: SocketAddr,
    master: Arc<Master>,
    stop: Option<oneshot::Sender<()>>,
    serving: JoinHandle<std::result::Result<(), tonic::transport::Error>>,
    /// The accept loop sorting connections into framed and gRPC ones.
    accepting: strata_server::frames::Accepting,
    upkeep: JoinHandle<()>,
    _lock: Box<dyn Send + Sync>,
}

impl Standalone {
    /// Locks the data directory, opens the region server and the master (replaying the WAL
    /// of every region), and starts serving.
    ///
    /// # Errors
    /// The directory is in use by another process, the port is taken, or recovery failed.
    pub async fn start(config: StandaloneConfig) -> Result<Standalone> {
        let files = config.server.storage.files.clone();
        let root_url = files.url(&config.data_dir);
        let (root, lock_files) = (config.data_dir.clone(), files.clone());
        let lock = tokio::task::spawn_blocking(move || {
            lock_files.create_dir_all(&root)?;
            let lock = lock_files.lock(&root.join("LOCK"))?;
            if lock_files.exists(&root.join("coordination"))? {
                // A cluster of one's root: its regions are not in a catalog file, and opening
                // it here would take their directories for debris.
                return Err(std::io::Error::other(
                    "it holds a cluster of one (its coordination store); open it with \
                     `strata standalone --cluster-of-one`",
                ));
            }
            Ok(lock)
        })
        .await
        .map_err(|e| MasterError::InvalidArgument(format!("startup task failed: {e}")))?
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock => MasterError::InvalidArgument(format!(
                "{root_url} is in use by another Strata process ({e})"
            )),
            _ => MasterError::InvalidArgument(format!("{root_url}: {e}")),
        })?;
        let listener = TcpListener::bind(config.listen)
            .await
            .map_err(|e| MasterError::InvalidArgument(format!("{}: {e}", config.listen)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| MasterError::InvalidArgument(e.to_string()))?;
        let mut server_config = config.server.clone();
        server_config.data_dir.clone_from(&config.data_dir);
        server_config.advertised_address = addr.to_string();
        let catalog_dir = config.data_dir.join("catalog");
        let master = tokio::task::spawn_blocking(move || -> Result<Master> {
            let host = RegionServer::open(server_config)?;
            Master::start(Box::new(LocalCoordinator::on(files, catalog_dir)?), host)
        })
        .await
        .map_err(|e| MasterError::InvalidArgument(format!("startup task failed: {e}")))??;
        let master = Arc::new(master);

        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let data = DataService::new(master.host().clone());
        let router = tonic::transport::Server::builder()
            .add_service(data.clone().into_server())
            .add_service(AdminService::new(master.clone()).into_server());
        // One port for both protocols: framed connections are served by the data service
        // directly, the others go to tonic (TCP_NODELAY set on both).
        let (incoming, accepting) = strata_server::frames::split_listener(listener, data);
        let serving = tokio::spawn(router.serve_with_incoming_shutdown(incoming, async {
            let _ = stop_rx.await;
        }));
        let upkeep = tokio::spawn(upkeep_loop(master.clone(), config.upkeep_interval));
        Ok(Standalone {
            addr,
            master,
            stop: Some(stop_tx),
            serving,
            accepting,
            upkeep,
            _lock: lock,
        })
    }

    /// The address the services listen on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The master (and through it the region server).
    pub fn master(&self) -> &Arc<Master> {
        &self.master
    }

    /// Graceful shutdown: stop accepting requests, let running ones finish, flush and close
    /// every region, close the WAL.
    ///
    /// # Errors
    /// A region failed to flush (its edits stay in the WAL and are replayed at next start).
    pub async fn shutdown(mut self) -> Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.upkeep.abort();
        self.accepting.stop();
        let _ = (&mut self.serving).await;
        let master = self.master.clone();
        tokio::task::spawn_blocking(move || master.shutdown())
            .await
            .map_err(|e| MasterError::InvalidArgument(format!("shutdown task failed: {e}")))??;
        Ok(())
    }
}

async fn upkeep_loop(master: Arc<Master>, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_check = tokio::time::Instant::now();
    loop {
        tick.tick().await;
        if last_check.elapsed() >= strata_server::host::COMPACTION_CHECK_EVERY {
            last_check = tokio::time::Instant::now();
            master.host().request_compaction_checks();
        }
        let m = master.clone();
        match tokio::task::spawn_blocking(move || m.upkeep()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "upkeep failed"),
            Err(e) => tracing::error!(error = %e, "upkeep task failed"),
        }
    }
}
