//! `MasterService`: table lifecycle and schema through [`MasterOps`] — a standalone master's
//! calls, or a cluster's admin path (the same as the gRPC admin service's). Strata's admin
//! operations finish before they answer, so each returns a fresh procedure id that
//! `GetProcedureResult` reports as finished.
//!
//! [`MasterOps`]: crate::ops::MasterOps

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use prost::Message;

use crate::context::Context;
use crate::error::{HBaseError, HResult};
use crate::ops::{MasterOps, NamespaceEntry, TableEntry};
use crate::pb;
use crate::region_name::{parse_region_name, region_name, RegionRef, META_TABLE};
use crate::schema::{
    family_from_pb, table_from_pb, table_name_from_pb, table_name_pb, table_to_pb,
};

fn decode<M: Message + Default>(param: &[u8]) -> HResult<M> {
    M::decode(param).map_err(|e| HBaseError::do_not_retry(format!("malformed request: {e}")))
}

fn procedure(ctx: &Context) -> Vec<u8> {
    let id = ctx.procedures.fetch_add(1, Ordering::Relaxed) + 1;
    pb::ProcedureResponse { proc_id: Some(id) }.encode_to_vec()
}

/// The table and id of a region to merge: from its full name, or from its encoded name (what
/// HBase's `Admin.mergeRegionsAsync` sends) among the regions the live servers hold.
fn merge_region(ops: &dyn MasterOps, spec: &pb::RegionSpecifier) -> HResult<(String, u64)> {
    use pb::region_specifier::RegionSpecifierType;
    let unknown = |what: &str| HBaseError::unknown_region(format!("no region {what}"));
    if spec.r#type == RegionSpecifierType::RegionName as i32 {
        return match parse_region_name(&spec.value).map_err(HBaseError::do_not_retry)? {
            RegionRef::User { table, region_id } => Ok((table, region_id)),
            RegionRef::Meta => Err(HBaseError::do_not_retry("hbase:meta does not merge")),
        };
    }
    let encoded = String::from_utf8_lossy(&spec.value).into_owned();
    let suffix = format!(".{encoded}.");
    ops.live_servers()?
        .into_iter()
        .flat_map(|s| s.regions)
        .find(|r| region_name(&r.table, &r.start, r.region_id).ends_with(suffix.as_bytes()))
        .map(|r| (r.table, r.region_id))
        .ok_or_else(|| unknown(&encoded))
}

fn major_compaction_timestamp(ms: u64) -> Vec<u8> {
    pb::MajorCompactionTimestampResponse {
        compaction_timestamp: i64::try_from(ms).unwrap_or(i64::MAX),
    }
    .encode_to_vec()
}

/// Runs `f` (a master operation) and answers with a finished procedure id.
fn run(ctx: &Context, f: impl FnOnce() -> HResult<()>) -> HResult<Vec<u8>> {
    f()?;
    Ok(procedure(ctx))
}

fn namespace_pb(ns: &NamespaceEntry) -> pb::NamespaceDescriptor {
    pb::NamespaceDescriptor {
        name: Bytes::copy_from_slice(ns.name.as_bytes()),
        configuration: ns
            .properties
            .iter()
            .map(|(k, v)| pb::NameStringPair {
                name: k.clone(),
                value: v.clone(),
            })
            .collect(),
    }
}

fn namespace_from_pb(d: &pb::NamespaceDescriptor) -> HResult<NamespaceEntry> {
    let name = std::str::from_utf8(&d.name)
        .map_err(|_| HBaseError::do_not_retry("namespace name is not UTF-8"))?;
    Ok(NamespaceEntry {
        name: name.to_owned(),
        properties: d
            .configuration
            .iter()
            .map(|p| (p.name.clone(), p.value.clone()))
            .collect(),
    })
}

fn invalid_family(message: String) -> HBaseError {
    HBaseError {
        class: "org.apache.hadoop.hbase.InvalidFamilyOperationException",
        message,
        do_not_retry: true,
    }
}

