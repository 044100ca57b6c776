//! Builder-style setters: `FamilyDescriptor::new("cf").with_versions(3)`. They do not
//! validate; call [`FamilyDescriptor::validate`] once the descriptor is complete.

use super::FamilyDescriptor;
use crate::schema::compaction::CompactionPolicy;
use crate::schema::settings::{
    CachedForm, InMemoryCompaction, KeepDeletedCells, StoragePolicy, Ttl,
};
use crate::schema::{BloomType, Compression, DataBlockEncoding};

impl FamilyDescriptor {
    /// Sets `VERSIONS`.
    #[must_use]
    pub fn with_versions(mut self, versions: u32) -> Self {
        self.versions = versions;
        self
    }

    /// Sets `MIN_VERSIONS`.
    #[must_use]
    pub fn with_min_versions(mut self, min_versions: u32) -> Self {
        self.min_versions = min_versions;
        self
    }

    /// Sets `TTL`.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Ttl) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets `KEEP_DELETED_CELLS`.
    #[must_use]
    pub fn with_keep_deleted_cells(mut self, keep_deleted_cells: KeepDeletedCells) -> Self {
        self.keep_deleted_cells = keep_deleted_cells;
        self
    }

    /// Sets `BLOCKSIZE`.
    #[must_use]
    pub fn with_block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size;
        self
    }

    /// Sets `DATA_BLOCK_ENCODING`.
    #[must_use]
    pub fn with_data_block_encoding(mut self, data_block_encoding: DataBlockEncoding) -> Self {
        self.data_block_encoding = data_block_encoding;
        self
    }

    /// Sets `COMPRESSION`.
    #[must_use]
    pub fn with_compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }

    /// Sets `BLOOMFILTER`.
    #[must_use]
    pub fn with_bloom_filter(mut self, bloom_filter: BloomType) -> Self {
        self.bloom_filter = bloom_filter;
        self
    }

    /// Sets `BLOOMFILTER_FP_RATE`.
    #[must_use]
    pub fn with_bloom_fp_rate(mut self, bloom_fp_rate: f64) -> Self {
        self.bloom_fp_rate = bloom_fp_rate;
        self
    }

    /// Sets `BLOCKCACHE`.
    #[must_use]
    pub fn with_block_cache(mut self, block_cache: bool) -> Self {
        self.block_cache = block_cache;
        self
    }

    /// Sets `CACHE_DATA_ON_WRITE`.
    #[must_use]
    pub fn with_cache_data_on_write(mut self, cache_data_on_write: bool) -> Self {
        self.cache_data_on_write = cache_data_on_write;
        self
    }

    /// Sets `PREFETCH_BLOCKS_ON_OPEN`.
    #[must_use]
    pub fn with_prefetch_blocks_on_open(mut self, prefetch: bool) -> Self {
        self.prefetch_blocks_on_open = prefetch;
        self
    }

    /// Sets `BLOCK_CACHE_FORM`.
    #[must_use]
    pub fn with_block_cache_form(mut self, block_cache_form: CachedForm) -> Self {
        self.block_cache_form = block_cache_form;
        self
    }

    /// Sets `IN_MEMORY`.
    #[must_use]
    pub fn with_in_memory(mut self, in_memory: bool) -> Self {
        self.in_memory = in_memory;
        self
    }

    /// Sets `IN_MEMORY_COMPACTION`.
    #[must_use]
    pub fn with_in_memory_compaction(mut self, in_memory_compaction: InMemoryCompaction) -> Self {
        self.in_memory_compaction = in_memory_compaction;
        self
    }

    /// Sets `STORAGE_POLICY`.
    #[must_use]
    pub fn with_storage_policy(mut self, storage_policy: StoragePolicy) -> Self {
        self.storage_policy = storage_policy;
        self
    }

    /// Sets `COMPACTION_POLICY`.
    #[must_use]
    pub fn with_compaction_policy(mut self, compaction_policy: CompactionPolicy) -> Self {
        self.compaction_policy = compaction_policy;
        self
    }

    /// Sets `ROW_CACHE`.
    #[must_use]
    pub fn with_row_cache(mut self, row_cache: bool) -> Self {
        self.row_cache = row_cache;
        self
    }
}
