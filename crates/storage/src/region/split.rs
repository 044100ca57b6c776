//! Splitting a region into two daughters that reference the parent's files (ARCHITECTURE.md,
//! "The life of a write"; RFC 0007, "Catalog").
//!
//! ```text
//!  split: no compactions (running, exclusive) ─▶ close for writes ─▶ flush ─▶ split row
//!         ─▶ per daughter: directory + manifest of References (Bottom: rows < split,
//!            Top: rows ≥ split) ─▶ parent stays closed
//!  later: each daughter's first compaction rewrites its references into real files
//!         ─▶ remove_split_parent deletes the parent once no daughter references it
//! ```
//!
//! # Crash safety
//! The parent's manifest is never changed by a split, and every write it acknowledged is in
//! its files (flushed) before the daughters exist. A daughter's manifest is published whole
//! (write, sync, rename), so a daughter directory either has a complete manifest or none. The
//! split is committed by the region's owner recording the daughters (the catalog); a crash
//! before that leaves the parent authoritative, and the owner deletes the daughter
//! directories and reopens the parent.
//!
//! # Invariants
//! 1. A parent file referenced by a daughter manifest is never deleted: the parent is closed
//!    (no compaction runs on a closed region) and [`Region::remove_split_parent`] checks
//!    every daughter's manifest first.
//! 2. Daughters continue the parent's sequence ids: their manifests start at the parent's
//!    flushed sequence id, so their writes order after every parent cell.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use strata_model::ops::escape;

use super::flush::sync_dir;
use super::open::region_dir_name;
use super::store::FileHandle;
use super::Region;
use crate::error::{Error, Result};
use crate::manifest::{
    self, Half, Manifest, Reference, RegionInfo, StoreFile, StoreFs, Version, VersionEdit,
};
use crate::vfs::FileStore;

impl Region {
    /// Splits the region at `split_row` (or the middle key of its largest store's largest
    /// file) into daughters `daughter_ids.0` (rows below the split row) and `daughter_ids.1`
    /// (rows from it), created under the same table directory with manifests that reference
    /// this region's files. Returns their infos; open them with [`Region::open`] at
    /// [`Region::sibling_dir`].
    ///
    /// On success this region is closed: writes fail with [`Error::Closed`], and its files
    /// must stay until [`Region::remove_split_parent`] finds no daughter referencing them.
    ///
    /// # Errors
    /// A split row not strictly inside the region, no usable middle key, a region that still
    /// holds references of its own split (compact it first), daughter ids in use, a closed
    /// region, or I/O. The region is open again and no daughter directory remains then.
    pub fn split(
        &self,
        split_row: Option<Bytes>,
        daughter_ids: (u64, u64),
    ) -> Result<(RegionInfo, RegionInfo)> {
        let _no_compactions = self.inner.compactions.running.write();
        self.check_open()?;
        let info = &self.inner.config.info;
        let (low, high) = daughter_ids;
        if low == high || low == info.region_id || high == info.region_id {
            return Err(Error::InvalidArgument(format!(
                "daughter ids {low} and {high} must differ from each other and from {}",
                info.region_id
            )));
        }
        if self.has_references() {
            return Err(Error::InvalidArgument(format!(
                "region {} still references its parent's files; compact it before splitting",
                info.region_id
            )));
        }
        // Closed first: a writer that has not taken the updates lock yet fails, one that has
        // is in the flush below.
        self.inner.closed.store(true, Ordering::SeqCst);
        let result = self.split_closed(split_row, daughter_ids);
        match &result {
            Ok(_) => {
                // As `close`: the memtables are empty and the budget forgets the region.
                self.account_memory();
                if let Some(budget) = &self.inner.config.budget {
                    budget.unregister(self);
                }
            }
            Err(_) => self.inner.closed.store(false, Ordering::SeqCst),
        }
        result
    }

    /// The directory of region `region_id` of this table (a daughter's, after a split).
    pub fn sibling_dir(&self, region_id: u64) -> PathBuf {
        let dir = &self.inner.config.dir;
        dir.parent().unwrap_or(dir).join(region_dir_name(region_id))
    }

    /// Deletes a split parent's directory once no daughter's manifest references its files;
    /// returns whether it did. A daughter whose manifest cannot be read counts as
    /// referencing (so a split that never finished never loses the parent's data).
    ///
    /// Requires: the parent is not open for writes (it is closed by the split).
    ///
    /// # Errors
    /// Removing the parent directory failed.
    pub fn remove_split_parent(
        files: &dyn FileStore,
        parent_dir: &Path,
        parent_id: u64,
        daughter_dirs: &[PathBuf],
    ) -> Result<bool> {
        Region::remove_split_parent_in(files, None, parent_dir, parent_id, daughter_dirs)
    }

    /// As [`Region::remove_split_parent`]; with `archive_root`, the root of the volume the
    /// parent is on, its store files move to that volume's archive instead of being deleted
    /// (a snapshot may name them, RFC 0025).
    ///
    /// # Errors
    /// Removing the parent directory failed.
    pub fn remove_split_parent_in(
        files: &dyn FileStore,
        archive_root: Option<&Path>,
        parent_dir: &Path,
        parent_id: u64,
        daughter_dirs: &[PathBuf],
    ) -> Result<bool> {
        for dir in daughter_dirs {
            let Some((_, version)) = manifest::read_current(files, dir).ok().flatten() else {
                return Ok(false);
            };
            let referenced = version.families().any(|(_, files)| {
                files.files().any(|f| {
                    f.reference
                        .as_ref()
                        .is_some_and(|r| r.parent_region_id == parent_id)
                })
            });
            if referenced {
                return Ok(false);
            }
        }
        match archive_root {
            Some(root) => crate::tiers::archive::remove_tree(files, root, parent_dir, true)
                .map(drop)
                .map_err(|e| Error::io(parent_dir, e))?,
            None => files
                .remove_dir_all(parent_dir)
                .map_err(|e| Error::io(parent_dir, e))?,
        }
        if let Some(table_dir) = parent_dir.parent() {
            sync_dir(files, table_dir)?;
        }
        Ok(true)
    }

