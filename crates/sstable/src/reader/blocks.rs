//! Fetching blocks: cache first, then the source, verifying and decoding on the way.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use strata_model::schema::{CachedForm, DataBlockEncoding};

use super::Inner;
use crate::block::{self, BlockHandle, BlockType, RawBlock};
use crate::bloom::BloomChunk;
use crate::cache::{BlockCache, CacheKey, CachedBlock};
use crate::decoded::DecodedBlock;
use crate::error::{Error, Result};
use crate::index::{IndexBlock, IndexLoader};

/// A data block ready to iterate: decoded (random access) or encoded (streamed).
pub(crate) enum DataBlock {
    Decoded(Arc<DecodedBlock>),
    Encoded(Bytes),
}

impl Inner {
    pub(crate) fn key(&self, handle: BlockHandle) -> CacheKey {
        CacheKey {
            file: self.file_id,
            offset: handle.offset,
        }
    }

    /// Reads a block from the source (no cache), counting it.
    pub(crate) fn read_raw(&self, handle: BlockHandle, expected: BlockType) -> Result<RawBlock> {
        if handle
            .offset
            .checked_add(handle.disk_len())
            .is_none_or(|end| end > self.trailer_start())
        {
            return Err(Error::corruption(
                &self.name,
                handle.offset,
                "block handle points past the data",
            ));
        }
        let raw = if crate::cache_only::active() {
            // Only a read that waits for nothing: the block's pages in the OS page cache.
            match block::read_nowait(self.source.as_ref(), &self.name, handle, expected)? {
                Some(raw) => {
                    crate::cache_only::read_in_place();
                    raw
                }
                None => return Err(crate::cache_only::refuse(&self.name)),
            }
        } else {
            block::read(self.source.as_ref(), &self.name, handle, expected)?
        };
        self.counters.blocks_read.fetch_add(1, Ordering::Relaxed);
        self.counters
            .bytes_read
            .fetch_add(handle.disk_len(), Ordering::Relaxed);
        Ok(raw)
    }

    fn trailer_start(&self) -> u64 {
        self.len - crate::trailer::TRAILER_LEN as u64
    }

    pub(crate) fn decode(&self, handle: BlockHandle, bytes: Bytes) -> Result<DecodedBlock> {
        DecodedBlock::decode(self.info.encoding, bytes).map_err(|e| {
            Error::corruption(
                &self.name,
                handle.offset,
                format!(
                    "{} (at byte {} of the decompressed block)",
                    e.reason, e.offset
                ),
            )
        })
    }

    /// The data block at `handle`, in the cached form, or decoded when `decoded` is asked for.
    ///
    /// NONE and ROW_INDEX blocks are already in the decoded layout, so decoding only builds a
    /// cell-offset array (no copy): their `Encoded` cached form is that decoded block, and NONE
    /// blocks are always handed out decoded. An uncached ROW_INDEX block is streamed, so a get
    /// binary-searches its row index instead of indexing every cell.
    ///
    /// Without `fill`, a block found in the cache is used but a block read from the source is
    /// not added (a compaction's reads: its inputs are deleted once it lands, and their
    /// blocks would only push hot ones out; HBase's `cacheBlocks = false`).
    pub(crate) fn data_block(
        &self,
        handle: BlockHandle,
        want_decoded: bool,
        fill: bool,
    ) -> Result<DataBlock> {
        let cache = self
            .options
            .cache
            .as_ref()
            .filter(|_| self.options.cache_data);
        let in_place = self.in_place(cache.is_some());
        let want_decoded = want_decoded || in_place;
        let key = self.key(handle);
        let found = cache.and_then(|c| c.get(&key, false));
        let encoded = match found {
            Some(CachedBlock::Decoded(b)) => return Ok(DataBlock::Decoded(b)),
            Some(CachedBlock::Encoded(b)) => b,
            Some(CachedBlock::Compressed(raw)) => raw.decompress(&self.name, handle.offset)?,
            _ => match self.read_data_block(handle, cache.filter(|_| fill), in_place)? {
                DataBlock::Decoded(b) => return Ok(DataBlock::Decoded(b)),
                DataBlock::Encoded(b) => b,
            },
        };
        if want_decoded {
            Ok(DataBlock::Decoded(Arc::new(self.decode(handle, encoded)?)))
        } else {
            Ok(DataBlock::Encoded(encoded))
        }
    }