/// Tables a listing asks for: by name, else by namespace; then by pattern (HBase's
/// `HMaster.getTableDescriptors`).
fn tables_matching(
    ops: &dyn MasterOps,
    names: &[pb::TableName],
    regex: Option<&str>,
    namespace: Option<&str>,
) -> HResult<Vec<TableEntry>> {
    let pattern = regex
        .filter(|r| *r != ".*")
        .map(crate::table_pattern::TablePattern::new)
        .transpose()?;
    let mut all = ops.tables()?;
    all.sort_by_key(|t| t.descriptor.name.to_string());
    if !names.is_empty() {
        let wanted = names
            .iter()
            .map(table_name_from_pb)
            .collect::<HResult<BTreeSet<String>>>()?;
        all.retain(|t| wanted.contains(&t.descriptor.name.to_string()));
    } else if let Some(ns) = namespace {
        all.retain(|t| t.descriptor.name.namespace() == ns);
    }
    if let Some(p) = pattern {
        all.retain(|t| p.matches(&t.descriptor.name.to_string()));
    }
    Ok(all)
}

fn names_pb(tables: &[TableEntry]) -> Vec<pb::TableName> {
    tables
        .iter()
        .map(|t| table_name_pb(&t.descriptor.name.to_string()))
        .collect()
}

fn schemas_pb(tables: &[TableEntry]) -> Vec<pb::TableSchema> {
    tables.iter().map(|t| table_to_pb(&t.descriptor)).collect()
}

/// The switch a `MasterSwitchType` names.
fn switch_name(kind: i32) -> HResult<&'static str> {
    match pb::MasterSwitchType::try_from(kind) {
        Ok(pb::MasterSwitchType::Split) => Ok("split"),
        Ok(pb::MasterSwitchType::Merge) => Ok("merge"),
        Err(_) => Err(HBaseError::do_not_retry(format!(
            "unknown switch type {kind}"
        ))),
    }
}