    /// True while a store still reads a split parent's file through a reference (the region
    /// cannot split again until a compaction rewrites it).
    pub fn has_references(&self) -> bool {
        self.inner
            .stores
            .values()
            .any(|s| s.files().iter().any(|f| f.meta.is_borrowed()))
    }

    fn split_closed(
        &self,
        split_row: Option<Bytes>,
        (low, high): (u64, u64),
    ) -> Result<(RegionInfo, RegionInfo)> {
        self.flush()?;
        let info = self.inner.config.info.clone();
        let split = match split_row {
            Some(row) => row,
            None => self.midpoint()?,
        };
        let inside = split > info.start_row && (info.end_row.is_empty() || split < info.end_row);
        if !inside {
            return Err(Error::InvalidArgument(format!(
                "split row {} is not strictly inside region {} [{}, {})",
                escape(&split),
                info.region_id,
                escape(&info.start_row),
                escape(&info.end_row)
            )));
        }
        let bottom = RegionInfo {
            region_id: low,
            end_row: split.clone(),
            ..info.clone()
        };
        let top = RegionInfo {
            region_id: high,
            start_row: split.clone(),
            ..info
        };
        for id in [low, high] {
            let dir = self.sibling_dir(id);
            if self
                .inner
                .files
                .exists(&dir)
                .map_err(|e| Error::io(&dir, e))?
            {
                return Err(Error::InvalidArgument(format!(
                    "region directory {} exists already",
                    dir.display()
                )));
            }
        }
        let created = self
            .create_daughter(&bottom, Half::Bottom, &split)
            .and_then(|()| self.create_daughter(&top, Half::Top, &split));
        if let Err(e) = created {
            // Both directories are this split's own (neither existed above).
            for id in [low, high] {
                let _ = self.inner.files.remove_dir_all(&self.sibling_dir(id));
            }
            return Err(e);
        }
        Ok((bottom, top))
    }

    /// HBase's split point: the middle key's row of the largest file of the largest store,
    /// unless it is the file's first or last row (one huge row cannot be split).
    fn midpoint(&self) -> Result<Bytes> {
        let largest_store = self
            .inner
            .stores
            .values()
            .map(|s| s.files())
            .max_by_key(|files| files.iter().map(|f| f.meta.size).sum::<u64>());
        let largest_file: Option<Arc<FileHandle>> =
            largest_store.and_then(|files| files.iter().max_by_key(|f| f.meta.size).cloned());
        let none = || Error::InvalidArgument("the region has no usable split point".into());
        let file = largest_file.ok_or_else(none)?;
        let info = file.reader.info();
        let (Some(mid), Some(first), Some(last)) = (&info.mid_key, &info.first_key, &info.last_key)
        else {
            return Err(none());
        };
        if mid.row == first.row || mid.row == last.row {
            return Err(none());
        }
        Ok(mid.row.clone())
    }

    /// Creates daughter `info`'s directory and its manifest of references to this region's
    /// files on `half` of `split`.
    fn create_daughter(&self, info: &RegionInfo, half: Half, split: &Bytes) -> Result<()> {
        let dir = self.sibling_dir(info.region_id);
        let files = &self.inner.files;
        files.create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let parent = self.inner.manifest.lock().current().clone();
        let parent_id = self.inner.config.info.region_id;
        let mut edit = VersionEdit::new();
        for store in self.inner.stores.values() {
            let flushed = parent.family(&store.name).map_or(0, |f| f.flushed_seq_id());
            edit = edit.set_flushed_seq_id(store.name.clone(), flushed);
            for file in store.files().iter() {
                if let Some(meta) = reference(file, parent_id, half, split) {
                    edit = edit.add_file(store.name.clone(), meta);
                }
            }
        }
        let version = Version::new(info.clone(), self.inner.stores.keys().cloned())
            .map_err(Error::InvalidArgument)?
            .apply(&edit)
            .map_err(manifest::Error::from)?;
        Manifest::create(Arc::new(StoreFs::new(files.clone(), dir.clone())), version)?;
        if let Some(table_dir) = dir.parent() {
            sync_dir(files.as_ref(), table_dir)?;
        }
        Ok(())
    }
}

/// A daughter's reference to `half` of `file`, or `None` when that half holds no cell.
pub(super) fn reference(
    file: &FileHandle,
    parent_id: u64,
    half: Half,
    split: &Bytes,
) -> Option<StoreFile> {
    let info = file.reader.info();
    let (first, last) = (info.first_key.as_ref()?, info.last_key.as_ref()?);
    let has_cells = match half {
        Half::Bottom => first.row < *split,
        Half::Top => last.row >= *split,
    };
    has_cells.then(|| StoreFile {
        name: format!("{}.{}", file.meta.name, region_dir_name(parent_id)),
        reference: Some(Reference {
            parent_region_id: parent_id,
            parent_file: file.meta.name.clone(),
            half,
            split_row: split.clone(),
        }),
        ..file.meta.clone()
    })
}
