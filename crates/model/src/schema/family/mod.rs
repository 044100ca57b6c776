//! [`FamilyDescriptor`]: one column family's settings (ARCHITECTURE.md, "Data model").
//!
//! Plain data: every field is public, [`Default`] gives HBase's defaults (and an empty name,
//! which [`FamilyDescriptor::validate`] rejects). The string-keyed path used by the shell and the
//! gateway is in `keys.rs`.

mod builder;
mod keys;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use super::compaction::CompactionPolicy;
use super::custom::{keep_unknown, validate_custom, FAMILY_RESERVED};
use super::settings::{CachedForm, InMemoryCompaction, KeepDeletedCells, StoragePolicy, Ttl};
use super::value::{check_range, check_rate};
use super::{BloomType, Compression, DataBlockEncoding, SchemaError};
use crate::limits::{MAX_FAMILY_LEN, MAX_ROW_LEN};

/// A column family's settings, with HBase's names and defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyDescriptor {
    /// The family name. Requires: 1..=255 bytes, no control characters, no `:`, not starting
    /// with `.`.
    pub name: String,
    /// `VERSIONS`: most versions kept per column. Default 1.
    pub versions: u32,
    /// `MIN_VERSIONS`: versions kept even past TTL. Default 0; at most `VERSIONS`.
    pub min_versions: u32,
    /// `TTL`: cell lifetime in seconds. Default `FOREVER`.
    pub ttl: Ttl,
    /// `KEEP_DELETED_CELLS`. Default `FALSE`.
    pub keep_deleted_cells: KeepDeletedCells,
    /// `BLOCKSIZE`: target data-block size in bytes. Default 65536; 1 KiB..=16 MiB.
    pub block_size: u32,
    /// `DATA_BLOCK_ENCODING`. Default `NONE`.
    pub data_block_encoding: DataBlockEncoding,
    /// `COMPRESSION`. Default `NONE`.
    pub compression: Compression,
    /// `BLOOMFILTER`. Default `ROW`. `ROWPREFIX_FIXED_LENGTH` carries its prefix length
    /// (`RowPrefixBloomFilter.prefix_length`, 1..=32767).
    pub bloom_filter: BloomType,
    /// `BLOOMFILTER_FP_RATE` (Strata): the bloom filter's target false-positive rate.
    /// Default 0.01; in (0, 0.5].
    pub bloom_fp_rate: f64,
    /// `BLOCKCACHE`: cache this family's data blocks on read. Default true.
    pub block_cache: bool,
    /// `CACHE_DATA_ON_WRITE`: cache data blocks as flushes and compactions write them.
    /// Default false.
    pub cache_data_on_write: bool,
    /// `PREFETCH_BLOCKS_ON_OPEN`: when a store file opens (region open, flush, compaction,
    /// bulk load), read its blocks into the block cache in the background. Default false.
    pub prefetch_blocks_on_open: bool,
    /// `BLOCK_CACHE_FORM` (Strata): what the cache keeps for data blocks. Default `ENCODED`.
    pub block_cache_form: CachedForm,
    /// `IN_MEMORY`: give this family's blocks the cache's in-memory priority. Default false.
    pub in_memory: bool,
    /// `IN_MEMORY_COMPACTION`. Default `BASIC` (see [`InMemoryCompaction`]).
    pub in_memory_compaction: InMemoryCompaction,
    /// `hbase.hregion.compacting.memstore.flush.oldest` (a `CONFIGURATION` key): a disk flush
    /// of a compacting memtable writes only its oldest in-memory segment instead of the whole
    /// memtable. Default false.
    pub flush_oldest_segment: bool,
    /// `STORAGE_POLICY`. Default `HOT`.
    pub storage_policy: StoragePolicy,
    /// `COMPACTION_POLICY`: `EXPLORING` (default) or `DATE_TIERED` with its parameters.
    pub compaction_policy: CompactionPolicy,
    /// `ROW_CACHE` (Hypertable's query cache): cache whole rows for repeated gets.
    /// Default false.
    pub row_cache: bool,
    /// `METADATA`: custom values (`ColumnFamilyDescriptorBuilder.setValue` with a key that is
    /// no setting), kept as given.
    pub metadata: BTreeMap<String, String>,
    /// `CONFIGURATION`: custom configuration values that are no setting, kept as given.
    pub configuration: BTreeMap<String, String>,
}

impl FamilyDescriptor {
    /// `VERSIONS` default.
    pub const DEFAULT_VERSIONS: u32 = 1;
    /// Allowed `VERSIONS` (HBase stores it as an `int`).
    pub const VERSIONS_RANGE: RangeInclusive<u32> = 1..=i32::MAX as u32;
    /// `BLOCKSIZE` default.
    pub const DEFAULT_BLOCK_SIZE: u32 = 64 * 1024;
    /// Allowed `BLOCKSIZE`.
    pub const BLOCK_SIZE_RANGE: RangeInclusive<u32> = 1024..=16 * 1024 * 1024;
    /// `BLOOMFILTER_FP_RATE` default.
    pub const DEFAULT_BLOOM_FP_RATE: f64 = 0.01;
    /// Largest `BLOOMFILTER_FP_RATE`.
    pub const MAX_BLOOM_FP_RATE: f64 = 0.5;
    /// Allowed `ROWPREFIX_FIXED_LENGTH` prefix lengths.
    pub const BLOOM_PREFIX_RANGE: RangeInclusive<u16> = 1..=MAX_ROW_LEN as u16;

