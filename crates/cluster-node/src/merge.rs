//! Merging regions in cluster mode, from a client's side: one merge request through etcd (the
//! master moves the two regions onto one server if they are apart and has it merge them, RFC
//! 0017), then waiting until the procedure ends and the merged region is open. Used by the
//! `Merge` admin call (the shell's `merge_region`, HBase's `MergeTableRegions`) and by
//! `strata cluster merge`.

use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::master::AdminRequest;
use strata_cluster::record::{Procedure, RegionRecord, RegionState};
use strata_proto::pb::ErrorCode;
use tonic::Status;

use crate::admin::{submit_and_wait, table_record, unavailable, wait_proc, wait_until};
use crate::names::region_id;

/// A merge: the two regions (lower first) and the merged region's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeDone {
    /// The merged regions, lower first.
    pub regions: (String, String),
    /// The new region.
    pub merged: String,
}

fn region_record<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    region: &str,
) -> Result<Option<RegionRecord>, Status> {
    let Some(found) = kv.get(&layout.region(region)).map_err(unavailable)? else {
        return Ok(None);
    };
    RegionRecord::decode(&found.value)
        .map(Some)
        .map_err(unavailable)
}

/// The name of `table`'s region with storage id `id` (as `Locate` reports it), or, failing
/// that, of its region numbered `id`'s low 32 bits (a short name `TABLE,SEQ` turned into an
/// id); `REGION_NOT_FOUND` if none, `TABLE_NOT_FOUND` without the table.
///
/// # Errors
/// As above, or etcd failed.
pub fn region_named<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
    id: u64,
) -> Result<String, Status> {
    table_record(kv, layout, table)?;
    let page = range_all(kv, &layout.table_regions(table), 1000).map_err(unavailable)?;
    let names: Vec<(String, u64)> = page
        .kvs
        .iter()
        .filter_map(|item| item.key.strip_prefix(&layout.regions()))
        .filter_map(|name| region_id(name).map(|(_, id)| (name.to_string(), id)))
        .collect();
    let exact = names.iter().find(|(_, i)| *i == id);
    let by_seq = || {
        names
            .iter()
            .find(|(_, i)| *i & 0xffff_ffff == id & 0xffff_ffff)
    };
    exact
        .or_else(by_seq)
        .map(|(n, _)| n.clone())
        .ok_or_else(|| {
            strata_proto::status(
                ErrorCode::RegionNotFound,
                format!("table {table} has no region {id:016x}"),
            )
        })
}

/// Merges regions `a` and `b` (full names, either order). Waits until the merge ended and the
/// merged region is open; answers the merge.
///
/// # Errors
/// A refused request (`REGION_NOT_FOUND`, `TABLE_DISABLED`, `INVALID_ARGUMENT`: the same
/// region twice, different tables, not adjacent, in transition), or the merge rolled back
/// (the region server failed: both regions are served again).
pub fn merge<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    a: &str,
    b: &str,
) -> Result<MergeDone, Status> {
    // HBase's merge procedure refuses the same way (`MergeTableRegionsProcedure`).
    let table = strata_cluster::layout::region_table(a);
    if crate::schema::find_schema(kv, layout, table)?.is_some_and(|t| !t.merge_enabled) {
        return Err(strata_server::status::invalid(format!(
            "Merge of {a} and {b} failed as region merge is disabled for the table {table}"
        )));
    }
    let req = AdminRequest::Merge {
        a: a.to_string(),
        b: b.to_string(),
    };
    let proc_id = submit_and_wait(kv, layout, &req)?;
    // The merged region's name, from the procedure (its record outlives the merged parents',
    // which the janitor deletes); from the parents' records if the procedure ended already.
    let named = match kv.get(&layout.proc(&proc_id)).map_err(unavailable)? {
        Some(found) => match Procedure::decode(&found.value) {
            Ok(Procedure::Merge { merged, .. }) => Some(merged),
            _ => None,
        },
        None => None,
    };
    wait_proc(kv, layout, &format!("merge {a} and {b}"), &proc_id)?;
    let (ra, rb) = (region_record(kv, layout, a)?, region_record(kv, layout, b)?);
    let merged = match named {
        Some(m) => region_record(kv, layout, &m)?.map(|_| m),
        None => match (
            ra.as_ref().and_then(RegionRecord::merged_into),
            rb.as_ref().and_then(RegionRecord::merged_into),
        ) {
            (Some(x), Some(y)) if x == y => Some(x.to_string()),
            _ => None,
        },
    };
    let Some(merged) = merged else {
        return Err(strata_proto::status(
            ErrorCode::Unavailable,
            format!(
                "the merge of {a} and {b} rolled back (a region server failed or moved a \
                 region meanwhile: see its log); both regions are served again"
            ),
        ));
    };
    wait_until(kv, &format!("open the merged region {merged}"), |kv| {
        Ok(match region_record(kv, layout, &merged)? {
            // Split or merged again meanwhile: served through its successors.
            Some(rec) => matches!(
                rec.state,
                RegionState::Open | RegionState::Split | RegionState::Merged
            ),
            None => false,
        })
    })?;
    let low_first = ra.is_some_and(|r| rb.is_some_and(|s| r.start <= s.start));
    let regions = if low_first {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    };
    Ok(MergeDone { regions, merged })
}
