//! The fake admin service: `Locate` from the shared region list, a table list, and
//! acknowledgements for the rest (namespaces: `UNIMPLEMENTED`, no client test needs them).

use std::sync::Arc;

use parking_lot::Mutex;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::{self, ErrorCode};
use tonic::{Request, Response, Status};

use super::{fault_status, State};

pub struct FakeAdmin {
    pub state: Arc<Mutex<State>>,
}

type Answer<T> = Result<Response<T>, Status>;

fn ok() -> Answer<pb::Empty> {
    Ok(Response::new(pb::Empty {}))
}

fn not_found(table: &str) -> Status {
    strata_proto::status(ErrorCode::TableNotFound, format!("no table {table}"))
}

impl FakeAdmin {
    fn info(&self, s: &State, table: &str) -> pb::TableInfo {
        let descriptor = TableDescriptor::new(TableName::parse(table).unwrap())
            .with_family(FamilyDescriptor::new("f"));
        let regions = if table == super::TABLE {
            s.regions.iter().map(|r| s.location(r)).collect()
        } else {
            Vec::new()
        };
        pb::TableInfo {
            schema: Some(strata_proto::convert::table_to_pb(&descriptor)),
            state: pb::TableState::Enabled as i32,
            regions,
        }
    }
}

#[tonic::async_trait]
impl pb::admin_server::Admin for FakeAdmin {
    async fn create_table(&self, request: Request<pb::CreateTableRequest>) -> Answer<pb::Empty> {
        let name = request.into_inner().schema.unwrap().name;
        let mut s = self.state.lock();
        if s.tables.contains(&name) {
            return Err(strata_proto::status(ErrorCode::TableExists, name));
        }
        s.tables.push(name);
        ok()
    }

    async fn alter_table(&self, _: Request<pb::AlterTableRequest>) -> Answer<pb::Empty> {
        ok()
    }

    async fn disable_table(&self, _: Request<pb::TableRequest>) -> Answer<pb::Empty> {
        ok()
    }

    async fn enable_table(&self, _: Request<pb::TableRequest>) -> Answer<pb::Empty> {
        ok()
    }

    async fn truncate_table(&self, _: Request<pb::TruncateTableRequest>) -> Answer<pb::Empty> {
        ok()
    }

    async fn delete_table(&self, request: Request<pb::TableRequest>) -> Answer<pb::Empty> {
        let name = request.into_inner().table;
        self.state.lock().tables.retain(|t| *t != name);
        ok()
    }

    async fn list_tables(&self, _: Request<pb::Empty>) -> Answer<pb::ListTablesResponse> {
        let s = self.state.lock();
        let tables = s.tables.iter().map(|t| self.info(&s, t)).collect();
        Ok(Response::new(pb::ListTablesResponse { tables }))
    }

    async fn describe_table(&self, request: Request<pb::TableRequest>) -> Answer<pb::TableInfo> {
        let name = request.into_inner().table;
        let s = self.state.lock();
        if !s.tables.contains(&name) {
            return Err(not_found(&name));
        }
        Ok(Response::new(self.info(&s, &name)))
    }

    async fn flush(&self, _: Request<pb::TableRequest>) -> Answer<pb::Empty> {
        ok()
    }

    async fn compact(&self, _: Request<pb::CompactRequest>) -> Answer<pb::Empty> {
        ok()
    }

    async fn split(&self, request: Request<pb::SplitRequest>) -> Answer<pb::Empty> {
        let row = request.into_inner().split_row.unwrap();
        self.state.lock().split(&row, 0);
        ok()
    }

