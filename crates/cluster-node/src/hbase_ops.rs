//! `MasterService` of HBase RPC on a cluster (RFC 0018): [`ClusterOps`] runs each operation
//! through the cluster admin service the gRPC admin clients use ([`ClusterAdmin`]: etcd
//! requests to the active master, then waiting for the procedure and the regions), so any
//! process — region server, active or standby master — answers the same way, namespaces
//! included (`crate::namespace`).

use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_hbase_rpc::meta::ServerIdentity;
use strata_hbase_rpc::ops::{
    LiveServer, MasterOps, NamespaceEntry, RegionMove, SnapshotEntry, SpaceQuotaState,
    SpaceQuotaStates, TableEntry,
};
use strata_hbase_rpc::HBaseError;
use strata_model::schema::TableDescriptor;
use strata_proto::convert::{table_from_pb, table_to_pb};
use strata_proto::pb::admin_server::Admin;
use strata_proto::pb::{self, ErrorCode};
use tonic::{Request, Response, Status};

use crate::admin::ClusterAdmin;
use crate::admin_logged::LoggedAdmin;
use crate::hbase::EtcdDirectory;

type HResult<T> = Result<T, HBaseError>;

fn error(class: &'static str, message: String, do_not_retry: bool) -> HBaseError {
    HBaseError {
        class,
        message,
        do_not_retry,
    }
}

/// The HBase exception for a cluster admin error.
pub fn from_status(status: &Status) -> HBaseError {
    let message = status.message().to_owned();
    match strata_proto::code_of(status) {
        ErrorCode::TableNotFound => HBaseError::table_not_found(&message),
        ErrorCode::TableExists => error(
            "org.apache.hadoop.hbase.TableExistsException",
            message,
            true,
        ),
        ErrorCode::TableDisabled => error(
            "org.apache.hadoop.hbase.TableNotEnabledException",
            message,
            true,
        ),
        ErrorCode::TableEnabled => error(
            "org.apache.hadoop.hbase.TableNotDisabledException",
            message,
            true,
        ),
        ErrorCode::NoSuchFamily => HBaseError::no_such_family(message),
        ErrorCode::NotServingRegion => HBaseError::not_serving(message),
        ErrorCode::RegionTooBusy => error(
            "org.apache.hadoop.hbase.RegionTooBusyException",
            message,
            false,
        ),
        ErrorCode::RegionNotFound => HBaseError::unknown_region(message),
        ErrorCode::InvalidArgument => HBaseError::do_not_retry(message),
        ErrorCode::NamespaceNotFound => HBaseError::namespace_not_found(&message),
        ErrorCode::NamespaceExists => error(
            "org.apache.hadoop.hbase.NamespaceExistException",
            message,
            true,
        ),
        ErrorCode::Constraint => error(
            "org.apache.hadoop.hbase.constraint.ConstraintException",
            message,
            true,
        ),
        ErrorCode::QuotaExceeded => error(
            "org.apache.hadoop.hbase.quotas.QuotaExceededException",
            message,
            true,
        ),
        ErrorCode::SnapshotExists => error(
            "org.apache.hadoop.hbase.snapshot.SnapshotExistsException",
            message,
            true,
        ),
        ErrorCode::SnapshotNotFound => error(
            "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException",
            message,
            true,
        ),
        ErrorCode::AccessDenied => error(
            "org.apache.hadoop.hbase.security.AccessDeniedException",
            message,
            true,
        ),
        ErrorCode::Throttled => error(strata_access::quota::HBASE_CLASS, message, false),
        ErrorCode::SpaceLimited => error(strata_access::quota::SPACE_HBASE_CLASS, message, true),
        ErrorCode::Unavailable | ErrorCode::Unknown | ErrorCode::Corruption => {
            match status.code() {
                tonic::Code::Unimplemented | tonic::Code::InvalidArgument => {
                    HBaseError::do_not_retry(message)
                }
                _ => error("java.io.IOException", message, false),
            }
        }
    }
}

