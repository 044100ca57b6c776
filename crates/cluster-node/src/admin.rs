//! The admin service a region server answers in cluster mode, so clients need neither the
//! master nor etcd: `Locate`, `ListTables` and `DescribeTable` read the records in etcd;
//! `CreateTable` and `DeleteTable` record the schema and go through the master's request
//! path in etcd (`request/<id>` → `result/<id>`), then wait until the table's regions are
//! open (or its records gone). Region operations that need the master's catalog (flush,
//! compact, split, merge, alter, disable) are not available in cluster mode yet.

use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::master::{submit_request, take_result, AdminRequest};
use strata_cluster::record::{RegionRecord, RegionState};
use strata_proto::convert::{table_from_pb, table_to_pb};
use strata_proto::pb::admin_server::Admin;
use strata_proto::pb::{self, Empty, ErrorCode};
use strata_server::RegionServer;
use tonic::{Request, Response, Status};

use crate::names::{region_id, server_address};
use crate::schema::{get_schema, put_schema};

/// How long a create or delete waits for the master.
const ADMIN_WAIT: Duration = Duration::from_secs(60);

/// The cluster admin service over etcd.
pub struct ClusterAdmin<K> {
    kv: Arc<K>,
    layout: Layout,
    server: Arc<RegionServer>,
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// A service reading and writing the cluster under `layout` through `kv`; `server` gives
    /// the sizes of the regions open here.
    pub fn new(kv: Arc<K>, layout: Layout, server: Arc<RegionServer>) -> Self {
        ClusterAdmin { kv, layout, server }
    }

    /// The tonic server for this service, with Strata's message-size limits.
    pub fn into_server(self) -> pb::admin_server::AdminServer<ClusterAdmin<K>> {
        pb::admin_server::AdminServer::new(self)
            .max_decoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
            .max_encoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
    }

    async fn run<T, F>(&self, f: F) -> Result<Response<T>, Status>
    where
        T: Send + 'static,
        F: FnOnce(&K, &Layout, &RegionServer) -> Result<T, Status> + Send + 'static,
    {
        let (kv, layout, server) = (self.kv.clone(), self.layout.clone(), self.server.clone());
        tokio::task::spawn_blocking(move || f(&kv, &layout, &server))
            .await
            .map_err(strata_server::status::internal)?
            .map(Response::new)
    }
}

fn unavailable(e: impl std::fmt::Display) -> Status {
    strata_proto::status(ErrorCode::Unavailable, format!("etcd: {e}"))
}

fn unsupported(what: &str) -> Status {
    Status::unimplemented(format!("{what} is not available in cluster mode yet"))
}

fn table_name(name: &str) -> Result<String, Status> {
    strata_model::schema::TableName::parse(name)
        .map(|n| n.to_string())
        .map_err(strata_server::status::invalid)
}

/// Every region of `table` as wire locations, by start row; `TABLE_NOT_FOUND` if the table
/// has no record.
///
/// # Errors
/// The table does not exist, or etcd failed.
pub fn locate<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    server: Option<&RegionServer>,
    table: &str,
) -> Result<Vec<pb::RegionLocation>, Status> {
    if kv.get(&layout.table(table)).map_err(unavailable)?.is_none() {
        return Err(strata_proto::status(
            ErrorCode::TableNotFound,
            format!("table {table} not found"),
        ));
    }
    let page = range_all(kv, &layout.table_regions(table), 1000).map_err(unavailable)?;
    let mut out = Vec::new();
    for item in page.kvs {
        let Some(name) = item.key.strip_prefix(&layout.regions()) else {
            continue;
        };
        let (Some((_, id)), Ok(rec)) = (region_id(name), RegionRecord::decode(&item.value)) else {
            continue;
        };
        let serving = rec.state == RegionState::Open;
        let stats = server
            .and_then(|s| s.region_stats(id).ok())
            .unwrap_or_default();
        out.push(pb::RegionLocation {
            table: table.to_string(),
            region_id: id,
            start_row: rec.start.into(),
            end_row: rec.end.into(),
            server: match (&rec.server, serving) {
                (Some(s), true) => server_address(s).to_string(),
                _ => String::new(),
            },
            store_bytes: stats.store_bytes,
            memtable_bytes: stats.memtable_bytes,
            store_files: stats.store_files,
        });
    }
    out.sort_by(|a, b| a.start_row.cmp(&b.start_row));
    Ok(out)
}

