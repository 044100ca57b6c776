//! The admin service a region server answers in cluster mode, so clients need neither the
//! master nor etcd: `Locate`, `ListTables` and `DescribeTable` read the records in etcd;
//! `CreateTable`, `DeleteTable`, `DisableTable`, `EnableTable`, `TruncateTable` and
//! `AlterTable` (schema written to etcd, then every region reopened) go through the master's
//! request path in etcd (`request/<id>` → `result/<id>`), then wait until the procedure is done
//! and the table's regions are open (or its records gone). `Flush` and `Compact` are sent to
//! every server hosting a region of the table, marked [`LOCAL`] so each acts on its own
//! regions only. `Split` submits one split request per region (through the master, which has
//! the region's server split it) and waits for the daughters to open; `Merge` submits one
//! merge request (the master co-locates the two regions and has their server merge them) and
//! waits for the merged region to open.

use std::sync::Arc;
use std::time::Duration;

use strata_access::Guard;
use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::master::AdminRequest;
use strata_cluster::record::{RegionRecord, RegionState, TableState};
use strata_proto::convert::table_from_pb;
use strata_proto::pb::admin_server::Admin;
use strata_proto::pb::{self, Empty, ErrorCode};
use strata_server::RegionServer;
use tonic::{Request, Response, Status};

pub(crate) use crate::admin_path::{
    create_now, run_procedure, submit_and_wait, table_info, wait_proc, wait_served, wait_until,
};
pub use crate::admin_path::{locate, locate_enabled, table_record};
use crate::names::server_address;
use crate::placement::Placement;
use crate::route::{admin_client, local_request, on_local_regions, servers_of, LOCAL};
use crate::schema::{get_schema, replace_schema};

/// How long a create or delete waits for the master.
pub(crate) const ADMIN_WAIT: Duration = Duration::from_secs(60);

/// The cluster admin service over etcd.
pub struct ClusterAdmin<K> {
    pub(crate) kv: Arc<K>,
    pub(crate) layout: Layout,
    pub(crate) server: Option<Arc<RegionServer>>,
    /// The process's TLS, whose client side forwards flushes and compactions.
    tls: Option<strata_tls::ProcessTls>,
    /// The shared root (its store and path): snapshots' manifests and regions' manifests.
    pub(crate) data: Option<(strata_storage::vfs::Storage, std::path::PathBuf)>,
    /// Who may do what (RFC 0026); off unless the process runs with `--auth`.
    guard: Arc<Guard>,
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// A service reading and writing the cluster under `layout` through `kv`; `server` gives
    /// the sizes of the regions open here.
    pub fn new(kv: Arc<K>, layout: Layout, server: Arc<RegionServer>) -> Self {
        let data = Some((
            server.config().storage.clone(),
            server.config().data_dir.clone(),
        ));
        ClusterAdmin {
            kv,
            layout,
            server: Some(server),
            tls: None,
            data,
            guard: Guard::off(),
        }
    }

    /// The same service, checking calls with `guard` (the process's, shared with its data
    /// service).
    #[must_use]
    pub fn with_guard(mut self, guard: Arc<Guard>) -> Self {
        self.guard = guard;
        self
    }

    /// The access guard.
    pub fn guard(&self) -> &Arc<Guard> {
        &self.guard
    }

    /// The same service, forwarding to other region servers over TLS when `tls` is given.
    #[must_use]
    pub fn with_tls(mut self, tls: Option<strata_tls::ProcessTls>) -> Self {
        self.tls = tls;
        self
    }

    /// An admin client of the region server at `addr`, over TLS if the process has it.
    pub(crate) async fn peer(
        &self,
        addr: &str,
    ) -> Result<pb::admin_client::AdminClient<tonic::transport::Channel>, Status> {
        let tls = match &self.tls {
            None => None,
            Some(tls) => Some(
                tls.client_or_explain("forwarding to another region server")
                    .map_err(|e| strata_proto::status(ErrorCode::Unavailable, e))?,
            ),
        };
        admin_client(addr, tls).await
    }

