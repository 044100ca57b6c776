//! The admin service as every front end reaches it: each call is first checked by the
//! server's access guard (RFC 0026: [`strata_access::admin::rule`] names what each rpc
//! needs), then goes to [`ClusterAdmin`]; an answer that means a mistake of the client (a
//! missing table, a malformed schema, an unsorted split key) is logged at WARN with the
//! client's address, rate-limited ([`strata_proto::bad_input`]), as the data service's are.
//! HBase RPC's `MasterService` calls through the same wrapper (`hbase_ops.rs`), so no front
//! end skips the check.

use strata_cluster::kv::Kv;
use strata_proto::bad_input;
use strata_proto::pb::admin_server::Admin;
use strata_proto::pb::{self, Empty};
use strata_server::caller::caller;
use strata_server::status::denied;
use tonic::{Request, Response, Status};

use crate::admin::ClusterAdmin;

/// [`ClusterAdmin`] with every call checked and its clients' mistakes logged.
pub struct LoggedAdmin<K>(pub ClusterAdmin<K>);

/// Logs `outcome`'s error as a mistake of `client` when it is one.
fn report<T>(
    client: Option<std::net::SocketAddr>,
    method: &str,
    outcome: Result<T, Status>,
) -> Result<T, Status> {
    bad_input::report(client, "Strata admin", method, outcome)
}

/// The table or namespace an admin request names, for its access check.
trait Named {
    fn object(&self) -> Option<&str>;
}

macro_rules! named {
    ($($ty:ty => |$r:ident| $e:expr;)*) => {
        $(impl Named for $ty {
            fn object(&self) -> Option<&str> {
                let $r = self;
                $e
            }
        })*
    };
}

named! {
    Empty => |_r| None;
    pb::CreateTableRequest => |r| r.schema.as_ref().map(|s| s.name.as_str());
    pb::AlterTableRequest => |r| r.schema.as_ref().map(|s| s.name.as_str());
    pb::TableRequest => |r| Some(r.table.as_str());
    pb::TruncateTableRequest => |r| Some(r.table.as_str());
    pb::CompactRequest => |r| Some(r.table.as_str());
    // A split names a table or one of its regions (`table,…`): the table is what is checked.
    pb::SplitRequest => |r| r.table.split(',').next();
    pb::MergeRequest => |r| Some(r.table.as_str());
    pb::LocateRequest => |r| Some(r.table.as_str());
    pb::NamespaceDescriptor => |r| Some(r.name.as_str());
    pb::NamespaceRequest => |r| Some(r.name.as_str());
    pb::SnapshotRequest => |r| Some(r.table.as_str());
    pb::ListSnapshotsRequest => |_r| None;
    pb::SnapshotNameRequest => |r| Some(r.name.as_str());
    pb::CloneSnapshotRequest => |r| Some(r.table.as_str());
    pb::UpdateConfigurationRequest => |_r| None;
    pb::GrantRequest => |_r| None;
    pb::UserPermissionsRequest => |_r| None;
    pb::SetQuotaRequest => |_r| None;
    pb::SwitchRequest => |_r| None;
    pb::RegionPlacementRequest => |_r| None;
    pb::ServersRequest => |_r| None;
}

macro_rules! logged {
    ($($name:ident / $rpc:literal ($req:ty) -> $resp:ty;)*) => {
        #[tonic::async_trait]
        impl<K: Kv + Send + Sync + 'static> Admin for LoggedAdmin<K> {
            $(
                async fn $name(
                    &self,
                    request: Request<$req>,
                ) -> Result<Response<$resp>, Status> {
                    let who = caller(&request);
                    let checked = self
                        .0
                        .guard()
                        .admin(&who, $rpc, request.get_ref().object())
                        .map_err(denied);
                    let outcome = match checked {
                        Ok(()) => self.0.$name(request).await,
                        Err(refused) => Err(refused),
                    };
                    report(who.addr, stringify!($name), outcome)
                }
            )*
        }
    };
}

