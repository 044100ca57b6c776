//! [`TableDescriptor`]: a table's name, its column families and its settings (ARCHITECTURE.md,
//! "Data model").

mod keys;
mod name;
mod settings;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};
use std::ops::RangeInclusive;

pub use name::TableName;
pub use settings::{Durability, SplitPolicy};

use super::custom::{keep_unknown, validate_custom, TABLE_RESERVED};
use super::family::FamilyDescriptor;
use super::value::check_range;
use super::SchemaError;

/// A table's schema, with HBase's setting names and defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct TableDescriptor {
    /// The table's name.
    pub name: TableName,
    /// The column families, in declaration order. Requires: at least one, names unique.
    pub families: Vec<FamilyDescriptor>,
    /// `DURABILITY`: the default for the table's mutations. Default `SYNC_WAL`.
    pub durability: Durability,
    /// `MAX_FILESIZE`: the split size (the upper bound for `INCREASING_TO_UPPER_BOUND`), in
    /// bytes. Default 10 GiB; at least 2 MiB.
    pub max_filesize: u64,
    /// `MEMSTORE_FLUSHSIZE`: a region's memtables are flushed at this size, in bytes.
    /// Default 128 MiB; at least 1 MiB.
    pub memstore_flushsize: u64,
    /// `SPLIT_POLICY`. Default `INCREASING_TO_UPPER_BOUND`.
    pub split_policy: SplitPolicy,
    /// `READONLY`: reject every mutation. Default false.
    pub read_only: bool,
    /// `COMPACTION_ENABLED`: false stops every compaction of the table's stores, minor and
    /// major, asked for or automatic (HBase's `CompactSplit` ignores their requests); flushes,
    /// splits and in-memory compactions go on. Default true.
    pub compaction_enabled: bool,
    /// `SPLIT_ENABLED`: false refuses every split of the table's regions, asked for or
    /// automatic (by size or by load), as HBase's split procedure does. Default true.
    pub split_enabled: bool,
    /// `MERGE_ENABLED`: false refuses every merge of the table's regions (HBase's merge
    /// procedure). Default true.
    pub merge_enabled: bool,
    /// `METADATA`: custom values (`TableDescriptorBuilder.setValue` with a key that is no
    /// setting), kept as given.
    pub metadata: BTreeMap<String, String>,
    /// `CONFIGURATION`: custom configuration values that are no setting, kept as given.
    pub configuration: BTreeMap<String, String>,
}

impl TableDescriptor {
    /// `MAX_FILESIZE` default (HBase's `hbase.hregion.max.filesize`).
    pub const DEFAULT_MAX_FILESIZE: u64 = 10 << 30;
    /// Allowed `MAX_FILESIZE` (HBase's sanity check rejects less than 2 MiB).
    pub const MAX_FILESIZE_RANGE: RangeInclusive<u64> = 2 << 20..=i64::MAX as u64;
    /// `MEMSTORE_FLUSHSIZE` default (HBase's `hbase.hregion.memstore.flush.size`).
    pub const DEFAULT_MEMSTORE_FLUSHSIZE: u64 = 128 << 20;
    /// Allowed `MEMSTORE_FLUSHSIZE` (HBase's sanity check rejects less than 1 MiB).
    pub const MEMSTORE_FLUSHSIZE_RANGE: RangeInclusive<u64> = 1 << 20..=i64::MAX as u64;

    /// A table with no families yet and default settings.
    pub fn new(name: TableName) -> TableDescriptor {
        TableDescriptor {
            name,
            ..TableDescriptor::default()
        }
    }

    /// Adds a column family.
    #[must_use]
    pub fn with_family(mut self, family: FamilyDescriptor) -> Self {
        self.families.push(family);
        self
    }

    /// Sets `DURABILITY`.
    #[must_use]
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Sets `MAX_FILESIZE`.
    #[must_use]
    pub fn with_max_filesize(mut self, bytes: u64) -> Self {
        self.max_filesize = bytes;
        self
    }

    /// Sets `MEMSTORE_FLUSHSIZE`.
    #[must_use]
    pub fn with_memstore_flushsize(mut self, bytes: u64) -> Self {
        self.memstore_flushsize = bytes;
        self
    }

