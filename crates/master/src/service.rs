//! The gRPC admin service over a [`Master`].

use std::sync::atomic::Ordering;
use std::sync::Arc;

use strata_proto::convert::table_from_pb;
use strata_proto::pb::admin_server::Admin;
use strata_proto::pb::{self, Empty};
use strata_server::RegionServer;
use tonic::{Request, Response, Status};

use crate::catalog::RegionEntry;
use crate::error::MasterError;
use crate::master::Master;

/// The admin service.
#[derive(Clone)]
pub struct AdminService {
    master: Arc<Master>,
}

impl AdminService {
    /// A service over `master`.
    pub fn new(master: Arc<Master>) -> Self {
        AdminService { master }
    }

    /// The tonic server for this service, with Strata's message-size limits.
    pub fn into_server(self) -> pb::admin_server::AdminServer<AdminService> {
        pb::admin_server::AdminServer::new(self)
            .max_decoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
            .max_encoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
    }

    /// Runs `f` on the blocking pool; an error that is a mistake of the client at `peer`
    /// (a missing table, a malformed schema) is logged, rate-limited
    /// ([`strata_proto::bad_input`]).
    async fn run<T, F>(
        &self,
        peer: Option<std::net::SocketAddr>,
        what: &str,
        f: F,
    ) -> Result<Response<T>, Status>
    where
        T: Send + 'static,
        F: FnOnce(&Master) -> Result<T, MasterError> + Send + 'static,
    {
        let master = self.master.clone();
        let outcome = tokio::task::spawn_blocking(move || f(&master).map_err(|e| e.to_status()))
            .await
            .map_err(strata_server::status::internal)?
            .map(Response::new);
        if let (Err(status), Some(peer)) = (&outcome, peer) {
            strata_proto::bad_input::warn_status(peer, "Strata admin", what, status);
        }
        outcome
    }
}

fn invalid(e: impl std::fmt::Display) -> Status {
    strata_server::status::invalid(e)
}

/// A catalog region as a wire location, with live sizes when the host serves it.
pub fn location(host: &RegionServer, r: &RegionEntry) -> pb::RegionLocation {
    let stats = host.region_stats(r.info.region_id).unwrap_or_default();
    pb::RegionLocation {
        table: r.info.table.clone(),
        region_id: r.info.region_id,
        start_row: r.info.start_row.clone(),
        end_row: r.info.end_row.clone(),
        server: r.server.clone(),
        store_bytes: stats.store_bytes,
        memtable_bytes: stats.memtable_bytes,
        store_files: stats.store_files,
    }
}

fn table_info(master: &Master, name: &str) -> Result<pb::TableInfo, MasterError> {
    let catalog = master.catalog();
    let entry = catalog.table(name)?;
    Ok(pb::TableInfo {
        schema: Some(strata_proto::convert::table_to_pb(&entry.descriptor)),
        state: if entry.enabled {
            pb::TableState::Enabled
        } else {
            pb::TableState::Disabled
        } as i32,
        regions: catalog
            .serving_regions(name)
            .into_iter()
            .map(|r| location(master.host(), r))
            .collect(),
    })
}

/// The store files of a table's serving regions, regions by start row.
fn list_files(master: &Master, name: &str) -> Result<pb::ListFilesResponse, MasterError> {
    // Unknown or disabled tables fail as every other per-table admin call does.
    master.locate(name)?;
    let files = master
        .host()
        .table_files(name)
        .into_iter()
        .flat_map(strata_server::files::to_pb)
        .collect();
    Ok(pb::ListFilesResponse { files })
}

#[tonic::async_trait]
impl Admin for AdminService {
    async fn create_table(
        &self,
        request: Request<pb::CreateTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let req = request.into_inner();
        let schema = req.schema.ok_or_else(|| invalid("request has no schema"))?;
        let table = table_from_pb(schema).map_err(invalid)?;
        let keys = req.split_keys;
        self.run(peer, "create_table", move |m| {
            m.create_table(table, &keys).map(|()| Empty {})
        })
        .await
    }

    async fn alter_table(
        &self,
        request: Request<pb::AlterTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let schema = request
            .into_inner()
            .schema
            .ok_or_else(|| invalid("request has no schema"))?;
        let table = table_from_pb(schema).map_err(invalid)?;
        self.run(peer, "alter_table", move |m| {
            m.alter_table(table).map(|()| Empty {})
        })
        .await
    }

