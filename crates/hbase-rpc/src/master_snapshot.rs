//! `MasterService`'s snapshot methods (HBase 2.6's `Admin.snapshot`, `listSnapshots`,
//! `listTableSnapshots`, `deleteSnapshot`, `cloneSnapshot`, `restoreSnapshot`) through
//! [`MasterOps`]. Each operation has finished when it answers: `Snapshot` answers a procedure
//! id that `getProcedureResult` reports finished (HBase 2.6's client then waits no more), and
//! `IsSnapshotDone` answers done for a snapshot that exists. HBase's client sends clones and
//! restores alike as `RestoreSnapshot` naming the target table; a restore finds the table,
//! a clone does not.
//!
//! [`MasterOps`]: crate::ops::MasterOps

use std::sync::atomic::Ordering;

use prost::Message;

use crate::context::Context;
use crate::error::{HBaseError, HResult};
use crate::ops::SnapshotEntry;
use crate::pb;

fn decode<M: Message + Default>(param: &[u8]) -> HResult<M> {
    M::decode(param).map_err(|e| HBaseError::do_not_retry(format!("malformed request: {e}")))
}

fn next_procedure(ctx: &Context) -> u64 {
    ctx.procedures.fetch_add(1, Ordering::Relaxed) + 1
}

/// HBase's form of a snapshot: of manifest version 2, `FLUSH` or, of a disabled table,
/// `DISABLED`.
fn description(s: SnapshotEntry) -> pb::SnapshotDescription {
    let kind = if s.offline {
        pb::snapshot_description::Type::Disabled
    } else {
        pb::snapshot_description::Type::Flush
    };
    pb::SnapshotDescription {
        name: s.name,
        table: Some(s.table),
        creation_time: Some(s.creation_time_ms),
        r#type: Some(kind as i32),
        version: Some(2),
        owner: None,
        ttl: Some(0),
    }
}

fn table_of(d: &pb::SnapshotDescription) -> HResult<String> {
    d.table
        .clone()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| HBaseError::do_not_retry("the snapshot names no table"))
}

/// Runs one snapshot method of `MasterService`; `None` if `method` is not one.
pub(crate) fn call(ctx: &Context, method: &str, param: &[u8]) -> Option<HResult<Vec<u8>>> {
    let ops = ctx.ops.as_ref();
    let answer = match method {
        "Snapshot" => (|| {
            let req: pb::SnapshotRequest = decode(param)?;
            if req.snapshot.r#type == Some(pb::snapshot_description::Type::Skipflush as i32) {
                return Err(HBaseError::do_not_retry(
                    "SKIPFLUSH snapshots are not supported by Strata; take a FLUSH snapshot",
                ));
            }
            if req.snapshot.ttl.is_some_and(|ttl| ttl > 0) {
                return Err(HBaseError::do_not_retry(
                    "snapshot TTLs are not supported by Strata; delete snapshots explicitly",
                ));
            }
            ops.snapshot(&table_of(&req.snapshot)?, &req.snapshot.name)?;
            Ok(pb::SnapshotResponse {
                expected_timeout: 0,
                proc_id: Some(i64::try_from(next_procedure(ctx)).unwrap_or(i64::MAX)),
            }
            .encode_to_vec())
        })(),
        "IsSnapshotDone" => (|| {
            let req: pb::IsSnapshotDoneRequest = decode(param)?;
            let wanted = req.snapshot.map(|s| s.name);
            let found = ops
                .snapshots()?
                .into_iter()
                .find(|s| wanted.as_ref().is_none_or(|w| *w == s.name));
            Ok(pb::IsSnapshotDoneResponse {
                done: Some(found.is_some()),
                snapshot: found.map(description),
            }
            .encode_to_vec())
        })(),
        "GetCompletedSnapshots" => ops.snapshots().map(|list| {
            pb::GetCompletedSnapshotsResponse {
                snapshots: list.into_iter().map(description).collect(),
            }
            .encode_to_vec()
        }),
        "DeleteSnapshot" => (|| {
            let req: pb::DeleteSnapshotRequest = decode(param)?;
            ops.delete_snapshot(&req.snapshot.name)?;
            Ok(pb::DeleteSnapshotResponse {}.encode_to_vec())
        })(),
        "RestoreSnapshot" => (|| {
            let req: pb::RestoreSnapshotRequest = decode(param)?;
            if req.restore_acl == Some(true) {
                return Err(HBaseError::do_not_retry(
                    "restoring ACLs with a snapshot is not supported by Strata",
                ));
            }
            ops.restore_or_clone_snapshot(&req.snapshot.name, &table_of(&req.snapshot)?)?;
            Ok(pb::RestoreSnapshotResponse {
                proc_id: next_procedure(ctx),
            }
            .encode_to_vec())
        })(),
        // A restore or clone finished before it answered.
        "IsRestoreSnapshotDone" => {
            Ok(pb::IsRestoreSnapshotDoneResponse { done: Some(true) }.encode_to_vec())
        }
        _ => return None,
    };
    Some(answer)
}
