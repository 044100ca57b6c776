//! Recovered edits: writing a dead server's WAL out per region (the split, run by the master),
//! and replaying them when a region opens (run by the region server). The format is the
//! WAL's own: each `recovered/<region>/<dead server>.<split>/` directory is a WAL holding only
//! that region's entries, with their original sequence ids.
//!
//! Every split writes directories of its own (`<split>`, a random token per [`split_wal`]
//! call), never another split's: a master deposed in the middle of a split may go on writing
//! while the new active master splits the same WAL again, and neither may clear what the
//! other wrote (one clearing the other's complete edits, then failing itself as the WAL was
//! deleted under it, would lose them). The WAL is deleted only after one split wrote and
//! synced every region's edits; a split that stopped early leaves a subset of the entries,
//! which a replay takes with the complete one (an entry replayed twice is inserted once).
//!
//! A region opens once, on the server's own WAL, replaying these directories with it (entries
//! at or below a family's flushed sequence id are skipped, as in any WAL replay); it flushes
//! and deletes the directories before it serves. A crash anywhere leaves the directories for
//! the next opener, and replaying them again is harmless: what was flushed is skipped.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use strata_model::schema::{Durability, TableDescriptor};
use strata_server::RegionServer;
use strata_storage::manifest::RegionInfo;
use strata_storage::vfs::Storage;
use strata_storage::wal::{read_fenced, Entry as WalEntry, Wal, WalOptions};

use crate::names::{recovered_dir, server_dir, splitting_dir, wal_dir};

/// Entries appended to one region's recovered edits at a time.
const CHUNK: usize = 256;

/// The marker written once a server's WAL is split, before its segments are deleted.
fn split_marker(root: &Path, server: &str) -> PathBuf {
    root.join("wal")
        .join(format!("{}.split", server_dir(server)))
}

fn not_found(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound
}

/// Splits `server`'s WAL (already fenced, so moved to its splitting directory) into
/// per-region recovered edits, then deletes it.
/// Idempotent: a split interrupted before its marker was written is redone from the WAL (each
/// region's directory rewritten from scratch); after the marker, only the deletion is redone.
/// Returns the number of entries split.
///
/// # Errors
/// The log store failed or a segment is corrupt (retry later; nothing is deleted).
pub fn split_wal(storage: &Storage, root: &Path, server: &str) -> Result<u64, String> {
    // The fence moved the WAL to the splitting directory; the live one is read too (a WAL
    // fenced before fences moved directories; normally it no longer exists).
    let dirs = [splitting_dir(root, server), wal_dir(root, server)];
    let marker = split_marker(root, server);
    let err = |what: &str, p: &Path, e: &dyn std::fmt::Display| {
        format!("{what} {}: {e}", storage.files.url(p))
    };
    let done = storage
        .files
        .exists(&marker)
        .map_err(|e| err("check", &marker, &e))?;
    let mut entries = 0;
    if !done {
        let mut found = Vec::new();
        for dir in &dirs {
            match storage.logs.list(dir) {
                Ok(logs) if !logs.is_empty() => found.push(dir.clone()),
                Ok(_) => {}
                Err(e) if not_found(&e) => {}
                Err(e) => return Err(err("list", dir, &e)),
            }
        }
        if !found.is_empty() {
            let split = format!("{:016x}", rand::random::<u64>());
            entries = write_recovered(storage, root, (server, &split), &found)?;
            storage
                .files
                .write_atomic(&marker, b"split\n")
                .map_err(|e| err("write", &marker, &e))?;
        }
    }
    for dir in &dirs {
        match storage.files.remove_dir_all(dir) {
            Ok(()) => {}
            Err(e) if not_found(&e) => {}
            Err(e) => return Err(err("delete", dir, &e)),
        }
    }
    match storage.files.remove_file(&marker) {
        Ok(()) => {}
        Err(e) if not_found(&e) => {}
        Err(e) => return Err(err("delete", &marker, &e)),
    }
    Ok(entries)
}

