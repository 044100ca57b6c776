//! Strata in one process, as a cluster of one (RFC 0019, "A cluster of one"): the cluster's
//! master and one region server, wired as in a cluster ([`crate::serve`]), over the embedded
//! coordination store kept under the root instead of etcd.
//!
//! ```text
//!  <root>/LOCK           held while running (a second process on the same root fails)
//!  <root>/catalog/       a root of an earlier release's standalone master: upgraded once at
//!                        the first start (crate::upgrade)
//!  <root>/coordination/  the coordination store (strata-embedded-kv): tables, regions, orders
//!  <root>/wal/<server>/  the region server's WAL, one directory per start (the previous
//!                        start's is fenced and split by the master, as a dead server's)
//!  <root>/tables/        <namespace>/<table>/<region>/ store files and manifests
//!  <root>/recovered/     edits split from a previous start's WAL, until replayed
//! ```
//!
//! A region server's lease is held in the same process as the master, so a lease lapses only
//! if the coordination thread stalls for the whole lease (a long one by default); the gate
//! refuses requests then, as in a cluster.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use strata_cluster::layout::Layout;
use strata_cluster::master::{Master, MasterConfig};
use strata_cluster::node;
use strata_cluster::regionserver::RegionServerConfig;
use strata_embedded_kv::{EmbeddedKv, Options};
use strata_server::ServerConfig;

use crate::fencer::LogFencer;
use crate::region_sweep::Place;
use crate::serve::{Endpoints, Node, NodeConfig};

/// The directory of the coordination store under the root.
pub const COORDINATION_DIR: &str = "coordination";

/// The name of a one-process Strata's cluster (its records' prefix).
pub const CLUSTER: &str = "/strata/standalone";

/// Settings of a one-process Strata.
pub struct SingleConfig {
    /// The region server's settings: `data_dir` is the root, `storage` its stores.
    pub server: ServerConfig,
    /// Where gRPC (data and admin) listens.
    pub listen: SocketAddr,
    /// The host (`HOST[:PORT]`) clients are told to connect to; `None`: the address bound.
    pub advertise: Option<String>,
    /// HTTP and HBase RPC.
    pub endpoints: Endpoints,
    /// Lease TTL of the region server and of the master's candidacy, seconds.
    pub ttl_secs: i64,
    /// How often idle regions get a compaction check; zero: never.
    pub compaction_check_every: Duration,
    /// How often the janitor sweeps recovered edits and region directories; zero: never.
    pub janitor_every: Duration,
    /// TLS on every listener; `None`: plaintext.
    pub tls: Option<strata_tls::ProcessTls>,
    /// Who may do what (RFC 0026); off without `--auth`.
    pub guard: Arc<strata_access::Guard>,
    /// How often the region server reports its usage and the master decides the space
    /// quotas' states (RFC 0029).
    pub space_quota_period: Duration,
}

impl SingleConfig {
    /// Defaults for a root: the given listen address, a 30 s lease, the periodic checks of
    /// standalone, a janitor every five minutes.
    pub fn new(server: ServerConfig, listen: SocketAddr) -> SingleConfig {
        SingleConfig {
            server,
            listen,
            advertise: None,
            endpoints: Endpoints::default(),
            ttl_secs: 30,
            compaction_check_every: strata_server::host::COMPACTION_CHECK_EVERY,
            janitor_every: Duration::from_secs(300),
            tls: None,
            guard: strata_access::Guard::off(),
            space_quota_period: crate::space_chore::DEFAULT_PERIOD,
        }
    }
}

/// Whether `root` holds a one-process Strata's coordination store.
pub fn is_single_root(files: &dyn strata_storage::vfs::FileStore, root: &Path) -> bool {
    files.exists(&root.join(COORDINATION_DIR)).unwrap_or(false)
}

