//! The master's operations: table lifecycle, region assignment and splits, each one a
//! catalog change stored durably before (or, for removals, after) region servers act on it.
//!
//! # Invariants
//! 1. A region directory exists on disk only for regions in the catalog; anything else (a
//!    daughter of a split that crashed before its commit, a dropped table) is deleted when the
//!    master starts.
//! 2. Every serving region of an enabled table is open on its server once `start` returns;
//!    none of a disabled table is.
//! 3. Admin operations run one at a time (`admin` lock); readers of the catalog (`locate`)
//!    never wait for region I/O.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};
use strata_model::schema::TableDescriptor;
use strata_server::RegionServer;
use strata_storage::manifest::RegionInfo;

use crate::catalog::{Catalog, RegionEntry, TableEntry};
use crate::coordinator::Coordinator;
use crate::error::{MasterError, Result};

mod namespaces;

/// The master, with the region server it assigns regions to (standalone: one, in process).
pub struct Master {
    coordinator: Box<dyn Coordinator>,
    host: Arc<RegionServer>,
    catalog: RwLock<Catalog>,
    admin: Mutex<()>,
}

impl Master {
    /// Loads the catalog, removes region directories it does not list, and opens every
    /// serving region of every enabled table on `host`.
    ///
    /// # Errors
    /// A damaged catalog, or a region that fails to open.
    pub fn start(coordinator: Box<dyn Coordinator>, host: Arc<RegionServer>) -> Result<Master> {
        let catalog = match coordinator.load()? {
            Some(bytes) => Catalog::decode(&bytes)?,
            None => Catalog::new(),
        };
        let master = Master {
            coordinator,
            host,
            catalog: RwLock::new(catalog),
            admin: Mutex::new(()),
        };
        master.remove_unlisted_region_dirs()?;
        let address = master.host.config().advertised_address.clone();
        let mut catalog = master.catalog.write();
        for entry in catalog.regions.values_mut() {
            entry.server.clone_from(&address);
        }
        let to_open: Vec<(TableDescriptor, RegionInfo)> = catalog
            .regions
            .values()
            .filter(|r| r.is_serving())
            .filter_map(|r| {
                let t = catalog.tables.get(&r.info.table)?;
                t.enabled.then(|| (t.descriptor.clone(), r.info.clone()))
            })
            .collect();
        let encoded = catalog.encode();
        drop(catalog);
        master.coordinator.store(&encoded)?;
        for (table, info) in to_open {
            master.host.open_region(&table, &info)?;
        }
        Ok(master)
    }

    /// The region server regions are assigned to.
    pub fn host(&self) -> &Arc<RegionServer> {
        &self.host
    }

    /// A copy of the catalog.
    pub fn catalog(&self) -> Catalog {
        self.catalog.read().clone()
    }

    fn save(&self, catalog: &Catalog) -> Result<()> {
        self.coordinator.store(&catalog.encode())?;
        *self.catalog.write() = catalog.clone();
        Ok(())
    }

