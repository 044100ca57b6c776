//! The admin service's paths through the coordination store: reading a table's records and
//! regions, and submitting requests to the master and waiting for their procedures (RFC 0016,
//! "Admin requests"). Shared by every admin call of [`crate::admin`] and the snapshot calls.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::master::{
    parse_result, submit_request, take_result, AdminRequest, RefusalKind,
};
use strata_cluster::record::{RegionRecord, RegionState, TableRecord, TableState};
use strata_proto::convert::table_to_pb;
use strata_proto::pb::{self, ErrorCode};
use strata_server::RegionServer;
use tonic::Status;

use crate::admin::{unavailable, ADMIN_WAIT};
use crate::names::{region_id, server_address};
use crate::schema::get_schema;

/// The live regions of `table` (split and merged parents left out), by start row: name,
/// storage id, record.
pub(crate) fn live_regions<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<Vec<(String, u64, RegionRecord)>, Status> {
    let page = range_all(kv, &layout.table_regions(table), 1000).map_err(unavailable)?;
    let mut out = Vec::new();
    for item in page.kvs {
        let Some(name) = item.key.strip_prefix(&layout.regions()) else {
            continue;
        };
        let (Some((_, id)), Ok(rec)) = (region_id(name), RegionRecord::decode(&item.value)) else {
            continue;
        };
        if matches!(rec.state, RegionState::Split | RegionState::Merged) {
            continue;
        }
        out.push((name.to_string(), id, rec));
    }
    out.sort_by(|a, b| a.2.start.cmp(&b.2.start));
    Ok(out)
}

/// Every region of `table` as wire locations, by start row; `TABLE_NOT_FOUND` if the table
/// has no record.
///
/// # Errors
/// The table does not exist, or etcd failed.
pub fn locate<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    server: Option<&RegionServer>,
    table: &str,
) -> Result<Vec<pb::RegionLocation>, Status> {
    if kv.get(&layout.table(table)).map_err(unavailable)?.is_none() {
        return Err(strata_proto::status(
            ErrorCode::TableNotFound,
            format!("table {table} does not exist"),
        ));
    }
    let mut out = Vec::new();
    // A split or merged parent kept for the janitor is left out: its daughters cover its rows.
    for (name, id, rec) in live_regions(kv, layout, table)? {
        let serving = rec.state == RegionState::Open;
        let stats = server
            .and_then(|s| s.region_stats(id).ok())
            .unwrap_or_default();
        let hosted = server.and_then(|s| s.hosted(id).ok());
        let requests = hosted.as_ref().map_or(0, |h| {
            let c = h.region.counters();
            c.reads
                .load(Ordering::Relaxed)
                .saturating_add(c.mutations.load(Ordering::Relaxed))
        });
        // What HBase's GetRegionInfo answers with `compaction_state`: those running now.
        let (minor, major) = hosted
            .as_ref()
            .map_or((0, 0), |h| h.region.compactions_in_progress());
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        out.push(pb::RegionLocation {
            table: table.to_string(),
            region_id: id,
            start_row: rec.start.into(),
            end_row: rec.end.into(),
            server: match (&rec.server, serving) {
                (Some(s), true) => server_address(s).to_string(),
                _ => String::new(),
            },
            store_bytes: stats.store_bytes,
            memtable_bytes: stats.memtable_bytes,
            store_files: stats.store_files,
            name,
            requests,
            minor_compactions: count(minor),
            major_compactions: count(major),
        });
    }
    Ok(out)
}

/// `table`'s record; `TABLE_NOT_FOUND` if it has none.
///
/// # Errors
/// The table does not exist, or etcd failed.
pub fn table_record<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<(TableRecord, i64), Status> {
    let found = kv
        .get(&layout.table(table))
        .map_err(unavailable)?
        .ok_or_else(|| {
            strata_proto::status(
                ErrorCode::TableNotFound,
                format!("table {table} does not exist"),
            )
        })?;
    let rec = TableRecord::decode(&found.value).map_err(unavailable)?;
    Ok((rec, found.create_revision))
}

/// `table`'s regions if it is enabled; `TABLE_DISABLED` while it is disabled or being
/// disabled or enabled (HBase's `TableNotEnabledException`), so clients neither read nor write
/// a disabled table.
///
/// # Errors
/// No such table, not enabled, or etcd failed.
pub fn locate_enabled<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    server: Option<&RegionServer>,
    table: &str,
) -> Result<Vec<pb::RegionLocation>, Status> {
    let (rec, _) = table_record(kv, layout, table)?;
    if matches!(
        rec.state,
        TableState::Disabled | TableState::Disabling | TableState::Enabling
    ) {
        return Err(strata_proto::status(
            ErrorCode::TableDisabled,
            format!("table {table} is not enabled"),
        ));
    }
    locate(kv, layout, server, table)
}

/// The pauses between reads of the store while an admin call waits: 2 ms at first, since a
/// cluster of one answers within a few of its master's ticks, doubling to 50 ms, so that a
/// long wait (a cluster's procedure) costs few reads.
pub(crate) struct Poll(Duration);

impl Poll {
    const FIRST: Duration = Duration::from_millis(2);
    const MAX: Duration = Duration::from_millis(50);

    pub(crate) fn new() -> Poll {
        Poll(Self::FIRST)
    }

    pub(crate) fn pause(&mut self) {
        std::thread::sleep(self.0);
        self.0 = (self.0 * 2).min(Self::MAX);
    }
}

