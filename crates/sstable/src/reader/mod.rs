//! Opens a store file and serves point lookups and iterators over it.
//!
//! Opening reads the trailer, the file info, the root index and the bloom index; everything
//! else is read on demand, one block at a time, through the block cache when one is given.
//!
//! Thread safety: a [`Reader`] is a cheap handle (`Arc`) that many threads may share; each
//! iterator belongs to one thread.

mod blocks;
mod get;
mod iter;
mod prefetch;
mod verify;

pub use iter::Iter;
pub use prefetch::Prefetched;
pub use verify::{BlockSummary, VerifyReport};

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use strata_model::schema::{CachedForm, FamilyDescriptor};

use crate::block::{self, BlockType};
use crate::bloom::BloomIndex;
use crate::cache::BlockCache;
use crate::error::{Error, Result};
use crate::file_info::FileInfo;
use crate::index::IndexBlock;
use crate::source::Source;
use crate::trailer::{Trailer, TRAILER_LEN};

/// How a reader uses the block cache.
#[derive(Clone)]
pub struct ReaderOptions {
    /// The process's block cache; `None` reads every block from the source.
    pub cache: Option<Arc<BlockCache>>,
    /// Whether data blocks go into the cache (`BLOCKCACHE`; index and bloom blocks always do).
    pub cache_data: bool,
    /// The form cached data blocks take.
    pub cached_form: CachedForm,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            cache: None,
            cache_data: true,
            cached_form: CachedForm::default(),
        }
    }
}

impl ReaderOptions {
    /// Options from a family's settings (`BLOCKCACHE`, `BLOCK_CACHE_FORM`) and the process's
    /// cache.
    pub fn for_family(family: &FamilyDescriptor, cache: Option<Arc<BlockCache>>) -> Self {
        ReaderOptions {
            cache,
            cache_data: family.block_cache,
            cached_form: family.block_cache_form,
        }
    }
}

/// Read counters of one reader.
#[derive(Default)]
pub(crate) struct Counters {
    blocks_read: AtomicU64,
    bytes_read: AtomicU64,
    bloom_checks: AtomicU64,
    bloom_negatives: AtomicU64,
}

/// A snapshot of a reader's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReaderStats {
    /// Blocks read from the source (cache misses and uncached reads).
    pub blocks_read: u64,
    /// Bytes read from the source.
    pub bytes_read: u64,
    /// Bloom filter lookups.
    pub bloom_checks: u64,
    /// Bloom lookups that ruled the file out.
    pub bloom_negatives: u64,
}

pub(crate) struct Inner {
    pub(crate) name: String,
    pub(crate) source: Arc<dyn Source>,
    pub(crate) file_id: u64,
    pub(crate) len: u64,
    pub(crate) trailer: Trailer,
    pub(crate) info: FileInfo,
    pub(crate) root: Arc<IndexBlock>,
    pub(crate) bloom: Option<BloomIndex>,
    pub(crate) options: ReaderOptions,
    pub(crate) counters: Counters,
}

/// An open store file.
#[derive(Clone)]
pub struct Reader {
    pub(crate) inner: Arc<Inner>,
}

static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(1);

