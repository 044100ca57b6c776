//! The admin service as gRPC serves it: each call goes to [`ClusterAdmin`], and an answer
//! that means a mistake of the client (a missing table, a malformed schema, an unsorted split
//! key) is logged at WARN with the client's address, rate-limited
//! ([`strata_proto::bad_input`]), as the data service's are.

use strata_cluster::kv::Kv;
use strata_proto::bad_input;
use strata_proto::pb::admin_server::Admin;
use strata_proto::pb::{self, Empty};
use tonic::{Request, Response, Status};

use crate::admin::ClusterAdmin;

/// [`ClusterAdmin`] with its clients' mistakes logged.
pub struct LoggedAdmin<K>(pub ClusterAdmin<K>);

/// Logs `outcome`'s error as a mistake of `client` when it is one.
fn report<T>(
    client: Option<std::net::SocketAddr>,
    method: &str,
    outcome: Result<T, Status>,
) -> Result<T, Status> {
    bad_input::report(client, "Strata admin", method, outcome)
}

macro_rules! logged {
    ($($name:ident($req:ty) -> $resp:ty;)*) => {
        #[tonic::async_trait]
        impl<K: Kv + Send + Sync + 'static> Admin for LoggedAdmin<K> {
            $(
                async fn $name(
                    &self,
                    request: Request<$req>,
                ) -> Result<Response<$resp>, Status> {
                    let client = strata_server::caller::caller(&request).addr;
                    report(client, stringify!($name), self.0.$name(request).await)
                }
            )*
        }
    };
}

logged! {
    create_table(pb::CreateTableRequest) -> Empty;
    alter_table(pb::AlterTableRequest) -> Empty;
    disable_table(pb::TableRequest) -> Empty;
    enable_table(pb::TableRequest) -> Empty;
    truncate_table(pb::TruncateTableRequest) -> Empty;
    delete_table(pb::TableRequest) -> Empty;
    list_tables(Empty) -> pb::ListTablesResponse;
    describe_table(pb::TableRequest) -> pb::TableInfo;
    flush(pb::TableRequest) -> Empty;
    compact(pb::CompactRequest) -> Empty;
    split(pb::SplitRequest) -> Empty;
    merge(pb::MergeRequest) -> Empty;
    locate(pb::LocateRequest) -> pb::LocateResponse;
    list_files(pb::TableRequest) -> pb::ListFilesResponse;
    status(Empty) -> pb::StatusResponse;
    create_namespace(pb::NamespaceDescriptor) -> Empty;
    modify_namespace(pb::NamespaceDescriptor) -> Empty;
    delete_namespace(pb::NamespaceRequest) -> Empty;
    get_namespace(pb::NamespaceRequest) -> pb::NamespaceDescriptor;
    list_namespaces(Empty) -> pb::ListNamespacesResponse;
    snapshot(pb::SnapshotRequest) -> pb::SnapshotDescription;
    list_snapshots(pb::ListSnapshotsRequest) -> pb::ListSnapshotsResponse;
    delete_snapshot(pb::SnapshotNameRequest) -> Empty;
    clone_snapshot(pb::CloneSnapshotRequest) -> Empty;
    restore_snapshot(pb::SnapshotNameRequest) -> Empty;
    import_snapshot(pb::SnapshotNameRequest) -> pb::SnapshotDescription;
    update_configuration(pb::UpdateConfigurationRequest) -> pb::UpdateConfigurationResponse;
    clear_block_cache(pb::TableRequest) -> pb::CacheEvictionStats;
    list_procedures(Empty) -> pb::ListProceduresResponse;
    alter_status(pb::TableRequest) -> pb::AlterStatusResponse;
}
