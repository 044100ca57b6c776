//! Creating and opening a region: manifest, store files, WAL replay.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};

use super::store::Store;
use super::{Counters, Inner, Mvcc, Region, RegionConfig, RowLocks};
use crate::background::Job;
use crate::error::{Error, Result};
use crate::manifest::{self, Manifest, StoreFs, Version, VersionEdit};
use crate::tiers::{parse_policy_dir, Tier, Volumes};

/// The directory name of region `id` inside its table's directory. A split daughter finds its
/// parent's files through it.
pub fn region_dir_name(id: u64) -> String {
    format!("{id:016x}")
}

impl Region {
    /// Opens the region in `config.dir`, creating it if it does not exist, and replays the
    /// WAL entries of this region that its manifest has not flushed.
    ///
    /// # Errors
    /// An invalid schema, I/O, a corrupt manifest or store file, or a WAL replay error.
    pub fn open(config: RegionConfig) -> Result<Region> {
        Region::open_recovering(config, &crate::vfs::Local, &[])
    }

    /// [`open`](Self::open), also replaying this region's entries of the fenced logs in
    /// `recovered` (directories in `store`: a dead server's edits split per region) that its
    /// manifest has not flushed, with the WAL's, in one pass over each. The logs are read as
    /// they are ([`crate::wal::read_fenced`]): nothing is written to them. The caller makes
    /// the replayed edits durable (a flush) before it deletes the logs.
    ///
    /// # Errors
    /// As [`open`](Self::open); a recovered log that cannot be read or is corrupt.
    pub fn open_recovering(
        config: RegionConfig,
        store: &dyn crate::vfs::LogStore,
        recovered: &[PathBuf],
    ) -> Result<Region> {
        config
            .table
            .validate()
            .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        let dir = &config.dir;
        let (volumes, region_rel) = volumes_of(&config)?;
        let files = volumes.files().clone();
        files.create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let fs: Arc<dyn manifest::Fs> = Arc::new(StoreFs::new(files.clone(), dir.clone()));
        let families: Vec<Bytes> = config
            .table
            .families
            .iter()
            .map(|f| Bytes::copy_from_slice(f.name.as_bytes()))
            .collect();
        let mut manifest = match Manifest::open(fs.clone()) {
            Ok(m) => m,
            Err(manifest::Error::NotFound) => {
                let version = Version::new(config.info.clone(), families.clone())
                    .map_err(Error::InvalidArgument)?;
                Manifest::create(fs, version)?
            }
            Err(e) => return Err(e.into()),
        };
        // Families added to the schema since the manifest was written.
        let missing: Vec<&Bytes> = families
            .iter()
            .filter(|f| manifest.current().family(f).is_none())
            .collect();
        if !missing.is_empty() {
            let edit = missing
                .into_iter()
                .fold(VersionEdit::new(), |e, f| e.add_family(f.clone()));
            manifest.apply(&edit)?;
        }

        let version = manifest.current().clone();
        let mut stores = BTreeMap::new();
        for family in &config.table.families {
            let store = Store::new(
                family.clone(),
                volumes.clone(),
                &region_rel,
                config.cache.clone(),
            );
            files
                .create_dir_all(&store.dir)
                .map_err(|e| Error::io(&store.dir, e))?;
            if files.places_by_policy() {
                // HDFS places the family's blocks by its policy (seed 001).
                files
                    .set_storage_policy(&store.dir, store.family.storage_policy)
                    .map_err(|e| Error::io(&store.dir, e))?;
            }
            let listed = version.family(&store.name);
            let mut handles = Vec::new();
            let mut names = HashMap::new();
            for meta in listed.into_iter().flat_map(|f| f.files()) {
                names.insert(meta.name.clone(), store.tier_of(&meta.tier)?);
                handles.push(store.open_file(meta.clone())?);
            }
            remove_unlisted(&store, &names)?;
            store.set_files(handles);
            stores.insert(store.name.clone(), store);
        }

        let flushed: BTreeMap<Bytes, u64> = stores
            .keys()
            .map(|f| {
                (
                    f.clone(),
                    version.family(f).map_or(0, |ff| ff.flushed_seq_id()),
                )
            })
            .collect();
        let max_file_seq = stores
            .values()
            .flat_map(|s| {
                s.files()
                    .iter()
                    .map(|f| f.meta.max_seq_id)
                    .collect::<Vec<_>>()
            })
            .max()
            .unwrap_or(0);
        let now = config.clock.now_ms();
        let mut newest_stamp = super::stamps::opening_floor(
            now,
            stores.values().flat_map(|s| {
                s.files()
                    .iter()
                    .filter(|f| f.meta.cell_count > 0)
                    .map(|f| f.meta.max_timestamp)
                    .collect::<Vec<_>>()
            }),
        );
        let mut last_seq = flushed
            .values()
            .copied()
            .max()
            .unwrap_or(0)
            .max(max_file_seq);

        // Replay what the files do not hold yet.
        let region_id = config.info.region_id;
        let from = flushed.values().copied().min().unwrap_or(0);
        let mut logs = Vec::with_capacity(recovered.len());
        for dir in recovered {
            logs.push(crate::wal::read_fenced(store, dir, false)?);
        }
        let recovered_entries = logs.into_iter().flatten().filter(|e| match e {
            Ok(e) => e.region == region_id && e.seq > from,
            Err(_) => true,
        });
        let mut nonces = Vec::new();
        for entry in config
            .wal
            .replay(|r| (r == region_id).then_some(from))
            .chain(recovered_entries)
        {
            let entry = entry?;
            last_seq = last_seq.max(entry.seq);
            nonces.extend(entry.nonce);
            newest_stamp = newest_stamp.max(super::stamps::opening_floor(
                now,
                entry.cells.iter().map(|c| c.timestamp),
            ));
            for cell in &entry.cells {
                let Some(store) = stores.get(&cell.family) else {
                    // A family dropped from the schema since: its edits are gone with it.
                    continue;
                };
                if entry.seq <= flushed.get(&cell.family).copied().unwrap_or(0) {
                    continue;
                }
                let mut cell = cell.clone();
                cell.seq = entry.seq;
                store
                    .memtable
                    .insert_cell(&cell)
                    .map_err(|e| Error::InvalidArgument(e.to_string()))?;
            }
        }

        let region = Region {
            inner: Arc::new(Inner {
                files,
                mvcc: Mvcc::new(last_seq),
                row_locks: RowLocks::default(),
                read_points: Default::default(),
                updates: RwLock::new(()),
                stores,
                manifest: Mutex::new(manifest),
                flush_lock: Mutex::new(()),
                closed: AtomicBool::new(false),
                counters: Counters::default(),
                flush_requested: AtomicBool::new(false),
                compaction_requested: AtomicBool::new(false),
                compactions_stopped: AtomicBool::new(false),
                tier_moves_requested: AtomicBool::new(false),
                accounted: AtomicU64::new(0),
                oldest_edit_ms: Default::default(),
                newest_stamp: AtomicI64::new(newest_stamp),
                idle_mark: AtomicU64::new(u64::MAX),
                compactions: Default::default(),
                replayed_nonces: Mutex::new(nonces),
                config,
            }),
        };
        // In-memory compactions (EAGER, ADAPTIVE) ask for the oldest reader's read point when
        // they start; a weak reference, as the memtables live inside the region.
        let weak = Arc::downgrade(&region.inner);
        for (family, store) in &region.inner.stores {
            // EAGER drops cells past the TTL by the region's clock.
            store.memtable.set_clock(region.inner.config.clock.clone());
            // Seals hand their in-memory compaction to the pool instead of the writer.
            if let Some(bg) = &region.inner.config.background {
                let (weak, bg, family) = (weak.clone(), Arc::downgrade(bg), family.clone());
                store.memtable.set_seal_hook(Arc::new(move || {
                    if let (Some(inner), Some(bg)) = (weak.upgrade(), bg.upgrade()) {
                        bg.submit(Job::CompactInMemory(Region { inner }, family.clone()));
                    }
                }));
            }
            let weak = weak.clone();
            store.memtable.set_read_point_source(Arc::new(move || {
                weak.upgrade()
                    .map_or(0, |inner| inner.read_points.smallest(&inner.mvcc))
            }));
        }
        // Edits replayed from the WAL are as old as the open, as far as flushing by age goes.
        if region.memtable_bytes() > 0 {
            region.stamp_edit();
        }
        if let Some(budget) = &region.inner.config.budget {
            budget.register(region.clone());
        }
        region.account_memory();
        Ok(region)
    }
}

