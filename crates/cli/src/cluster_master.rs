//! `strata master`: a cluster master on etcd (RFC 0012) — campaigns, and while active drives
//! assignment, splits, merges and crash recovery; with `--root`, fences and splits a dead
//! server's WAL; its janitor sweeps recovered edits and region directories no region names;
//! `--http` serves its metrics and web UI.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use strata_cluster::master::{Master, MasterConfig};
use strata_cluster::node::{self, NoWal};
use strata_cluster_node::counted::{CountedKv, KvCounts};
use strata_cluster_node::fencer::LogFencer;
use strata_cluster_node::http::MasterView;
use strata_cluster_node::region_sweep::Place;

use crate::cluster_cmd::{open_root, stop_on_signal, Coordination};

/// Arguments of `strata master`.
#[derive(clap::Args)]
pub struct MasterArgs {
    #[command(flatten)]
    coordination: Coordination,
    /// The address this master announces.
    #[arg(long, default_value = "127.0.0.1:16000")]
    advertise: String,
    /// Lease TTL in seconds (how long a dead active master goes unnoticed).
    #[arg(long, default_value_t = 3)]
    ttl: i64,
    /// The shared root the region servers keep their data in (`hdfs://HOST:PORT/PATH` or a
    /// directory): the master fences and splits a dead server's WAL there. Without it, the
    /// cluster runs coordination only.
    #[arg(long)]
    root: Option<String>,
    /// The HDFS NameNode's HTTP address (WebHDFS), needed only to set storage policies other
    /// than HOT [default: dfs.namenode.http-address in HADOOP_CONF_DIR's hdfs-site.xml, else
    /// the NameNode's host, port 9870].
    #[arg(long)]
    hdfs_http: Option<String>,
    /// Longest wait, in seconds, for one HDFS operation (with --root): past it the operation
    /// fails, so writes fail with UNAVAILABLE while the NameNode is unreachable.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    store_timeout_secs: u64,
    /// Serve /metrics and the web UI on this address (`--http` alone: HBase's master UI
    /// port, 127.0.0.1:16010; port 0 picks one).
    #[arg(long, num_args = 0..=1, default_missing_value = "127.0.0.1:16010")]
    http: Option<std::net::SocketAddr>,
    /// Seconds between sweeps of recovered edits that no region will replay (those of tables
    /// dropped after their server crashed) and of region directories no region record names
    /// (split parents' and dropped tables' files in the cold bucket); 0 turns the sweep off.
    /// Needs --root.
    #[arg(long, default_value_t = 300)]
    janitor_secs: u64,
    #[command(flatten)]
    space_quota: crate::space_quota_args::SpaceQuotaArgs,
    /// The region servers' ARCHIVE tier, `s3://bucket/prefix` (with --root; the --s3-* flags
    /// apply): the janitor deletes there the files of regions that no longer exist.
    #[arg(long)]
    cold_root: Option<String>,
    #[command(flatten)]
    s3: Box<crate::s3_args::S3Args>,
    /// Take HBase's native RPC (HBase's Java client) on this address: the registry, meta and
    /// `MasterService` (admin through etcd requests; a standby answers too), so
    /// `hbase.client.bootstrap.servers` may list masters.
    #[arg(long)]
    hbase_rpc: Option<std::net::SocketAddr>,
    #[command(flatten)]
    tls: strata_tls::args::ListenArgs,
    #[command(flatten)]
    tls_connect: strata_tls::args::ConnectArgs,
    #[command(flatten)]
    auth: crate::auth_args::AuthArgs,
}

/// The HTTP endpoint of a master: its own runtime, the endpoint, and the etcd client its
/// view reads through (dropped last, off the runtime's threads).
struct MasterHttp {
    runtime: tokio::runtime::Runtime,
    server: strata_http::HttpServer,
    feed: strata_cluster_node::heat_feed::HeatFeed,
    kv: Arc<strata_cluster::etcd::EtcdKv>,
}

