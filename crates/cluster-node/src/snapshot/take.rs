//! Taking a snapshot (RFC 0025, "Registration"): a `taking` record, a flush of the table (by
//! the caller, which can reach the servers), the region manifests read from the root, the
//! snapshot's manifest written, then the record rewritten `done`: the commit point. A
//! failure before the commit deletes the record and the directory; a crash leaves a `taking`
//! record the cleaner abandons once its deadline passes.

use std::path::{Path, PathBuf};

use prost::Message;
use strata_cluster::kv::{Compare, Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_cluster::record::TableState;
use strata_model::schema::TableName;
use strata_proto::convert::table_to_pb;
use strata_proto::pb::{self, ErrorCode};
use strata_storage::manifest::read_current;
use strata_storage::region::region_dir_name;
use strata_storage::vfs::FileStore;
use tonic::Status;

use super::{manifest_path, snapshot_dir, Record, TAKING_DEADLINE_MS};
use crate::admin::{table_record, unavailable};
pub(crate) use crate::admin_path::live_regions;
use crate::schema::get_schema;

/// A table's directory relative to the root (`tables/<namespace>/<qualifier>`) and under it.
///
/// # Errors
/// A malformed table name.
pub fn table_dirs(root: &Path, table: &str) -> Result<(String, PathBuf), Status> {
    let name = TableName::parse(table).map_err(strata_server::status::invalid)?;
    let rel = Path::new("tables")
        .join(name.namespace())
        .join(name.qualifier());
    Ok((rel.to_string_lossy().into_owned(), root.join(rel)))
}

/// Writes snapshot `name`'s `taking` record if no snapshot of that name exists and `table`
/// does; answers the record's revision and whether the table is enabled (its regions must
/// be flushed) or disabled (its files are the whole table).
///
/// # Errors
/// `SNAPSHOT_EXISTS`, `TABLE_NOT_FOUND`, `UNAVAILABLE` while the table is busy.
pub fn begin<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    name: &str,
    table: &str,
    token: u64,
    now_ms: i64,
) -> Result<(i64, bool), Status> {
    let (rec, created) = table_record(kv, layout, table)?;
    let enabled = match rec.state {
        TableState::Enabled => true,
        TableState::Disabled => false,
        other => {
            return Err(strata_proto::status(
                ErrorCode::Unavailable,
                format!("table {table} is busy ({other:?}); retry the snapshot"),
            ))
        }
    };
    let record = Record::Taking {
        table: table.to_string(),
        token,
        deadline_ms: now_ms + TAKING_DEADLINE_MS,
    };
    let key = layout.snapshot(name);
    let outcome = kv
        .txn(Txn {
            compares: vec![
                Compare::CreateRevision(key.clone(), 0),
                Compare::CreateRevision(layout.table(table), created),
            ],
            success: vec![Op::put(key.clone(), record.encode())],
        })
        .map_err(unavailable)?;
    if !outcome.succeeded {
        if kv.get(&key).map_err(unavailable)?.is_some() {
            return Err(strata_proto::status(
                ErrorCode::SnapshotExists,
                format!("Snapshot '{name}' already stored on the filesystem."),
            ));
        }
        return Err(strata_proto::status(
            ErrorCode::Unavailable,
            format!("table {table} changed while the snapshot began; retry"),
        ));
    }
    Ok((outcome.revision, enabled))
}