/// Submits `req` to the master through etcd and waits for its answer: the id of the
/// procedure it started.
pub(crate) fn submit_and_wait<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    req: &AdminRequest,
) -> Result<String, Status> {
    let id = format!(
        "{}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
        std::process::id()
    );
    submit_request(kv, layout, &id, req).map_err(unavailable)?;
    let start = Instant::now();
    let mut poll = Poll::new();
    loop {
        if let Some(result) = take_result(kv, layout, &id).map_err(unavailable)? {
            return parse_result(&result).map_err(|r| {
                let code = match r.kind {
                    RefusalKind::TableExists => ErrorCode::TableExists,
                    RefusalKind::TableNotFound => ErrorCode::TableNotFound,
                    RefusalKind::TableEnabled => ErrorCode::TableEnabled,
                    RefusalKind::TableDisabled => ErrorCode::TableDisabled,
                    RefusalKind::RegionNotFound => ErrorCode::RegionNotFound,
                    RefusalKind::Invalid => return strata_server::status::invalid(r.message),
                };
                strata_proto::status(code, r.message)
            });
        }
        if start.elapsed() > ADMIN_WAIT {
            return Err(strata_proto::status(
                ErrorCode::Unavailable,
                format!("no active master took request {id} (it stays queued)"),
            ));
        }
        poll.pause();
    }
}

/// Waits until `done` holds, polling etcd.
pub(crate) fn wait_until<K: Kv + ?Sized>(
    kv: &K,
    what: &str,
    mut done: impl FnMut(&K) -> Result<bool, Status>,
) -> Result<(), Status> {
    let start = Instant::now();
    let mut poll = Poll::new();
    while !done(kv)? {
        if start.elapsed() > ADMIN_WAIT {
            return Err(strata_proto::status(
                ErrorCode::Unavailable,
                format!("{what}: still in progress after {ADMIN_WAIT:?}"),
            ));
        }
        poll.pause();
    }
    Ok(())
}

/// Submits `req` (a procedure) and waits until the procedure is done; `what` names it in
/// errors.
pub(crate) fn run_procedure<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    req: &AdminRequest,
    what: &str,
) -> Result<(), Status> {
    let id = submit_and_wait(kv, layout, req)?;
    wait_proc(kv, layout, what, &id)
}

/// Waits until procedure `proc_id` is done (its record gone).
pub(crate) fn wait_proc<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    what: &str,
    proc_id: &str,
) -> Result<(), Status> {
    wait_until(kv, what, |kv| {
        Ok(kv
            .get(&layout.proc(proc_id))
            .map_err(unavailable)?
            .is_none())
    })
}

/// Waits until every region of `table` is open on a server.
pub(crate) fn wait_served<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<(), Status> {
    wait_until(kv, &format!("open the regions of {table}"), |kv| {
        let regions = match locate(kv, layout, None, table) {
            Ok(r) => r,
            Err(_) => return Ok(false),
        };
        Ok(!regions.is_empty() && regions.iter().all(|r| !r.server.is_empty()))
    })
}

/// Deletes the schema of `table` if no table record of that name exists.
pub(crate) fn drop_unrecorded_schema<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<(), Status> {
    kv.txn(strata_cluster::kv::Txn {
        compares: vec![strata_cluster::kv::Compare::CreateRevision(
            layout.table(table),
            0,
        )],
        success: vec![strata_cluster::kv::Op::Delete(layout.schema(table))],
    })
    .map_err(unavailable)
    .map(|_| ())
}

pub(crate) fn table_info<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    server: Option<&RegionServer>,
    table: &str,
) -> Result<pb::TableInfo, Status> {
    let (rec, _) = table_record(kv, layout, table)?;
    let regions = locate(kv, layout, server, table)?;
    let schema = get_schema(kv, layout, table).map_err(unavailable)?;
    let state = match rec.state {
        TableState::Enabled => pb::TableState::Enabled,
        _ => pb::TableState::Disabled,
    };
    Ok(pb::TableInfo {
        schema: Some(table_to_pb(&schema)),
        state: state as i32,
        regions,
    })
}

/// Creates `table` split at `splits` and waits until every region is open: the schema (with
/// its namespace's checks), then the master's create procedure.
///
/// # Errors
/// The namespace's checks, the master's refusal, or a timeout.
pub(crate) fn create_now<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    server: Option<&RegionServer>,
    table: &strata_model::schema::TableDescriptor,
    splits: Vec<Vec<u8>>,
) -> Result<(), Status> {
    crate::policy_check::check_policies(server, table)?;
    let name = table.name.to_string();
    let count = splits.len() + 1;
    crate::namespace::put_schema(kv, layout, table, count)?;
    let submitted = submit_and_wait(
        kv,
        layout,
        &AdminRequest::CreateTable {
            table: name.clone(),
            splits,
        },
    );
    if let Err(refused) = submitted {
        // The master refused it: the schema written for it goes (unless a table of that name
        // was recorded meanwhile), so it holds its namespace no longer.
        let _ = drop_unrecorded_schema(kv, layout, &name);
        return Err(refused);
    }
    wait_until(kv, &format!("create {name}"), |kv| {
        let regions = match locate(kv, layout, None, &name) {
            Ok(r) => r,
            Err(_) => return Ok(false),
        };
        Ok(regions.len() == count && regions.iter().all(|r| !r.server.is_empty()))
    })
}
