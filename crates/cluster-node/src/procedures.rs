//! The procedures in progress as the admin service lists them (HBase's `getProcedures`, the
//! shell's `list_procedures`): each record under the coordination store's `procs/`, named as
//! HBase names the procedure of the same work, its state and its parameters (the table or
//! region, and the step it is at). A procedure's record is deleted when it finishes, so only
//! procedures in progress are listed; the records carry no times.

use strata_cluster::kv::{range_all, Kv, KvResult};
use strata_cluster::layout::Layout;
use strata_cluster::record::{
    CrashStep, CreateStep, DropStep, MergeStep, Procedure, SplitStep, TransitStep, TruncateStep,
};
use strata_proto::pb;

/// Every procedure in progress under `layout`, by id (the order they were started in by one
/// master); a record that does not decode is listed by its id as unreadable.
///
/// # Errors
/// The store cannot be read.
pub fn list<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> KvResult<Vec<pb::ProcedureInfo>> {
    let prefix = layout.procs();
    Ok(range_all(kv, &prefix, 1000)?
        .kvs
        .into_iter()
        .filter_map(|item| {
            let id = item.key.strip_prefix(&prefix)?.to_string();
            Some(match Procedure::decode(&item.value) {
                Ok(p) => {
                    let (name, parameters) = describe(&p);
                    pb::ProcedureInfo {
                        id,
                        name: name.to_string(),
                        state: "RUNNABLE".to_string(),
                        parameters,
                    }
                }
                Err(e) => pb::ProcedureInfo {
                    id,
                    name: "unknown".to_string(),
                    state: "UNREADABLE".to_string(),
                    parameters: e.to_string(),
                },
            })
        })
        .collect())
}

/// How many of `table`'s regions serve its current schema (HBase's `getAlterStatus`): all of
/// them unless a reopening of the table is in progress; then the regions (in name order, the
/// order it reopens them in) whose reopening it started and that are open again.
///
/// # Errors
/// `TABLE_NOT_FOUND`, or the store cannot be read.
pub fn alter_status<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<pb::AlterStatusResponse, tonic::Status> {
    let mut regions = crate::admin_path::locate(kv, layout, None, table)?;
    let unavailable = |e: strata_cluster::kv::KvError| {
        strata_proto::status(pb::ErrorCode::Unavailable, e.to_string())
    };
    let prefix = layout.procs();
    let started = range_all(kv, &prefix, 1000)
        .map_err(unavailable)?
        .kvs
        .iter()
        .filter_map(|item| match Procedure::decode(&item.value) {
            Ok(Procedure::ReopenTable { table: t, next }) if t == table => Some(next),
            _ => None,
        })
        .min();
    let total = u32::try_from(regions.len()).unwrap_or(u32::MAX);
    let updated = match started {
        None => total,
        Some(next) => {
            regions.sort_by(|a, b| a.name.cmp(&b.name));
            let done = regions
                .iter()
                .take(next as usize)
                .filter(|r| !r.server.is_empty())
                .count();
            u32::try_from(done).unwrap_or(u32::MAX)
        }
    };
    Ok(pb::AlterStatusResponse {
        regions: total,
        updated,
    })
}

