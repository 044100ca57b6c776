//! `MasterService`: table lifecycle and schema through the same [`Master`] calls the gRPC
//! admin service makes. Strata's admin operations finish before they answer, so each
//! returns a fresh procedure id that `GetProcedureResult` reports as finished.
//!
//! [`Master`]: strata_master::Master

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use prost::Message;
use strata_master::catalog::{namespace_of, Catalog};

use crate::context::Context;
use crate::error::{HBaseError, HResult};
use crate::pb;
use crate::region_name::META_TABLE;
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

/// Runs `f` (a master operation) and answers with a finished procedure id.
fn run(ctx: &Context, f: impl FnOnce() -> strata_master::Result<()>) -> HResult<Vec<u8>> {
    f()?;
    Ok(procedure(ctx))
}

fn namespaces(catalog: &Catalog) -> BTreeSet<String> {
    catalog.all_namespaces()
}

fn namespace_pb(name: &str) -> pb::NamespaceDescriptor {
    pb::NamespaceDescriptor {
        name: Bytes::copy_from_slice(name.as_bytes()),
        configuration: Vec::new(),
    }
}

/// Tables of the catalog a listing asks for.
fn tables_matching(
    catalog: &Catalog,
    names: &[pb::TableName],
    regex: Option<&str>,
    namespace: Option<&str>,
) -> HResult<Vec<String>> {
    if let Some(r) = regex.filter(|r| *r != ".*") {
        return Err(HBaseError::do_not_retry(format!(
            "table name patterns ('{r}') are not supported by Strata; list all tables"
        )));
    }
    if !names.is_empty() {
        let mut out = Vec::new();
        for n in names {
            let name = table_name_from_pb(n)?;
            if catalog.tables.contains_key(&name) {
                out.push(name);
            }
        }
        return Ok(out);
    }
    Ok(catalog
        .tables
        .keys()
        .filter(|t| namespace.is_none_or(|ns| namespace_of(t) == ns))
        .cloned()
        .collect())
}

