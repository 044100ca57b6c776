//! A master's HBase RPC listener (`strata master --hbase-rpc ADDR`, RFC 0018): the registry
//! (cluster id, active master, meta's location: this listener), `hbase:meta` read from etcd,
//! and `MasterService` through the cluster admin path, so `hbase.client.bootstrap.servers` may
//! list masters. Active and standby masters answer alike: everything is read from etcd, and
//! admin operations are etcd requests the active master takes. A master holds no regions: data
//! calls get `NotServingRegionException` (clients find regions' servers in meta).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use strata_cluster::etcd::EtcdKv;
use strata_cluster::layout::Layout;
use strata_hbase_rpc::{HBaseRpcConfig, HBaseRpcServer};

use crate::admin::ClusterAdmin;
use crate::hbase::{self, EtcdDirectory};
use crate::hbase_ops::ClusterOps;

/// A running master listener: its runtime, the listener, and the etcd client (dropped last,
/// off the runtime's threads: etcd clients own a runtime).
pub struct MasterListener {
    runtime: tokio::runtime::Runtime,
    server: HBaseRpcServer,
    kv: Arc<EtcdKv>,
    layout: Layout,
    advertise: String,
    /// The grants' watcher of an access guard that is on: its stop flag and thread.
    acl: Option<(
        Arc<std::sync::atomic::AtomicBool>,
        std::thread::JoinHandle<()>,
    )>,
}

impl MasterListener {
    /// Listens on `listen` for the master advertised as `advertise` in the cluster under
    /// `layout`, over TLS if `tls` is given, and publishes the listener; snapshots are read
    /// and written under `data`'s root (without one, snapshot calls are refused).
    ///
    /// # Errors
    /// etcd cannot be reached or the address cannot be bound.
    pub fn start(
        etcd: &[String],
        layout: Layout,
        advertise: &str,
        listen: SocketAddr,
        tls: Option<strata_tls::ProcessTls>,
        data: Option<(strata_storage::vfs::Storage, std::path::PathBuf)>,
        (guard, kerberos): (
            Arc<strata_access::Guard>,
            Option<&strata_hbase_rpc::KerberosConfig>,
        ),
    ) -> Result<Self, String> {
        let kv = Arc::new(
            EtcdKv::connect(etcd, Duration::from_secs(5))
                .map_err(|e| format!("etcd {etcd:?}: {e}"))?,
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        let start_code = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let bound = std::net::TcpListener::bind(listen)
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("--hbase-rpc {listen}: {e}"))?;
        // Clients are told the advertised host (the bound one may be a wildcard).
        let host = crate::serve::host_of(advertise).to_owned();
        let me = strata_hbase_rpc::meta::ServerIdentity {
            host: host.clone(),
            port: bound.port(),
            start_code,
        };
        let directory = Arc::new(EtcdDirectory::new(
            kv.clone(),
            layout.clone(),
            None,
            me.clone(),
        ));
        let ops = ClusterOps::new(
            match data {
                Some((storage, root)) => ClusterAdmin::without_server(kv.clone(), layout.clone())
                    .with_data(storage, root),
                None => ClusterAdmin::without_server(kv.clone(), layout.clone()),
            }
            .with_tls(tls.clone())
            .with_guard(guard.clone()),
            directory.clone(),
            kv.clone(),
            layout.clone(),
            runtime.handle().clone(),
        );
        let kerberos = kerberos
            .map(|k| k.acceptor(&host))
            .transpose()
            .map_err(|e| format!("--hbase-rpc {listen}: {e}"))?;
        let config = HBaseRpcConfig {
            listen: bound,
            advertised_host: Some(host),
            tls: tls.map(|t| t.raw),
            guard: guard.clone(),
            kerberos,
            ..HBaseRpcConfig::default()
        };
        let server = runtime
            .block_on(HBaseRpcServer::start_cluster(
                config,
                None,
                directory,
                Arc::new(ops),
                hbase::cluster_id(&layout),
                start_code,
            ))
            .map_err(|e| format!("--hbase-rpc {listen}: {e}"))?;
        hbase::publish_master(kv.as_ref(), &layout, advertise, &me)?;
        let acl = guard.is_on().then(|| {
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let watch = crate::acl::watch(kv.clone(), layout.clone(), guard, stop.clone());
            (stop, watch)
        });
        Ok(MasterListener {
            acl,
            runtime,
            server,
            kv,
            layout,
            advertise: advertise.to_owned(),
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Withdraws the listener and stops it.
    pub fn stop(mut self) {
        if let Some((stop, watch)) = self.acl.take() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let _ = watch.join();
        }
        let _ = hbase::withdraw_master(self.kv.as_ref(), &self.layout, &self.advertise);
        self.runtime.block_on(self.server.shutdown());
        self.runtime.shutdown_timeout(Duration::from_secs(1));
        drop(self.kv);
    }
}
