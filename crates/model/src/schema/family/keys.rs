//! The string-keyed path to a family's settings, for the shell and the gateway.
//!
//! Keys and keyword values are HBase's spellings, matched case-insensitively. Keys HBase puts in
//! a family's `CONFIGURATION => {…}` map (`RowPrefixBloomFilter.prefix_length`,
//! `hbase.hstore.compaction.date.tiered.*`, `hbase.hregion.compacting.memstore.flush.oldest`)
//! are plain keys here: the shell flattens the map.

use super::FamilyDescriptor;
use crate::schema::compaction::{CompactionPolicy, DateTiered};
use crate::schema::settings::Ttl;
use crate::schema::value::{
    parse_bool, parse_int, parse_keyword, parse_rate, parse_size, unknown_value,
};
use crate::schema::{BloomType, Compression, DataBlockEncoding, SchemaError};

/// A family setting, resolved from its string key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Name,
    Versions,
    MinVersions,
    Ttl,
    KeepDeletedCells,
    BlockSize,
    DataBlockEncoding,
    Compression,
    BloomFilter,
    BloomPrefixLength,
    BloomFpRate,
    BlockCache,
    CacheDataOnWrite,
    PrefetchBlocksOnOpen,
    BlockCacheForm,
    InMemory,
    InMemoryCompaction,
    FlushOldestSegment,
    StoragePolicy,
    CompactionPolicy,
    RowCache,
}

/// (key, HBase spelling, other accepted spellings).
const KEYS: [(Key, &str, &[&str]); 21] = [
    (Key::Name, "NAME", &[]),
    (Key::Versions, "VERSIONS", &["MAX_VERSIONS"]),
    (Key::MinVersions, "MIN_VERSIONS", &[]),
    (Key::Ttl, "TTL", &[]),
    (Key::KeepDeletedCells, "KEEP_DELETED_CELLS", &[]),
    (Key::BlockSize, "BLOCKSIZE", &["BLOCK_SIZE"]),
    (Key::DataBlockEncoding, "DATA_BLOCK_ENCODING", &[]),
    (Key::Compression, "COMPRESSION", &[]),
    (Key::BloomFilter, "BLOOMFILTER", &["BLOOM_FILTER"]),
    (
        Key::BloomPrefixLength,
        PREFIX_LENGTH,
        &["BLOOMFILTER_PARAM"],
    ),
    (Key::BloomFpRate, "BLOOMFILTER_FP_RATE", &[]),
    (Key::BlockCache, "BLOCKCACHE", &["BLOCK_CACHE"]),
    (Key::CacheDataOnWrite, "CACHE_DATA_ON_WRITE", &[]),
    (Key::PrefetchBlocksOnOpen, "PREFETCH_BLOCKS_ON_OPEN", &[]),
    (Key::BlockCacheForm, "BLOCK_CACHE_FORM", &[]),
    (Key::InMemory, "IN_MEMORY", &[]),
    (Key::InMemoryCompaction, "IN_MEMORY_COMPACTION", &[]),
    (Key::FlushOldestSegment, FLUSH_OLDEST, &[]),
    (
        Key::StoragePolicy,
        "STORAGE_POLICY",
        &["hbase.hstore.block.storage.policy"],
    ),
    (
        Key::CompactionPolicy,
        "COMPACTION_POLICY",
        &["hbase.hstore.engine.class"],
    ),
    (Key::RowCache, "ROW_CACHE", &[]),
];

/// HBase's key for the `ROWPREFIX_FIXED_LENGTH` prefix length.
const PREFIX_LENGTH: &str = "RowPrefixBloomFilter.prefix_length";
/// HBase-style `CONFIGURATION` key for flushing only the oldest in-memory segment.
const FLUSH_OLDEST: &str = "hbase.hregion.compacting.memstore.flush.oldest";
const BLOOM_ALLOWED: &str = "NONE, ROW, ROWCOL, ROWPREFIX_FIXED_LENGTH";