/// Runs one `MasterService` method.
///
/// # Errors
/// The exception for the client.
pub fn call(ctx: &Context, method: &str, param: &[u8]) -> HResult<Vec<u8>> {
    let master = ctx.master()?;
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
            master.flush_table(&table)?;
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
        "GetClusterStatus" => Ok(crate::status::cluster_status(ctx).encode_to_vec()),
        "IsMasterRunning" => Ok(pb::IsMasterRunningResponse {
            is_master_running: true,
        }
        .encode_to_vec()),
        "CreateTable" => {
            let req: pb::CreateTableRequest = decode(param)?;
            let table = table_from_pb(&req.table_schema)?;
            if table.name.to_string() == META_TABLE {
                return Err(HBaseError::do_not_retry("hbase:meta cannot be created"));
            }
            let ns = table.name.namespace().to_string();
            if !namespaces(&master.catalog()).contains(&ns) {
                return Err(HBaseError::namespace_not_found(&ns));
            }
            run(ctx, || master.create_table(table, &req.split_keys))
        }
        "CreateNamespace" | "ModifyNamespace" => {
            let req: pb::NamespaceDescriptorRequest = decode(param)?;
            let d = &req.namespace_descriptor;
            let name = std::str::from_utf8(&d.name)
                .map_err(|_| HBaseError::do_not_retry("namespace name is not UTF-8"))?;
            if let Some(c) = d.configuration.first() {
                return Err(HBaseError::do_not_retry(format!(
                    "namespace configuration ('{}') is not supported by Strata",
                    c.name
                )));
            }
            if method == "CreateNamespace" {
                return run(ctx, || master.create_namespace(name));
            }
            // Nothing to modify without configuration: it only has to exist.
            if !namespaces(&master.catalog()).contains(name) {
                return Err(HBaseError::namespace_not_found(name));
            }
            Ok(procedure(ctx))
        }
        "DeleteNamespace" => {
            let req: pb::NamespaceNameRequest = decode(param)?;
            run(ctx, || master.delete_namespace(&req.namespace_name))
        }
        "DeleteTable" | "EnableTable" | "DisableTable" => {
            let req: pb::TableNameRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            match method {
                "DeleteTable" => run(ctx, || master.delete_table(&name)),
                "EnableTable" => run(ctx, || master.enable_table(&name)),
                _ => run(ctx, || master.disable_table(&name)),
            }
        }
        "TruncateTable" => {
            let req: pb::TruncateTableRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            run(ctx, || master.truncate_table(&name, req.preserve_splits()))
        }
        "ModifyTable" => {
            let req: pb::ModifyTableRequest = decode(param)?;
            let table = table_from_pb(&req.table_schema)?;
            run(ctx, || master.alter_table(table))
        }
        "AddColumn" | "ModifyColumn" => {
            let req: pb::ColumnRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            let family = family_from_pb(&req.column_families)?;
            let mut table = master.catalog().table(&name)?.descriptor.clone();
            let exists = table.family(family.name.as_bytes()).is_some();
            match (method, exists) {
                ("AddColumn", true) => {
                    return Err(HBaseError {
                        class: "org.apache.hadoop.hbase.InvalidFamilyOperationException",
                        message: format!("family {} already exists in {name}", family.name),
                        do_not_retry: true,
                    })
                }
                ("ModifyColumn", false) => {
                    return Err(HBaseError {
                        class: "org.apache.hadoop.hbase.InvalidFamilyOperationException",
                        message: format!("family {} does not exist in {name}", family.name),
                        do_not_retry: true,
                    })
                }
                _ => {}
            }
            table.families.retain(|f| f.name != family.name);
            table.families.push(family);
            run(ctx, || master.alter_table(table))
        }
        "DeleteColumn" => {
            let req: pb::DeleteColumnRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            let mut table = master.catalog().table(&name)?.descriptor.clone();
            let before = table.families.len();
            table
                .families
                .retain(|f| f.name.as_bytes() != req.column_name.as_ref());
            if table.families.len() == before {
                return Err(HBaseError {
                    class: "org.apache.hadoop.hbase.InvalidFamilyOperationException",
                    message: format!(
                        "family {} does not exist in {name}",
                        String::from_utf8_lossy(&req.column_name)
                    ),
                    do_not_retry: true,
                });
            }
            run(ctx, || master.alter_table(table))
        }
        "SplitRegion" => {
            let req: pb::SplitTableRegionRequest = decode(param)?;
            let table = table_name_from_pb(&req.region_info.table_name)?;
            let id = req.region_info.region_id;
            let entry = master.catalog().regions.get(&id).cloned();
            if entry.is_none_or(|e| e.info.table != table || !e.is_serving()) {
                return Err(HBaseError {
                    class: "org.apache.hadoop.hbase.UnknownRegionException",
                    message: format!("no serving region {id} of {table}"),
                    do_not_retry: true,
                });
            }
            run(ctx, || {
                master.split_region(id, req.split_row.filter(|r| !r.is_empty()))
            })
        }
        "GetTableDescriptors" => {
            let req: pb::GetTableDescriptorsRequest = decode(param)?;
            let catalog = master.catalog();
            let names = tables_matching(
                &catalog,
                &req.table_names,
                req.regex.as_deref(),
                req.namespace.as_deref(),
            )?;
            Ok(pb::GetTableDescriptorsResponse {
                table_schema: names
                    .iter()
                    .filter_map(|n| catalog.tables.get(n))
                    .map(|t| table_to_pb(&t.descriptor))
                    .collect(),
            }
            .encode_to_vec())
        }
        "GetTableNames" => {
            let req: pb::GetTableNamesRequest = decode(param)?;
            let catalog = master.catalog();
            let names = tables_matching(
                &catalog,
                &[],
                req.regex.as_deref(),
                req.namespace.as_deref(),
            )?;
            Ok(pb::GetTableNamesResponse {
                table_names: names.iter().map(|n| table_name_pb(n)).collect(),
            }
            .encode_to_vec())
        }
        "GetTableState" => {
            let req: pb::GetTableStateRequest = decode(param)?;
            let name = table_name_from_pb(&req.table_name)?;
            let enabled = name == META_TABLE || master.catalog().table(&name)?.enabled;
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
        "getProcedureResult" => {
            let req: pb::GetProcedureResultRequest = decode(param)?;
            let issued = ctx.procedures.load(Ordering::Relaxed);
            let state = if req.proc_id >= 1 && req.proc_id <= issued {
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
            namespace_descriptor: namespaces(&master.catalog())
                .iter()
                .map(|n| namespace_pb(n))
                .collect(),
        }
        .encode_to_vec()),
        "ListNamespaces" => Ok(pb::ListNamespacesResponse {
            namespace_name: namespaces(&master.catalog()).into_iter().collect(),
        }
        .encode_to_vec()),
        "GetNamespaceDescriptor" => {
            let req: pb::NamespaceNameRequest = decode(param)?;
            if !namespaces(&master.catalog()).contains(&req.namespace_name) {
                return Err(HBaseError::namespace_not_found(&req.namespace_name));
            }
            Ok(pb::GetNamespaceDescriptorResponse {
                namespace_descriptor: namespace_pb(&req.namespace_name),
            }
            .encode_to_vec())
        }
        "ListTableDescriptorsByNamespace" | "ListTableNamesByNamespace" => {
            let req: pb::NamespaceNameRequest = decode(param)?;
            let catalog = master.catalog();
            if !namespaces(&catalog).contains(&req.namespace_name) {
                return Err(HBaseError::namespace_not_found(&req.namespace_name));
            }
            let names = tables_matching(&catalog, &[], None, Some(&req.namespace_name))?;
            if method == "ListTableNamesByNamespace" {
                return Ok(pb::ListTableNamesByNamespaceResponse {
                    table_name: names.iter().map(|n| table_name_pb(n)).collect(),
                }
                .encode_to_vec());
            }
            Ok(pb::ListTableDescriptorsByNamespaceResponse {
                table_schema: names
                    .iter()
                    .filter_map(|n| catalog.tables.get(n))
                    .map(|t| table_to_pb(&t.descriptor))
                    .collect(),
            }
            .encode_to_vec())
        }
        _ => Err(HBaseError::unknown_method("MasterService", method)),
    }
}