/// Runs Strata in one process until `stop` is set (then the region server flushes and closes
/// its regions, and the master resigns). `report` gets one line per change of the region
/// server; `started` is called once it listens.
///
/// # Errors
/// The root is in use or holds data of another kind, the coordination store cannot be opened,
/// a port cannot be bound, or the region server stopped on its own (the reason).
pub fn run(
    config: SingleConfig,
    stop: &AtomicBool,
    report: impl FnMut(&str),
    started: impl FnMut(&Node),
) -> Result<(), String> {
    let root = config.server.data_dir.clone();
    let storage = config.server.storage.clone();
    let files = storage.files.clone();
    let url = files.url(&root);
    files
        .create_dir_all(&root)
        .map_err(|e| format!("{url}: {e}"))?;
    let _lock = files.lock(&root.join("LOCK")).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock => {
            format!("{url} is in use by another Strata process ({e})")
        }
        _ => format!("{url}: {e}"),
    })?;
    refuse_wal_off_root(&config.server)?;
    let layout = Layout::new(CLUSTER);
    crate::upgrade::upgrade_if_needed(&config.server, &layout)?;
    let (kv, _) = EmbeddedKv::open(
        storage.clone(),
        &root.join(COORDINATION_DIR),
        Options::default(),
    )
    .map_err(|e| format!("{url}: the coordination store: {e}"))?;
    // This process is the only one that takes snapshots here: one being taken when it
    // stopped never finishes (RFC 0025).
    crate::snapshot::take::abandon_all(&kv, &layout, files.as_ref(), &root)
        .map_err(|e| format!("{url}: unfinished snapshots: {}", e.message()))?;

    let quit = Arc::new(AtomicBool::new(false));
    let volumes: Vec<PathBuf> = if storage.is_local() {
        config
            .server
            .volumes
            .iter()
            .map(|v| v.path.clone())
            .collect()
    } else {
        Vec::new()
    };
    let volume_places = volumes
        .iter()
        .map(|path| Place {
            files: storage.files.clone(),
            root: path.clone(),
        })
        .collect();
    let master = spawn_master(
        &kv,
        &storage,
        (&root, volumes),
        &layout,
        config.ttl_secs,
        &quit,
    )?;
    // The master's side of space quotas (RFC 0029), acting while this process's master leads.
    let space_chore = crate::space_chore::spawn(
        Arc::new(kv.clone()),
        layout.clone(),
        "standalone".into(),
        config.space_quota_period,
        quit.clone(),
    );
    // A clone or restore that this process was making when it stopped is finished, once the
    // master and the region server run (it needs both).
    {
        let (kv, layout, files, root) = (
            kv.clone(),
            layout.clone(),
            storage.files.clone(),
            root.clone(),
        );
        std::thread::Builder::new()
            .name("resume-makings".into())
            .spawn(move || {
                if let Err(e) =
                    crate::snapshot::making::resume_stale(&kv, &layout, (&files, &root), true)
                {
                    tracing::warn!(error = %e.message(), "resuming clones and restores failed");
                }
            })
            .map_err(|e| format!("cannot start a thread: {e}"))?;
    }
    let janitor = if config.janitor_every.is_zero() {
        None
    } else {
        Some(crate::janitor::spawn(
            (storage.clone(), root.clone()),
            places(&config.server, &root),
            volume_places,
            kv.clone(),
            layout.clone(),
            config.janitor_every,
            quit.clone(),
        )?)
    };
    // A region that cannot open with this configuration (a volume not declared) would never
    // open: there is no other server. The process stops with the reason, as a start that
    // cannot recover its regions should.
    let invalid: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let invalid_slot = invalid.clone();
    let node_config = NodeConfig {
        etcd: Vec::new(),
        layout,
        server: config.server,
        coordination: RegionServerConfig {
            ttl_secs: config.ttl_secs,
            ..RegionServerConfig::default()
        },
        listen: config.listen,
        advertise: config.advertise,
        compaction_check_every: config.compaction_check_every,
        tls: config.tls,
        guard: config.guard,
        space_quota_period: config.space_quota_period,
        on_invalid_open: Some(Arc::new(move |why: &str| {
            let mut slot = invalid_slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            slot.get_or_insert_with(|| why.to_owned());
        })),
    };
    // The one HTTP endpoint shows the master's pages too.
    let endpoints = Endpoints {
        http_master_pages: true,
        ..config.endpoints.clone()
    };
    let halt = AtomicBool::new(false);
    let served = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !halt.load(Ordering::SeqCst) {
                let invalid_open = invalid
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .is_some();
                if stop.load(Ordering::SeqCst) || invalid_open {
                    halt.store(true, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let served = crate::serve::run_on(
            node_config,
            &endpoints,
            || Ok(kv.clone()),
            &halt,
            report,
            started,
            |why| tracing::error!(why, "the region server's lease lapsed; it stops serving"),
        );
        halt.store(true, Ordering::SeqCst);
        served
    });
    quit.store(true, Ordering::SeqCst);
    let _ = master.join();
    let _ = space_chore.join();
    if let Some(janitor) = janitor {
        let _ = janitor.join();
    }
    let invalid = invalid
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    match invalid {
        Some(why) => Err(why),
        None => served,
    }
}

/// The master on a thread of its own, until `quit` is set.
fn spawn_master(
    kv: &EmbeddedKv,
    storage: &strata_storage::vfs::Storage,
    (root, volumes): (&Path, Vec<PathBuf>),
    layout: &Layout,
    ttl_secs: i64,
    quit: &Arc<AtomicBool>,
) -> Result<std::thread::JoinHandle<()>, String> {
    let master = Master::new(
        kv.clone(),
        LogFencer::new(storage.clone(), root.to_path_buf()).with_volumes(volumes),
        layout.clone(),
        "standalone".into(),
        MasterConfig {
            ttl_secs,
            ..MasterConfig::default()
        },
    );
    let quit = quit.clone();
    std::thread::Builder::new()
        .name("master".into())
        .spawn(move || {
            node::run_master(master, &quit, |what| tracing::info!("master: {what}"));
        })
        .map_err(|e| format!("cannot start the master: {e}"))
}

/// Where region directories may be: the root, and the cold volume if there is one.
fn places(server: &ServerConfig, root: &Path) -> Vec<Place> {
    let mut places = vec![Place {
        files: server.storage.files.clone(),
        root: root.to_path_buf(),
    }];
    if let Some((volume, files)) = &server.cold_volume {
        places.push(Place {
            files: files.clone(),
            root: volume.path.clone(),
        });
    }
    places
}

/// Refuses WAL settings that put the WAL on a volume other than the root: the master fences
/// and splits a previous start's WAL under the root only, so one elsewhere would not be
/// replayed after a crash.
fn refuse_wal_off_root(server: &ServerConfig) -> Result<(), String> {
    if !server.storage.is_local() || server.volumes.is_empty() {
        return Ok(());
    }
    let volumes = strata_storage::tiers::Volumes::new(
        &server.data_dir,
        server.data_dir_type,
        server.volumes.clone(),
    )?;
    let kind = volumes.place(server.wal_storage_policy);
    if kind != volumes.root_kind() && !volumes.is_remote(kind) {
        return Err(format!(
            "the WAL's storage policy {:?} places it on the {} volume, but a cluster of one \
             keeps its WAL on the data directory ({}); choose a policy the data directory's \
             type satisfies",
            server.wal_storage_policy,
            kind.name(),
            server.data_dir_type.name()
        ));
    }
    Ok(())
}
