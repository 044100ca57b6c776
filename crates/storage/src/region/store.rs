//! One column family of a region: its memtable and its store files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::RwLock;
use strata_model::cell::CellKey;
use strata_model::schema::{CompactionPolicy, FamilyDescriptor};
use strata_sstable::{BlockCache, CellRef, Reader, ReaderOptions, Result as SstResult};

use crate::vfs::FileStore;

use crate::manifest::StoreFile;
use crate::memtable::{self, Memtable};
use crate::read::Cursor;
use crate::tiers::{StorageType, Volumes};

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
}

/// The directory name of a family: the name itself when it is plain, else `x` + hex.
pub(crate) fn family_dir_name(name: &str) -> String {
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
        }
    }

    pub(crate) fn reader_options(&self) -> ReaderOptions {
        ReaderOptions::for_family(&self.family, self.cache.clone())
    }

    pub(crate) fn open_file(&self, meta: StoreFile) -> crate::Result<Arc<FileHandle>> {
        let path = self.file_path(&meta)?;
        let kind = self.tier_of(&meta.tier)?;
        let reader = super::sst_io::open(
            self.file_store().as_ref(),
            &path,
            kind,
            self.reader_options(),
        )?;
        Ok(Arc::new(FileHandle { meta, reader }))
    }

    /// The store the region's files are in.
    pub(crate) fn file_store(&self) -> &std::sync::Arc<dyn FileStore> {
        self.volumes.files()
    }

    /// The store's directory on the volume of type `kind`.
    pub(crate) fn tier_dir(&self, kind: StorageType) -> PathBuf {
        self.volumes.dir(kind, &self.rel)
    }

    /// The storage type a manifest tier names (see [`Volumes::resolve`]).
    pub(crate) fn tier_of(&self, tier: &str) -> crate::Result<StorageType> {
        self.volumes
            .resolve(tier)
            .map_err(|e| crate::Error::InvalidArgument(format!("{}: {e}", self.family.name)))
    }

    /// Where a file of this store is: on the volume its tier names, in this store's directory,
    /// or for a split daughter's reference, the parent's file in the parent region's store
    /// (`rel` is `<region>/<family>`; the parent's is `<parent region>/<family>`).
    pub(crate) fn file_path(&self, meta: &StoreFile) -> crate::Result<PathBuf> {
        let kind = self.tier_of(&meta.tier)?;
        Ok(match &meta.reference {
            None => self.tier_dir(kind).join(&meta.name),
            Some(r) => {
                let family_dir = self.rel.file_name().unwrap_or_default();
                let table_rel = self
                    .rel
                    .parent()
                    .and_then(Path::parent)
                    .unwrap_or(Path::new(""));
                let parent = table_rel
                    .join(super::region_dir_name(r.parent_region_id))
                    .join(family_dir);
                self.volumes.dir(kind, &parent).join(&r.parent_file)
            }
        })
    }

    /// The manifest's tier field for a file on `kind`: empty for the data directory, so a
    /// data directory whose declared type changes keeps finding its files.
    pub(crate) fn tier_name(&self, kind: StorageType) -> String {
        if kind == self.volumes.root_kind() {
            String::new()
        } else {
            kind.name().to_owned()
        }
    }

    /// Where a flush writes: the hot window's policy when date-tiered windows are placed by
    /// age (a flush holds the newest data), else the family's `STORAGE_POLICY`.
    pub(crate) fn flush_tier(&self) -> StorageType {
        let policy = match &self.family.compaction_policy {
            CompactionPolicy::DateTiered(dt) if dt.storage_policy_enable => {
                dt.hot_window_storage_policy
            }
            _ => self.family.storage_policy,
        };
        self.volumes.place(policy)
    }

    /// Where a compaction output whose window starts at `window_start` goes at `now`
    /// (HBase's `getWindowStoragePolicy`: hot if the window starts at or after
    /// `now − hot age`, else warm if at or after `now − warm age`, else cold); the family's
    /// `STORAGE_POLICY` when windows are not placed by age or the output has no window.
    pub(crate) fn output_tier(&self, window_start: Option<i64>, now: i64) -> StorageType {
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
        self.volumes.place(policy)
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