/// A request made as the caller of the HBase RPC call running on this thread, so the admin
/// service checks it as it checks its own callers (RFC 0026).
fn req<T>(message: T) -> Request<T> {
    strata_server::caller::as_caller(
        Request::new(message),
        strata_hbase_rpc::access::current_caller(),
    )
}

/// [`MasterOps`] of a cluster's process, on the cluster admin service.
pub struct ClusterOps<K> {
    admin: LoggedAdmin<K>,
    directory: Arc<EtcdDirectory<K>>,
    kv: Arc<K>,
    layout: Layout,
    runtime: tokio::runtime::Handle,
}

impl<K: Kv + Send + Sync + 'static> ClusterOps<K> {
    /// Operations through `admin` (its procedures awaited on `runtime`, from the HBase RPC
    /// listener's blocking workers), servers from `directory`, region names from `kv`.
    pub fn new(
        admin: ClusterAdmin<K>,
        directory: Arc<EtcdDirectory<K>>,
        kv: Arc<K>,
        layout: Layout,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        ClusterOps {
            admin: LoggedAdmin(admin),
            directory,
            kv,
            layout,
            runtime,
        }
    }

    fn call<T>(&self, f: impl Future<Output = Result<Response<T>, Status>>) -> HResult<T> {
        self.runtime
            .block_on(f)
            .map(Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    /// Checks the admin call `rpc` for the caller of this thread's HBase RPC call, as the
    /// admin service checks its own calls.
    fn check(&self, rpc: &str, object: Option<&str>) -> HResult<()> {
        let caller = strata_hbase_rpc::access::current_caller();
        self.admin
            .0
            .guard()
            .admin(&caller, rpc, object)
            .map_err(|d| from_status(&strata_server::status::denied(d)))
    }

    fn call_snapshot<T>(&self, f: impl Future<Output = Result<T, Status>>) -> HResult<T> {
        self.runtime.block_on(f).map_err(|s| from_status(&s))
    }

    fn entry(info: pb::TableInfo) -> HResult<TableEntry> {
        let schema = info
            .schema
            .ok_or_else(|| error("java.io.IOException", "no schema".into(), false))?;
        Ok(TableEntry {
            descriptor: table_from_pb(schema)
                .map_err(|e| error("java.io.IOException", e.to_string(), false))?,
            enabled: info.state == pb::TableState::Enabled as i32,
        })
    }

    fn table_request(name: &str) -> Request<pb::TableRequest> {
        req(pb::TableRequest {
            table: name.to_owned(),
        })
    }
}

fn etcd(e: impl std::fmt::Display) -> HBaseError {
    error("java.io.IOException", format!("etcd: {e}"), false)
}

fn entry_of(d: pb::NamespaceDescriptor) -> NamespaceEntry {
    NamespaceEntry {
        name: d.name,
        properties: d.properties.into_iter().collect(),
    }
}

fn descriptor_of(ns: NamespaceEntry) -> pb::NamespaceDescriptor {
    pb::NamespaceDescriptor {
        name: ns.name,
        properties: ns.properties.into_iter().collect(),
    }
}

fn namespace_request(name: &str) -> Request<pb::NamespaceRequest> {
    req(pb::NamespaceRequest {
        name: name.to_owned(),
    })
}

impl<K: Kv + Send + Sync + 'static> MasterOps for ClusterOps<K> {
    fn grant(
        &self,
        user: &str,
        perms: strata_access::Perms,
        scope: &strata_access::Scope,
        merge: bool,
    ) -> HResult<()> {
        let r = pb::GrantRequest {
            user: user.to_owned(),
            permissions: perms.to_string(),
            scope: Some(crate::admin_acl::scope_to_pb(scope)),
            merge,
        };
        self.call(self.admin.grant(req(r))).map(drop)
    }

    fn revoke(
        &self,
        user: &str,
        perms: strata_access::Perms,
        scope: &strata_access::Scope,
    ) -> HResult<()> {
        let r = pb::GrantRequest {
            user: user.to_owned(),
            permissions: perms.to_string(),
            scope: Some(crate::admin_acl::scope_to_pb(scope)),
            merge: false,
        };
        self.call(self.admin.revoke(req(r))).map(drop)
    }

    fn user_permissions(
        &self,
        scope: Option<&strata_access::Scope>,
        user: Option<&str>,
    ) -> HResult<Vec<strata_access::Grant>> {
        let r = pb::UserPermissionsRequest {
            scope: scope.map(crate::admin_acl::scope_to_pb),
            user: user.unwrap_or_default().to_owned(),
        };
        let listed = self.call(self.admin.get_user_permissions(req(r)))?;
        Ok(listed
            .permissions
            .into_iter()
            .filter_map(|p| {
                Some(strata_access::Grant {
                    who: p.user,
                    scope: crate::admin_acl::scope_of(p.scope.as_ref()).ok()?,
                    perms: strata_access::Perms::parse(&p.permissions).ok()?,
                })
            })
            .collect())
    }

    fn set_quota(
        &self,
        subject: &strata_access::quota::Subject,
        throttle_type: &str,
        limit: Option<&str>,
    ) -> HResult<()> {
        let r = pb::SetQuotaRequest {
            subject: Some(crate::admin_quota::subject_to_pb(subject)),
            throttle_type: throttle_type.to_owned(),
            limit: limit.unwrap_or_default().to_owned(),
            ..pb::SetQuotaRequest::default()
        };
        self.call(self.admin.set_quota(req(r))).map(drop)
    }

    fn set_space_quota(
        &self,
        subject: &strata_access::quota::Subject,
        limit: Option<(u64, strata_access::quota::SpacePolicy)>,
    ) -> HResult<()> {
        let r = pb::SetQuotaRequest {
            subject: Some(crate::admin_quota::subject_to_pb(subject)),
            quota_type: "SPACE".into(),
            limit: limit.map(|(l, _)| l.to_string()).unwrap_or_default(),
            policy: limit.map(|(_, p)| p.name().to_owned()).unwrap_or_default(),
            ..pb::SetQuotaRequest::default()
        };
        self.call(self.admin.set_quota(req(r))).map(drop)
    }

    fn tables(&self) -> HResult<Vec<TableEntry>> {
        self.call(self.admin.list_tables(req(pb::Empty {})))?
            .tables
            .into_iter()
            .map(Self::entry)
            .collect()
    }

    fn table(&self, name: &str) -> HResult<TableEntry> {
        Self::entry(self.call(self.admin.describe_table(Self::table_request(name)))?)
    }

    fn namespaces(&self) -> HResult<Vec<NamespaceEntry>> {
        Ok(self
            .call(self.admin.list_namespaces(req(pb::Empty {})))?
            .namespaces
            .into_iter()
            .map(entry_of)
            .collect())
    }

    fn namespace(&self, name: &str) -> HResult<NamespaceEntry> {
        self.call(self.admin.get_namespace(namespace_request(name)))
            .map(entry_of)
    }

    fn create_namespace(&self, namespace: NamespaceEntry) -> HResult<()> {
        self.call(self.admin.create_namespace(req(descriptor_of(namespace))))
            .map(|_| ())
    }

    fn modify_namespace(&self, namespace: NamespaceEntry) -> HResult<()> {
        self.call(self.admin.modify_namespace(req(descriptor_of(namespace))))
            .map(|_| ())
    }

    fn delete_namespace(&self, name: &str) -> HResult<()> {
        self.call(self.admin.delete_namespace(namespace_request(name)))
            .map(|_| ())
    }

    fn create_table(&self, table: TableDescriptor, splits: &[Bytes]) -> HResult<()> {
        table
            .validate()
            .map_err(|e| HBaseError::do_not_retry(e.to_string()))?;
        self.call(self.admin.create_table(req(pb::CreateTableRequest {
            schema: Some(table_to_pb(&table)),
            split_keys: splits.to_vec(),
        })))
        .map(|_| ())
    }

    fn delete_table(&self, name: &str) -> HResult<()> {
        self.call(self.admin.delete_table(Self::table_request(name)))
            .map(|_| ())
    }

    fn enable_table(&self, name: &str) -> HResult<()> {
        self.call(self.admin.enable_table(Self::table_request(name)))
            .map(|_| ())
    }

    fn disable_table(&self, name: &str) -> HResult<()> {
        self.call(self.admin.disable_table(Self::table_request(name)))
            .map(|_| ())
    }

    fn snapshot(&self, table: &str, name: &str) -> HResult<()> {
        self.check("Snapshot", Some(table))?;
        let taken = self
            .runtime
            .block_on(self.admin.0.take_snapshot(pb::SnapshotRequest {
                table: table.to_owned(),
                name: name.to_owned(),
            }));
        match taken {
            Ok(_) => Ok(()),
            // HBase's master refuses a snapshot of a missing table so.
            Err(s) if strata_proto::code_of(&s) == ErrorCode::TableNotFound => Err(error(
                "org.apache.hadoop.hbase.snapshot.SnapshotCreationException",
                format!("Table '{table}' doesn't exist, can't take snapshot."),
                true,
            )),
            Err(s) => Err(from_status(&s)),
        }
    }

    fn snapshots(&self) -> HResult<Vec<SnapshotEntry>> {
        self.check("ListSnapshots", None)?;
        let list =
            self.call_snapshot(self.admin.0.snapshots(pb::ListSnapshotsRequest::default()))?;
        Ok(list
            .snapshots
            .into_iter()
            .map(|s| SnapshotEntry {
                name: s.name,
                table: s.table,
                creation_time_ms: s.creation_time_ms,
                offline: s.offline,
            })
            .collect())
    }

    fn delete_snapshot(&self, name: &str) -> HResult<()> {
        self.check("DeleteSnapshot", Some(name))?;
        self.call_snapshot(self.admin.0.remove_snapshot(name.to_owned()))
    }

    fn restore_or_clone_snapshot(&self, name: &str, table: &str) -> HResult<()> {
        self.check("RestoreSnapshot", Some(name))?;
        let exists = match self.table(table) {
            Ok(_) => true,
            Err(e) if e.class.ends_with("TableNotFoundException") => false,
            Err(e) => return Err(e),
        };
        if exists {
            let snapshot = self
                .snapshots()?
                .into_iter()
                .find(|s| s.name == name)
                .ok_or_else(|| from_status(&crate::snapshot::not_found(name)))?;
            if snapshot.table != table {
                return Err(HBaseError::do_not_retry(format!(
                    "snapshot {name} is of table {}, not {table}; Strata restores a snapshot \
                     only into its own table",
                    snapshot.table
                )));
            }
            self.call_snapshot(self.admin.0.restore_snapshot_now(name.to_owned()))
        } else {
            self.call_snapshot(self.admin.0.clone_snapshot_into(
                name.to_owned(),
                table.to_owned(),
                false,
            ))
        }
    }

    fn truncate_table(&self, name: &str, preserve_splits: bool) -> HResult<()> {
        self.call(self.admin.truncate_table(req(pb::TruncateTableRequest {
            table: name.to_owned(),
            preserve_splits,
        })))
        .map(|_| ())
    }

    fn alter_table(&self, table: TableDescriptor) -> HResult<()> {
        self.call(self.admin.alter_table(req(pb::AlterTableRequest {
            schema: Some(table_to_pb(&table)),
            no_wait: false,
        })))
        .map(|_| ())
    }

    fn flush_table(&self, name: &str) -> HResult<()> {
        self.call(self.admin.flush(Self::table_request(name)))
            .map(|_| ())
    }

    fn split_region(&self, table: &str, region_id: u64, row: Option<Bytes>) -> HResult<()> {
        // HBase names the region by its encoded id; the cluster by `table,…`: find the record
        // whose storage id it is.
        let prefix = self.layout.regions();
        let name = range_all(self.kv.as_ref(), &self.layout.table_regions(table), 1000)
            .map_err(etcd)?
            .kvs
            .into_iter()
            .filter_map(|item| item.key.strip_prefix(&prefix).map(str::to_owned))
            .find(|name| crate::names::region_id(name).is_some_and(|(_, id)| id == region_id))
            .ok_or_else(|| {
                HBaseError::unknown_region(format!("no region {region_id} of {table}"))
            })?;
        self.call(self.admin.split(req(pb::SplitRequest {
            table: name,
            split_row: row,
        })))
        .map(|_| ())
    }

    fn merge_regions(&self, table: &str, a: u64, b: u64) -> HResult<()> {
        self.call(self.admin.merge(req(pb::MergeRequest {
            table: table.to_string(),
            region_a: a,
            region_b: b,
        })))
        .map(|_| ())
    }

    fn live_servers(&self) -> HResult<Vec<LiveServer>> {
        self.directory.live_servers()
    }

    fn set_switch(&self, name: &str, on: bool) -> HResult<bool> {
        self.call(self.admin.set_switch(req(pb::SwitchRequest {
            name: name.to_string(),
            on,
        })))
        .map(|r| r.on)
    }

    fn switch_enabled(&self, name: &str) -> HResult<bool> {
        self.call(self.admin.get_switch(req(pb::SwitchRequest {
            name: name.to_string(),
            on: false,
        })))
        .map(|r| r.on)
    }

    fn space_quota_states(&self) -> HResult<SpaceQuotaStates> {
        let r = self.call(self.admin.list_quotas(req(pb::Empty {})))?;
        let namespace_of = |table: &str| {
            table
                .split_once(':')
                .map_or(strata_access::scope::DEFAULT_NAMESPACE, |(ns, _)| ns)
                .to_owned()
        };
        // A namespace's usage is its tables' sizes summed, in violation above its limit, as
        // the master decides for each of its tables (`strata_access::quota::decide`).
        let namespaces = r
            .spaces
            .iter()
            .filter_map(|q| {
                let ns = q.subject.as_ref().map(|s| s.namespace.clone())?;
                (!ns.is_empty()).then_some((ns, q))
            })
            .map(|(ns, q)| {
                let usage = r
                    .table_sizes
                    .iter()
                    .filter(|t| namespace_of(&t.table) == ns)
                    .map(|t| t.size)
                    .sum();
                SpaceQuotaState {
                    name: ns,
                    policy: q.policy.clone(),
                    in_violation: usage > q.limit,
                    usage,
                    limit: q.limit,
                }
            })
            .collect();
        Ok(SpaceQuotaStates {
            table_sizes: r
                .table_sizes
                .iter()
                .map(|t| (t.table.clone(), t.size))
                .collect(),
            tables: r
                .space_states
                .iter()
                .map(|s| SpaceQuotaState {
                    name: s.table.clone(),
                    policy: s.policy.clone(),
                    in_violation: s.in_violation,
                    usage: s.usage,
                    limit: s.limit,
                })
                .collect(),
            namespaces,
        })
    }

    fn place_region(&self, region: &str, how: RegionMove) -> HResult<()> {
        let server = match &how {
            RegionMove::Move(Some(id)) => self.directory.server_name(id)?,
            _ => String::new(),
        };
        let request = req(pb::RegionPlacementRequest {
            region: region.to_string(),
            server,
        });
        match how {
            RegionMove::Move(_) => self.call(self.admin.move_region(request)),
            RegionMove::Assign => self.call(self.admin.assign_region(request)),
            RegionMove::Unassign => self.call(self.admin.unassign_region(request)),
        }
        .map(|_| ())
    }

    fn balance(&self) -> HResult<(bool, u32)> {
        self.call(self.admin.balance(req(pb::Empty {})))
            .map(|r| (r.ran, r.moves))
    }

    fn decommission(&self, servers: &[ServerIdentity]) -> HResult<()> {
        let servers = servers
            .iter()
            .map(|id| self.directory.server_name(id))
            .collect::<HResult<Vec<_>>>()?;
        self.call(self.admin.decommission(req(pb::ServersRequest { servers })))
            .map(|_| ())
    }

    fn recommission(&self, server: &ServerIdentity) -> HResult<()> {
        // A decommissioned server is live (a dead one left the list): named as a live one.
        let servers = vec![self.directory.server_name(server)?];
        self.call(self.admin.recommission(req(pb::ServersRequest { servers })))
            .map(|_| ())
    }

    fn decommissioned(&self) -> HResult<Vec<ServerIdentity>> {
        let names = self
            .call(self.admin.list_decommissioned(req(pb::Empty {})))?
            .servers;
        self.directory.identities(names)
    }
}