    /// The same service in a process without regions (a master's HBase RPC listener): no
    /// sizes, and flush or compaction forwarded to the servers, never run here.
    pub fn without_server(kv: Arc<K>, layout: Layout) -> Self {
        ClusterAdmin {
            kv,
            layout,
            server: None,
            tls: None,
            data: None,
            guard: Guard::off(),
        }
    }

    /// The same service reading and writing snapshots under `root` of `storage` (a master's
    /// HBase RPC listener, which has no region server to take them from).
    #[must_use]
    pub fn with_data(
        mut self,
        storage: strata_storage::vfs::Storage,
        root: std::path::PathBuf,
    ) -> Self {
        self.data = Some((storage, root));
        self
    }

    /// The tonic server for this service, with Strata's message-size limits.
    pub fn into_server(self) -> pb::admin_server::AdminServer<crate::admin_logged::LoggedAdmin<K>> {
        pb::admin_server::AdminServer::new(crate::admin_logged::LoggedAdmin(self))
            .max_decoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
            .max_encoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
    }

    pub(crate) async fn run<T, F>(&self, f: F) -> Result<Response<T>, Status>
    where
        T: Send + 'static,
        F: FnOnce(&K, &Layout, Option<&RegionServer>) -> Result<T, Status> + Send + 'static,
    {
        let (kv, layout, server) = (self.kv.clone(), self.layout.clone(), self.server.clone());
        tokio::task::spawn_blocking(move || f(&kv, &layout, server.as_deref()))
            .await
            .map_err(strata_server::status::internal)?
            .map(Response::new)
    }
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// The regions of enabled `table`, each on a server (`UNAVAILABLE` while one is in
    /// transition); `family`, if given, must be one of the table's (`NO_SUCH_FAMILY`).
    pub(crate) async fn hosted_regions(
        &self,
        table: &str,
        family: Option<String>,
    ) -> Result<Vec<pb::RegionLocation>, Status> {
        let table = table.to_string();
        self.run(move |kv, layout, _| {
            let regions = locate_enabled(kv, layout, None, &table)?;
            if let Some(f) = family {
                let schema = get_schema(kv, layout, &table).map_err(unavailable)?;
                if schema.family(f.as_bytes()).is_none() {
                    return Err(strata_proto::status(
                        ErrorCode::NoSuchFamily,
                        format!("table {table} has no family {f}"),
                    ));
                }
            }
            let moving = regions.iter().filter(|r| r.server.is_empty()).count();
            if moving > 0 {
                return Err(strata_proto::status(
                    ErrorCode::Unavailable,
                    format!("{moving} regions of {table} are in transition; retry"),
                ));
            }
            Ok(regions)
        })
        .await
        .map(Response::into_inner)
    }
}

pub(crate) fn unavailable(e: impl std::fmt::Display) -> Status {
    strata_proto::status(ErrorCode::Unavailable, format!("etcd: {e}"))
}

fn no_regions_here() -> Status {
    strata_proto::status(ErrorCode::NotServingRegion, "this process holds no regions")
}

pub(crate) fn table_name(name: &str) -> Result<String, Status> {
    strata_model::schema::TableName::parse(name)
        .map(|n| n.to_string())
        .map_err(strata_server::status::invalid)
}

