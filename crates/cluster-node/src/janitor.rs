//! The recovered-edits janitor: deletes `recovered/<id>/` directories that no region will ever
//! replay. A dead server's WAL is split for every region it had edits of; when the table of
//! such a region was dropped (or truncated, or the region replaced by a split's daughters)
//! before the split ran, nothing opens that region again and its recovered edits would stay
//! on the shared root for ever.
//!
//! Safety: the janitor lists `recovered/` *before* it reads the region records. A directory
//! is only written for a region that had a record and was served (a server had its edits in
//! its WAL), so a directory listed before the read belongs either to a region whose record
//! the read returns (kept) or to a region whose record was already deleted (nothing opens it
//! again: removed). A record created during the read has no directory yet. Deleting is
//! idempotent, so every master may run the janitor.

use std::collections::BTreeSet;
use std::io;
use std::path::Path;

use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_storage::vfs::Storage;

use crate::names::region_id;

/// What one sweep found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Swept {
    /// Recovered-edits directories kept (their region has a record).
    pub kept: usize,
    /// Directories deleted (no record names their region).
    pub removed: usize,
}

/// The storage ids of every region that has a record in etcd.
///
/// # Errors
/// Reading etcd failed.
pub(crate) fn live_region_ids<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<BTreeSet<u64>, String> {
    let prefix = layout.regions();
    Ok(range_all(kv, &prefix, 1000)
        .map_err(|e| format!("read the region records: {e}"))?
        .kvs
        .iter()
        .filter_map(|item| item.key.strip_prefix(&prefix))
        .filter_map(region_id)
        .map(|(_, id)| id)
        .collect())
}

/// Deletes the recovered edits of regions that have no record in etcd.
///
/// # Errors
/// Listing the root or reading etcd failed (nothing was deleted then), or a deletion failed.
pub fn sweep_recovered<K: Kv + ?Sized>(
    storage: &Storage,
    root: &Path,
    kv: &K,
    layout: &Layout,
) -> Result<Swept, String> {
    let dir = root.join("recovered");
    // Listed first: see the module's safety argument.
    let listed = match storage.files.list(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Swept::default()),
        Err(e) => return Err(format!("list {}: {e}", storage.files.url(&dir))),
    };
    if listed.is_empty() {
        return Ok(Swept::default());
    }
    let live = live_region_ids(kv, layout)?;
    let mut swept = Swept::default();
    for entry in listed.iter().filter(|e| e.is_dir) {
        // Names the janitor did not write are not its business.
        let Ok(id) = u64::from_str_radix(&entry.name, 16) else {
            continue;
        };
        if entry.name.len() != 16 || live.contains(&id) {
            swept.kept += 1;
            continue;
        }
        let path = dir.join(&entry.name);
        match storage.files.remove_dir_all(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("delete {}: {e}", storage.files.url(&path))),
        }
        tracing::info!(
            dir = %storage.files.url(&path),
            "deleted recovered edits of a region that no longer exists"
        );
        swept.removed += 1;
    }
    Ok(swept)
}

/// Sweeps, every `period` on a thread of its own until `stop` is set, the recovered edits no
/// region will replay (under `root` of `storage`), the region directories in `places` no
/// record names ([`crate::region_sweep::sweep_region_dirs`]) and the archived store files no
/// snapshot or clone references ([`crate::snapshot::cleaner`]) in the archives of `places`
/// and of `volumes` (a one-process Strata's local volumes beside its data directory). A failed sweep is logged and
/// tried again next time.
///
/// # Errors
/// The thread could not be started.
pub fn spawn<K: Kv + Send + 'static>(
    (storage, root): (Storage, std::path::PathBuf),
    places: Vec<crate::region_sweep::Place>,
    volumes: Vec<crate::region_sweep::Place>,
    kv: K,
    layout: Layout,
    period: std::time::Duration,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<std::thread::JoinHandle<()>, String> {
    use std::sync::atomic::Ordering;
    use std::time::Instant;
    // An archived file is deleted at the second round finding it unreferenced (RFC 0025).
    let mut cleaner = crate::snapshot::cleaner::Cleaner::new(period);
    let archives: Vec<crate::region_sweep::Place> = places.iter().cloned().chain(volumes).collect();
    std::thread::Builder::new()
        .name("janitor".into())
        .spawn(move || loop {
            let next = Instant::now() + period;
            while Instant::now() < next {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            match sweep_recovered(&storage, &root, &kv, &layout) {
                Ok(swept) if swept.removed > 0 => tracing::info!(
                    removed = swept.removed,
                    kept = swept.kept,
                    "recovered-edits sweep"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "recovered-edits sweep failed"),
            }
            let started = Instant::now();
            match crate::region_sweep::sweep_region_dirs(&places, &kv, &layout) {
                Ok(swept) if swept.removed > 0 => tracing::info!(
                    removed = swept.removed,
                    kept = swept.kept,
                    us = started.elapsed().as_micros() as u64,
                    "region-directory sweep"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "region-directory sweep failed"),
            }
            // A clone or restore whose maker died is finished here (RFC 0025).
            if let Err(e) =
                crate::snapshot::making::resume_stale(&kv, &layout, (&storage.files, &root), false)
            {
                tracing::warn!(error = %e.message(), "resuming clones and restores failed");
            }
            match cleaner.round(&storage, &root, &archives, &kv, &layout) {
                Ok(c) if c.deleted > 0 || c.abandoned > 0 => tracing::info!(
                    deleted = c.deleted,
                    archived = c.archived,
                    referenced = c.referenced,
                    abandoned = c.abandoned,
                    "archive cleaned"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "archive cleaning failed"),
            }
        })
        .map_err(|e| format!("cannot start the janitor: {e}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::rc::Rc;

    use strata_cluster::kv::{Op, Txn};
    use strata_cluster::mem::{MemKv, MemStore, Perfect};

    use super::*;
    use crate::names::recovered_dir;

    #[test]
    fn only_the_edits_of_regions_without_records_are_deleted() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let storage = Storage::local();
        let kv = MemKv::new(MemStore::new(1), Rc::new(Perfect));
        let layout = Layout::new("c");
        // Nothing recovered yet: nothing to do, and etcd is not read.
        assert_eq!(
            sweep_recovered(&storage, root, &kv, &layout).unwrap(),
            Swept::default()
        );
        let live = "t,1a-3.00000000";
        kv.txn(Txn {
            compares: Vec::new(),
            success: vec![Op::put(layout.region(live), b"region1 open".to_vec())],
        })
        .unwrap();
        let (_, live_id) = region_id(live).unwrap();
        let (_, dropped_id) = region_id("t,19-1.00000000").unwrap();
        for id in [live_id, dropped_id] {
            let d = recovered_dir(root, id).join("a,1,1");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("00000000000000000001.wal"), b"x").unwrap();
        }
        std::fs::create_dir_all(root.join("recovered").join("not-ours")).unwrap();
        let swept = sweep_recovered(&storage, root, &kv, &layout).unwrap();
        assert_eq!(
            swept,
            Swept {
                kept: 1,
                removed: 1
            }
        );
        assert!(recovered_dir(root, live_id).exists());
        assert!(!recovered_dir(root, dropped_id).exists());
        assert!(root.join("recovered").join("not-ours").exists());
        // Idempotent.
        let again = sweep_recovered(&storage, root, &kv, &layout).unwrap();
        assert_eq!(again.removed, 0);
    }
}