logged! {
    create_table / "CreateTable" (pb::CreateTableRequest) -> Empty;
    alter_table / "AlterTable" (pb::AlterTableRequest) -> Empty;
    disable_table / "DisableTable" (pb::TableRequest) -> Empty;
    enable_table / "EnableTable" (pb::TableRequest) -> Empty;
    truncate_table / "TruncateTable" (pb::TruncateTableRequest) -> Empty;
    delete_table / "DeleteTable" (pb::TableRequest) -> Empty;
    list_tables / "ListTables" (Empty) -> pb::ListTablesResponse;
    describe_table / "DescribeTable" (pb::TableRequest) -> pb::TableInfo;
    flush / "Flush" (pb::TableRequest) -> Empty;
    compact / "Compact" (pb::CompactRequest) -> Empty;
    split / "Split" (pb::SplitRequest) -> Empty;
    merge / "Merge" (pb::MergeRequest) -> Empty;
    locate / "Locate" (pb::LocateRequest) -> pb::LocateResponse;
    list_files / "ListFiles" (pb::TableRequest) -> pb::ListFilesResponse;
    status / "Status" (Empty) -> pb::StatusResponse;
    create_namespace / "CreateNamespace" (pb::NamespaceDescriptor) -> Empty;
    modify_namespace / "ModifyNamespace" (pb::NamespaceDescriptor) -> Empty;
    delete_namespace / "DeleteNamespace" (pb::NamespaceRequest) -> Empty;
    get_namespace / "GetNamespace" (pb::NamespaceRequest) -> pb::NamespaceDescriptor;
    list_namespaces / "ListNamespaces" (Empty) -> pb::ListNamespacesResponse;
    snapshot / "Snapshot" (pb::SnapshotRequest) -> pb::SnapshotDescription;
    list_snapshots / "ListSnapshots" (pb::ListSnapshotsRequest) -> pb::ListSnapshotsResponse;
    delete_snapshot / "DeleteSnapshot" (pb::SnapshotNameRequest) -> Empty;
    clone_snapshot / "CloneSnapshot" (pb::CloneSnapshotRequest) -> Empty;
    restore_snapshot / "RestoreSnapshot" (pb::SnapshotNameRequest) -> Empty;
    import_snapshot / "ImportSnapshot" (pb::SnapshotNameRequest) -> pb::SnapshotDescription;
    update_configuration / "UpdateConfiguration" (pb::UpdateConfigurationRequest) -> pb::UpdateConfigurationResponse;
    clear_block_cache / "ClearBlockCache" (pb::TableRequest) -> pb::CacheEvictionStats;
    list_procedures / "ListProcedures" (Empty) -> pb::ListProceduresResponse;
    alter_status / "AlterStatus" (pb::TableRequest) -> pb::AlterStatusResponse;
    grant / "Grant" (pb::GrantRequest) -> Empty;
    revoke / "Revoke" (pb::GrantRequest) -> Empty;
    get_user_permissions / "GetUserPermissions" (pb::UserPermissionsRequest) -> pb::UserPermissionsResponse;
    who_am_i / "WhoAmI" (Empty) -> pb::WhoAmIResponse;
    set_quota / "SetQuota" (pb::SetQuotaRequest) -> Empty;
    list_quotas / "ListQuotas" (Empty) -> pb::ListQuotasResponse;
    set_switch / "SetSwitch" (pb::SwitchRequest) -> pb::SwitchResponse;
    get_switch / "GetSwitch" (pb::SwitchRequest) -> pb::SwitchResponse;
    move_region / "MoveRegion" (pb::RegionPlacementRequest) -> pb::RegionPlacement;
    assign_region / "AssignRegion" (pb::RegionPlacementRequest) -> pb::RegionPlacement;
    unassign_region / "UnassignRegion" (pb::RegionPlacementRequest) -> pb::RegionPlacement;
    balance / "Balance" (Empty) -> pb::BalanceResponse;
    decommission / "Decommission" (pb::ServersRequest) -> pb::ServersResponse;
    recommission / "Recommission" (pb::ServersRequest) -> pb::ServersResponse;
    list_decommissioned / "ListDecommissioned" (Empty) -> pb::ServersResponse;
}
