//! Tables made from snapshots (`clone_snapshot`, `restore_snapshot`) as work that survives its
//! maker (RFC 0025, "Clones and restores").
//!
//! A restore drops the table, then clones the snapshot into its name; a clone creates the
//! table disabled, links its regions to the snapshot's files, then enables it. A maker killed
//! in between would leave a disabled half-made table, or none at all. So before its first
//! step the maker records `making/<table>` = `<snapshot> <restore 0|1> <start ms> <deadline
//! ms>` and moves the deadline while it works; every step below is idempotent, and the
//! master's janitor (standalone: the start) runs the steps of a record whose deadline passed
//! again, to the end. The table's `link/<table>` record, `<snapshot> <start ms>`, written
//! before the table is created, tells the maker's own table from another of the same name.

use std::path::Path;
use std::sync::Arc;

use strata_cluster::kv::{range_all, Compare, Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_cluster::master::AdminRequest;
use strata_cluster::record::TableState;
use strata_model::schema::TableName;
use strata_proto::convert::table_from_pb;
use strata_proto::pb::ErrorCode;
use strata_server::host::RegionServer;
use strata_storage::vfs::FileStore;
use tonic::Status;

use super::{done, now_ms, read_manifest, TAKING_DEADLINE_MS};
use crate::admin::{
    create_now, run_procedure, submit_and_wait, table_record, unavailable, wait_proc, wait_served,
};

/// A table being made from a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Making {
    /// The snapshot.
    pub snapshot: String,
    /// A restore (the table is left disabled, and an existing one is dropped first).
    pub restore: bool,
    /// When the making began, ms since the epoch (names the table's link record).
    pub start_ms: i64,
    /// When the work is taken over if its maker has not moved it.
    pub deadline_ms: i64,
}

impl Making {
    /// A making of `table` from `snapshot` beginning now.
    pub fn new(snapshot: &str, restore: bool) -> Making {
        let now = now_ms();
        Making {
            snapshot: snapshot.to_owned(),
            restore,
            start_ms: now,
            deadline_ms: now + TAKING_DEADLINE_MS,
        }
    }

    fn encode(&self) -> Vec<u8> {
        format!(
            "{} {} {} {}",
            self.snapshot,
            u8::from(self.restore),
            self.start_ms,
            self.deadline_ms
        )
        .into_bytes()
    }

    fn decode(bytes: &[u8]) -> Option<Making> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut parts = text.split(' ');
        let snapshot = parts.next()?.to_owned();
        let restore = parts.next()? == "1";
        let start_ms = parts.next()?.parse().ok()?;
        let deadline_ms = parts.next()?.parse().ok()?;
        Some(Making {
            snapshot,
            restore,
            start_ms,
            deadline_ms,
        })
    }

    /// The table's link record while (and after) it is made by this making.
    fn link(&self) -> String {
        format!("{} {}", self.snapshot, self.start_ms)
    }
}

/// Records that `table` is being made; refused while another making of it is under way.
///
/// # Errors
/// Another making of `table` whose maker is alive; the store failed.
pub fn begin<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
    making: &Making,
) -> Result<(), Status> {
    let key = layout.making(table);
    let mut compares = vec![Compare::CreateRevision(key.clone(), 0)];
    if let Some(found) = kv.get(&key).map_err(unavailable)? {
        match Making::decode(&found.value) {
            Some(other) if other.deadline_ms > now_ms() => {
                return Err(strata_proto::status(
                    ErrorCode::Constraint,
                    format!(
                        "table {table} is being made from snapshot {} already",
                        other.snapshot
                    ),
                ))
            }
            // Its maker died: this making takes the table over.
            _ => compares = vec![Compare::ModRevision(key.clone(), found.mod_revision)],
        }
    }
    let put = kv
        .txn(Txn {
            compares,
            success: vec![Op::put(key, making.encode())],
        })
        .map_err(unavailable)?;
    if put.succeeded {
        Ok(())
    } else {
        Err(strata_proto::status(
            ErrorCode::Constraint,
            format!("table {table} is being made from a snapshot already"),
        ))
    }
}

