//! Recovered edits: writing a dead server's WAL out per region (the split, run by the master),
//! and replaying them when a region opens (run by the region server). The format is the
//! WAL's own: each `recovered/<region>/<dead server>/` directory is a WAL holding only that
//! region's entries, with their original sequence ids.
//!
//! A region opens by replaying each such directory through a region opened on it (entries
//! at or below a family's flushed sequence id are skipped, as in any WAL replay), flushing
//! (the close), and deleting the directory; only then is it opened for serving on the
//! server's own WAL. A crash anywhere leaves the directory for the next opener, and replaying
//! it again is harmless: what was flushed is skipped.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_model::schema::{Durability, TableDescriptor};
use strata_server::RegionServer;
use strata_storage::clock::SystemClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::vfs::Storage;
use strata_storage::wal::{Entry as WalEntry, Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

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
            entries = write_recovered(storage, root, server, &found)?;
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
    server: &str,
    dirs: &[PathBuf],
) -> Result<u64, String> {
    let mut dead = Vec::new();
    for dir in dirs {
        dead.push(
            Wal::open_with(dir, WalOptions::default(), storage.logs.clone())
                .map_err(|e| format!("open the WAL of {server}: {e}"))?,
        );
    }
    let mut out: HashMap<u64, (Wal, Vec<WalEntry>)> = HashMap::new();
    let mut count = 0u64;
    let result = (|| {
        for entry in dead.iter().flat_map(|wal| wal.replay(|_| Some(0))) {
            let entry = entry.map_err(|e| format!("read the WAL of {server}: {e}"))?;
            count += 1;
            let region = entry.region;
            let (wal, pending) = match out.entry(region) {
                Entry::Occupied(o) => o.into_mut(),
                Entry::Vacant(v) => {
                    let target = recovered_dir(root, region).join(server_dir(server));
                    // A previous, interrupted split may have left part of this directory.
                    match storage.files.remove_dir_all(&target) {
                        Ok(()) => {}
                        Err(e) if not_found(&e) => {}
                        Err(e) => return Err(format!("clear {}: {e}", storage.files.url(&target))),
                    }
                    let wal = Wal::open_with(&target, WalOptions::default(), storage.logs.clone())
                        .map_err(|e| format!("create {}: {e}", storage.files.url(&target)))?;
                    v.insert((wal, Vec::new()))
                }
            };
            pending.push(entry);
            if pending.len() >= CHUNK {
                // Buffered: written by the log's flusher, and synced once per region below
                // (a sync per chunk cost a round trip to every DataNode's disk per 256 edits,
                // most of a failover's split).
                wal.append_batch(pending, Durability::AsyncWal)
                    .map_err(|e| format!("write recovered edits: {e}"))?;
                pending.clear();
            }
        }
        for (wal, pending) in out.values_mut() {
            if !pending.is_empty() {
                wal.append_batch(pending, Durability::AsyncWal)
                    .map_err(|e| format!("write recovered edits: {e}"))?;
                pending.clear();
            }
            // Every region's edits are on stable storage before the split's marker is written
            // and the dead server's WAL deleted.
            wal.sync()
                .map_err(|e| format!("sync recovered edits: {e}"))?;
        }
        Ok(())
    })();
    let mut closed = Ok(());
    for (wal, _) in out.values() {
        if let Err(e) = wal.close() {
            closed = Err(format!("close recovered edits: {e}"));
        }
    }
    for wal in &dead {
        let _ = wal.close();
    }
    result?;
    closed?;
    Ok(count)
}

/// Replays and flushes every recovered-edits directory of region `info` (of `table`, on
/// `server`'s volumes), deleting each once flushed. Returns the number of directories.
///
/// # Errors
/// The region could not be opened on them or flushed; the directories stay for the next try.
pub fn replay_recovered(
    server: &RegionServer,
    root: &Path,
    table: &TableDescriptor,
    info: &RegionInfo,
) -> Result<usize, String> {
    let storage = &server.config().storage;
    let dir = recovered_dir(root, info.region_id);
    let found = match storage.logs.list(&dir) {
        Ok(found) => found,
        Err(e) if not_found(&e) => return Ok(0),
        Err(e) => return Err(format!("list {}: {e}", storage.files.url(&dir))),
    };
    let mut replayed = 0;
    for sub in found.into_iter().filter(|e| e.is_dir) {
        let path = dir.join(&sub.name);
        let wal = Arc::new(
            Wal::open_with(&path, WalOptions::default(), storage.logs.clone())
                .map_err(|e| format!("open recovered edits {}: {e}", storage.files.url(&path)))?,
        );
        let region = Region::open(RegionConfig {
            dir: server.region_dir(table, info.region_id),
            table: table.clone(),
            info: info.clone(),
            wal: wal.clone(),
            cache: None,
            clock: Arc::new(SystemClock),
            background: None,
            budget: None,
            volumes: Some(server.volumes().clone()),
        })
        .map_err(|e| format!("replay recovered edits {}: {e}", storage.files.url(&path)));
        let flushed = region.and_then(|r| {
            r.close()
                .map_err(|e| format!("flush recovered edits of {}: {e}", info.region_id))
        });
        let _ = wal.close();
        flushed?;
        storage
            .files
            .remove_dir_all(&path)
            .map_err(|e| format!("delete {}: {e}", storage.files.url(&path)))?;
        replayed += 1;
    }
    Ok(replayed)
}
