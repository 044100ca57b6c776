//! Custom values of a descriptor: HBase's `METADATA` (keys of `TableDescriptorBuilder.setValue`
//! / `ColumnFamilyDescriptorBuilder.setValue` that are no setting) and `CONFIGURATION`
//! (`setConfiguration`). Strata keeps them as given and hands them back; it acts on none of
//! them. A key that is one of Strata's settings sets that setting instead.

use std::collections::BTreeMap;

use super::SchemaError;
use crate::limits::MAX_QUALIFIER_LEN;

/// Keys HBase reserves in a table's values that Strata has no setting for and does not keep
/// (RFC 0014, "Table and family custom values"): HBase prints them outside `METADATA` too.
pub const TABLE_RESERVED: [&str; 3] = ["IS_META", "REGION_REPLICATION", "PRIORITY"];

/// Keys HBase reserves in a family's values that Strata has no setting for and does not keep.
pub const FAMILY_RESERVED: [&str; 6] = [
    "REPLICATION_SCOPE",
    "ENCRYPTION",
    "ENCRYPTION_KEY",
    "IS_MOB",
    "MOB_THRESHOLD",
    "MOB_COMPACT_PARTITION_POLICY",
];

/// Most custom values per map.
pub const MAX_CUSTOM_VALUES: usize = 1024;
/// Longest custom key or value, in bytes.
pub const MAX_CUSTOM_LEN: usize = MAX_QUALIFIER_LEN;

/// Whether `key` is reserved by HBase in `reserved` (case-insensitive).
pub(crate) fn is_reserved(reserved: &[&str], key: &str) -> bool {
    reserved.iter().any(|r| r.eq_ignore_ascii_case(key.trim()))
}

/// After `set(key, value)` answered `result`: an unknown setting is kept in `map` unless
/// HBase reserves it (`reserved`, dropped as before); other results are returned.
pub(crate) fn keep_unknown(
    result: Result<(), SchemaError>,
    map: &mut BTreeMap<String, String>,
    reserved: &[&str],
    key: &str,
    value: &str,
) -> Result<(), SchemaError> {
    match result {
        Err(SchemaError::UnknownSetting { .. }) => {
            if !is_reserved(reserved, key) {
                map.insert(key.to_string(), value.to_string());
            }
            Ok(())
        }
        other => other,
    }
}

/// Checks a map of custom values: at most [`MAX_CUSTOM_VALUES`], keys non-empty, keys and
/// values at most [`MAX_CUSTOM_LEN`] bytes.
///
/// # Errors
/// [`SchemaError::InvalidValue`] naming the map (`METADATA` or `CONFIGURATION`).
pub(crate) fn validate_custom(
    what: &'static str,
    map: &BTreeMap<String, String>,
) -> Result<(), SchemaError> {
    let bad = |value: String, expected: String| SchemaError::InvalidValue {
        setting: what,
        value,
        expected,
    };
    if map.len() > MAX_CUSTOM_VALUES {
        return Err(bad(
            format!("{} entries", map.len()),
            format!("at most {MAX_CUSTOM_VALUES} entries"),
        ));
    }
    for (k, v) in map {
        if k.trim().is_empty() || k.len() > MAX_CUSTOM_LEN || v.len() > MAX_CUSTOM_LEN {
            return Err(bad(
                format!("{k} => ({} bytes)", v.len()),
                format!("a non-empty key, keys and values of at most {MAX_CUSTOM_LEN} bytes"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{FamilyDescriptor, TableDescriptor};

    #[test]
    fn unknown_keys_are_kept_settings_are_set_reserved_are_dropped() {
        let mut t = TableDescriptor::default();
        t.set_metadata("owner_team", "search").unwrap();
        t.set_metadata("MAX_FILESIZE", "4194304").unwrap();
        t.set_metadata("PRIORITY", "5").unwrap();
        t.set_configuration("hbase.hstore.blockingStoreFiles", "20")
            .unwrap();
        assert_eq!(t.max_filesize, 4 << 20);
        assert_eq!(t.metadata.len(), 1);
        assert_eq!(t.metadata["owner_team"], "search");
        assert_eq!(t.configuration["hbase.hstore.blockingStoreFiles"], "20");
        assert!(t.set_metadata("MAX_FILESIZE", "tiny").is_err());

        let mut f = FamilyDescriptor::new("f");
        f.set_metadata("REPLICATION_SCOPE", "0").unwrap();
        f.set_metadata("VERSIONS", "4").unwrap();
        f.set_metadata("k", "v").unwrap();
        f.set_configuration("c", "1").unwrap();
        assert_eq!((f.versions, f.metadata.len()), (4, 1));
        assert_eq!(f.configuration["c"], "1");
        assert!(f.validate().is_ok());
    }

    #[test]
    fn oversized_or_empty_keys_are_refused() {
        let mut f = FamilyDescriptor::new("f");
        f.metadata.insert(" ".into(), "v".into());
        assert!(f.validate().unwrap_err().to_string().contains("METADATA"));
        let mut t = TableDescriptor::default().with_family(FamilyDescriptor::new("f"));
        t.name = crate::schema::TableName::parse("t").unwrap();
        t.configuration
            .insert("k".into(), "v".repeat(MAX_CUSTOM_LEN + 1));
        assert!(t
            .validate()
            .unwrap_err()
            .to_string()
            .contains("CONFIGURATION"));
    }
}