/// Submits `req` to the master through etcd and waits for its answer.
fn submit_and_wait<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    req: &AdminRequest,
) -> Result<(), Status> {
    let id = format!(
        "{}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
        std::process::id()
    );
    submit_request(kv, layout, &id, req).map_err(unavailable)?;
    let start = Instant::now();
    loop {
        if let Some(result) = take_result(kv, layout, &id).map_err(unavailable)? {
            return if result.starts_with("accepted") {
                Ok(())
            } else if result.contains("exists") {
                Err(strata_proto::status(ErrorCode::TableExists, result))
            } else if result.contains("no table") || result.contains("unknown table") {
                Err(strata_proto::status(ErrorCode::TableNotFound, result))
            } else {
                Err(strata_server::status::invalid(result))
            };
        }
        if start.elapsed() > ADMIN_WAIT {
            return Err(strata_proto::status(
                ErrorCode::Unavailable,
                format!("no active master took request {id} (it stays queued)"),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until `done` holds, polling etcd.
fn wait_until<K: Kv + ?Sized>(
    kv: &K,
    what: &str,
    mut done: impl FnMut(&K) -> Result<bool, Status>,
) -> Result<(), Status> {
    let start = Instant::now();
    while !done(kv)? {
        if start.elapsed() > ADMIN_WAIT {
            return Err(strata_proto::status(
                ErrorCode::Unavailable,
                format!("{what}: still in progress after {ADMIN_WAIT:?}"),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

fn table_info<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    server: &RegionServer,
    table: &str,
) -> Result<pb::TableInfo, Status> {
    let regions = locate(kv, layout, Some(server), table)?;
    let schema = get_schema(kv, layout, table).map_err(unavailable)?;
    Ok(pb::TableInfo {
        schema: Some(table_to_pb(&schema)),
        state: pb::TableState::Enabled as i32,
        regions,
    })
}

#[tonic::async_trait]
impl<K: Kv + Send + Sync + 'static> Admin for ClusterAdmin<K> {
    async fn create_table(
        &self,
        request: Request<pb::CreateTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let req = request.into_inner();
        let schema = req
            .schema
            .ok_or_else(|| strata_server::status::invalid("no schema"))?;
        let table = table_from_pb(schema).map_err(strata_server::status::invalid)?;
        self.run(move |kv, layout, _| {
            let name = table.name.to_string();
            put_schema(kv, layout, &table)
                .map_err(|e| strata_proto::status(ErrorCode::TableExists, e))?;
            submit_and_wait(
                kv,
                layout,
                &AdminRequest::CreateTable {
                    table: name.clone(),
                    splits: req.split_keys.iter().map(|k| k.to_vec()).collect(),
                },
            )?;
            wait_until(kv, &format!("create {name}"), |kv| {
                let regions = match locate(kv, layout, None, &name) {
                    Ok(r) => r,
                    Err(_) => return Ok(false),
                };
                Ok(regions.len() == req.split_keys.len() + 1
                    && regions.iter().all(|r| !r.server.is_empty()))
            })?;
            Ok(Empty {})
        })
        .await
    }

    async fn alter_table(
        &self,
        _request: Request<pb::AlterTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        Err(unsupported("alter"))
    }

    async fn disable_table(
        &self,
        _request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        Err(unsupported("disable"))
    }

    async fn enable_table(
        &self,
        _request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        Err(unsupported("enable"))
    }

    async fn truncate_table(
        &self,
        _request: Request<pb::TruncateTableRequest>,
    ) -> Result<Response<Empty>, Status> {
        Err(unsupported("truncate"))
    }

    async fn delete_table(
        &self,
        request: Request<pb::TableRequest>,
    ) -> Result<Response<Empty>, Status> {
        let name = table_name(&request.into_inner().table)?;
        self.run(move |kv, layout, server| {
            submit_and_wait(
                kv,
                layout,
                &AdminRequest::DropTable {
                    table: name.clone(),
                },
            )?;
            wait_until(kv, &format!("drop {name}"), |kv| {
                Ok(kv.get(&layout.table(&name)).map_err(unavailable)?.is_none())
            })?;
            // Every region is closed and its record gone: the files and the schema go too,
            // so a table created later under this name starts empty.
            let table = strata_model::schema::TableName::parse(&name)
                .map_err(strata_server::status::invalid)?;
            let dir = server.config().table_dir(&table);
            let files = &server.config().storage.files;
            match files.remove_dir_all(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(strata_server::status::internal(format!(
                        "delete {}: {e}",
                        files.url(&dir)
                    )))
                }
            }
            kv.txn(strata_cluster::kv::Txn {
                compares: vec![],
                success: vec![strata_cluster::kv::Op::Delete(crate::schema::schema_key(
                    layout, &name,
                ))],
            })
            .map_err(unavailable)?;
            Ok(Empty {})
        })
        .await
    }

    async fn list_tables(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        self.run(|kv, layout, server| {
            let page = range_all(kv, &layout.tables(), 1000).map_err(unavailable)?;
            let mut tables = Vec::new();
            for item in page.kvs {
                if let Some(name) = item.key.strip_prefix(&layout.tables()) {
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

    async fn flush(&self, _request: Request<pb::TableRequest>) -> Result<Response<Empty>, Status> {
        Err(unsupported("flush"))
    }

    async fn compact(
        &self,
        _request: Request<pb::CompactRequest>,
    ) -> Result<Response<Empty>, Status> {
        Err(unsupported("compact"))
    }

    async fn split(&self, _request: Request<pb::SplitRequest>) -> Result<Response<Empty>, Status> {
        Err(unsupported("split"))
    }

    async fn merge(&self, _request: Request<pb::MergeRequest>) -> Result<Response<Empty>, Status> {
        Err(unsupported("merge"))
    }

    async fn locate(
        &self,
        request: Request<pb::LocateRequest>,
    ) -> Result<Response<pb::LocateResponse>, Status> {
        let name = table_name(&request.into_inner().table)?;
        self.run(move |kv, layout, server| {
            Ok(pb::LocateResponse {
                regions: locate(kv, layout, Some(server), &name)?,
            })
        })
        .await
    }

    async fn list_files(
        &self,
        _request: Request<pb::TableRequest>,
    ) -> Result<Response<pb::ListFilesResponse>, Status> {
        Err(unsupported("files"))
    }

    async fn status(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<pb::StatusResponse>, Status> {
        self.run(|kv, layout, _| {
            let servers = range_all(kv, &layout.servers(), 1000).map_err(unavailable)?;
            let tables = range_all(kv, &layout.tables(), 1000).map_err(unavailable)?;
            let regions = range_all(kv, &layout.regions(), 1000).map_err(unavailable)?;
            let mut per_server = std::collections::BTreeMap::<String, u32>::new();
            for s in &servers.kvs {
                if let Some(name) = s.key.strip_prefix(&layout.servers()) {
                    per_server.insert(name.to_string(), 0);
                }
            }
            for r in &regions.kvs {
                if let Ok(rec) = RegionRecord::decode(&r.value) {
                    if let (Some(s), RegionState::Open) = (&rec.server, rec.state) {
                        *per_server.entry(s.clone()).or_default() += 1;
                    }
                }
            }
            Ok(pb::StatusResponse {
                servers: per_server
                    .into_iter()
                    .map(|(name, regions)| pb::ServerStatus {
                        address: server_address(&name).to_string(),
                        regions,
                        ..Default::default()
                    })
                    .collect(),
                tables: u32::try_from(tables.kvs.len()).unwrap_or(u32::MAX),
                regions: u32::try_from(regions.kvs.len()).unwrap_or(u32::MAX),
                version: env!("CARGO_PKG_VERSION").to_string(),
            })
        })
        .await
    }
}