    async fn merge(&self, _: Request<pb::MergeRequest>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("merge"))
    }

    async fn locate(&self, request: Request<pb::LocateRequest>) -> Answer<pb::LocateResponse> {
        let table = request.into_inner().table;
        let mut s = self.state.lock();
        if let Some(f) = s.enter("locate") {
            return Err(fault_status(&f));
        }
        if table != super::TABLE {
            return Err(not_found(&table));
        }
        let regions = s.regions.iter().map(|r| s.location(r)).collect();
        Ok(Response::new(pb::LocateResponse { regions }))
    }

    async fn list_files(&self, _: Request<pb::TableRequest>) -> Answer<pb::ListFilesResponse> {
        Err(Status::unimplemented("list_files"))
    }

    async fn create_namespace(&self, _: Request<pb::NamespaceDescriptor>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("create_namespace"))
    }

    async fn modify_namespace(&self, _: Request<pb::NamespaceDescriptor>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("modify_namespace"))
    }

    async fn delete_namespace(&self, _: Request<pb::NamespaceRequest>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("delete_namespace"))
    }

    async fn get_namespace(
        &self,
        _: Request<pb::NamespaceRequest>,
    ) -> Answer<pb::NamespaceDescriptor> {
        Err(Status::unimplemented("get_namespace"))
    }

    async fn list_namespaces(&self, _: Request<pb::Empty>) -> Answer<pb::ListNamespacesResponse> {
        Err(Status::unimplemented("list_namespaces"))
    }

    async fn snapshot(&self, _: Request<pb::SnapshotRequest>) -> Answer<pb::SnapshotDescription> {
        Err(Status::unimplemented("snapshot"))
    }

    async fn list_snapshots(
        &self,
        _: Request<pb::ListSnapshotsRequest>,
    ) -> Answer<pb::ListSnapshotsResponse> {
        Err(Status::unimplemented("list_snapshots"))
    }

    async fn delete_snapshot(&self, _: Request<pb::SnapshotNameRequest>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("delete_snapshot"))
    }

    async fn clone_snapshot(&self, _: Request<pb::CloneSnapshotRequest>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("clone_snapshot"))
    }

    async fn import_snapshot(
        &self,
        _: Request<pb::SnapshotNameRequest>,
    ) -> Answer<pb::SnapshotDescription> {
        Err(Status::unimplemented("import_snapshot"))
    }

    async fn restore_snapshot(&self, _: Request<pb::SnapshotNameRequest>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("restore_snapshot"))
    }

    async fn update_configuration(
        &self,
        _: Request<pb::UpdateConfigurationRequest>,
    ) -> Answer<pb::UpdateConfigurationResponse> {
        Err(Status::unimplemented("update_configuration"))
    }

    async fn clear_block_cache(
        &self,
        _: Request<pb::TableRequest>,
    ) -> Answer<pb::CacheEvictionStats> {
        Err(Status::unimplemented("clear_block_cache"))
    }

    async fn list_procedures(&self, _: Request<pb::Empty>) -> Answer<pb::ListProceduresResponse> {
        Err(Status::unimplemented("list_procedures"))
    }

    async fn alter_status(&self, _: Request<pb::TableRequest>) -> Answer<pb::AlterStatusResponse> {
        Err(Status::unimplemented("alter_status"))
    }

    async fn grant(&self, _: Request<pb::GrantRequest>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("grant"))
    }

    async fn revoke(&self, _: Request<pb::GrantRequest>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("revoke"))
    }

    async fn get_user_permissions(
        &self,
        _: Request<pb::UserPermissionsRequest>,
    ) -> Answer<pb::UserPermissionsResponse> {
        Err(Status::unimplemented("get_user_permissions"))
    }

    async fn who_am_i(&self, _: Request<pb::Empty>) -> Answer<pb::WhoAmIResponse> {
        Err(Status::unimplemented("who_am_i"))
    }

    async fn set_quota(&self, _: Request<pb::SetQuotaRequest>) -> Answer<pb::Empty> {
        Err(Status::unimplemented("set_quota"))
    }

    async fn list_quotas(&self, _: Request<pb::Empty>) -> Answer<pb::ListQuotasResponse> {
        Err(Status::unimplemented("list_quotas"))
    }

    async fn set_switch(&self, _: Request<pb::SwitchRequest>) -> Answer<pb::SwitchResponse> {
        Err(Status::unimplemented("set_switch"))
    }

    async fn get_switch(&self, _: Request<pb::SwitchRequest>) -> Answer<pb::SwitchResponse> {
        Err(Status::unimplemented("get_switch"))
    }

    async fn move_region(
        &self,
        _: Request<pb::RegionPlacementRequest>,
    ) -> Answer<pb::RegionPlacement> {
        Err(Status::unimplemented("move_region"))
    }

    async fn assign_region(
        &self,
        _: Request<pb::RegionPlacementRequest>,
    ) -> Answer<pb::RegionPlacement> {
        Err(Status::unimplemented("assign_region"))
    }

    async fn unassign_region(
        &self,
        _: Request<pb::RegionPlacementRequest>,
    ) -> Answer<pb::RegionPlacement> {
        Err(Status::unimplemented("unassign_region"))
    }

    async fn balance(&self, _: Request<pb::Empty>) -> Answer<pb::BalanceResponse> {
        Err(Status::unimplemented("balance"))
    }

    async fn decommission(&self, _: Request<pb::ServersRequest>) -> Answer<pb::ServersResponse> {
        Err(Status::unimplemented("decommission"))
    }

    async fn recommission(&self, _: Request<pb::ServersRequest>) -> Answer<pb::ServersResponse> {
        Err(Status::unimplemented("recommission"))
    }

    async fn list_decommissioned(&self, _: Request<pb::Empty>) -> Answer<pb::ServersResponse> {
        Err(Status::unimplemented("list_decommissioned"))
    }

    async fn status(&self, _: Request<pb::Empty>) -> Answer<pb::StatusResponse> {
        let s = self.state.lock();
        let servers = s
            .servers
            .iter()
            .map(|address| pb::ServerStatus {
                address: address.clone(),
                ..Default::default()
            })
            .collect();
        Ok(Response::new(pb::StatusResponse {
            servers,
            tables: s.tables.len() as u32,
            regions: s.regions.len() as u32,
            version: "fake".into(),
        }))
    }
}