    /// A family named `name` with every setting at its default.
    pub fn new(name: impl Into<String>) -> FamilyDescriptor {
        FamilyDescriptor {
            name: name.into(),
            ..FamilyDescriptor::default()
        }
    }

    /// A `METADATA` value: sets the setting `key` names, or keeps the pair (a key HBase
    /// reserves without a Strata setting, such as `REPLICATION_SCOPE`, is dropped).
    ///
    /// # Errors
    /// A bad value for a setting.
    pub fn set_metadata(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        let result = self.set(key, value);
        keep_unknown(result, &mut self.metadata, &FAMILY_RESERVED, key, value)
    }

    /// A `CONFIGURATION` value: sets the setting `key` names, or keeps the pair.
    ///
    /// # Errors
    /// A bad value for a setting.
    pub fn set_configuration(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        let result = self.set(key, value);
        keep_unknown(result, &mut self.configuration, &[], key, value)
    }

    /// Checks the name, every setting's range, and `MIN_VERSIONS <= VERSIONS`.
    ///
    /// # Errors
    /// The first problem found, naming the setting.
    pub fn validate(&self) -> Result<(), SchemaError> {
        validate_family_name(&self.name)?;
        check_range("VERSIONS", self.versions, Self::VERSIONS_RANGE)?;
        if self.min_versions > self.versions {
            return Err(SchemaError::Conflict {
                setting: "MIN_VERSIONS",
                reason: format!("{} exceeds VERSIONS ({})", self.min_versions, self.versions),
            });
        }
        self.ttl.validate()?;
        check_range("BLOCKSIZE", self.block_size, Self::BLOCK_SIZE_RANGE)?;
        if let BloomType::RowPrefixFixedLength(n) = self.bloom_filter {
            if !Self::BLOOM_PREFIX_RANGE.contains(&n) {
                return Err(SchemaError::Conflict {
                    setting: "BLOOMFILTER",
                    reason: format!(
                        "ROWPREFIX_FIXED_LENGTH needs RowPrefixBloomFilter.prefix_length in \
                         1..={MAX_ROW_LEN}, got {n}"
                    ),
                });
            }
        }
        check_rate(
            "BLOOMFILTER_FP_RATE",
            self.bloom_fp_rate,
            Self::MAX_BLOOM_FP_RATE,
        )?;
        if let CompactionPolicy::DateTiered(d) = &self.compaction_policy {
            d.validate()?;
        }
        validate_custom("METADATA", &self.metadata)?;
        validate_custom("CONFIGURATION", &self.configuration)?;
        Ok(())
    }
}

impl Default for FamilyDescriptor {
    fn default() -> Self {
        FamilyDescriptor {
            name: String::new(),
            versions: Self::DEFAULT_VERSIONS,
            min_versions: 0,
            ttl: Ttl::Forever,
            keep_deleted_cells: KeepDeletedCells::False,
            block_size: Self::DEFAULT_BLOCK_SIZE,
            data_block_encoding: DataBlockEncoding::None,
            compression: Compression::None,
            bloom_filter: BloomType::Row,
            bloom_fp_rate: Self::DEFAULT_BLOOM_FP_RATE,
            block_cache: true,
            cache_data_on_write: false,
            prefetch_blocks_on_open: false,
            block_cache_form: CachedForm::Encoded,
            in_memory: false,
            in_memory_compaction: InMemoryCompaction::Basic,
            flush_oldest_segment: false,
            storage_policy: StoragePolicy::Hot,
            compaction_policy: CompactionPolicy::Exploring,
            row_cache: false,
            metadata: BTreeMap::new(),
            configuration: BTreeMap::new(),
        }
    }
}

/// Checks HBase's column-family naming rules: 1..=255 bytes, no control characters, no `:`
/// (it separates family from qualifier), no leading `.` (hidden and temporary directories).
///
/// # Errors
/// [`SchemaError::InvalidName`] stating the broken rule.
pub fn validate_family_name(name: &str) -> Result<(), SchemaError> {
    let reason = if name.is_empty() {
        "must not be empty".to_string()
    } else if name.len() > MAX_FAMILY_LEN {
        format!("{} bytes, at most {MAX_FAMILY_LEN} allowed", name.len())
    } else if name.starts_with('.') {
        "must not start with '.'".to_string()
    } else if name.contains(':') {
        "must not contain ':'".to_string()
    } else if name.chars().any(char::is_control) {
        "must be printable (no control characters)".to_string()
    } else {
        return Ok(());
    };
    Err(SchemaError::InvalidName {
        kind: "column family",
        name: name.to_string(),
        reason,
    })
}