    /// Removes region directories the catalog does not list, on every volume.
    fn remove_unlisted_region_dirs(&self) -> Result<()> {
        let catalog = self.catalog.read();
        let root = self.host.config().data_dir.clone();
        let listed: HashSet<std::path::PathBuf> = catalog
            .regions
            .values()
            .filter_map(|r| {
                let t = catalog.tables.get(&r.info.table)?;
                let dir = self.host.region_dir(&t.descriptor, r.info.region_id);
                dir.strip_prefix(&root)
                    .ok()
                    .map(std::path::Path::to_path_buf)
            })
            .collect();
        for volume in self.host.volumes().all() {
            // Each volume in its own store (the ARCHIVE tier may be a bucket).
            let files = self.host.volumes().files_of(volume.kind).as_ref();
            let tables = volume.path.join("tables");
            for ns in read_dirs(files, &tables)? {
                for table in read_dirs(files, &ns)? {
                    for region in read_dirs(files, &table)? {
                        let rel = region.strip_prefix(&volume.path).unwrap_or(&region);
                        if !listed.contains(rel) {
                            files
                                .remove_dir_all(&region)
                                .map_err(|e| MasterError::io(&region, e))?;
                        }
                    }
                    if read_dirs(files, &table)?.is_empty() {
                        files
                            .remove_dir_all(&table)
                            .map_err(|e| MasterError::io(&table, e))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates a table with one region per range between `split_keys`, and opens them.
    ///
    /// # Errors
    /// The table exists, the schema or keys are invalid, or a region fails to open (the
    /// table is removed again then).
    pub fn create_table(&self, table: TableDescriptor, split_keys: &[Bytes]) -> Result<()> {
        let _admin = self.admin.lock();
        table
            .validate()
            .map_err(|e| MasterError::InvalidArgument(e.to_string()))?;
        let name = table.name.to_string();
        let mut catalog = self.catalog();
        if catalog.tables.contains_key(&name) {
            return Err(MasterError::TableExists(name));
        }
        let server = self.host.config().advertised_address.clone();
        let infos = catalog.add_regions(&name, split_keys, &server)?;
        catalog.tables.insert(
            name.clone(),
            TableEntry {
                descriptor: table.clone(),
                enabled: true,
            },
        );
        self.save(&catalog)?;
        for info in &infos {
            if let Err(e) = self.host.open_region(&table, info) {
                drop(_admin);
                let _ = self.force_remove(&name);
                return Err(e.into());
            }
        }
        Ok(())
    }

    /// Removes a table whatever its state (the undo of a failed create).
    fn force_remove(&self, name: &str) -> Result<()> {
        let _admin = self.admin.lock();
        self.remove_locked(name)
    }

    /// Removes `name` and its regions' data. Requires: the caller holds the admin lock.
    fn remove_locked(&self, name: &str) -> Result<()> {
        let mut catalog = self.catalog();
        let Some(entry) = catalog.tables.remove(name) else {
            return Ok(());
        };
        let ids = catalog.all_regions(name);
        for id in &ids {
            let _ = self.host.close_region(*id, false);
            catalog.regions.remove(id);
        }
        self.save(&catalog)?;
        self.delete_region_data(&entry.descriptor, &ids)
    }

    fn delete_region_data(&self, table: &TableDescriptor, ids: &[u64]) -> Result<()> {
        for id in ids {
            self.host.remove_region_data(table, *id)?;
            self.host
                .wal()
                .forget_region(*id)
                .map_err(strata_storage::Error::from)?;
        }
        let table_dir = self.host.config().table_dir(&table.name);
        let files = self.host.volumes().files().as_ref();
        if read_dirs(files, &table_dir)?.is_empty() {
            files
                .remove_dir_all(&table_dir)
                .map_err(|e| MasterError::io(&table_dir, e))?;
        }
        Ok(())
    }

    /// Closes (flushing) every region of an enabled table and marks it disabled.
    ///
    /// # Errors
    /// No such table, already disabled, or a region failed to flush (it stays open and the
    /// table enabled).
    pub fn disable_table(&self, name: &str) -> Result<()> {
        let _admin = self.admin.lock();
        let mut catalog = self.catalog();
        let entry = catalog.table(name)?;
        if !entry.enabled {
            return Err(MasterError::TableDisabled(name.to_string()));
        }
        let regions: Vec<u64> = catalog
            .serving_regions(name)
            .iter()
            .map(|r| r.info.region_id)
            .collect();
        for id in regions {
            match self.host.close_region(id, true) {
                Ok(()) | Err(strata_storage::Error::Closed(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if let Some(t) = catalog.tables.get_mut(name) {
            t.enabled = false;
        }
        self.save(&catalog)
    }

    /// Opens every region of a disabled table and marks it enabled.
    ///
    /// # Errors
    /// No such table, already enabled, or a region failed to open.
    pub fn enable_table(&self, name: &str) -> Result<()> {
        let _admin = self.admin.lock();
        let mut catalog = self.catalog();
        let entry = catalog.table(name)?.clone();
        if entry.enabled {
            return Err(MasterError::TableEnabled(name.to_string()));
        }
        for r in catalog.serving_regions(name) {
            self.host.open_region(&entry.descriptor, &r.info)?;
        }
        if let Some(t) = catalog.tables.get_mut(name) {
            t.enabled = true;
        }
        self.save(&catalog)
    }

    /// Deletes a disabled table and its data.
    ///
    /// # Errors
    /// No such table, or the table is enabled.
    pub fn delete_table(&self, name: &str) -> Result<()> {
        // One hold of the admin lock from the check to the removal, so an enable between
        // them cannot let an enabled table be deleted.
        let _admin = self.admin.lock();
        if self.catalog.read().table(name)?.enabled {
            return Err(MasterError::TableEnabled(name.to_string()));
        }
        self.remove_locked(name)
    }

    /// Empties a table: its regions are replaced by new, empty ones (one, or one per
    /// previous region with `preserve_splits`). The table keeps its schema and state.
    ///
    /// # Errors
    /// No such table, or I/O.
    pub fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<()> {
        let _admin = self.admin.lock();
        let mut catalog = self.catalog();
        let entry = catalog.table(name)?.clone();
        let old = catalog.all_regions(name);
        let splits: Vec<Bytes> = if preserve_splits {
            catalog
                .serving_regions(name)
                .iter()
                .skip(1)
                .map(|r| r.info.start_row.clone())
                .collect()
        } else {
            Vec::new()
        };
        for id in &old {
            match self.host.close_region(*id, false) {
                Ok(()) | Err(strata_storage::Error::Closed(_)) => {}
                Err(e) => return Err(e.into()),
            }
            catalog.regions.remove(id);
        }
        let server = self.host.config().advertised_address.clone();
        let infos = catalog.add_regions(name, &splits, &server)?;
        // The commit point: from here the old regions are gone whatever happens next.
        self.save(&catalog)?;
        self.delete_region_data(&entry.descriptor, &old)?;
        if entry.enabled {
            for info in &infos {
                self.host.open_region(&entry.descriptor, info)?;
            }
        }
        Ok(())
    }

    /// Replaces a table's schema; open regions are reopened with it (flushed first). Data of
    /// removed families stays on disk, unread, until the table is truncated or dropped.
    ///
    /// # Errors
    /// No such table, an invalid schema, or a region failed to reopen.
    pub fn alter_table(&self, table: TableDescriptor) -> Result<()> {
        let _admin = self.admin.lock();
        table
            .validate()
            .map_err(|e| MasterError::InvalidArgument(e.to_string()))?;
        let name = table.name.to_string();
        let mut catalog = self.catalog();
        let entry = catalog.table(&name)?.clone();
        let regions: Vec<RegionInfo> = catalog
            .serving_regions(&name)
            .iter()
            .map(|r| r.info.clone())
            .collect();
        if let Some(t) = catalog.tables.get_mut(&name) {
            t.descriptor = table.clone();
        }
        self.save(&catalog)?;
        if entry.enabled {
            for info in &regions {
                match self.host.close_region(info.region_id, true) {
                    Ok(()) | Err(strata_storage::Error::Closed(_)) => {}
                    Err(e) => return Err(e.into()),
                }
                self.host.open_region(&table, info)?;
            }
        }
        Ok(())
    }

    /// Serving regions of an enabled table, ordered by start row.
    ///
    /// # Errors
    /// No such table, or it is disabled.
    pub fn locate(&self, name: &str) -> Result<Vec<RegionEntry>> {
        let catalog = self.catalog.read();
        if !catalog.table(name)?.enabled {
            return Err(MasterError::TableDisabled(name.to_string()));
        }
        Ok(catalog.serving_regions(name).into_iter().cloned().collect())
    }

    /// Flushes every region of a table.
    ///
    /// # Errors
    /// No such table, disabled, or a flush failed.
    pub fn flush_table(&self, name: &str) -> Result<()> {
        for r in self.locate(name)? {
            self.host.flush_region(r.info.region_id)?;
        }
        Ok(())
    }

    /// Compacts every region of a table (one family, or all).
    ///
    /// # Errors
    /// No such table or family, disabled, or a compaction failed.
    pub fn compact_table(&self, name: &str, family: Option<&str>, major: bool) -> Result<()> {
        let table = self.catalog.read().table(name)?.descriptor.clone();
        if let Some(f) = family {
            if table.family(f.as_bytes()).is_none() {
                return Err(MasterError::Storage(strata_storage::Error::NoSuchFamily(
                    f.to_string(),
                )));
            }
        }
        for r in self.locate(name)? {
            self.host.compact_region(r.info.region_id, family, major)?;
        }
        Ok(())
    }

    /// Splits the region holding `split_row` at it, or, without a row, every region of the
    /// table at its middle key (regions too small to have one are left alone).
    ///
    /// # Errors
    /// No such table, disabled, a row on a region boundary, or the split failed.
    pub fn split(&self, name: &str, split_row: Option<Bytes>) -> Result<()> {
        let regions = self.locate(name)?;
        match split_row {
            Some(row) => {
                let region = regions
                    .iter()
                    .find(|r| {
                        r.info.start_row <= row
                            && (r.info.end_row.is_empty() || row < r.info.end_row)
                    })
                    .ok_or_else(|| {
                        MasterError::InvalidArgument("no region holds the split row".into())
                    })?;
                self.split_region(region.info.region_id, Some(row))
            }
            None => {
                let mut any = false;
                for r in regions {
                    match self.split_region(r.info.region_id, None) {
                        Ok(()) => any = true,
                        Err(MasterError::Storage(strata_storage::Error::InvalidArgument(_))) => {}
                        Err(e) => return Err(e),
                    }
                }
                if any {
                    Ok(())
                } else {
                    Err(MasterError::InvalidArgument(format!(
                        "no region of {name} can split (too little data, or references \
                         from an earlier split not yet compacted)"
                    )))
                }
            }
        }
    }

    /// Splits one region and commits the daughters in the catalog.
    ///
    /// # Errors
    /// No such region, or the split failed (the parent keeps serving).
    pub fn split_region(&self, region_id: u64, split_row: Option<Bytes>) -> Result<()> {
        let _admin = self.admin.lock();
        let started = std::time::Instant::now();
        let mut catalog = self.catalog();
        let parent = catalog
            .regions
            .get(&region_id)
            .filter(|r| r.is_serving())
            .cloned()
            .ok_or(MasterError::RegionNotFound(region_id))?;
        self.compact_references(region_id)?;
        let ids = (catalog.allocate_id(), catalog.allocate_id());
        // Ids are reserved durably first, so a crash cannot hand them out twice.
        self.save(&catalog)?;
        let table = catalog.table(&parent.info.table)?.descriptor.clone();
        let (low, high) = self.host.split_region(region_id, split_row, ids)?;
        for info in [low.clone(), high.clone()] {
            catalog.regions.insert(
                info.region_id,
                RegionEntry {
                    info,
                    server: parent.server.clone(),
                    generation: parent.generation + 1,
                    daughters: None,
                },
            );
        }
        if let Some(p) = catalog.regions.get_mut(&region_id) {
            p.daughters = Some(ids);
        }
        // The commit point of the split; a crash before it leaves the parent authoritative
        // (its daughters' directories are removed at the next start).
        self.save(&catalog)?;
        self.host.open_region(&table, &low)?;
        self.host.open_region(&table, &high)?;
        tracing::info!(
            table = %table.name,
            parent = region_id,
            daughters = ?(low.region_id, high.region_id),
            split_row = %String::from_utf8_lossy(&high.start_row),
            ms = started.elapsed().as_millis() as u64,
            "region split"
        );
        Ok(())
    }

    /// Merges two adjacent regions of a table into one (either order).
    ///
    /// # Errors
    /// No such table or region, regions not adjacent, or the merge failed (both keep
    /// serving).
    pub fn merge(&self, name: &str, a: u64, b: u64) -> Result<()> {
        let _admin = self.admin.lock();
        let started = std::time::Instant::now();
        let mut catalog = self.catalog();
        let table = catalog.table(name)?;
        if !table.enabled {
            return Err(MasterError::TableDisabled(name.to_string()));
        }
        let table = table.descriptor.clone();
        let entry = |id: u64| {
            catalog
                .regions
                .get(&id)
                .filter(|r| r.is_serving() && r.info.table == name)
                .cloned()
                .ok_or(MasterError::RegionNotFound(id))
        };
        let (mut low, mut high) = (entry(a)?, entry(b)?);
        if low.info.start_row > high.info.start_row {
            std::mem::swap(&mut low, &mut high);
        }
        self.compact_references(low.info.region_id)?;
        self.compact_references(high.info.region_id)?;
        let merged_id = catalog.allocate_id();
        self.save(&catalog)?;
        let info = self
            .host
            .merge_regions(low.info.region_id, high.info.region_id, merged_id)?;
        catalog.regions.insert(
            merged_id,
            RegionEntry {
                info: info.clone(),
                server: low.server.clone(),
                generation: low.generation.max(high.generation),
                daughters: None,
            },
        );
        for parent in [&low, &high] {
            if let Some(p) = catalog.regions.get_mut(&parent.info.region_id) {
                p.daughters = Some((merged_id, merged_id));
            }
        }
        self.save(&catalog)?;
        self.host.open_region(&table, &info)?;
        tracing::info!(
            table = %table.name,
            parents = ?(low.info.region_id, high.info.region_id),
            merged = merged_id,
            ms = started.elapsed().as_millis() as u64,
            "regions merged"
        );
        Ok(())
    }

    /// A region that still reads its parent's files through references (a recent split or
    /// merge) is compacted first, so it can split or merge again.
    fn compact_references(&self, region_id: u64) -> Result<()> {
        if self.host.region_stats(region_id)?.has_references {
            self.host.compact_region(region_id, None, false)?;
        }
        Ok(())
    }

    /// One pass of background upkeep: split regions past their split size, compact
    /// daughters that still reference their parent, delete parents no daughter references.
    /// Returns the number of splits made.
    ///
    /// # Errors
    /// The first failure; the pass stops there and the next one retries.
    pub fn upkeep(&self) -> Result<u32> {
        let catalog = self.catalog();
        let mut splits = 0;
        for r in catalog.regions.values() {
            let Some(t) = catalog.tables.get(&r.info.table) else {
                continue;
            };
            if !t.enabled {
                continue;
            }
            let id = r.info.region_id;
            if let Some((a, b)) = r.daughters {
                self.remove_parent_if_unreferenced(&t.descriptor, id, (a, b))?;
                continue;
            }
            let Ok(stats) = self.host.region_stats(id) else {
                continue;
            };
            if stats.has_references {
                self.host.compact_region(id, None, false)?;
                continue;
            }
            let Some(limit) = t.descriptor.split_size(r.generation) else {
                continue;
            };
            if stats.largest_store_bytes > limit {
                match self.split_region(id, None) {
                    Ok(()) => splits += 1,
                    // Too few distinct rows to split at a middle key: not an error.
                    Err(MasterError::Storage(strata_storage::Error::InvalidArgument(_))) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(splits)
    }

    fn remove_parent_if_unreferenced(
        &self,
        table: &TableDescriptor,
        parent: u64,
        (a, b): (u64, u64),
    ) -> Result<()> {
        let dir = self.host.region_dir(table, parent);
        let daughters = [
            self.host.region_dir(table, a),
            self.host.region_dir(table, b),
        ];
        let files = self.host.volumes().files().as_ref();
        let removed = !files.exists(&dir).map_err(|e| MasterError::io(&dir, e))?
            || strata_storage::Region::remove_split_parent(files, &dir, parent, &daughters)?;
        if removed {
            // The parent's files on volumes other than the data directory's.
            self.host.remove_region_data(table, parent)?;
            let _admin = self.admin.lock();
            let mut catalog = self.catalog();
            catalog.regions.remove(&parent);
            self.save(&catalog)?;
            self.host
                .wal()
                .forget_region(parent)
                .map_err(strata_storage::Error::from)?;
        }
        Ok(())
    }

    /// Waits for any admin operation, then flushes and closes every region and the WAL.
    ///
    /// # Errors
    /// As `RegionServer::shutdown`.
    pub fn shutdown(&self) -> Result<()> {
        let _admin = self.admin.lock();
        self.host.shutdown().map_err(MasterError::from)
    }

    /// Splits so far by the host (for status).
    pub fn splits(&self) -> u64 {
        self.host.counters().splits.load(Ordering::Relaxed)
    }
}

fn read_dirs(
    files: &dyn strata_storage::vfs::FileStore,
    dir: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>> {
    match files.list(dir) {
        Ok(entries) => Ok(entries
            .into_iter()
            .filter(|e| e.is_dir)
            .map(|e| dir.join(e.name))
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(MasterError::io(dir, e)),
    }
}