impl MasterHttp {
    fn start(
        args: &MasterArgs,
        counts: Arc<KvCounts>,
        listen: SocketAddr,
        tls: Option<&strata_tls::ProcessTls>,
    ) -> Result<Self, String> {
        let kv = Arc::new(node::connect(&args.coordination.etcd)?);
        let heat = strata_cluster_node::heat::ClusterHeatmap::shared();
        let feed = strata_cluster_node::heat_feed::spawn(
            kv.clone(),
            args.coordination.layout(),
            heat.clone(),
        );
        let view = MasterView::new(
            kv.clone(),
            args.coordination.layout(),
            args.advertise.clone(),
            counts,
            heat,
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        let settings = vec![
            ("cluster".to_owned(), args.coordination.cluster.clone()),
            ("etcd".to_owned(), args.coordination.etcd.join(",")),
            ("advertised address".to_owned(), args.advertise.clone()),
        ];
        let server = runtime
            .block_on(strata_http::HttpServer::start_node(
                listen,
                Arc::new(view),
                settings,
                tls.map(|t| t.http.clone()),
            ))
            .map_err(|e| format!("--http {listen}: {e}"))?;
        println!(
            "strata master {}: HTTP endpoint on {}://{}/",
            args.advertise,
            if tls.is_some() { "https" } else { "http" },
            server.addr()
        );
        Ok(MasterHttp {
            runtime,
            server,
            feed,
            kv,
        })
    }

    fn stop(self) {
        self.runtime.block_on(self.server.shutdown());
        self.runtime.shutdown_timeout(Duration::from_secs(1));
        drop(self.feed);
        drop(self.kv);
    }
}

/// Runs `strata master`.
pub fn run_master(args: &MasterArgs) -> Result<(), String> {
    args.coordination.use_etcd_tls()?;
    args.auth.check_exposed(
        "master",
        &[("--hbase-rpc", args.hbase_rpc), ("--http", args.http)],
    )?;
    if args.root.is_none() && args.cold_root.is_some() {
        return Err("--cold-root needs --root (a coordination-only master has no data)".into());
    }
    let tls = strata_tls::args::load_process(&args.tls, &args.tls_connect)?;
    let counts = Arc::new(KvCounts::default());
    let kv = CountedKv::new(node::connect(&args.coordination.etcd)?, counts.clone());
    let http = match args.http {
        Some(listen) => Some(MasterHttp::start(args, counts, listen, tls.as_ref())?),
        None => None,
    };
    let root = match &args.root {
        Some(url) => Some(open_root(
            url,
            args.hdfs_http.as_deref(),
            args.store_timeout_secs,
        )?),
        None => None,
    };
    let hbase_rpc = match args.hbase_rpc {
        Some(listen) => {
            let listener = strata_cluster_node::hbase_master::MasterListener::start(
                &args.coordination.etcd,
                args.coordination.layout(),
                &args.advertise,
                listen,
                tls.clone(),
                root.as_ref().map(|r| (r.storage.clone(), r.path.clone())),
                (
                    args.auth.guard(
                        args.tls.tls_client_ca.is_some() && args.tls.tls_cert.is_some(),
                        strata_tls::args::presented_certificate(&args.tls, &args.tls_connect)
                            .as_deref(),
                    )?,
                    args.auth.kerberos()?.as_ref(),
                ),
            )?;
            println!(
                "strata master {}: HBase RPC on {}",
                args.advertise,
                listener.addr()
            );
            Some(listener)
        }
        None => None,
    };
    let config = MasterConfig {
        ttl_secs: args.ttl,
        ..MasterConfig::default()
    };
    let stop = stop_on_signal()?;
    // The master's side of space quotas (RFC 0029), acting while this master leads, on an
    // etcd client of its own.
    let space_chore = strata_cluster_node::space_chore::spawn(
        Arc::new(node::connect(&args.coordination.etcd)?),
        args.coordination.layout(),
        args.advertise.clone(),
        args.space_quota.period(),
        stop.clone(),
    );
    let who = args.advertise.clone();
    let report = |what: &str| println!("strata master {who}: {what}");
    match root {
        Some(root) => {
            println!("strata master {who}: WALs under {}", root.url);
            let mut places = vec![Place {
                files: root.storage.files.clone(),
                root: root.path.clone(),
            }];
            if let Some(cold) = &args.cold_root {
                // Only lists and deletes: no page cache.
                let mut s3 = (*args.s3).clone();
                s3.s3_cache_mib = 0;
                let timeout = Duration::from_secs(args.store_timeout_secs);
                let (volume, files) = s3.cold_volume(cold, timeout)?;
                println!("strata master {who}: the ARCHIVE tier is {cold}");
                places.push(Place {
                    files,
                    root: volume.path,
                });
            }
            if args.janitor_secs > 0 {
                spawn_janitor(args, &root, places, &stop)?;
            }
            let fencer = LogFencer::new(root.storage, root.path);
            let master = Master::new(
                kv,
                fencer,
                args.coordination.layout(),
                args.advertise.clone(),
                config,
            );
            node::run_master(master, &stop, report);
        }
        None => {
            let master = Master::new(
                kv,
                NoWal,
                args.coordination.layout(),
                args.advertise.clone(),
                config,
            );
            node::run_master(master, &stop, report);
        }
    }
    let _ = space_chore.join();
    if let Some(listener) = hbase_rpc {
        listener.stop();
    }
    if let Some(http) = http {
        http.stop();
    }
    Ok(())
}

/// Sweeps recovered edits nobody will replay, and region directories in `places` no record
/// names, every `--janitor-secs`, on a thread with its own etcd client, until the master stops.
fn spawn_janitor(
    args: &MasterArgs,
    root: &strata_shared_storage::Root,
    places: Vec<Place>,
    stop: &Arc<AtomicBool>,
) -> Result<(), String> {
    strata_cluster_node::janitor::spawn(
        (root.storage.clone(), root.path.clone()),
        places,
        Vec::new(),
        node::connect(&args.coordination.etcd)?,
        args.coordination.layout(),
        Duration::from_secs(args.janitor_secs),
        stop.clone(),
    )
    .map(drop)
}