/// The volumes the region's files live on, and the region directory relative to their roots.
fn volumes_of(config: &RegionConfig) -> Result<(Arc<Volumes>, PathBuf)> {
    match &config.volumes {
        Some(v) => {
            let rel = config.dir.strip_prefix(v.root()).map_err(|_| {
                Error::InvalidArgument(format!(
                    "region directory {} is not under the data directory {}",
                    config.dir.display(),
                    v.root().display()
                ))
            })?;
            Ok((v.clone(), rel.to_path_buf()))
        }
        None => {
            let parent = config.dir.parent().unwrap_or(Path::new(""));
            let name = config
                .dir
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_default();
            Ok((Arc::new(Volumes::single(parent)), name))
        }
    }
}

/// Deletes store files the manifest does not list (left by an interrupted flush, compaction
/// or move), on every volume.
fn remove_unlisted(store: &Store, listed: &HashMap<String, Tier>) -> Result<()> {
    for volume in store.volumes.all() {
        let dir = volume.path.join(&store.rel);
        // Policy directories are only under the family's directory on the data directory.
        let is_root = volume.path == store.volumes.root();
        remove_unlisted_in(store, &dir, Tier::Volume(volume.kind), listed, is_root)?;
    }
    Ok(())
}

/// Removes the files of `dir` that the manifest does not list in `tier` (a move's leftover is
/// listed in another tier); in the family's own directory, also those of its policy
/// directories.
fn remove_unlisted_in(
    store: &Store,
    dir: &std::path::Path,
    tier: Tier,
    listed: &HashMap<String, Tier>,
    with_policy_dirs: bool,
) -> Result<()> {
    let files = store.files_of(tier);
    let entries = match files.list(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    for entry in entries {
        if entry.is_dir {
            if let Some(policy) = parse_policy_dir(&entry.name).filter(|_| with_policy_dirs) {
                let sub = dir.join(&entry.name);
                remove_unlisted_in(store, &sub, Tier::Policy(policy), listed, false)?;
            }
            continue;
        }
        if listed.get(&entry.name) != Some(&tier) {
            let path = dir.join(&entry.name);
            if entry.name.ends_with(".tmp") {
                match files.remove_file(&path) {
                    // Gone already (a listing may name what was just removed): nothing to do.
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(Error::io(&path, e));
                    }
                    _ => {}
                }
            } else {
                // A compaction's input whose removal failed may be in a snapshot: discarded,
                // which archives it where the process keeps an archive.
                store.discard_path(tier, &path)?;
            }
        }
    }
    Ok(())
}