/// Moves the deadline of `table`'s making (while its maker works).
pub fn renew<K: Kv + ?Sized>(kv: &K, layout: &Layout, table: &str, making: &Making) {
    let moved = Making {
        deadline_ms: now_ms() + TAKING_DEADLINE_MS,
        ..making.clone()
    };
    let _ = kv.txn(Txn {
        compares: Vec::new(),
        success: vec![Op::put(layout.making(table), moved.encode())],
    });
}

/// Forgets `table`'s making (done, or given up with an error its caller reports).
pub fn finish<K: Kv + ?Sized>(kv: &K, layout: &Layout, table: &str) {
    let _ = kv.txn(Txn {
        compares: Vec::new(),
        success: vec![Op::Delete(layout.making(table))],
    });
}

/// Waits (bounded: two minutes) while `table` is being made from a snapshot, as HBase's
/// table operations queue behind a restore's table lock: an enable, disable, truncate or
/// drop then acts on the finished table.
///
/// # Errors
/// `UNAVAILABLE` when the making does not end in time; the store failed.
pub fn wait_until_made<K: Kv + ?Sized>(kv: &K, layout: &Layout, table: &str) -> Result<(), Status> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while let Some(found) = kv.get(&layout.making(table)).map_err(unavailable)? {
        if std::time::Instant::now() > deadline {
            let snapshot = Making::decode(&found.value)
                .map(|m| m.snapshot)
                .unwrap_or_default();
            return Err(strata_proto::status(
                ErrorCode::Unavailable,
                format!("table {table} is still being made from snapshot {snapshot}"),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Ok(())
}

/// Makes `table` from the snapshot, resuming wherever an earlier attempt of the same making
/// stopped; the number of store files linked.
///
/// # Errors
/// The snapshot is gone, a clone's table name was taken by another table, or a step failed.
pub fn make<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    server: Option<&RegionServer>,
    (files, root): (&Arc<dyn FileStore>, &Path),
    table: &str,
    making: &Making,
) -> Result<usize, Status> {
    let name = &making.snapshot;
    let (_, _, token, _) = done(kv, layout, name)?;
    let manifest = read_manifest(files.as_ref(), root, name)?;
    let link = making.link();
    let ours = kv
        .get(&layout.link(table))
        .map_err(unavailable)?
        .is_some_and(|found| found.value == link.as_bytes());
    // A drop, create or disable submitted before a crash may still be running.
    let exists = settled_state(kv, layout, table)?.is_some();
    if exists && !ours {
        if !making.restore {
            return Err(strata_proto::status(
                ErrorCode::TableExists,
                format!("table {table} already exists"),
            ));
        }
        // The table being restored: its files go to the archive. A drop a dead maker
        // submitted may be about to start: then this one is refused, and waits for that one.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while settled_state(kv, layout, table)?.is_some() {
            let request = AdminRequest::DropTable {
                table: table.to_owned(),
            };
            let dropped = submit_and_wait(kv, layout, &request)
                .and_then(|id| wait_proc(kv, layout, &format!("drop {table}"), &id));
            match dropped {
                Ok(_) => break,
                Err(e) if std::time::Instant::now() > deadline => return Err(e),
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(100)),
            }
        }
    }
    if !(exists && ours) {
        let mut schema = table_from_pb(manifest.schema.clone().unwrap_or_default())
            .map_err(|e| strata_proto::status(ErrorCode::Corruption, e.to_string()))?;
        schema.name = TableName::parse(table).map_err(strata_server::status::invalid)?;
        let splits = manifest
            .regions
            .iter()
            .skip(1)
            .map(|r| r.start_row.to_vec())
            .collect();
        kv.txn(Txn {
            compares: Vec::new(),
            success: vec![Op::put(layout.link(table), link.into_bytes())],
        })
        .map_err(unavailable)?;
        match create_now(kv, layout, server, &schema, splits) {
            // The create a dead maker submitted ran first: the table is this making's.
            Err(e) if strata_proto::code_of(&e) == ErrorCode::TableExists => {}
            other => other?,
        }
    }
    // A create or disable submitted before a crash may still be running, or still queued
    // (the table then reads enabled, and this disable is refused while that one runs): wait
    // for it, and try again while the table is enabled.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while settled_state(kv, layout, table)? == Some(TableState::Enabled) {
        // Its regions opened once (their manifests exist) before they close again.
        wait_served(kv, layout, table)?;
        let disabled = run_procedure(
            kv,
            layout,
            &AdminRequest::DisableTable {
                table: table.to_owned(),
            },
            &format!("disable {table}"),
        );
        match disabled {
            Ok(_) => break,
            Err(e) if std::time::Instant::now() > deadline => return Err(e),
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(100)),
        }
    }
    let links = super::clone::link_regions(kv, layout, files, root, &manifest, table)?;
    // The snapshot must have lived until the links were written (the cleaner keeps what they
    // name from then on).
    if done(kv, layout, name).map(|d| d.2).ok() != Some(token) {
        return Err(strata_proto::status(
            ErrorCode::SnapshotNotFound,
            format!("snapshot {name} was deleted while {table} was made from it"),
        ));
    }
    if !making.restore {
        run_procedure(
            kv,
            layout,
            &AdminRequest::EnableTable {
                table: table.to_owned(),
            },
            &format!("enable {table}"),
        )?;
        wait_served(kv, layout, table)?;
    }
    Ok(links)
}

