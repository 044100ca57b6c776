//! The snapshot calls of the admin service, written once for the gRPC admin service and
//! HBase RPC's master service.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;

use strata_cluster::kv::{Compare, Kv, Op, Txn};
use strata_cluster::record::TableState;
use strata_proto::pb::admin_server::Admin;
use strata_proto::pb::{self, ErrorCode};
use strata_storage::vfs::Storage;
use tonic::{Request, Response, Status};

use super::making::{self, Making};
use super::take::{abandon, begin, capture, commit, renew};
use super::{
    check_name, done, now_ms, read_manifest, records, snapshot_dir, Record, RENEW_EVERY_MS,
    TAKING_DEADLINE_MS,
};
use crate::admin::{table_name, table_record, unavailable, ClusterAdmin};

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    fn snapshot_data(&self) -> Result<(Storage, PathBuf), Status> {
        self.data.clone().ok_or_else(|| {
            strata_proto::status(
                ErrorCode::Unavailable,
                "this process has no data root; ask a region server",
            )
        })
    }

    /// Takes snapshot `name` of `table`: online (the table's regions are flushed first) or,
    /// of a disabled table, of its files.
    ///
    /// # Errors
    /// A bad name, an existing snapshot, a missing table, or a failure (the snapshot is then
    /// abandoned: it does not exist).
    pub async fn take_snapshot(
        &self,
        req: pb::SnapshotRequest,
    ) -> Result<pb::SnapshotDescription, Status> {
        check_name(&req.name)?;
        let table = table_name(&req.table)?;
        let (storage, root) = self.snapshot_data()?;
        let name = req.name;
        let token: u64 = rand::random();
        let creation_ms = now_ms();
        let (n, t) = (name.clone(), table.clone());
        let (rev, enabled) = self
            .run(move |kv, layout, _| begin(kv, layout, &n, &t, token, creation_ms))
            .await?
            .into_inner();
        // The deadline moves while this works, so only a dead taker leaves a stale record.
        let rev = Arc::new(AtomicI64::new(rev));
        let stop = Arc::new(AtomicBool::new(false));
        let renewer = self.renew_while_taking(&name, &table, token, rev.clone(), stop.clone());
        let taken = async {
            if enabled {
                self.flush_for_snapshot(&table).await?;
            }
            let (n, t, st, r) = (name.clone(), table.clone(), storage.clone(), root.clone());
            self.run(move |kv, layout, _| {
                capture(kv, layout, st.files.as_ref(), &r, &n, &t, creation_ms)
            })
            .await
        }
        .await;
        stop.store(true, Ordering::SeqCst);
        let _ = renewer.await;
        let rev = rev.load(Ordering::SeqCst);
        let taken = match taken {
            Ok(_) => {
                let (n, t) = (name.clone(), table.clone());
                self.run(move |kv, layout, _| {
                    let record = Record::Done {
                        table: t,
                        creation_ms,
                        token,
                        offline: !enabled,
                    };
                    commit(kv, layout, &n, &record, rev)
                })
                .await
                .map(drop)
            }
            Err(e) => Err(e),
        };
        if let Err(e) = taken {
            let n = name.clone();
            let _ = self
                .run(move |kv, layout, _| {
                    abandon(kv, layout, storage.files.as_ref(), &root, &n, rev);
                    Ok(())
                })
                .await;
            return Err(e);
        }
        tracing::info!(snapshot = %name, table = %table, "snapshot taken");
        Ok(pb::SnapshotDescription {
            name,
            table,
            creation_time_ms: creation_ms,
            offline: !enabled,
        })
    }

    /// Moves snapshot `name`'s deadline every [`RENEW_EVERY_MS`] until `stop`, keeping the
    /// record's revision in `rev`.
    fn renew_while_taking(
        &self,
        name: &str,
        table: &str,
        token: u64,
        rev: Arc<AtomicI64>,
        stop: Arc<AtomicBool>,
    ) -> tokio::task::JoinHandle<()> {
        let (kv, layout) = (self.kv.clone(), self.layout.clone());
        let (name, table) = (name.to_string(), table.to_string());
        tokio::spawn(async move {
            let mut waited = 0;
            while !stop.load(Ordering::SeqCst) {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                waited += 100;
                if waited < RENEW_EVERY_MS {
                    continue;
                }
                waited = 0;
                let taking = Record::Taking {
                    table: table.clone(),
                    token,
                    deadline_ms: now_ms() + TAKING_DEADLINE_MS,
                };
                let (kv, layout, name, rev) =
                    (kv.clone(), layout.clone(), name.clone(), rev.clone());
                let _ = tokio::task::spawn_blocking(move || {
                    if let Ok(Some(new)) = renew(
                        kv.as_ref(),
                        &layout,
                        &name,
                        &taking,
                        rev.load(Ordering::SeqCst),
                    ) {
                        rev.store(new, Ordering::SeqCst);
                    }
                })
                .await;
            }
        })
    }

    /// Flushes every region of `table`, retrying while a region is in transition; a table
    /// disabled meanwhile has flushed its regions as it closed them.
    async fn flush_for_snapshot(&self, table: &str) -> Result<(), Status> {
        let mut attempts = 0;
        loop {
            let req = Request::new(pb::TableRequest {
                table: table.to_string(),
            });
            match Admin::flush(self, req).await {
                Ok(_) => return Ok(()),
                Err(e) if strata_proto::code_of(&e) == ErrorCode::TableDisabled => return Ok(()),
                Err(e) if strata_proto::code_of(&e) == ErrorCode::Unavailable && attempts < 40 => {
                    attempts += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(250)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The complete snapshots whose name matches `name_pattern` (whole name; empty: all) and,
    /// if given, of `table`, oldest first.
    ///
    /// # Errors
    /// A bad pattern, or the coordination store failed.
    pub async fn snapshots(
        &self,
        req: pb::ListSnapshotsRequest,
    ) -> Result<pb::ListSnapshotsResponse, Status> {
        let pattern = if req.name_pattern.is_empty() {
            None
        } else {
            Some(
                regex::Regex::new(&format!("^(?:{})$", req.name_pattern))
                    .map_err(strata_server::status::invalid)?,
            )
        };
        let table = if req.table.is_empty() {
            None
        } else {
            Some(table_name(&req.table)?)
        };
        self.run(move |kv, layout, _| {
            let mut snapshots: Vec<pb::SnapshotDescription> = records(kv, layout)?
                .into_iter()
                .filter_map(|(name, rec, _)| match rec {
                    Record::Done {
                        table,
                        creation_ms,
                        offline,
                        ..
                    } => Some(pb::SnapshotDescription {
                        name,
                        table,
                        creation_time_ms: creation_ms,
                        offline,
                    }),
                    Record::Taking { .. } => None,
                })
                .filter(|s| pattern.as_ref().is_none_or(|p| p.is_match(&s.name)))
                .filter(|s| table.as_ref().is_none_or(|t| *t == s.table))
                .collect();
            snapshots
                .sort_by(|a, b| (a.creation_time_ms, &a.name).cmp(&(b.creation_time_ms, &b.name)));
            Ok(pb::ListSnapshotsResponse { snapshots })
        })
        .await
        .map(Response::into_inner)
    }

    /// Deletes snapshot `name`: its record, then its directory. Files only it referenced are
    /// deleted by the cleaner's next rounds; a clone's links keep theirs.
    ///
    /// # Errors
    /// No such (complete) snapshot, or the coordination store failed.
    pub async fn remove_snapshot(&self, name: String) -> Result<(), Status> {
        check_name(&name)?;
        let (storage, root) = self.snapshot_data()?;
        self.run(move |kv, layout, _| {
            let (_, _, _, rev) = done(kv, layout, &name)?;
            let key = layout.snapshot(&name);
            let outcome = kv
                .txn(Txn {
                    compares: vec![Compare::ModRevision(key.clone(), rev)],
                    success: vec![Op::Delete(key)],
                })
                .map_err(unavailable)?;
            if !outcome.succeeded {
                return Err(super::not_found(&name));
            }
            let dir = snapshot_dir(&root, &name);
            if let Err(e) = storage.files.remove_dir_all(&dir) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(error = %e, "snapshot {name} deleted; its directory stays");
                }
            }
            tracing::info!(snapshot = %name, "snapshot deleted");
            Ok(())
        })
        .await
        .map(Response::into_inner)
    }

    /// Clones snapshot `name` into the new table `table`: the snapshot's schema and region
    /// boundaries, regions linking to the snapshot's files; enabled unless `restore` (then an
    /// existing, disabled `table` is dropped first). Recorded as a making
    /// ([`super::making`]): if this process dies midway, the master finishes it.
    ///
    /// # Errors
    /// No such snapshot, an existing table (for a clone) or a missing namespace, another
    /// making of `table` under way, or a failure.
    pub async fn clone_snapshot_into(
        &self,
        name: String,
        table: String,
        restore: bool,
    ) -> Result<(), Status> {
        check_name(&name)?;
        let table = table_name(&table)?;
        let (storage, root) = self.snapshot_data()?;
        let making = Making::new(&name, restore);
        let (t, m) = (table.clone(), making.clone());
        self.run(move |kv, layout, _| {
            done(kv, layout, &m.snapshot)?;
            if !m.restore && kv.get(&layout.table(&t)).map_err(unavailable)?.is_some() {
                return Err(strata_proto::status(
                    ErrorCode::TableExists,
                    format!("table {t} already exists"),
                ));
            }
            making::begin(kv, layout, &t, &m)
        })
        .await?;
        let stop = Arc::new(AtomicBool::new(false));
        let renewing = {
            let (kv, layout, stop) = (self.kv.clone(), self.layout.clone(), stop.clone());
            let (table, making) = (table.clone(), making.clone());
            tokio::spawn(async move {
                let mut waited = 0;
                while !stop.load(Ordering::SeqCst) {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    waited += 100;
                    if waited >= RENEW_EVERY_MS {
                        waited = 0;
                        let (kv, layout, table, making) =
                            (kv.clone(), layout.clone(), table.clone(), making.clone());
                        let _ = tokio::task::spawn_blocking(move || {
                            making::renew(kv.as_ref(), &layout, &table, &making);
                        })
                        .await;
                    }
                }
            })
        };
        let made = self
            .run(move |kv, layout, server| {
                let made =
                    making::make(kv, layout, server, (&storage.files, &root), &table, &making);
                match &made {
                    Ok(links) => tracing::info!(snapshot = %name, table = %table, links,
                        restore, "table made from a snapshot"),
                    Err(e) => tracing::warn!(snapshot = %name, table = %table,
                        error = %e.message(), "making a table from a snapshot failed"),
                }
                // Done, or failed with the error its caller sees: nothing to resume.
                making::finish(kv, layout, &table);
                made
            })
            .await;
        stop.store(true, Ordering::SeqCst);
        let _ = renewing.await;
        made.map(|_| ())
    }

    /// Registers snapshot `name`, exported under this cluster's root by `strata snapshot
    /// export`, and moves its staged files into the archive. Running it again after an
    /// interruption finishes the move.
    ///
    /// # Errors
    /// No exported manifest of that name (`SNAPSHOT_NOT_FOUND`), another snapshot of that name
    /// (`SNAPSHOT_EXISTS`), or a failure.
    pub async fn import_exported(&self, name: String) -> Result<pb::SnapshotDescription, Status> {
        check_name(&name)?;
        let (storage, root) = self.snapshot_data()?;
        self.run(move |kv, layout, _| {
            let files = storage.files.as_ref();
            let path = super::manifest_path(&root, &name);
            if files.len(&path).map_err(unavailable)?.is_none() {
                return Err(strata_proto::status(
                    ErrorCode::SnapshotNotFound,
                    format!("no exported snapshot {name} under {}", files.url(&root)),
                ));
            }
            let manifest = read_manifest(files, &root, &name)?;
            let key = layout.snapshot(&name);
            let record = Record::Done {
                table: manifest.table.clone(),
                creation_ms: manifest.creation_time_ms,
                token: rand::random(),
                offline: false,
            };
            let created = kv
                .txn(Txn {
                    compares: vec![Compare::CreateRevision(key.clone(), 0)],
                    success: vec![Op::put(key.clone(), record.encode())],
                })
                .map_err(unavailable)?;
            if !created.succeeded {
                // Imported before, its files perhaps not all moved: the same table finishes.
                let same = kv
                    .get(&key)
                    .map_err(unavailable)?
                    .and_then(|found| Record::decode(&found.value).ok())
                    .is_some_and(
                        |r| matches!(r, Record::Done { ref table, .. } if *table == manifest.table),
                    );
                if !same {
                    return Err(strata_proto::status(
                        ErrorCode::SnapshotExists,
                        format!("Snapshot '{name}' already stored on the filesystem."),
                    ));
                }
            }
            let moved = super::export::unstage(files, &root, &name).map_err(unavailable)?;
            tracing::info!(snapshot = %name, moved, "exported snapshot imported");
            Ok(pb::SnapshotDescription {
                name,
                table: manifest.table,
                creation_time_ms: manifest.creation_time_ms,
                offline: false,
            })
        })
        .await
        .map(Response::into_inner)
    }

    /// Restores the snapshot's table to snapshot `name`: the table must be disabled; it is
    /// dropped (its files go to the archive) and made again from the snapshot, left disabled
    /// as HBase leaves it. A table that does not exist is cloned from the snapshot.
    ///
    /// # Errors
    /// No such snapshot, an enabled table, or a failure.
    pub async fn restore_snapshot_now(&self, name: String) -> Result<(), Status> {
        check_name(&name)?;
        let n = name.clone();
        let (table, exists) = self
            .run(move |kv, layout, _| {
                let (table, _, _, _) = done(kv, layout, &n)?;
                let exists = match table_record(kv, layout, &table) {
                    Ok((rec, _)) if rec.state == TableState::Disabled => true,
                    Ok(_) => {
                        return Err(strata_proto::status(
                            ErrorCode::TableEnabled,
                            format!("table {table} is not disabled; disable it first"),
                        ))
                    }
                    Err(e) if strata_proto::code_of(&e) == ErrorCode::TableNotFound => false,
                    Err(e) => return Err(e),
                };
                Ok((table, exists))
            })
            .await?
            .into_inner();
        // The drop of the existing table is the making's first step, so a restore
        // interrupted after it still ends with the table.
        self.clone_snapshot_into(name, table, exists).await
    }
}
