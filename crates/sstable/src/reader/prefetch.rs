//! Reading a whole file into the block cache (HBase's `PREFETCH_BLOCKS_ON_OPEN`): its bloom
//! chunks, then its data blocks in file order through the index, skipping blocks already
//! cached. Its bloom and data blocks count no cache hit or miss, so the cache's figures keep
//! describing requests; the few leaf index blocks its walk loads are looked up as any index
//! block is.

use std::sync::atomic::Ordering;

use super::Reader;
use crate::error::Result;
use crate::index::IndexCursor;

/// What [`Reader::prefetch`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prefetched {
    /// Blocks read from the source and cached (index blocks included).
    pub blocks: u64,
    /// Their bytes on disk.
    pub bytes: u64,
    /// False when `stop` ended it before the last block.
    pub complete: bool,
}

impl Reader {
    /// Reads every bloom chunk and data block not yet cached into the block cache, asking
    /// `stop` before each block. Does nothing without a cache or when the family does not
    /// cache data blocks (`BLOCKCACHE => false`), as HBase prefetches only when it caches
    /// data on read.
    ///
    /// # Errors
    /// I/O or corruption of a block; the blocks cached before it stay.
    pub fn prefetch(&self, stop: &dyn Fn() -> bool) -> Result<Prefetched> {
        let inner = &self.inner;
        let counted = || {
            (
                inner.counters.blocks_read.load(Ordering::Relaxed),
                inner.counters.bytes_read.load(Ordering::Relaxed),
            )
        };
        let (blocks0, bytes0) = counted();
        let mut done = Prefetched::default();
        let Some(cache) = inner
            .options
            .cache
            .as_ref()
            .filter(|_| inner.options.cache_data)
        else {
            done.complete = true;
            return Ok(done);
        };
        let finish = |complete: bool| {
            let (blocks, bytes) = counted();
            Prefetched {
                blocks: blocks - blocks0,
                bytes: bytes - bytes0,
                complete,
            }
        };
        if let Some(bloom) = &inner.bloom {
            for chunk in &bloom.chunks {
                if stop() {
                    return Ok(finish(false));
                }
                if !cache.contains(&inner.key(chunk.handle)) {
                    inner.read_bloom_chunk(chunk.handle)?;
                }
            }
        }
        let in_place = inner.in_place(true);
        let mut cursor = IndexCursor::new(inner.root.clone(), inner.trailer.index_levels);
        let mut more = cursor.first(inner.as_ref())?;
        while more {
            if stop() {
                return Ok(finish(false));
            }
            let handle = cursor.handle();
            if !cache.contains(&inner.key(handle)) {
                inner.read_data_block(handle, Some(cache), in_place)?;
            }
            more = cursor.next(inner.as_ref())?;
        }
        Ok(finish(true))
    }
}
