//! One column family of a region: its memtable and its store files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};
use strata_model::cell::CellKey;
use strata_model::schema::{CompactionPolicy, FamilyDescriptor, StoragePolicy};
use strata_sstable::{BlockCache, CellRef, Reader, ReaderOptions, Result as SstResult};

use crate::vfs::FileStore;

use crate::manifest::StoreFile;
use crate::memtable::{self, Memtable};
use crate::read::Cursor;
use crate::tiers::{archive, policy_dir_name, Tier, Volumes};

/// An open store file.
pub(crate) struct FileHandle {
    pub(crate) meta: StoreFile,
    pub(crate) reader: Reader,
}

/// Memtable and files of one family.
pub(crate) struct Store {
    pub(crate) family: FamilyDescriptor,
    pub(crate) name: Bytes,
    /// The store's directory on the data directory's volume.
    pub(crate) dir: PathBuf,
    /// The store's directory relative to each volume's root.
    pub(crate) rel: PathBuf,
    pub(crate) volumes: Arc<Volumes>,
    pub(crate) memtable: Memtable,
    /// Files newest first (by max sequence id). Replaced whole, never mutated in place, so a
    /// reader holding the `Arc` keeps a consistent set.
    pub(crate) files: RwLock<Arc<Vec<Arc<FileHandle>>>>,
    pub(crate) cache: Option<Arc<BlockCache>>,
    /// Policy directories whose storage policy this open store has set.
    policy_dirs: Mutex<HashSet<StoragePolicy>>,
}

/// Figures of one store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreStats {
    /// Family name.
    pub family: String,
    /// Store files.
    pub files: usize,
    /// Bytes of store files.
    pub file_bytes: u64,
    /// Memtable bytes.
    pub memtable_bytes: u64,
    /// Memtable cells.
    pub memtable_cells: u64,
    /// When the oldest file a major compaction wrote was written, ms since the epoch
    /// (`None`: no such file). HBase's `getOldestHfileTs(true)` of one store.
    pub oldest_major_ms: Option<i64>,
}

/// The directory name of a family: the name itself when it is plain, else `x` + hex.
pub fn family_dir_name(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain {
        name.to_owned()
    } else {
        let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
        format!("x{hex}")
    }
}

impl Store {
    /// The store of `family` in the region at `region_rel` (relative to the volumes' roots).
    pub(crate) fn new(
        family: FamilyDescriptor,
        volumes: Arc<Volumes>,
        region_rel: &Path,
        cache: Option<Arc<BlockCache>>,
    ) -> Store {
        let rel = region_rel.join(family_dir_name(&family.name));
        Store {
            name: Bytes::copy_from_slice(family.name.as_bytes()),
            memtable: Memtable::new(memtable::Options::for_family(&family)),
            family,
            dir: volumes.root().join(&rel),
            rel,
            volumes,
            files: RwLock::new(Arc::new(Vec::new())),
            cache,
            policy_dirs: Mutex::new(HashSet::new()),
        }
    }

    pub(crate) fn reader_options(&self) -> ReaderOptions {
        ReaderOptions::for_family(&self.family, self.cache.clone())
    }

    pub(crate) fn open_file(&self, meta: StoreFile) -> crate::Result<Arc<FileHandle>> {
        let path = self.file_path(&meta)?;
        let tier = self.tier_of(&meta.tier)?;
        let files = self.files_of(tier).as_ref();
        let open =
            |path: &Path| super::sst_io::open(files, path, tier.kind(), self.reader_options());
        let reader = match open(&path) {
            // A linked file its own table has discarded since is in that volume's archive.
            Err(e) if meta.link.is_some() && e.is_not_found() => {
                match archive::archived_path(self.volume_root(tier), &path) {
                    Some(kept) => open(&kept).map_err(|_| e)?,
                    None => return Err(e),
                }
            }
            other => other?,
        };
        let handle = Arc::new(FileHandle { meta, reader });
        if self.family.prefetch_blocks_on_open && !handle.meta.is_borrowed() {
            super::prefetch::request(&handle);
        }
        Ok(handle)
    }