    /// Sets `SPLIT_POLICY`.
    #[must_use]
    pub fn with_split_policy(mut self, policy: SplitPolicy) -> Self {
        self.split_policy = policy;
        self
    }

    /// Sets `READONLY`.
    #[must_use]
    pub fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Sets `COMPACTION_ENABLED`.
    #[must_use]
    pub fn with_compaction_enabled(mut self, enabled: bool) -> Self {
        self.compaction_enabled = enabled;
        self
    }

    /// Sets `SPLIT_ENABLED`.
    #[must_use]
    pub fn with_split_enabled(mut self, enabled: bool) -> Self {
        self.split_enabled = enabled;
        self
    }

    /// Sets `MERGE_ENABLED`.
    #[must_use]
    pub fn with_merge_enabled(mut self, enabled: bool) -> Self {
        self.merge_enabled = enabled;
        self
    }

    /// A `METADATA` value: sets the setting `key` names, or keeps the pair (a key HBase
    /// reserves without a Strata setting, such as `PRIORITY`, is dropped).
    ///
    /// # Errors
    /// A bad value for a setting.
    pub fn set_metadata(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        let result = self.set(key, value);
        keep_unknown(result, &mut self.metadata, &TABLE_RESERVED, key, value)
    }

    /// A `CONFIGURATION` value: sets the setting `key` names (HBase's configuration keys
    /// such as `hbase.hregion.max.filesize`), or keeps the pair.
    ///
    /// # Errors
    /// A bad value for a setting.
    pub fn set_configuration(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        let result = self.set(key, value);
        keep_unknown(result, &mut self.configuration, &[], key, value)
    }

    /// The family named `name`, if declared.
    pub fn family(&self, name: &[u8]) -> Option<&FamilyDescriptor> {
        self.families.iter().find(|f| f.name.as_bytes() == name)
    }

    /// The family named `name`, mutably.
    pub fn family_mut(&mut self, name: &[u8]) -> Option<&mut FamilyDescriptor> {
        self.families.iter_mut().find(|f| f.name.as_bytes() == name)
    }

    /// The size at which a region of this table splits, given its split generation (see
    /// [`SplitPolicy::split_size`]); `None` if it never splits by size.
    pub fn split_size(&self, generation: u32) -> Option<u64> {
        self.split_policy
            .split_size(self.max_filesize, self.memstore_flushsize, generation)
    }

    /// Checks the name, the settings, and every family.
    ///
    /// # Errors
    /// The first problem found, naming the setting or the family.
    pub fn validate(&self) -> Result<(), SchemaError> {
        self.name.validate()?;
        check_range("MAX_FILESIZE", self.max_filesize, Self::MAX_FILESIZE_RANGE)?;
        check_range(
            "MEMSTORE_FLUSHSIZE",
            self.memstore_flushsize,
            Self::MEMSTORE_FLUSHSIZE_RANGE,
        )?;
        validate_custom("METADATA", &self.metadata)?;
        validate_custom("CONFIGURATION", &self.configuration)?;
        if self.families.is_empty() {
            return Err(SchemaError::NoFamilies {
                table: self.name.to_string(),
            });
        }
        let mut seen = HashSet::new();
        for family in &self.families {
            family.validate()?;
            if !seen.insert(family.name.as_str()) {
                return Err(SchemaError::DuplicateFamily {
                    table: self.name.to_string(),
                    family: family.name.clone(),
                });
            }
        }
        Ok(())
    }
}

impl Default for TableDescriptor {
    fn default() -> Self {
        TableDescriptor {
            name: TableName::default(),
            families: Vec::new(),
            durability: Durability::SyncWal,
            max_filesize: Self::DEFAULT_MAX_FILESIZE,
            memstore_flushsize: Self::DEFAULT_MEMSTORE_FLUSHSIZE,
            split_policy: SplitPolicy::IncreasingToUpperBound,
            read_only: false,
            compaction_enabled: true,
            split_enabled: true,
            merge_enabled: true,
            metadata: BTreeMap::new(),
            configuration: BTreeMap::new(),
        }
    }
}