impl Reader {
    /// Opens the file at `path`.
    ///
    /// # Errors
    /// I/O errors, or corruption of the trailer, file info, root index or bloom index.
    pub fn open(path: &Path, options: ReaderOptions) -> Result<Reader> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| Error::io(&name, e))?;
        Reader::from_source(Arc::new(file), name, options)
    }

    /// Opens a store file held in memory.
    ///
    /// # Errors
    /// Corruption.
    pub fn from_bytes(bytes: Bytes, name: &str, options: ReaderOptions) -> Result<Reader> {
        Reader::from_source(Arc::new(bytes), name.to_owned(), options)
    }

    /// Opens a store file from any source; `name` appears in errors.
    ///
    /// # Errors
    /// I/O errors, or corruption of the trailer, file info, root index or bloom index.
    pub fn from_source(
        source: Arc<dyn Source>,
        name: String,
        options: ReaderOptions,
    ) -> Result<Reader> {
        let len = source.size().map_err(|e| Error::io(&name, e))?;
        if len < TRAILER_LEN as u64 {
            return Err(Error::corruption(
                &name,
                0,
                "file too short to be a store file",
            ));
        }
        let trailer_at = len - TRAILER_LEN as u64;
        let tb = source
            .read_at(trailer_at, TRAILER_LEN)
            .map_err(|e| Error::io(&name, e))?;
        let trailer =
            Trailer::decode(&tb, len).map_err(|r| Error::corruption(&name, trailer_at, r))?;

        let at = trailer.file_info.offset;
        let raw = block::read(
            source.as_ref(),
            &name,
            trailer.file_info,
            BlockType::FileInfo,
        )?;
        let info = FileInfo::decode(&raw.decompress(&name, at)?)
            .map_err(|r| Error::corruption(&name, at, r))?;
        if info.encoding != trailer.encoding || info.compression != trailer.compression {
            return Err(Error::corruption(
                &name,
                at,
                "file info disagrees with the trailer",
            ));
        }

        let at = trailer.root_index.offset;
        let raw = block::read(
            source.as_ref(),
            &name,
            trailer.root_index,
            BlockType::RootIndex,
        )?;
        let root = IndexBlock::parse(raw.decompress(&name, at)?)
            .map_err(|r| Error::corruption(&name, at, r))?;
        if root.is_empty() != (info.cell_count == 0) {
            return Err(Error::corruption(
                &name,
                at,
                "root index and cell count disagree",
            ));
        }

        let bloom = match trailer.bloom_index {
            Some(h) => {
                let raw = block::read(source.as_ref(), &name, h, BlockType::BloomIndex)?;
                let b = BloomIndex::parse(&raw.decompress(&name, h.offset)?)
                    .map_err(|r| Error::corruption(&name, h.offset, r))?;
                if b.bloom_type != info.bloom {
                    return Err(Error::corruption(
                        &name,
                        h.offset,
                        "bloom type disagrees with file info",
                    ));
                }
                Some(b)
            }
            None => None,
        };

        Ok(Reader {
            inner: Arc::new(Inner {
                name,
                source,
                file_id: NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed),
                len,
                trailer,
                info,
                root: Arc::new(root),
                bloom,
                options,
                counters: Counters::default(),
            }),
        })
    }

    /// The file's metadata.
    pub fn info(&self) -> &FileInfo {
        &self.inner.info
    }

    /// The file's trailer.
    pub fn trailer(&self) -> &Trailer {
        &self.inner.trailer
    }

    /// The name used in errors (the path for files).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The id of this open file in the block cache (for [`BlockCache::evict_file`]).
    pub fn file_id(&self) -> u64 {
        self.inner.file_id
    }

    /// File length in bytes.
    pub fn file_len(&self) -> u64 {
        self.inner.len
    }

    /// The root index block.
    pub fn root_index(&self) -> &IndexBlock {
        &self.inner.root
    }

    /// Bloom parameters: (type, target false-positive rate, keys, chunks, bytes), if any.
    pub fn bloom_summary(&self) -> Option<BloomSummary> {
        self.inner.bloom.as_ref().map(|b| BloomSummary {
            bloom_type: b.bloom_type,
            fp_rate: b.fp_rate,
            keys: b.key_count,
            chunks: b.chunks.len() as u64,
            bytes: b.total_chunk_bytes(),
        })
    }

    /// Counters since the file was opened.
    pub fn stats(&self) -> ReaderStats {
        let c = &self.inner.counters;
        ReaderStats {
            blocks_read: c.blocks_read.load(Ordering::Relaxed),
            bytes_read: c.bytes_read.load(Ordering::Relaxed),
            bloom_checks: c.bloom_checks.load(Ordering::Relaxed),
            bloom_negatives: c.bloom_negatives.load(Ordering::Relaxed),
        }
    }

    /// A new iterator, unpositioned.
    pub fn iter(&self) -> Iter {
        Iter::new(self.clone(), true)
    }

    /// A new iterator, unpositioned, that uses cached data blocks but adds none it reads
    /// (compactions: their inputs are deleted once they land).
    pub fn iter_uncached(&self) -> Iter {
        Iter::new(self.clone(), false)
    }
}

/// Bloom filter facts for tools.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BloomSummary {
    /// Which key the filter holds.
    pub bloom_type: strata_model::schema::BloomType,
    /// Target false-positive rate.
    pub fp_rate: f64,
    /// Distinct keys added.
    pub keys: u64,
    /// Number of chunks.
    pub chunks: u64,
    /// Bytes of the chunks on disk.
    pub bytes: u64,
}