/// Runs one `MasterService` method.
///
/// # Errors
/// The exception for the client.
pub fn call(ctx: &Context, method: &str, param: &[u8]) -> HResult<Vec<u8>> {
    let ops = ctx.ops.as_ref();
    if let Some(answer) = crate::master_snapshot::call(ctx, method, param) {
        return answer;
    }
    if let Some(answer) = crate::master_access::call(ctx, method, param) {
        return answer;
    }
    if let Some(answer) = crate::master_quota::call(ctx, method, param) {
        return answer;
    }
    if let Some(answer) = crate::master_placement::call(ctx, method, param) {
        return answer;
    }
    if let Some(answer) = crate::master_space::call(ctx, method, param) {
        return answer;
    }
    match method {
        "ExecProcedure" | "ExecProcedureWithRet" => {
            let req: pb::ExecProcedureRequest = decode(param)?;
            let p = &req.procedure;
            if p.signature != "flush-table-proc" {
                return Err(HBaseError::do_not_retry(format!(
                    "procedure {} is not supported by Strata (flush-table-proc is)",
                    p.signature
                )));
            }
            let table = p
                .instance
                .clone()
                .ok_or_else(|| HBaseError::do_not_retry("flush-table-proc without a table"))?;
            ops.flush_table(&table)?;
            Ok(pb::ExecProcedureResponse {
                expected_timeout: Some(0),
                return_data: None,
            }
            .encode_to_vec())
        }
        // ExecProcedure finished before it answered.
        "IsProcedureDone" => Ok(pb::IsProcedureDoneResponse {
            done: Some(true),
            snapshot: None,
        }
        .encode_to_vec()),
        "GetClusterStatus" => Ok(crate::status::cluster_status(ctx)?.encode_to_vec()),
        "getLastMajorCompactionTimestamp" => {
            let req: pb::MajorCompactionTimestampRequest = decode(param)?;
            let table = table_name_from_pb(&req.table_name)?;
            let ts = crate::status::last_major_compaction_of_table(ctx, &table)?;
            Ok(major_compaction_timestamp(ts))
        }
        "getLastMajorCompactionTimestampForRegion" => {
            let req: pb::MajorCompactionTimestampForRegionRequest = decode(param)?;
            let ts = crate::status::last_major_compaction_of_region(ctx, &req.region.value)?;
            Ok(major_compaction_timestamp(ts))
        }
        "IsMasterRunning" => Ok(pb::IsMasterRunningResponse {
            is_master_running: true,
        }
        .encode_to_vec()),
        // Strata's master has no maintenance mode (HBase's, for offline repairs with hbck).
        "IsMasterInMaintenanceMode" => Ok(pb::IsInMaintenanceModeResponse {
            in_maintenance_mode: false,
        }
        .encode_to_vec()),
        // `synchronous` (wait for splits and merges under way) is not waited for: those finish,
        // and the master refuses new ones from the moment the switch is stored (RFC 0014).
        "SetSplitOrMergeEnabled" => {
            let req: pb::SetSplitOrMergeEnabledRequest = decode(param)?;
            let mut prev_value = Vec::new();
            for kind in &req.switch_types {
                let name = switch_name(*kind)?;
                prev_value.push(ops.set_switch(name, req.enabled)?);
            }
            Ok(pb::SetSplitOrMergeEnabledResponse { prev_value }.encode_to_vec())
        }
        "IsSplitOrMergeEnabled" => {
            let req: pb::IsSplitOrMergeEnabledRequest = decode(param)?;
            let name = switch_name(req.switch_type)?;
            let enabled = ops.switch_enabled(name)?;
            Ok(pb::IsSplitOrMergeEnabledResponse { enabled }.encode_to_vec())
        }
        "CreateTable" => {
            let req: pb::CreateTableRequest = decode(param)?;
            let table = table_from_pb(&req.table_schema)?;
            if table.name.to_string() == META_TABLE {
                return Err(HBaseError::do_not_retry("hbase:meta cannot be created"));
            }
            run(ctx, || ops.create_table(table, &req.split_keys))
        }
        "CreateNamespace" | "ModifyNamespace" => {
            let req: pb::NamespaceDescriptorRequest = decode(param)?;
            let ns = namespace_from_pb(&req.namespace_descriptor)?;
            if method == "CreateNamespace" {
                run(ctx, || ops.create_namespace(ns))
            } else {
                run(ctx, || ops.modify_namespace(ns))
            }
        }
        "DeleteNamespace" => {
            let req: pb::NamespaceNameRequest = decode(param)?;
            run(ctx, || ops.delete_namespace(&req.namespace_name))
        }
        "DeleteTable" | "EnableTable" | "DisableTable" => {
            let req: pb::TableNameRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            match method {
                "DeleteTable" => run(ctx, || ops.delete_table(&name)),
                "EnableTable" => run(ctx, || ops.enable_table(&name)),
                _ => run(ctx, || ops.disable_table(&name)),
            }
        }
        // HBase names this method in lower camel case (as `getProcedureResult`).
        "truncateTable" | "TruncateTable" => {
            let req: pb::TruncateTableRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            run(ctx, || ops.truncate_table(&name, req.preserve_splits()))
        }
        "ModifyTable" => {
            let req: pb::ModifyTableRequest = decode(param)?;
            let table = table_from_pb(&req.table_schema)?;
            run(ctx, || ops.alter_table(table))
        }
        "AddColumn" | "ModifyColumn" => {
            let req: pb::ColumnRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            let family = family_from_pb(&req.column_families)?;
            let mut table = ops.table(&name)?.descriptor;
            let exists = table.family(family.name.as_bytes()).is_some();
            match (method, exists) {
                ("AddColumn", true) => {
                    return Err(invalid_family(format!(
                        "family {} already exists in {name}",
                        family.name
                    )))
                }
                ("ModifyColumn", false) => {
                    return Err(invalid_family(format!(
                        "family {} does not exist in {name}",
                        family.name
                    )))
                }
                _ => {}
            }
            table.families.retain(|f| f.name != family.name);
            table.families.push(family);
            run(ctx, || ops.alter_table(table))
        }
        "DeleteColumn" => {
            let req: pb::DeleteColumnRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            let mut table = ops.table(&name)?.descriptor;
            let before = table.families.len();
            table
                .families
                .retain(|f| f.name.as_bytes() != req.column_name.as_ref());
            if table.families.len() == before {
                return Err(invalid_family(format!(
                    "family {} does not exist in {name}",
                    String::from_utf8_lossy(&req.column_name)
                )));
            }
            if table.families.is_empty() {
                // HBase's ModifyTableProcedure refuses it with the same exception.
                return Err(invalid_family(format!(
                    "Family '{}' is the only column family in the table, so it cannot be deleted",
                    String::from_utf8_lossy(&req.column_name)
                )));
            }
            run(ctx, || ops.alter_table(table))
        }
        "SplitRegion" => {
            let req: pb::SplitTableRegionRequest = decode(param)?;
            let table = table_name_from_pb(&req.region_info.table_name)?;
            let id = req.region_info.region_id;
            run(ctx, || {
                ops.split_region(&table, id, req.split_row.filter(|r| !r.is_empty()))
            })
        }
        "MergeTableRegions" => {
            let req: pb::MergeTableRegionsRequest = decode(param)?;
            if req.forcible == Some(true) {
                return Err(HBaseError::do_not_retry(
                    "forcible merges (of regions that are not adjacent) are not supported",
                ));
            }
            let [a, b] = req.region.as_slice() else {
                return Err(HBaseError::do_not_retry(format!(
                    "a merge takes two regions, not {}",
                    req.region.len()
                )));
            };
            let ((ta, ia), (tb, ib)) = (merge_region(ops, a)?, merge_region(ops, b)?);
            if ta != tb {
                return Err(HBaseError::do_not_retry(format!(
                    "regions of different tables ({ta} and {tb}) cannot merge"
                )));
            }
            run(ctx, || ops.merge_regions(&ta, ia, ib))
        }
        "GetTableDescriptors" => {
            let req: pb::GetTableDescriptorsRequest = decode(param)?;
            let tables = tables_matching(
                ops,
                &req.table_names,
                req.regex.as_deref(),
                req.namespace.as_deref(),
            )?;
            Ok(pb::GetTableDescriptorsResponse {
                table_schema: schemas_pb(&tables),
            }
            .encode_to_vec())
        }
        "GetTableNames" => {
            let req: pb::GetTableNamesRequest = decode(param)?;
            let tables = tables_matching(ops, &[], req.regex.as_deref(), req.namespace.as_deref())?;
            Ok(pb::GetTableNamesResponse {
                table_names: names_pb(&tables),
            }
            .encode_to_vec())
        }
        "GetTableState" => {
            let req: pb::GetTableStateRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            let enabled = name == META_TABLE || ops.table(&name)?.enabled;
            let state = if enabled {
                pb::table_state::State::Enabled
            } else {
                pb::table_state::State::Disabled
            };
            Ok(pb::GetTableStateResponse {
                table_state: pb::TableState {
                    state: state as i32,
                },
            }
            .encode_to_vec())
        }
        // Alters finish (every region reopened) before they answer.
        "GetSchemaAlterStatus" => {
            let req: pb::GetSchemaAlterStatusRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            ops.table(&name)?;
            Ok(pb::GetSchemaAlterStatusResponse {
                yet_to_update_regions: Some(0),
                total_regions: Some(0),
            }
            .encode_to_vec())
        }
        "getProcedureResult" => {
            let req: pb::GetProcedureResultRequest = decode(param)?;
            let issued = ctx.procedures.load(Ordering::Relaxed);
            let state = if req.proc_id > ctx.first_procedure && req.proc_id <= issued {
                pb::get_procedure_result_response::State::Finished
            } else {
                pb::get_procedure_result_response::State::NotFound
            };
            Ok(pb::GetProcedureResultResponse {
                state: state as i32,
                submitted_time: None,
                last_update: None,
                result: None,
            }
            .encode_to_vec())
        }
        "ListNamespaceDescriptors" => Ok(pb::ListNamespaceDescriptorsResponse {
            namespace_descriptor: ops.namespaces()?.iter().map(namespace_pb).collect(),
        }
        .encode_to_vec()),
        "ListNamespaces" => Ok(pb::ListNamespacesResponse {
            namespace_name: ops.namespaces()?.into_iter().map(|n| n.name).collect(),
        }
        .encode_to_vec()),
        "GetNamespaceDescriptor" => {
            let req: pb::NamespaceNameRequest = decode(param)?;
            Ok(pb::GetNamespaceDescriptorResponse {
                namespace_descriptor: namespace_pb(&ops.namespace(&req.namespace_name)?),
            }
            .encode_to_vec())
        }
        "ListTableDescriptorsByNamespace" | "ListTableNamesByNamespace" => {
            let req: pb::NamespaceNameRequest = decode(param)?;
            ops.namespace(&req.namespace_name)?;
            let tables = tables_matching(ops, &[], None, Some(&req.namespace_name))?;
            if method == "ListTableNamesByNamespace" {
                return Ok(pb::ListTableNamesByNamespaceResponse {
                    table_name: names_pb(&tables),
                }
                .encode_to_vec());
            }
            Ok(pb::ListTableDescriptorsByNamespaceResponse {
                table_schema: schemas_pb(&tables),
            }
            .encode_to_vec())
        }
        _ => Err(HBaseError::unknown_method("MasterService", method)),
    }
}