    /// The root of the volume holding files of `tier`.
    pub(crate) fn volume_root(&self, tier: Tier) -> &Path {
        match tier {
            Tier::Volume(kind) => self.volumes.root_of(kind),
            Tier::Policy(_) => self.volumes.root(),
        }
    }

    /// Discards this store's own file `meta` (never a reference's or a link's bytes): moved to
    /// its volume's archive when the process keeps one, else removed (RFC 0025).
    ///
    /// # Errors
    /// The store refused the move or the removal.
    pub(crate) fn discard(&self, meta: &StoreFile) -> crate::Result<()> {
        if meta.is_borrowed() {
            return Ok(());
        }
        let tier = self.tier_of(&meta.tier)?;
        let path = self.tier_dir(tier).join(&meta.name);
        self.discard_path(tier, &path)
    }

    /// Discards the file at `path`, on `tier`'s volume.
    ///
    /// # Errors
    /// The store refused the move or the removal.
    pub(crate) fn discard_path(&self, tier: Tier, path: &Path) -> crate::Result<()> {
        archive::discard(
            self.files_of(tier).as_ref(),
            self.volume_root(tier),
            path,
            self.volumes.archives(),
        )
        .map_err(|e| crate::Error::io(path, e))
    }

    /// The store the region's files are in.
    pub(crate) fn file_store(&self) -> &std::sync::Arc<dyn FileStore> {
        self.volumes.files()
    }

    /// The store holding files of `tier`: the region's, or a remote volume's.
    pub(crate) fn files_of(&self, tier: Tier) -> &std::sync::Arc<dyn FileStore> {
        match tier {
            Tier::Volume(kind) => self.volumes.files_of(kind),
            Tier::Policy(_) => self.volumes.files(),
        }
    }

    /// Where a flush or compaction writes a file placed on `tier`: there, unless `tier` is a
    /// volume on a store of its own (a bucket), which only the tier mover copies files to;
    /// then the data directory, and the next move takes the file over.
    pub(crate) fn written_tier(&self, tier: Tier) -> Tier {
        if self.is_remote(tier) {
            Tier::Volume(self.volumes.root_kind())
        } else {
            tier
        }
    }

    /// True when `tier` is a volume on a store of its own.
    pub(crate) fn is_remote(&self, tier: Tier) -> bool {
        matches!(tier, Tier::Volume(kind) if self.volumes.is_remote(kind))
    }

    /// The store's directory for files of `tier`.
    pub(crate) fn tier_dir(&self, tier: Tier) -> PathBuf {
        self.tier_dir_of(tier, &self.rel)
    }

    /// The directory for files of `tier` of the store at `rel` (this one, or a split parent's).
    fn tier_dir_of(&self, tier: Tier, rel: &Path) -> PathBuf {
        match tier {
            Tier::Volume(kind) => self.volumes.dir(kind, rel),
            Tier::Policy(policy) => self.volumes.root().join(rel).join(policy_dir_name(policy)),
        }
    }

    /// Creates the directory for files of `tier`; a policy directory gets its storage policy
    /// first (once per open store), so the blocks of every file written into it follow it.
    pub(crate) fn prepare_dir(&self, tier: Tier) -> crate::Result<PathBuf> {
        let dir = self.tier_dir(tier);
        let files = self.files_of(tier);
        files
            .create_dir_all(&dir)
            .map_err(|e| crate::Error::io(&dir, e))?;
        if let Tier::Policy(policy) = tier {
            if !self.policy_dirs.lock().contains(&policy) {
                files
                    .set_storage_policy(&dir, policy)
                    .map_err(|e| crate::Error::io(&dir, e))?;
                self.policy_dirs.lock().insert(policy);
            }
        }
        Ok(dir)
    }

    /// The tier a manifest's tier field names: empty for the data directory, a storage
    /// type's name for a volume (see [`Volumes::resolve`]), a storage policy's name for a
    /// policy directory.
    pub(crate) fn tier_of(&self, tier: &str) -> crate::Result<Tier> {
        if let Some(policy) = StoragePolicy::parse(tier).filter(|_| !tier.is_empty()) {
            return Ok(Tier::Policy(policy));
        }
        self.volumes
            .resolve(tier)
            .map(Tier::Volume)
            .map_err(|e| crate::Error::InvalidArgument(format!("{}: {e}", self.family.name)))
    }