    async fn disable_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let name = request.into_inner().table;
        self.run(peer, "disable_table", move |m| {
            m.disable_table(&name).map(|()| Empty {})
        })
        .await
    }

    async fn enable_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let name = request.into_inner().table;
        self.run(peer, "enable_table", move |m| {
            m.enable_table(&name).map(|()| Empty {})
        })
        .await
    }

    async fn truncate_table(
        &self,
        request: Request<pb::TruncateTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let req = request.into_inner();
        self.run(peer, "truncate_table", move |m| {
            m.truncate_table(&req.table, req.preserve_splits)
                .map(|()| Empty {})
        })
        .await
    }

    async fn delete_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let name = request.into_inner().table;
        self.run(peer, "delete_table", move |m| {
            m.delete_table(&name).map(|()| Empty {})
        })
        .await
    }

    async fn list_tables(
        &self,
        request: Request<Empty>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        let peer = request.remote_addr();
        self.run(peer, "list_tables", |m| {
            let names: Vec<String> = m.catalog().tables.keys().cloned().collect();
            let tables = names
                .iter()
                .map(|n| table_info(m, n))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(pb::ListTablesResponse { tables })
        })
        .await
    }

    async fn describe_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<pb::TableInfo>, Status> {
        let peer = request.remote_addr();
        let name = request.into_inner().table;
        self.run(peer, "describe_table", move |m| table_info(m, &name))
            .await
    }

    async fn flush(&self, request: Request<pb::TableRequest>) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let name = request.into_inner().table;
        self.run(peer, "flush", move |m| {
            m.flush_table(&name).map(|()| Empty {})
        })
        .await
    }

    async fn compact(
        &self,
        request: Request<pb::CompactRequest>,
    ) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let req = request.into_inner();
        self.run(peer, "compact", move |m| {
            let family = (!req.family.is_empty()).then_some(req.family.as_str());
            m.compact_table(&req.table, family, req.major)
                .map(|()| Empty {})
        })
        .await
    }

    async fn split(&self, request: Request<pb::SplitRequest>) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let req = request.into_inner();
        self.run(peer, "split", move |m| {
            m.split(&req.table, req.split_row).map(|()| Empty {})
        })
        .await
    }

    async fn merge(&self, request: Request<pb::MergeRequest>) -> Result<Response<Empty>, Status> {
        let peer = request.remote_addr();
        let req = request.into_inner();
        self.run(peer, "merge", move |m| {
            m.merge(&req.table, req.region_a, req.region_b)
                .map(|()| Empty {})
        })
        .await
    }

    async fn locate(
        &self,
        request: Request<pb::LocateRequest>,
    ) -> Result<Response<pb::LocateResponse>, Status> {
        let peer = request.remote_addr();
        let name = request.into_inner().table;
        self.run(peer, "locate", move |m| {
            // Locations only: sizes are left out to keep the client's hot path cheap.
            let regions = m
                .locate(&name)?
                .into_iter()
                .map(|r| pb::RegionLocation {
                    table: r.info.table,
                    region_id: r.info.region_id,
                    start_row: r.info.start_row,
                    end_row: r.info.end_row,
                    server: r.server,
                    ..Default::default()
                })
                .collect();
            Ok(pb::LocateResponse { regions })
        })
        .await
    }

    async fn list_files(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<pb::ListFilesResponse>, Status> {
        let peer = request.remote_addr();
        let name = request.into_inner().table;
        self.run(peer, "list_files", move |m| list_files(m, &name))
            .await
    }

    async fn status(
        &self,
        request: Request<Empty>,
    ) -> Result<Response<pb::StatusResponse>, Status> {
        let peer = request.remote_addr();
        self.run(peer, "status", |m| {
            let host = m.host();
            let catalog = m.catalog();
            let cache = host.block_cache().map(|c| c.stats()).unwrap_or_default();
            let regions = host.hosted_regions();
            let work = host.work_done();
            let rows = host.row_cache_stats();
            let server = pb::ServerStatus {
                address: host.config().advertised_address.clone(),
                regions: regions.len() as u32,
                requests: host.counters().requests.load(Ordering::Relaxed),
                memtable_bytes: host.budget().used(),
                memtable_limit: host.budget().limit(),
                block_cache_bytes: cache.used,
                block_cache_hits: cache.data_hits + cache.meta_hits,
                block_cache_misses: cache.data_misses + cache.meta_misses,
                wal_bytes: host.wal().stats().bytes,
                uptime_ms: host.uptime().as_millis() as u64,
                flushes: work.flushes,
                compactions: work.compactions,
                flushed_bytes: work.flushed_bytes,
                compacted_bytes: work.compacted_bytes,
                files_read: work.files_read,
                files_skipped_time_range: work.files_skipped_time_range,
                files_skipped_bloom: work.files_skipped_bloom,
                splits: m.splits(),
                row_cache_hits: rows.hits,
                row_cache_misses: rows.misses,
                row_cache_evictions: rows.evictions,
                row_cache_invalidations: rows.invalidations,
                row_cache_bytes: rows.bytes,
                row_cache_entries: rows.entries,
            };
            Ok(pb::StatusResponse {
                servers: vec![server],
                tables: catalog.tables.len() as u32,
                regions: catalog.regions.values().filter(|r| r.is_serving()).count() as u32,
                version: env!("CARGO_PKG_VERSION").to_string(),
            })
        })
        .await
    }
}
