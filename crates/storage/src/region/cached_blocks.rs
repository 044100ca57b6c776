//! Dropping a region's blocks from the block cache (HBase's `clearBlockCache`, per region):
//! every block of the store files the region reads now, data, index and bloom. The files stay
//! open; the next read of a block reads it from its file and caches it again.

use std::collections::HashSet;

use strata_sstable::cache::Evicted;

use super::Region;

impl Region {
    /// Evicts the blocks of this region's store files from the block cache: how many blocks
    /// and bytes left (nothing without a cache). A reference file's blocks are its parent
    /// file's, so they leave the cache for the other daughter too.
    pub fn evict_cached_blocks(&self) -> Evicted {
        let mut evicted = Evicted::default();
        for store in self.inner.stores.values() {
            let Some(cache) = &store.cache else {
                continue;
            };
            let files: HashSet<u64> = store.files().iter().map(|f| f.reader.file_id()).collect();
            if !files.is_empty() {
                evicted += cache.evict_files(&files);
            }
        }
        evicted
    }
}