    /// Where a file of this store is: in the directory its tier names, in this store's
    /// directory, or for a split daughter's reference, the parent's file in the parent
    /// region's store (`rel` is `<region>/<family>`; the parent's is
    /// `<parent region>/<family>`); for a link, the named file in the named region's store
    /// of the named table (its live path: [`Store::open_file`] also looks in the archive).
    pub(crate) fn file_path(&self, meta: &StoreFile) -> crate::Result<PathBuf> {
        let tier = self.tier_of(&meta.tier)?;
        let family_dir = self.rel.file_name().unwrap_or_default();
        if let Some(l) = &meta.link {
            let store = Path::new(&l.table_dir)
                .join(super::region_dir_name(l.region_id))
                .join(family_dir);
            return Ok(self.tier_dir_of(tier, &store).join(&l.file));
        }
        Ok(match &meta.reference {
            None => self.tier_dir(tier).join(&meta.name),
            Some(r) => {
                let table_rel = self
                    .rel
                    .parent()
                    .and_then(Path::parent)
                    .unwrap_or(Path::new(""));
                let parent = table_rel
                    .join(super::region_dir_name(r.parent_region_id))
                    .join(family_dir);
                self.tier_dir_of(tier, &parent).join(&r.parent_file)
            }
        })
    }

    /// The manifest's tier field for a file of `tier`: empty for the data directory, so a
    /// data directory whose declared type changes keeps finding its files.
    pub(crate) fn tier_name(&self, tier: Tier) -> String {
        match tier {
            Tier::Volume(kind) if kind == self.volumes.root_kind() => String::new(),
            Tier::Volume(kind) => kind.name().to_owned(),
            Tier::Policy(policy) => policy.name().to_owned(),
        }
    }

    /// Where a file placed by `policy` goes: a volume chosen by the policy on local files; on
    /// a store placing by policy (HDFS), the family's directory for the family's own
    /// `STORAGE_POLICY` and the policy's directory under it for any other. On either, a
    /// policy whose first storage type is a volume on a store of its own (COLD with the
    /// ARCHIVE tier as a bucket) places the file there.
    fn place(&self, policy: StoragePolicy) -> Tier {
        let first = crate::tiers::preference(policy)[0];
        if self.volumes.is_remote(first) {
            return Tier::Volume(first);
        }
        if self.file_store().places_by_policy() {
            if policy == self.family.storage_policy {
                Tier::Volume(self.volumes.root_kind())
            } else {
                Tier::Policy(policy)
            }
        } else {
            Tier::Volume(self.volumes.place(policy))
        }
    }

    /// True when files of this store may belong elsewhere than the family's directory
    /// (another volume, or a policy directory for date-tiered windows placed by age).
    pub(crate) fn has_tiers(&self) -> bool {
        let by_age = matches!(
            &self.family.compaction_policy,
            CompactionPolicy::DateTiered(dt) if dt.storage_policy_enable
        );
        self.volumes.all().nth(1).is_some() || (by_age && self.file_store().places_by_policy())
    }

    /// Where a flush writes: the hot window's policy when date-tiered windows are placed by
    /// age (a flush holds the newest data), else the family's `STORAGE_POLICY`.
    pub(crate) fn flush_tier(&self) -> Tier {
        let policy = match &self.family.compaction_policy {
            CompactionPolicy::DateTiered(dt) if dt.storage_policy_enable => {
                dt.hot_window_storage_policy
            }
            _ => self.family.storage_policy,
        };
        self.place(policy)
    }