    /// Whether this file's data blocks are cached in their decoded layout without a copy (see
    /// [`Inner::data_block`]).
    pub(crate) fn in_place(&self, cached: bool) -> bool {
        match self.info.encoding {
            DataBlockEncoding::None => true,
            DataBlockEncoding::RowIndex => cached,
            _ => false,
        }
    }

    /// Reads the data block at `handle` from the source and, given a cache, adds it in the
    /// family's cached form: decoded when that form is cached, else decompressed.
    pub(crate) fn read_data_block(
        &self,
        handle: BlockHandle,
        cache: Option<&Arc<BlockCache>>,
        in_place: bool,
    ) -> Result<DataBlock> {
        let key = self.key(handle);
        let raw = self.read_raw(handle, BlockType::Data)?;
        let form = match self.options.cached_form {
            CachedForm::Encoded if in_place => CachedForm::Decoded,
            form => form,
        };
        let bytes = raw.decompress(&self.name, handle.offset)?;
        match (cache, form) {
            (Some(c), CachedForm::Decoded) => {
                let decoded = Arc::new(self.decode(handle, bytes)?);
                c.insert(key, CachedBlock::Decoded(decoded.clone()));
                return Ok(DataBlock::Decoded(decoded));
            }
            (Some(c), CachedForm::Encoded) => c.insert(key, CachedBlock::Encoded(bytes.clone())),
            (Some(c), CachedForm::Compressed) => {
                c.insert(key, CachedBlock::Compressed(Arc::new(raw)));
            }
            (None, _) => {}
        }
        Ok(DataBlock::Encoded(bytes))
    }

    /// The bloom chunk at `handle` (cached with priority).
    pub(crate) fn bloom_chunk(&self, handle: BlockHandle) -> Result<Arc<BloomChunk>> {
        let key = self.key(handle);
        if let Some(CachedBlock::Bloom(b)) =
            self.options.cache.as_ref().and_then(|c| c.get(&key, true))
        {
            return Ok(b);
        }
        self.read_bloom_chunk(handle)
    }

    /// Reads the bloom chunk at `handle` from the source and adds it to the cache, if any.
    pub(crate) fn read_bloom_chunk(&self, handle: BlockHandle) -> Result<Arc<BloomChunk>> {
        let raw = self.read_raw(handle, BlockType::BloomChunk)?;
        let chunk = BloomChunk::parse(raw.decompress(&self.name, handle.offset)?)
            .map_err(|r| Error::corruption(&self.name, handle.offset, r))?;
        let chunk = Arc::new(chunk);
        if let Some(c) = &self.options.cache {
            c.insert(self.key(handle), CachedBlock::Bloom(chunk.clone()));
        }
        Ok(chunk)
    }
}

impl IndexLoader for Inner {
    fn load_index(&self, handle: BlockHandle, block_type: BlockType) -> Result<Arc<IndexBlock>> {
        let key = self.key(handle);
        if let Some(CachedBlock::Index(b)) =
            self.options.cache.as_ref().and_then(|c| c.get(&key, true))
        {
            return Ok(b);
        }
        let raw = self.read_raw(handle, block_type)?;
        let block = IndexBlock::parse(raw.decompress(&self.name, handle.offset)?)
            .map_err(|r| Error::corruption(&self.name, handle.offset, r))?;
        if block.is_empty() {
            return Err(Error::corruption(
                &self.name,
                handle.offset,
                "empty non-root index block",
            ));
        }
        let block = Arc::new(block);
        if let Some(c) = &self.options.cache {
            c.insert(key, CachedBlock::Index(block.clone()));
        }
        Ok(block)
    }
}
