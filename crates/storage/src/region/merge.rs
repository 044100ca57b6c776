//! Merging two adjacent regions into one that references both parents' files (the inverse of
//! a split; ARCHITECTURE.md, "The life of a write").
//!
//! ```text
//!  merge: no compactions on either ─▶ close both for writes ─▶ flush both
//!         ─▶ merged directory + manifest: low's files as Bottom halves and high's as Top
//!            halves at the boundary row (each half is the whole file) ─▶ parents stay closed
//!  later: the merged region's first compaction rewrites the references
//!         ─▶ Region::remove_split_parent deletes each parent once unreferenced
//! ```
//!
//! # Crash safety
//! As for a split: neither parent's manifest changes, every acknowledged write is in their
//! files before the merged directory exists, and the merged manifest is published whole. The
//! owner commits the merge in its catalog; before that the parents stay authoritative.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::flush::sync_dir;
use super::split::reference;
use super::Region;
use crate::error::{Error, Result};
use crate::manifest::{self, Half, Manifest, RegionInfo, StoreFs, Version, VersionEdit};

impl Region {
    /// Merges `low` and the region right after it, `high`, into a new region `merged_id`
    /// whose manifest references both parents' files. Returns its info; open it with
    /// [`Region::open`] at [`Region::sibling_dir`]. On success both parents are closed.
    ///
    /// # Errors
    /// Regions of different tables, not adjacent, still holding references of an earlier
    /// split or merge (compact them first), a merged id in use, a closed region, or I/O. Both
    /// parents are open again and no merged directory remains then.
    pub fn merge(low: &Region, high: &Region, merged_id: u64) -> Result<RegionInfo> {
        let (a, b) = (low.info().clone(), high.info().clone());
        if a.table != b.table || a.end_row.is_empty() || a.end_row != b.start_row {
            return Err(Error::InvalidArgument(format!(
                "regions {} and {} are not adjacent regions of one table",
                a.region_id, b.region_id
            )));
        }
        if [a.region_id, b.region_id].contains(&merged_id) {
            return Err(Error::InvalidArgument(format!(
                "merged id {merged_id} must differ from the parents' ids"
            )));
        }
        let _no_low_compactions = low.inner.compactions.running.write();
        let _no_high_compactions = high.inner.compactions.running.write();
        low.check_open()?;
        high.check_open()?;
        if low.has_references() || high.has_references() {
            return Err(Error::InvalidArgument(
                "a region still references its parent's files; compact it before merging".into(),
            ));
        }
        low.inner.closed.store(true, Ordering::SeqCst);
        high.inner.closed.store(true, Ordering::SeqCst);
        let merged = RegionInfo {
            region_id: merged_id,
            end_row: b.end_row.clone(),
            ..a.clone()
        };
        let result = low
            .flush()
            .and_then(|_| high.flush())
            .and_then(|_| create_merged(low, high, &merged));
        match result {
            Ok(()) => {
                for r in [low, high] {
                    r.account_memory();
                    if let Some(budget) = &r.inner.config.budget {
                        budget.unregister(r);
                    }
                }
                Ok(merged)
            }
            Err(e) => {
                let _ = low.inner.files.remove_dir_all(&low.sibling_dir(merged_id));
                low.inner.closed.store(false, Ordering::SeqCst);
                high.inner.closed.store(false, Ordering::SeqCst);
                Err(e)
            }
        }
    }
}

fn create_merged(low: &Region, high: &Region, merged: &RegionInfo) -> Result<()> {
    let dir = low.sibling_dir(merged.region_id);
    let files = &low.inner.files;
    if files.exists(&dir).map_err(|e| Error::io(&dir, e))? {
        return Err(Error::InvalidArgument(format!(
            "region directory {} exists already",
            dir.display()
        )));
    }
    files.create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let boundary = high.info().start_row.clone();
    let mut edit = VersionEdit::new();
    for (parent, half) in [(low, Half::Bottom), (high, Half::Top)] {
        let parent_id = parent.info().region_id;
        for store in parent.inner.stores.values() {
            for file in store.files().iter() {
                if let Some(meta) = reference(file, parent_id, half, &boundary) {
                    edit = edit.add_file(store.name.clone(), meta);
                }
            }
        }
    }
    // Sequence ids continue after both parents' (flushed ids are per family).
    for name in low.inner.stores.keys() {
        let flushed = [low, high]
            .iter()
            .filter_map(|r| {
                let v = r.inner.manifest.lock().current().clone();
                v.family(name).map(|f| f.flushed_seq_id())
            })
            .max()
            .unwrap_or(0);
        edit = edit.set_flushed_seq_id(name.clone(), flushed);
    }
    let version = Version::new(merged.clone(), low.inner.stores.keys().cloned())
        .map_err(Error::InvalidArgument)?
        .apply(&edit)
        .map_err(manifest::Error::from)?;
    Manifest::create(Arc::new(StoreFs::new(files.clone(), dir.clone())), version)?;
    if let Some(table_dir) = dir.parent() {
        sync_dir(files.as_ref(), table_dir)?;
    }
    Ok(())
}