#[tonic::async_trait]
impl<K: Kv + Send + Sync + 'static> Admin for ClusterAdmin<K> {
    async fn create_table(
        &self,
        request: Request<pb::CreateTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let caller = strata_server::caller::caller(&request);
        let req = request.into_inner();
        let schema = req
            .schema
            .ok_or_else(|| strata_server::status::invalid("no schema"))?;
        let table = table_from_pb(schema).map_err(strata_server::status::invalid)?;
        let name = table.name.to_string();
        let created = self
            .run(move |kv, layout, server| {
                let splits = req.split_keys.iter().map(|k| k.to_vec()).collect();
                create_now(kv, layout, server, &table, splits).map(|()| Empty {})
            })
            .await?;
        self.grant_owner(&caller, &name).await?;
        Ok(created)
    }

    async fn alter_table(
        &self,
        request: Request<pb::AlterTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let request = request.into_inner();
        let no_wait = request.no_wait;
        let schema = request
            .schema
            .ok_or_else(|| strata_server::status::invalid("no schema"))?;
        let table = table_from_pb(schema).map_err(strata_server::status::invalid)?;
        table.validate().map_err(strata_server::status::invalid)?;
        self.run(move |kv, layout, server| {
            crate::policy_check::check_policies(server, &table)?;
            let name = table.name.to_string();
            let (rec, created) = table_record(kv, layout, &name)?;
            if !matches!(rec.state, TableState::Enabled | TableState::Disabled) {
                return Err(strata_proto::status(
                    ErrorCode::Unavailable,
                    format!("table {name} is busy ({:?}); retry", rec.state),
                ));
            }
            replace_schema(kv, layout, &table, created)?;
            if rec.state == TableState::Enabled {
                let reopen = AdminRequest::ReopenTable {
                    table: name.clone(),
                };
                if no_wait {
                    submit_and_wait(kv, layout, &reopen)?;
                } else {
                    run_procedure(kv, layout, &reopen, &format!("reopen {name}"))?;
                    wait_served(kv, layout, &name)?;
                }
            }
            Ok(Empty {})
        })
        .await
    }

    async fn disable_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let name = table_name(&request.into_inner().table)?;
        self.run(move |kv, layout, _| {
            crate::snapshot::making::wait_until_made(kv, layout, &name)?;
            run_procedure(
                kv,
                layout,
                &AdminRequest::DisableTable {
                    table: name.clone(),
                },
                &format!("disable {name}"),
            )?;
            Ok(Empty {})
        })
        .await
    }

    async fn enable_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let name = table_name(&request.into_inner().table)?;
        self.run(move |kv, layout, _| {
            crate::snapshot::making::wait_until_made(kv, layout, &name)?;
            run_procedure(
                kv,
                layout,
                &AdminRequest::EnableTable {
                    table: name.clone(),
                },
                &format!("enable {name}"),
            )?;
            wait_served(kv, layout, &name)?;
            Ok(Empty {})
        })
        .await
    }

    async fn truncate_table(
        &self,
        request: Request<pb::TruncateTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let req = request.into_inner();
        let name = table_name(&req.table)?;
        self.run(move |kv, layout, _| {
            crate::snapshot::making::wait_until_made(kv, layout, &name)?;
            run_procedure(
                kv,
                layout,
                &AdminRequest::TruncateTable {
                    table: name.clone(),
                    preserve: req.preserve_splits,
                },
                &format!("truncate {name}"),
            )?;
            wait_served(kv, layout, &name)?;
            Ok(Empty {})
        })
        .await
    }

    async fn delete_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let name = table_name(&request.into_inner().table)?;
        self.run(move |kv, layout, _| {
            crate::snapshot::making::wait_until_made(kv, layout, &name)?;
            // As in standalone mode (and HBase): only a disabled table is deleted.
            let (rec, _) = table_record(kv, layout, &name)?;
            if rec.state == TableState::Enabled {
                return Err(strata_proto::status(
                    ErrorCode::TableEnabled,
                    format!("table {name} is enabled; disable it first"),
                ));
            }
            let id = submit_and_wait(
                kv,
                layout,
                &AdminRequest::DropTable {
                    table: name.clone(),
                },
            )?;
            // The master's drop closes the regions, deletes the table's files, then its
            // records and schema, so a table created later under this name starts empty.
            wait_proc(kv, layout, &format!("drop {name}"), &id)?;
            // Its grants go with it (HBase's AccessController.postDeleteTable).
            crate::acl::drop_table(kv, layout, &name).map_err(unavailable)?;
            // And its throttles (HBase's hbase.quota.remove.on.table.delete).
            let subject = strata_access::quota::Subject::table(&name);
            crate::quota::drop_subject(kv, layout, &subject).map_err(unavailable)?;
            Ok(Empty {})
        })
        .await
    }

    async fn list_tables(
        &self,
        request: Request<Empty>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        let caller = strata_server::caller::caller(&request);
        let guard = self.guard.clone();
        self.run(move |kv, layout, server| {
            let page = range_all(kv, &layout.tables(), 1000).map_err(unavailable)?;
            let mut tables = Vec::new();
            for item in page.kvs {
                if let Some(name) = item.key.strip_prefix(&layout.tables()) {
                    // Only the tables the caller holds a permission on (HBase's
                    // postGetTableNames).
                    if !guard.lists(&caller, name) {
                        continue;
                    }
                    if let Ok(info) = table_info(kv, layout, server, name) {
                        tables.push(info);
                    }
                }
            }
            Ok(pb::ListTablesResponse { tables })
        })
        .await
    }

    async fn describe_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<pb::TableInfo>, Status> {
        let name = table_name(&request.into_inner().table)?;
        self.run(move |kv, layout, server| table_info(kv, layout, server, &name))
            .await
    }

    async fn flush(&self, request: Request<pb::TableRequest>) -> Result<Response<Empty>, Status> {
        let local = request.metadata().contains_key(LOCAL);
        let req = request.into_inner();
        let name = table_name(&req.table)?;
        let regions = self.hosted_regions(&name, None).await?;
        if local {
            return self
                .run(move |_, _, server| {
                    let server = server.ok_or_else(no_regions_here)?;
                    on_local_regions(server, &regions, |id| server.flush_region(id))
                        .map(|()| Empty {})
                })
                .await;
        }
        for addr in servers_of(&regions) {
            let mut client = self.peer(&addr).await?;
            client.flush(local_request(req.clone())).await?;
        }
        Ok(Response::new(Empty {}))
    }

    async fn compact(
        &self,
        request: Request<pb::CompactRequest>,
    ) -> Result<Response<Empty>, Status> {
        let local = request.metadata().contains_key(LOCAL);
        let req = request.into_inner();
        let name = table_name(&req.table)?;
        let family = (!req.family.is_empty()).then(|| req.family.clone());
        let regions = self.hosted_regions(&name, family.clone()).await?;
        if local {
            let major = req.major;
            return self
                .run(move |_, _, server| {
                    let server = server.ok_or_else(no_regions_here)?;
                    on_local_regions(server, &regions, |id| {
                        server.compact_region(id, family.as_deref(), major)
                    })
                    .map(|()| Empty {})
                })
                .await;
        }
        for addr in servers_of(&regions) {
            let mut client = self.peer(&addr).await?;
            client.compact(local_request(req.clone())).await?;
        }
        Ok(Response::new(Empty {}))
    }

    async fn split(&self, request: Request<pb::SplitRequest>) -> Result<Response<Empty>, Status> {
        let req = request.into_inner();
        let row = req.split_row.map(|r| r.to_vec());
        if row.as_ref().is_some_and(Vec::is_empty) {
            return Err(strata_server::status::invalid(
                "the split row must not be empty",
            ));
        }
        let target = req.table;
        self.run(move |kv, layout, _| {
            crate::split::split(kv, layout, &target, row).map(|_| Empty {})
        })
        .await
    }

    async fn merge(&self, request: Request<pb::MergeRequest>) -> Result<Response<Empty>, Status> {
        let req = request.into_inner();
        let table = table_name(&req.table)?;
        self.run(move |kv, layout, _| {
            let a = crate::merge::region_named(kv, layout, &table, req.region_a)?;
            let b = crate::merge::region_named(kv, layout, &table, req.region_b)?;
            crate::merge::merge(kv, layout, &a, &b).map(|_| Empty {})
        })
        .await
    }

    async fn locate(
        &self,
        request: Request<pb::LocateRequest>,
    ) -> Result<Response<pb::LocateResponse>, Status> {
        let local = request.metadata().contains_key(LOCAL);
        let req = request.into_inner();
        let name = table_name(&req.table)?;
        let found = self
            .run(move |kv, layout, server| {
                Ok(pb::LocateResponse {
                    regions: locate_enabled(kv, layout, server, &name)?,
                })
            })
            .await?;
        if !req.with_load || local {
            return Ok(found);
        }
        // Sizes, requests and running compactions are known to the server holding each
        // region: ask each.
        let mut regions = found.into_inner().regions;
        for addr in servers_of(&regions) {
            if addr.is_empty() {
                continue;
            }
            let mut client = self.peer(&addr).await?;
            let theirs = client
                .locate(local_request(req.clone()))
                .await?
                .into_inner();
            for r in regions.iter_mut().filter(|r| r.server == addr) {
                if let Some(t) = theirs.regions.iter().find(|t| t.region_id == r.region_id) {
                    r.store_bytes = t.store_bytes;
                    r.memtable_bytes = t.memtable_bytes;
                    r.store_files = t.store_files;
                    r.requests = t.requests;
                    r.minor_compactions = t.minor_compactions;
                    r.major_compactions = t.major_compactions;
                }
            }
        }
        Ok(Response::new(pb::LocateResponse { regions }))
    }

    async fn list_files(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<pb::ListFilesResponse>, Status> {
        let local = request.metadata().contains_key(LOCAL);
        let req = request.into_inner();
        let name = table_name(&req.table)?;
        let regions = self.hosted_regions(&name, None).await?;
        if local {
            return self
                .run(move |_, _, server| {
                    let server = server.ok_or_else(no_regions_here)?;
                    let wanted: std::collections::BTreeSet<u64> =
                        regions.iter().map(|r| r.region_id).collect();
                    let files = server
                        .table_files(&name)
                        .into_iter()
                        .filter(|r| wanted.contains(&r.info.region_id))
                        .flat_map(strata_server::files::to_pb)
                        .collect();
                    Ok(pb::ListFilesResponse { files })
                })
                .await;
        }
        // Each server lists its regions' files; together they are the table's, by start row.
        let mut files = Vec::new();
        for addr in servers_of(&regions) {
            let mut client = self.peer(&addr).await?;
            files.extend(
                client
                    .list_files(local_request(req.clone()))
                    .await?
                    .into_inner()
                    .files,
            );
        }
        files.sort_by(|a, b| a.region_start.cmp(&b.region_start));
        Ok(Response::new(pb::ListFilesResponse { files }))
    }

    async fn create_namespace(
        &self,
        request: Request<pb::NamespaceDescriptor>,
    ) -> Result<Response<Empty>, Status> {
        let d = request.into_inner();
        self.run(move |kv, layout, _| crate::namespace::create(kv, layout, &d).map(|()| Empty {}))
            .await
    }

    async fn modify_namespace(
        &self,
        request: Request<pb::NamespaceDescriptor>,
    ) -> Result<Response<Empty>, Status> {
        let d = request.into_inner();
        self.run(move |kv, layout, _| crate::namespace::modify(kv, layout, &d).map(|()| Empty {}))
            .await
    }

    async fn delete_namespace(
        &self,
        request: Request<pb::NamespaceRequest>,
    ) -> Result<Response<Empty>, Status> {
        let name = request.into_inner().name;
        self.run(move |kv, layout, _| {
            crate::namespace::delete(kv, layout, &name)?;
            // Its grants go with it (HBase's AccessController.postDeleteNamespace).
            crate::acl::drop_namespace(kv, layout, &name).map_err(unavailable)?;
            let subject = strata_access::quota::Subject::Namespace(name.clone());
            crate::quota::drop_subject(kv, layout, &subject).map_err(unavailable)?;
            Ok(Empty {})
        })
        .await
    }

    async fn get_namespace(
        &self,
        request: Request<pb::NamespaceRequest>,
    ) -> Result<Response<pb::NamespaceDescriptor>, Status> {
        let name = request.into_inner().name;
        self.run(move |kv, layout, _| {
            crate::namespace::require(kv, layout, &name).map(|f| f.descriptor)
        })
        .await
    }

    async fn list_namespaces(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<pb::ListNamespacesResponse>, Status> {
        self.run(|kv, layout, _| {
            Ok(pb::ListNamespacesResponse {
                namespaces: crate::namespace::list(kv, layout)?,
            })
        })
        .await
    }

    async fn snapshot(
        &self,
        request: Request<pb::SnapshotRequest>,
    ) -> Result<Response<pb::SnapshotDescription>, Status> {
        self.take_snapshot(request.into_inner())
            .await
            .map(Response::new)
    }

    async fn list_snapshots(
        &self,
        request: Request<pb::ListSnapshotsRequest>,
    ) -> Result<Response<pb::ListSnapshotsResponse>, Status> {
        self.snapshots(request.into_inner())
            .await
            .map(Response::new)
    }

    async fn delete_snapshot(
        &self,
        request: Request<pb::SnapshotNameRequest>,
    ) -> Result<Response<Empty>, Status> {
        self.remove_snapshot(request.into_inner().name)
            .await
            .map(|()| Response::new(Empty {}))
    }

    async fn clone_snapshot(
        &self,
        request: Request<pb::CloneSnapshotRequest>,
    ) -> Result<Response<Empty>, Status> {
        let req = request.into_inner();
        self.clone_snapshot_into(req.name, req.table, false)
            .await
            .map(|()| Response::new(Empty {}))
    }

    async fn import_snapshot(
        &self,
        request: Request<pb::SnapshotNameRequest>,
    ) -> Result<Response<pb::SnapshotDescription>, Status> {
        self.import_exported(request.into_inner().name)
            .await
            .map(Response::new)
    }

    async fn restore_snapshot(
        &self,
        request: Request<pb::SnapshotNameRequest>,
    ) -> Result<Response<Empty>, Status> {
        self.restore_snapshot_now(request.into_inner().name)
            .await
            .map(|()| Response::new(Empty {}))
    }

    async fn status(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<pb::StatusResponse>, Status> {
        self.run(|kv, layout, host| {
            let servers = range_all(kv, &layout.servers(), 1000).map_err(unavailable)?;
            let tables = range_all(kv, &layout.tables(), 1000).map_err(unavailable)?;
            let regions = range_all(kv, &layout.regions(), 1000).map_err(unavailable)?;
            let mut per_server = std::collections::BTreeMap::<String, u32>::new();
            for s in &servers.kvs {
                if let Some(name) = s.key.strip_prefix(&layout.servers()) {
                    per_server.insert(name.to_string(), 0);
                }
            }
            let mut split_parents = 0u32;
            for r in &regions.kvs {
                if let Ok(rec) = RegionRecord::decode(&r.value) {
                    if matches!(rec.state, RegionState::Split | RegionState::Merged) {
                        split_parents += 1;
                    }
                    if let (Some(s), RegionState::Open) = (&rec.server, rec.state) {
                        *per_server.entry(s.clone()).or_default() += 1;
                    }
                }
            }
            Ok(pb::StatusResponse {
                servers: per_server
                    .into_iter()
                    .map(|(name, regions)| {
                        let address = server_address(&name).to_string();
                        // This server's own figures are read live; other servers' are not
                        // fetched (each answers `status` for itself).
                        match host {
                            Some(h) if h.config().advertised_address == address => {
                                crate::status::live(h, regions)
                            }
                            _ => pb::ServerStatus {
                                address,
                                regions,
                                ..Default::default()
                            },
                        }
                    })
                    .collect(),
                tables: u32::try_from(tables.kvs.len()).unwrap_or(u32::MAX),
                regions: u32::try_from(regions.kvs.len())
                    .unwrap_or(u32::MAX)
                    .saturating_sub(split_parents),
                version: env!("CARGO_PKG_VERSION").to_string(),
            })
        })
        .await
    }

    async fn update_configuration(
        &self,
        request: Request<pb::UpdateConfigurationRequest>,
    ) -> Result<Response<pb::UpdateConfigurationResponse>, Status> {
        let local = request.metadata().contains_key(LOCAL);
        self.update_configuration_now(&request.into_inner().server, local)
            .await
            .map(Response::new)
    }

    async fn clear_block_cache(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<pb::CacheEvictionStats>, Status> {
        let local = request.metadata().contains_key(LOCAL);
        self.clear_block_cache_now(&request.into_inner().table, local)
            .await
            .map(Response::new)
    }

    async fn list_procedures(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<pb::ListProceduresResponse>, Status> {
        self.run(|kv, layout, _| {
            crate::procedures::list(kv, layout)
                .map(|procedures| pb::ListProceduresResponse { procedures })
                .map_err(unavailable)
        })
        .await
    }

    async fn alter_status(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<pb::AlterStatusResponse>, Status> {
        let name = table_name(&request.into_inner().table)?;
        self.run(move |kv, layout, _| crate::procedures::alter_status(kv, layout, &name))
            .await
    }

    async fn grant(&self, request: Request<pb::GrantRequest>) -> Result<Response<Empty>, Status> {
        self.change_grant(request, true).await
    }

    async fn revoke(&self, request: Request<pb::GrantRequest>) -> Result<Response<Empty>, Status> {
        self.change_grant(request, false).await
    }

    async fn get_user_permissions(
        &self,
        request: Request<pb::UserPermissionsRequest>,
    ) -> Result<Response<pb::UserPermissionsResponse>, Status> {
        self.user_permissions(request).await
    }

    async fn who_am_i(
        &self,
        request: Request<Empty>,
    ) -> Result<Response<pb::WhoAmIResponse>, Status> {
        let caller = strata_server::caller::caller(&request);
        Ok(Response::new(self.who_am_i_of(&caller)))
    }

    async fn set_quota(
        &self,
        request: Request<pb::SetQuotaRequest>,
    ) -> Result<Response<Empty>, Status> {
        match request.get_ref().quota_type.to_ascii_uppercase().as_str() {
            "" | "THROTTLE" => self.set_throttle(request).await,
            "SPACE" => self.set_space_quota(request).await,
            other => Err(strata_server::status::invalid(format!(
                "TYPE => {other}: expected THROTTLE or SPACE"
            ))),
        }
    }

    async fn list_quotas(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<pb::ListQuotasResponse>, Status> {
        self.list_throttles().await
    }

    async fn set_switch(
        &self,
        request: Request<pb::SwitchRequest>,
    ) -> Result<Response<pb::SwitchResponse>, Status> {
        let req = request.into_inner();
        let switch = crate::switches::parse(&req.name)?;
        let (answer, revision) = self
            .run(move |kv, layout, _| crate::switches::set(kv, layout, switch, req.on))
            .await?
            .into_inner();
        if let Some(revision) = revision {
            self.await_quotas(revision).await;
        }
        Ok(Response::new(answer))
    }

    async fn get_switch(
        &self,
        request: Request<pb::SwitchRequest>,
    ) -> Result<Response<pb::SwitchResponse>, Status> {
        let switch = crate::switches::parse(&request.get_ref().name)?;
        self.run(move |kv, layout, _| crate::switches::get(kv, layout, switch))
            .await
    }

    async fn move_region(
        &self,
        request: Request<pb::RegionPlacementRequest>,
    ) -> Result<Response<pb::RegionPlacement>, Status> {
        self.place(Placement::Move, request.into_inner()).await
    }

    async fn assign_region(
        &self,
        request: Request<pb::RegionPlacementRequest>,
    ) -> Result<Response<pb::RegionPlacement>, Status> {
        self.place(Placement::Assign, request.into_inner()).await
    }

    async fn unassign_region(
        &self,
        request: Request<pb::RegionPlacementRequest>,
    ) -> Result<Response<pb::RegionPlacement>, Status> {
        self.place(Placement::Unassign, request.into_inner()).await
    }

    async fn balance(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<pb::BalanceResponse>, Status> {
        self.run(|kv, layout, _| crate::placement::balance(kv, layout))
            .await
    }

    async fn decommission(
        &self,
        request: Request<pb::ServersRequest>,
    ) -> Result<Response<pb::ServersResponse>, Status> {
        let servers = request.into_inner().servers;
        self.run(move |kv, layout, _| crate::placement::decommission(kv, layout, &servers))
            .await
    }

    async fn recommission(
        &self,
        request: Request<pb::ServersRequest>,
    ) -> Result<Response<pb::ServersResponse>, Status> {
        let servers = request.into_inner().servers;
        self.run(move |kv, layout, _| crate::placement::recommission(kv, layout, &servers))
            .await
    }

    async fn list_decommissioned(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<pb::ServersResponse>, Status> {
        self.run(|kv, layout, _| crate::placement::decommissioned(kv, layout))
            .await
    }
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// Moves, assigns or unassigns a region and waits until it settled.
    async fn place(
        &self,
        how: Placement,
        req: pb::RegionPlacementRequest,
    ) -> Result<Response<pb::RegionPlacement>, Status> {
        self.run(move |kv, layout, _| crate::placement::place(kv, layout, how, &req))
            .await
    }
}