/// `table`'s state once no procedure is changing it, `None` once it does not exist
/// (bounded: a minute).
fn settled_state<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<Option<TableState>, Status> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let state = match table_record(kv, layout, table) {
            Ok((rec, _)) => rec.state,
            Err(e) if strata_proto::code_of(&e) == ErrorCode::TableNotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if matches!(state, TableState::Enabled | TableState::Disabled) {
            return Ok(Some(state));
        }
        if std::time::Instant::now() > deadline {
            return Err(strata_proto::status(
                ErrorCode::Unavailable,
                format!("table {table} stays {state:?}"),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Runs again, to the end, every making whose deadline passed (every one, with `all`: a
/// standalone process starting is the only maker there is); how many finished.
///
/// # Errors
/// Reading the records failed. A making that fails again is logged and left for next time.
pub fn resume_stale<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    data: (&Arc<dyn FileStore>, &Path),
    all: bool,
) -> Result<usize, Status> {
    let prefix = layout.makings();
    let page = range_all(kv, &prefix, 1000).map_err(unavailable)?;
    let mut finished = 0;
    for item in page.kvs {
        let Some(table) = item.key.strip_prefix(&prefix) else {
            continue;
        };
        let Some(making) = Making::decode(&item.value) else {
            tracing::warn!(table, "a making record that does not parse is dropped");
            finish(kv, layout, table);
            continue;
        };
        if !all && making.deadline_ms > now_ms() {
            continue;
        }
        // Taken over: the deadline moves so that no other janitor round starts it too.
        renew(kv, layout, table, &making);
        match make(kv, layout, None, data, table, &making) {
            Ok(links) => {
                tracing::info!(table, snapshot = %making.snapshot, links, restore = making.restore,
                    "an interrupted clone or restore finished");
                finish(kv, layout, table);
                finished += 1;
            }
            Err(e)
                if matches!(
                    strata_proto::code_of(&e),
                    ErrorCode::SnapshotNotFound | ErrorCode::TableExists
                ) =>
            {
                tracing::warn!(table, snapshot = %making.snapshot, error = %e.message(),
                    "an interrupted clone or restore cannot finish; given up");
                finish(kv, layout, table);
            }
            Err(e) => tracing::warn!(table, snapshot = %making.snapshot, error = %e.message(),
                "an interrupted clone or restore failed again; tried again later"),
        }
    }
    Ok(finished)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_making_record_round_trips() {
        let m = Making::new("s1", true);
        assert_eq!(Making::decode(&m.encode()), Some(m.clone()));
        assert_eq!(Making::decode(b"s1 0 12"), None);
    }
}
