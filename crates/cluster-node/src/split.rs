//! Splitting regions in cluster mode, from a client's side: one split request per region
//! through etcd (the master has the region's server split it, RFC 0012), then waiting until
//! the procedure ends and the daughters are open. Used by the `Split` admin call (the shell's
//! `split`) and by `strata cluster split`.

use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::{region_table, Layout};
use strata_cluster::master::AdminRequest;
use strata_cluster::record::{RegionRecord, RegionState, TableState};
use strata_proto::pb::ErrorCode;
use tonic::Status;

use crate::admin::{submit_and_wait, table_record, unavailable, wait_proc, wait_until};

/// A region split: the parent's name and its daughters'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitDone {
    /// The parent.
    pub parent: String,
    /// The daughters (lower half first).
    pub daughters: (String, String),
}

/// The region records of `table` (split and merged parents left out), by name.
fn live_regions<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<Vec<(String, RegionRecord)>, Status> {
    let page = range_all(kv, &layout.table_regions(table), 1000).map_err(unavailable)?;
    Ok(page
        .kvs
        .into_iter()
        .filter_map(|item| {
            let name = item.key.strip_prefix(&layout.regions())?.to_string();
            let rec = RegionRecord::decode(&item.value).ok()?;
            (!matches!(rec.state, RegionState::Split | RegionState::Merged)).then_some((name, rec))
        })
        .collect())
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

/// Splits `target`: a region (`table,…` name) at `row` or its middle key; or a table: the
/// region holding `row`, or without a row every open region at its middle key. Waits until
/// each split ended and its daughters are open; answers the splits made.
///
/// # Errors
/// No such table or region, a row outside it, a refused request, or no region could split
/// (too little data for a middle key, say; `INVALID_ARGUMENT`).
pub fn split<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    target: &str,
    row: Option<Vec<u8>>,
) -> Result<Vec<SplitDone>, Status> {
    let (table, regions) = if target.contains(',') {
        (region_table(target).to_string(), vec![target.to_string()])
    } else {
        let table = strata_model::schema::TableName::parse(target)
            .map_err(strata_server::status::invalid)?
            .to_string();
        let (rec, _) = table_record(kv, layout, &table)?;
        if rec.state != TableState::Enabled {
            return Err(strata_proto::status(
                ErrorCode::TableDisabled,
                format!("table {table} is not enabled"),
            ));
        }
        let all = live_regions(kv, layout, &table)?;
        let chosen: Vec<String> = match &row {
            Some(r) => all
                .into_iter()
                .filter(|(_, rec)| {
                    r.as_slice() >= rec.start.as_slice()
                        && (rec.end.is_empty() || r.as_slice() < rec.end.as_slice())
                })
                .map(|(name, _)| name)
                .collect(),
            None => all
                .into_iter()
                .filter(|(_, rec)| rec.state == RegionState::Open)
                .map(|(name, _)| name)
                .collect(),
        };
        (table, chosen)
    };
    // HBase's split procedure refuses the same way (`SplitTableRegionProcedure`).
    if crate::schema::find_schema(kv, layout, &table)?.is_some_and(|t| !t.split_enabled) {
        return Err(strata_server::status::invalid(format!(
            "Split region {} failed as region split is disabled for the table {table}",
            regions.first().map_or(target, String::as_str)
        )));
    }
    if regions.is_empty() {
        return Err(strata_server::status::invalid(format!(
            "no open region of {table} to split"
        )));
    }
    let single = regions.len() == 1;
    let mut started = Vec::new();
    for region in regions {
        if let Err(e) = crate::namespace::admit_split(kv, layout, &table, &region) {
            if single || started.is_empty() {
                return Err(e);
            }
            break; // the namespace's region quota is reached: the splits started still run
        }
        let req = AdminRequest::Split {
            region: region.clone(),
            row: row.clone(),
        };
        match submit_and_wait(kv, layout, &req) {
            Ok(proc_id) => started.push((region, proc_id)),
            Err(e) if single => return Err(e),
            Err(_) => {} // in transition, say: the others still split
        }
    }
    let mut done = Vec::new();
    for (region, proc_id) in started {
        wait_proc(kv, layout, &format!("split {region}"), &proc_id)?;
        if let Some(RegionRecord {
            state: RegionState::Split,
            daughters: Some(daughters),
            ..
        }) = region_record(kv, layout, &region)?
        {
            done.push(SplitDone {
                parent: region,
                daughters,
            });
        }
    }
    if done.is_empty() {
        return Err(strata_server::status::invalid(format!(
            "no region of {table} could split (too little data for a middle key, or the region \
             server failed: see its log)"
        )));
    }
    for s in &done {
        wait_until(kv, &format!("open the daughters of {}", s.parent), |kv| {
            for d in [&s.daughters.0, &s.daughters.1] {
                match region_record(kv, layout, d)? {
                    Some(rec) if rec.state == RegionState::Open => {}
                    // A daughter split again meanwhile is served through its own daughters.
                    Some(rec) if rec.state == RegionState::Split => {}
                    _ => return Ok(false),
                }
            }
            Ok(true)
        })?;
    }
    Ok(done)
}
