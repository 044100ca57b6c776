//! One column family of a region: its memtable and its store files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::RwLock;
use strata_model::cell::CellKey;
use strata_model::schema::FamilyDescriptor;
use strata_sstable::{BlockCache, CellRef, Reader, ReaderOptions, Result as SstResult};

use crate::manifest::StoreFile;
use crate::memtable::{self, Memtable};
use crate::read::Cursor;

/// An open store file.
pub(crate) struct FileHandle {
    pub(crate) meta: StoreFile,
    pub(crate) reader: Reader,
}

/// Memtable and files of one family.
pub(crate) struct Store {
    pub(crate) family: FamilyDescriptor,
    pub(crate) name: Bytes,
    pub(crate) dir: PathBuf,
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
    pub(crate) fn new(
        family: FamilyDescriptor,
        region_dir: &Path,
        cache: Option<Arc<BlockCache>>,
    ) -> Store {
        let dir = region_dir.join(family_dir_name(&family.name));
        Store {
            name: Bytes::copy_from_slice(family.name.as_bytes()),
            memtable: Memtable::new(memtable::Options::for_family(&family)),
            family,
            dir,
            files: RwLock::new(Arc::new(Vec::new())),
            cache,
        }
    }

    pub(crate) fn reader_options(&self) -> ReaderOptions {
        ReaderOptions::for_family(&self.family, self.cache.clone())
    }

    pub(crate) fn open_file(&self, meta: StoreFile) -> SstResult<Arc<FileHandle>> {
        let reader = Reader::open(&self.dir.join(&meta.name), self.reader_options())?;
        Ok(Arc::new(FileHandle { meta, reader }))
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