    /// Where a compaction output whose window starts at `window_start` goes at `now`
    /// (HBase's `getWindowStoragePolicy`: hot if the window starts at or after
    /// `now − hot age`, else warm if at or after `now − warm age`, else cold); the family's
    /// `STORAGE_POLICY` when windows are not placed by age or the output has no window.
    pub(crate) fn output_tier(&self, window_start: Option<i64>, now: i64) -> Tier {
        let policy = match (&self.family.compaction_policy, window_start) {
            (CompactionPolicy::DateTiered(dt), Some(start)) if dt.storage_policy_enable => {
                if start >= now.saturating_sub(dt.hot_window_age_ms) {
                    dt.hot_window_storage_policy
                } else if start >= now.saturating_sub(dt.warm_window_age_ms) {
                    dt.warm_window_storage_policy
                } else {
                    dt.cold_window_storage_policy
                }
            }
            _ => self.family.storage_policy,
        };
        self.place(policy)
    }

    /// The current file set.
    pub(crate) fn files(&self) -> Arc<Vec<Arc<FileHandle>>> {
        self.files.read().clone()
    }

    /// Replaces the file set (newest first).
    pub(crate) fn set_files(&self, mut files: Vec<Arc<FileHandle>>) {
        files.sort_by_key(|f| std::cmp::Reverse(f.meta.max_seq_id));
        *self.files.write() = Arc::new(files);
    }

    pub(crate) fn stats(&self) -> StoreStats {
        let files = self.files();
        let m = self.memtable.stats();
        StoreStats {
            family: self.family.name.clone(),
            files: files.len(),
            file_bytes: files.iter().map(|f| f.meta.size).sum(),
            memtable_bytes: self.memtable.size_bytes(),
            memtable_cells: m.cells,
            oldest_major_ms: files
                .iter()
                .filter(|f| f.meta.major)
                .map(|f| f.meta.created_at_ms)
                .min(),
        }
    }
}

/// A cursor over one source of a store.
pub(crate) enum SourceCursor {
    Memtable(memtable::Iter),
    File(strata_sstable::Iter),
    /// A split daughter's reference: half of a parent file.
    Half(super::half::HalfCursor),
}

impl Cursor for SourceCursor {
    fn valid(&self) -> bool {
        match self {
            SourceCursor::Memtable(it) => it.valid(),
            SourceCursor::File(it) => it.valid(),
            SourceCursor::Half(it) => it.valid(),
        }
    }

    fn current(&self) -> CellRef<'_> {
        match self {
            SourceCursor::Memtable(it) => it.current(),
            SourceCursor::File(it) => it.current(),
            SourceCursor::Half(it) => it.current(),
        }
    }

    fn seek(&mut self, target: &CellKey) -> SstResult<bool> {
        match self {
            SourceCursor::Memtable(it) => Ok(it.seek(target)),
            SourceCursor::File(it) => it.seek(target),
            SourceCursor::Half(it) => it.seek(target),
        }
    }

    fn reseek(&mut self, target: &CellKey) -> SstResult<bool> {
        match self {
            SourceCursor::Memtable(it) => Ok(it.reseek(target)),
            SourceCursor::File(it) => it.reseek(target),
            SourceCursor::Half(it) => it.reseek(target),
        }
    }

    fn seek_to_first(&mut self) -> SstResult<bool> {
        match self {
            SourceCursor::Memtable(it) => Ok(it.seek_to_first()),
            SourceCursor::File(it) => it.seek_to_first(),
            SourceCursor::Half(it) => it.seek_to_first(),
        }
    }

    fn seek_to_last(&mut self) -> SstResult<bool> {
        match self {
            SourceCursor::Memtable(it) => Ok(it.seek_to_last()),
            SourceCursor::File(it) => it.seek_to_last(),
            SourceCursor::Half(it) => it.seek_to_last(),
        }
    }

    fn seek_for_prev(&mut self, target: &CellKey) -> SstResult<bool> {
        match self {
            SourceCursor::Memtable(it) => Ok(it.seek_for_prev(target)),
            SourceCursor::File(it) => it.seek_for_prev(target),
            SourceCursor::Half(it) => it.seek_for_prev(target),
        }
    }

    fn next(&mut self) -> SstResult<bool> {
        match self {
            SourceCursor::Memtable(it) => Ok(it.next()),
            SourceCursor::File(it) => it.next(),
            SourceCursor::Half(it) => it.next(),
        }
    }
}