/// Reads every live region's manifest of `table` from `root` (after the caller flushed the
/// table) and writes snapshot `name`'s manifest. A region that split or merged while its
/// manifest was read sends the round again (at most three).
///
/// # Errors
/// `UNAVAILABLE` when the store or the coordination store fails, or the regions kept
/// changing.
pub fn capture<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    files: &dyn FileStore,
    root: &Path,
    name: &str,
    table: &str,
    creation_ms: i64,
) -> Result<(), Status> {
    let schema = get_schema(kv, layout, table).map_err(unavailable)?;
    let (table_rel, table_dir) = table_dirs(root, table)?;
    for _round in 0..3 {
        let regions = live_regions(kv, layout, table)?;
        let mut out = Vec::with_capacity(regions.len());
        for (_, id, rec) in &regions {
            let dir = table_dir.join(region_dir_name(*id));
            let manifest = read_current(files, &dir)
                .map_err(|e| {
                    strata_proto::status(
                        ErrorCode::Unavailable,
                        format!("read the manifest in {}: {e}", files.url(&dir)),
                    )
                })?
                .map(|(bytes, _)| bytes)
                .unwrap_or_default();
            out.push(pb::SnapshotRegion {
                start_row: rec.start.clone().into(),
                end_row: rec.end.clone().into(),
                region_id: *id,
                table_dir: table_rel.clone(),
                manifest: manifest.into(),
            });
        }
        let names: Vec<&String> = regions.iter().map(|(n, _, _)| n).collect();
        let again = live_regions(kv, layout, table)?;
        if again.iter().map(|(n, _, _)| n).ne(names) {
            continue; // a split or merge finished meanwhile: read the new regions
        }
        let manifest = pb::SnapshotManifest {
            name: name.to_string(),
            table: table.to_string(),
            creation_time_ms: creation_ms,
            schema: Some(table_to_pb(&schema)),
            regions: out,
        };
        let dir = snapshot_dir(root, name);
        let path = manifest_path(root, name);
        let write = files
            .create_dir_all(&dir)
            .and_then(|()| files.write_atomic(&path, &manifest.encode_to_vec()));
        return write.map_err(|e| {
            strata_proto::status(
                ErrorCode::Unavailable,
                format!("write {}: {e}", files.url(&path)),
            )
        });
    }
    Err(strata_proto::status(
        ErrorCode::Unavailable,
        format!("the regions of {table} kept splitting or merging; retry the snapshot"),
    ))
}

/// Rewrites the `taking` record at revision `rev` as `done`: the snapshot exists from now.
///
/// # Errors
/// `UNAVAILABLE` if the record changed meanwhile (the cleaner abandoned it) or the store
/// failed.
pub fn commit<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    name: &str,
    done: &Record,
    rev: i64,
) -> Result<(), Status> {
    let key = layout.snapshot(name);
    let outcome = kv
        .txn(Txn {
            compares: vec![Compare::ModRevision(key.clone(), rev)],
            success: vec![Op::put(key, done.encode())],
        })
        .map_err(unavailable)?;
    if outcome.succeeded {
        Ok(())
    } else {
        Err(strata_proto::status(
            ErrorCode::Unavailable,
            format!("snapshot {name} was abandoned while it was taken; take it again"),
        ))
    }
}

/// Moves the deadline of the `taking` record at revision `rev` to `deadline_ms`; answers the
/// record's new revision, or `None` if it changed meanwhile (abandoned by the cleaner).
///
/// # Errors
/// The coordination store failed.
pub fn renew<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    name: &str,
    taking: &Record,
    rev: i64,
) -> Result<Option<i64>, Status> {
    let key = layout.snapshot(name);
    let outcome = kv
        .txn(Txn {
            compares: vec![Compare::ModRevision(key.clone(), rev)],
            success: vec![Op::put(key, taking.encode())],
        })
        .map_err(unavailable)?;
    Ok(outcome.succeeded.then_some(outcome.revision))
}

/// Abandons every `taking` record: in a cluster of one at its start, no snapshot can still
/// be being taken (its taker was this process, now restarted). Answers how many.
///
/// # Errors
/// The coordination store failed.
pub fn abandon_all<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    files: &dyn FileStore,
    root: &Path,
) -> Result<usize, Status> {
    let mut n = 0;
    for (name, rec, rev) in super::records(kv, layout)? {
        if matches!(rec, Record::Taking { .. }) {
            abandon(kv, layout, files, root, &name, rev);
            tracing::warn!(snapshot = %name, "abandoned a snapshot the last run did not finish");
            n += 1;
        }
    }
    Ok(n)
}

/// Deletes an unfinished snapshot: its record if still at revision `rev`, then its directory
/// (best effort: the cleaner deletes what is left once the record is gone).
pub fn abandon<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    files: &dyn FileStore,
    root: &Path,
    name: &str,
    rev: i64,
) {
    let key = layout.snapshot(name);
    let removed = kv.txn(Txn {
        compares: vec![Compare::ModRevision(key.clone(), rev)],
        success: vec![Op::Delete(key)],
    });
    if matches!(removed, Ok(ref o) if o.succeeded) {
        let _ = files.remove_dir_all(&snapshot_dir(root, name));
    }
}