fn lookup(key: &str) -> Option<(Key, &'static str)> {
    let key = key.trim();
    KEYS.iter()
        .find(|(_, name, aliases)| {
            name.eq_ignore_ascii_case(key) || aliases.iter().any(|a| a.eq_ignore_ascii_case(key))
        })
        .map(|&(k, name, _)| (k, name))
}

impl FamilyDescriptor {
    /// Sets one setting from its HBase key and string value, checking the value's own range
    /// (cross-setting rules such as `MIN_VERSIONS <= VERSIONS` wait for [`Self::validate`], so
    /// settings may come in any order).
    ///
    /// `BLOOMFILTER => ROWPREFIX_FIXED_LENGTH` keeps a prefix length already set; the length
    /// may also be given inline (`ROWPREFIX_FIXED_LENGTH:10`). Setting
    /// `RowPrefixBloomFilter.prefix_length` (or `BLOOMFILTER_PARAM`) selects
    /// `ROWPREFIX_FIXED_LENGTH`. Likewise any `hbase.hstore.compaction.date.tiered.*` key
    /// selects `COMPACTION_POLICY => DATE_TIERED`.
    ///
    /// # Errors
    /// [`SchemaError::UnknownSetting`] for a key that is no family setting; otherwise an error
    /// naming the setting and the values it accepts. The descriptor is unchanged on error.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        if DateTiered::is_key(key.trim()) {
            let mut d = match self.compaction_policy {
                CompactionPolicy::DateTiered(d) => d,
                CompactionPolicy::Exploring => DateTiered::default(),
            };
            d.set(key, value)?;
            self.compaction_policy = CompactionPolicy::DateTiered(d);
            return Ok(());
        }
        let (key, name) = lookup(key).ok_or_else(|| SchemaError::UnknownSetting {
            scope: "column family",
            key: key.to_string(),
        })?;
        match key {
            Key::Name => self.name = value.trim().to_string(),
            Key::Versions => self.versions = parse_int(name, value, Self::VERSIONS_RANGE)?,
            Key::MinVersions => self.min_versions = parse_int(name, value, 0..=i32::MAX as u32)?,
            Key::Ttl => self.ttl = Ttl::parse(value)?,
            Key::KeepDeletedCells => self.keep_deleted_cells = parse_keyword(name, value)?,
            Key::BlockSize => {
                let r = Self::BLOCK_SIZE_RANGE;
                let size = parse_size(name, value, u64::from(*r.start())..=u64::from(*r.end()))?;
                self.block_size = u32::try_from(size).unwrap_or(u32::MAX);
            }
            Key::DataBlockEncoding => {
                self.data_block_encoding = DataBlockEncoding::parse(value)
                    .ok_or_else(|| unknown_value::<DataBlockEncoding>(name, value))?;
            }
            Key::Compression => {
                self.compression = Compression::parse(value)
                    .ok_or_else(|| unknown_value::<Compression>(name, value))?;
            }
            Key::BloomFilter => self.bloom_filter = self.parse_bloom(value)?,
            Key::BloomPrefixLength => {
                let n = parse_int(name, value, Self::BLOOM_PREFIX_RANGE)?;
                self.bloom_filter = BloomType::RowPrefixFixedLength(n);
            }
            Key::BloomFpRate => {
                self.bloom_fp_rate = parse_rate(name, value, Self::MAX_BLOOM_FP_RATE)?;
            }
            Key::BlockCache => self.block_cache = parse_bool(name, value)?,
            Key::CacheDataOnWrite => self.cache_data_on_write = parse_bool(name, value)?,
            Key::PrefetchBlocksOnOpen => {
                self.prefetch_blocks_on_open = parse_bool(name, value)?;
            }
            Key::BlockCacheForm => self.block_cache_form = parse_keyword(name, value)?,
            Key::InMemory => self.in_memory = parse_bool(name, value)?,
            Key::InMemoryCompaction => self.in_memory_compaction = parse_keyword(name, value)?,
            Key::FlushOldestSegment => self.flush_oldest_segment = parse_bool(name, value)?,
            Key::StoragePolicy => self.storage_policy = parse_keyword(name, value)?,
            Key::CompactionPolicy => {
                self.compaction_policy = CompactionPolicy::parse(value, self.compaction_policy)?;
            }
            Key::RowCache => self.row_cache = parse_bool(name, value)?,
        }
        Ok(())
    }

    /// `BLOOMFILTER`'s value: a keyword, `ROWPREFIX_FIXED_LENGTH` optionally with `:n` or `(n)`.
    fn parse_bloom(&self, value: &str) -> Result<BloomType, SchemaError> {
        let v = value.trim().to_ascii_uppercase();
        let (word, len) = match v.split_once([':', '(']) {
            Some((w, l)) => (w.trim(), Some(l.trim_end_matches(')').trim())),
            None => (v.as_str(), None),
        };
        let bloom = match word {
            "NONE" if len.is_none() => BloomType::None,
            "ROW" if len.is_none() => BloomType::Row,
            "ROWCOL" if len.is_none() => BloomType::RowCol,
            "ROWPREFIX_FIXED_LENGTH" => match len {
                Some(l) => BloomType::RowPrefixFixedLength(parse_int(
                    PREFIX_LENGTH,
                    l,
                    Self::BLOOM_PREFIX_RANGE,
                )?),
                // Keep a length set earlier; 0 means "not yet given" and fails validate().
                None => BloomType::RowPrefixFixedLength(self.bloom_filter.prefix_len()),
            },
            _ => {
                return Err(SchemaError::UnknownValue {
                    setting: "BLOOMFILTER",
                    value: value.to_string(),
                    allowed: BLOOM_ALLOWED.to_string(),
                })
            }
        };
        Ok(bloom)
    }

    /// Every setting as (HBase key, value) pairs, in `describe` order, starting with `NAME`.
    /// Feeding the pairs back through [`Self::set`] in order rebuilds an equal descriptor.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let b = |v: bool| if v { "TRUE" } else { "FALSE" }.to_string();
        let mut out = vec![
            ("NAME", self.name.clone()),
            ("VERSIONS", self.versions.to_string()),
            ("MIN_VERSIONS", self.min_versions.to_string()),
            ("TTL", self.ttl.to_string()),
            ("KEEP_DELETED_CELLS", self.keep_deleted_cells.to_string()),
            ("BLOCKSIZE", self.block_size.to_string()),
            ("DATA_BLOCK_ENCODING", self.data_block_encoding.to_string()),
            ("COMPRESSION", self.compression.to_string()),
            ("BLOOMFILTER", self.bloom_filter.name().to_string()),
        ];
        if let BloomType::RowPrefixFixedLength(n) = self.bloom_filter {
            out.push((PREFIX_LENGTH, n.to_string()));
        }
        out.extend([
            ("BLOOMFILTER_FP_RATE", self.bloom_fp_rate.to_string()),
            ("BLOCKCACHE", b(self.block_cache)),
            ("CACHE_DATA_ON_WRITE", b(self.cache_data_on_write)),
            ("PREFETCH_BLOCKS_ON_OPEN", b(self.prefetch_blocks_on_open)),
            ("BLOCK_CACHE_FORM", self.block_cache_form.to_string()),
            ("IN_MEMORY", b(self.in_memory)),
            (
                "IN_MEMORY_COMPACTION",
                self.in_memory_compaction.to_string(),
            ),
            ("STORAGE_POLICY", self.storage_policy.to_string()),
            (
                "COMPACTION_POLICY",
                self.compaction_policy.name().to_string(),
            ),
        ]);
        // A `CONFIGURATION` key: listed only when set, as HBase's describe shows the map.
        if self.flush_oldest_segment {
            out.push((FLUSH_OLDEST, b(true)));
        }
        if let CompactionPolicy::DateTiered(d) = &self.compaction_policy {
            out.extend(d.settings());
        }
        out.push(("ROW_CACHE", b(self.row_cache)));
        out
    }
}