/// HBase's name for the procedure doing `p`'s work, and its parameters.
pub fn describe(p: &Procedure) -> (&'static str, String) {
    match p {
        Procedure::Transit {
            region,
            target,
            open,
            step,
        } => {
            let kind = match (open, target) {
                (false, _) => "unassign",
                (true, Some(_)) => "move",
                (true, None) => "assign",
            };
            let step = match step {
                TransitStep::Close => "close".to_string(),
                TransitStep::AwaitClose { server, .. } => format!("awaiting close on {server}"),
                TransitStep::Pick => "picking a server".to_string(),
                TransitStep::AwaitOpen { server, .. } => format!("awaiting open on {server}"),
            };
            let to = target
                .as_ref()
                .map(|t| format!(", target={t}"))
                .unwrap_or_default();
            (
                "TransitRegionStateProcedure",
                format!("region={region}, {kind}{to}, step={step}"),
            )
        }
        Procedure::ServerCrash { server, step } => {
            let step = match step {
                CrashStep::Fence => "fencing its WAL",
                CrashStep::Split => "splitting its WAL",
                CrashStep::Reassign => "reassigning its regions",
            };
            (
                "ServerCrashProcedure",
                format!("server={server}, step={step}"),
            )
        }
        Procedure::CreateTable { table, step } => {
            let step = match step {
                CreateStep::Regions { next } => format!("creating regions ({next} done)"),
                CreateStep::Enable => "enabling".to_string(),
            };
            (
                "CreateTableProcedure",
                format!("table={table}, step={step}"),
            )
        }
        Procedure::DropTable { table, step } => {
            let step = match step {
                DropStep::Close => "closing regions",
                DropStep::Delete => "deleting records",
                DropStep::Files => "deleting files",
            };
            (
                "DeleteTableProcedure",
                format!("table={table}, step={step}"),
            )
        }
        Procedure::DisableTable { table } => ("DisableTableProcedure", format!("table={table}")),
        Procedure::EnableTable { table } => ("EnableTableProcedure", format!("table={table}")),
        Procedure::ReopenTable { table, next } => (
            "ReopenTableRegionsProcedure",
            format!("table={table}, step=reopening regions ({next} started)"),
        ),
        Procedure::TruncateTable {
            table,
            preserve,
            step,
        } => {
            let step = match step {
                TruncateStep::Close => "closing regions",
                TruncateStep::Files => "deleting files",
                TruncateStep::Delete => "recreating",
            };
            (
                "TruncateTableProcedure",
                format!("table={table}, preserveSplits={preserve}, step={step}"),
            )
        }
        Procedure::Split {
            region,
            daughters,
            server,
            step,
            ..
        } => {
            let step = match step {
                SplitStep::Await => format!("awaiting the split on {server}"),
                SplitStep::Undo { .. } => "rolling back".to_string(),
            };
            (
                "SplitTableRegionProcedure",
                format!(
                    "region={region}, daughters={}, {}, step={step}",
                    daughters.0, daughters.1
                ),
            )
        }
        Procedure::Merge {
            regions,
            merged,
            server,
            step,
        } => {
            let step = match step {
                MergeStep::Colocate => "moving the regions together".to_string(),
                MergeStep::Await { .. } => format!("awaiting the merge on {server}"),
                MergeStep::Undo { .. } => "rolling back".to_string(),
            };
            (
                "MergeTableRegionsProcedure",
                format!(
                    "regions={}, {}, merged={merged}, step={step}",
                    regions.0, regions.1
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::rc::Rc;

    use strata_cluster::kv::{Op, Txn};
    use strata_cluster::mem::{MemKv, MemStore, Perfect};

    use super::*;

    #[test]
    fn procedures_in_progress_are_listed_with_hbase_names_and_their_step() {
        let kv = MemKv::new(MemStore::new(1), Rc::new(Perfect));
        let layout = Layout::new("c");
        assert!(list(&kv, &layout).unwrap().is_empty());
        let put = |id: &str, value: Vec<u8>| {
            kv.txn(Txn {
                compares: Vec::new(),
                success: vec![Op::put(layout.proc(id), value)],
            })
            .unwrap();
        };
        put(
            "0000000000000001-00000001",
            Procedure::CreateTable {
                table: "ns:t".into(),
                step: CreateStep::Regions { next: 2 },
            }
            .encode(),
        );
        put(
            "0000000000000001-00000002",
            Procedure::Transit {
                region: "t,00000001".into(),
                target: Some("h:1:7".into()),
                open: true,
                step: TransitStep::AwaitOpen {
                    server: "h:1:7".into(),
                    epoch: 3,
                },
            }
            .encode(),
        );
        put("0000000000000001-00000003", b"proc9 what".to_vec());
        let got = list(&kv, &layout).unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].id, "0000000000000001-00000001");
        assert_eq!(got[0].name, "CreateTableProcedure");
        assert_eq!(got[0].state, "RUNNABLE");
        assert_eq!(
            got[0].parameters,
            "table=ns:t, step=creating regions (2 done)"
        );
        assert_eq!(got[1].name, "TransitRegionStateProcedure");
        assert_eq!(
            got[1].parameters,
            "region=t,00000001, move, target=h:1:7, step=awaiting open on h:1:7"
        );
        assert_eq!(got[2].state, "UNREADABLE");
    }
}