fn write_recovered(
    storage: &Storage,
    root: &Path,
    (server, split): (&str, &str),
    dirs: &[PathBuf],
) -> Result<u64, String> {
    let mut out: HashMap<u64, (Wal, Vec<WalEntry>)> = HashMap::new();
    let mut count = 0u64;
    let started = Instant::now();
    let result: Result<(), String> = (|| {
        // The dead server's log is read once and left as it is (it is deleted once split).
        for dir in dirs {
            let entries = read_fenced(storage.logs.as_ref(), dir, false)
                .map_err(|e| format!("open the WAL of {server}: {e}"))?;
            for entry in entries {
                let entry = entry.map_err(|e| format!("read the WAL of {server}: {e}"))?;
                count += 1;
                let region = entry.region;
                let (wal, pending) = match out.entry(region) {
                    Entry::Occupied(o) => o.into_mut(),
                    Entry::Vacant(v) => v.insert((
                        open_target(storage, root, (server, split), region)?,
                        Vec::new(),
                    )),
                };
                pending.push(entry);
                if pending.len() >= CHUNK {
                    // Buffered: written by the log's flusher, and synced once per region below
                    // (a sync per chunk cost a round trip to every DataNode's disk per 256
                    // edits, most of a failover's split).
                    wal.append_batch(pending, Durability::AsyncWal)
                        .map_err(|e| format!("write recovered edits: {e}"))?;
                    pending.clear();
                }
            }
        }
        let read = started.elapsed();
        // Every region's edits are on stable storage before the split's marker is written and
        // the dead server's WAL deleted. The regions' syncs are independent round trips to
        // the DataNodes: they run at once rather than one after another.
        at_once(out.values_mut().collect(), |(wal, pending)| {
            if !pending.is_empty() {
                wal.append_batch(pending, Durability::AsyncWal)
                    .map_err(|e| format!("write recovered edits: {e}"))?;
                pending.clear();
            }
            wal.sync().map_err(|e| format!("sync recovered edits: {e}"))
        })?;
        tracing::info!(
            %server,
            regions = out.len(),
            read_ms = read.as_millis() as u64,
            sync_ms = (started.elapsed() - read).as_millis() as u64,
            "WAL read and recovered edits synced"
        );
        Ok(())
    })();
    // Closing a log is a round trip too (its last segment is completed on the NameNode).
    let closed = at_once(out.values().collect(), |(wal, _)| {
        wal.close()
            .map_err(|e| format!("close recovered edits: {e}"))
    });
    result?;
    closed?;
    Ok(count)
}

/// Most regions' recovered edits synced or closed at once.
const AT_ONCE: usize = 16;

/// Runs `work` on every item, [`AT_ONCE`] of them at a time on threads of their own; the
/// first failure, after all ran.
pub(crate) fn at_once<T: Send>(
    items: Vec<T>,
    work: impl Fn(T) -> Result<(), String> + Sync,
) -> Result<(), String> {
    let mut items = items.into_iter().peekable();
    let mut first = Ok(());
    while items.peek().is_some() {
        let batch: Vec<T> = items.by_ref().take(AT_ONCE).collect();
        std::thread::scope(|scope| {
            let work = &work;
            let handles: Vec<_> = batch
                .into_iter()
                .map(|item| scope.spawn(move || work(item)))
                .collect();
            for handle in handles {
                let outcome = handle
                    .join()
                    .unwrap_or_else(|_| Err("recovered edits: a worker panicked".into()));
                if first.is_ok() {
                    first = outcome;
                }
            }
        });
    }
    first
}

/// A fresh log for dead `server`'s edits of `region`, written by split `split` only.
fn open_target(
    storage: &Storage,
    root: &Path,
    (server, split): (&str, &str),
    region: u64,
) -> Result<Wal, String> {
    let target = recovered_dir(root, region).join(format!("{}.{split}", server_dir(server)));
    Wal::open_with(&target, WalOptions::default(), storage.logs.clone())
        .map_err(|e| format!("create {}: {e}", storage.files.url(&target)))
}

/// The recovered-edits directories of region `region_id` under `root` (one per dead server
/// whose WAL held its edits), in `server`'s log store.
///
/// # Errors
/// The listing failed.
pub fn recovered_logs(
    server: &RegionServer,
    root: &Path,
    region_id: u64,
) -> Result<Vec<PathBuf>, String> {
    let storage = &server.config().storage;
    let dir = recovered_dir(root, region_id);
    match storage.logs.list(&dir) {
        Ok(found) => Ok(found
            .into_iter()
            .filter(|e| e.is_dir)
            .map(|e| dir.join(&e.name))
            .collect()),
        Err(e) if not_found(&e) => Ok(Vec::new()),
        Err(e) => Err(format!("list {}: {e}", storage.files.url(&dir))),
    }
}

/// Opens region `info` of `table` on `server`, replaying its recovered edits in the same
/// open ([`RegionServer::open_region_recovering`]: flushed and deleted before it serves).
/// Returns the number of recovered-edits directories replayed.
///
/// # Errors
/// The listing failed, or the region did not open (the directories stay for the next try).
pub fn open_recovered(
    server: &RegionServer,
    root: &Path,
    table: &TableDescriptor,
    info: &RegionInfo,
) -> Result<usize, String> {
    let logs = recovered_logs(server, root, info.region_id)?;
    server
        .open_region_recovering(table, info, &logs)
        .map_err(|e| format!("open region {}: {e}", info.region_id))?;
    Ok(logs.len())
}
