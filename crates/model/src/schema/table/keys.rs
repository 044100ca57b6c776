//! The string-keyed path to a table's settings, for the shell and the gateway. Family settings
//! go through [`FamilyDescriptor::set`](crate::schema::FamilyDescriptor::set).

use super::{SplitPolicy, TableDescriptor};
use crate::schema::value::{parse_bool, parse_keyword, parse_size};
use crate::schema::SchemaError;

const DURABILITY: &str = "DURABILITY";
const MAX_FILESIZE: &str = "MAX_FILESIZE";
const MEMSTORE_FLUSHSIZE: &str = "MEMSTORE_FLUSHSIZE";
const SPLIT_POLICY: &str = "SPLIT_POLICY";
const READONLY: &str = "READONLY";
const COMPACTION_ENABLED: &str = "COMPACTION_ENABLED";
const SPLIT_ENABLED: &str = "SPLIT_ENABLED";
const MERGE_ENABLED: &str = "MERGE_ENABLED";

/// (HBase spelling, other accepted spellings).
const KEYS: [(&str, &[&str]); 8] = [
    (DURABILITY, &[]),
    (MAX_FILESIZE, &["hbase.hregion.max.filesize"]),
    (MEMSTORE_FLUSHSIZE, &["hbase.hregion.memstore.flush.size"]),
    (SPLIT_POLICY, &["hbase.regionserver.region.split.policy"]),
    (READONLY, &["READ_ONLY"]),
    (COMPACTION_ENABLED, &[]),
    (SPLIT_ENABLED, &[]),
    (MERGE_ENABLED, &[]),
];

impl TableDescriptor {
    /// Sets one table setting from its HBase key and string value (case-insensitive),
    /// checking the value's range. Sizes accept HBase's units (`10GB`, `128 MB`).
    ///
    /// # Errors
    /// [`SchemaError::UnknownSetting`] for a key that is no table setting; otherwise an error
    /// naming the setting and the values it accepts. The descriptor is unchanged on error.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        let trimmed = key.trim();
        let name = KEYS
            .iter()
            .find(|(name, aliases)| {
                name.eq_ignore_ascii_case(trimmed)
                    || aliases.iter().any(|a| a.eq_ignore_ascii_case(trimmed))
            })
            .map(|&(name, _)| name)
            .ok_or_else(|| SchemaError::UnknownSetting {
                scope: "table",
                key: key.to_string(),
            })?;
        match name {
            DURABILITY => self.durability = parse_keyword(name, value)?,
            MAX_FILESIZE => self.max_filesize = parse_size(name, value, Self::MAX_FILESIZE_RANGE)?,
            MEMSTORE_FLUSHSIZE => {
                self.memstore_flushsize = parse_size(name, value, Self::MEMSTORE_FLUSHSIZE_RANGE)?;
            }
            SPLIT_POLICY => self.split_policy = SplitPolicy::parse_setting(value)?,
            COMPACTION_ENABLED => self.compaction_enabled = parse_bool(name, value)?,
            SPLIT_ENABLED => self.split_enabled = parse_bool(name, value)?,
            MERGE_ENABLED => self.merge_enabled = parse_bool(name, value)?,
            _ => self.read_only = parse_bool(name, value)?,
        }
        Ok(())
    }

    /// Every table setting as (HBase key, value) pairs, for `describe`. Feeding them back
    /// through [`Self::set`] rebuilds the same settings.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let flag = |on: bool| if on { "TRUE" } else { "FALSE" }.to_string();
        vec![
            (DURABILITY, self.durability.to_string()),
            (MAX_FILESIZE, self.max_filesize.to_string()),
            (MEMSTORE_FLUSHSIZE, self.memstore_flushsize.to_string()),
            (SPLIT_POLICY, self.split_policy.to_string()),
            (READONLY, flag(self.read_only)),
            (COMPACTION_ENABLED, flag(self.compaction_enabled)),
            (SPLIT_ENABLED, flag(self.split_enabled)),
            (MERGE_ENABLED, flag(self.merge_enabled)),
        ]
    }
}
