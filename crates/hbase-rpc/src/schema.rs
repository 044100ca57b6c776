//! Table names and schemas between HBase's protobufs and Strata's descriptors. Settings
//! travel as HBase's string attributes (`VERSIONS`, `TTL`, `BLOOMFILTER`, …) through the
//! model's own string-keyed setters, so values are checked exactly as the shell checks them.

use bytes::Bytes;
use strata_model::schema::{FamilyDescriptor, SchemaError, TableDescriptor, TableName, Ttl};

use crate::error::{HBaseError, HResult};
use crate::pb;

/// HBase's default namespace, implied by a table name without `ns:`.
pub const DEFAULT_NAMESPACE: &str = "default";
/// HBase's system namespace (holds `hbase:meta`).
pub const SYSTEM_NAMESPACE: &str = "hbase";
/// `TTL` meaning "forever" in HBase's descriptors (`HConstants.FOREVER`).
const TTL_FOREVER: &str = "2147483647";

/// `ns:table` (or `table`) as a protobuf name.
pub fn table_name_pb(name: &str) -> pb::TableName {
    let (ns, qualifier) = name.split_once(':').unwrap_or((DEFAULT_NAMESPACE, name));
    pb::TableName {
        namespace: Bytes::copy_from_slice(ns.as_bytes()),
        qualifier: Bytes::copy_from_slice(qualifier.as_bytes()),
    }
}

/// The `RegionInfo` of an online region of `table` (not offline, not split, replica 0): what
/// meta rows, the registry's meta location and `GetRegionInfo` carry.
pub fn region_info_pb(table: &str, start: Bytes, end: Bytes, region_id: u64) -> pb::RegionInfo {
    pb::RegionInfo {
        region_id,
        table_name: table_name_pb(table),
        start_key: Some(start),
        end_key: Some(end),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}

/// A protobuf name as Strata spells it: `table` in the default namespace, else `ns:table`.
///
/// # Errors
/// Names that are not UTF-8.
pub fn table_name_from_pb(name: &pb::TableName) -> HResult<String> {
    let utf8 = |b: &Bytes| {
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|_| HBaseError::do_not_retry("table name is not UTF-8"))
    };
    let ns = utf8(&name.namespace)?;
    let qualifier = utf8(&name.qualifier)?;
    Ok(if ns.is_empty() || ns == DEFAULT_NAMESPACE {
        qualifier
    } else {
        format!("{ns}:{qualifier}")
    })
}

fn pair(key: &str, value: &str) -> pb::BytesBytesPair {
    pb::BytesBytesPair {
        first: Bytes::copy_from_slice(key.as_bytes()),
        second: Bytes::copy_from_slice(value.as_bytes()),
    }
}

/// A family's HBase attributes, as the Java client parses them (numbers for `TTL`).
fn family_to_pb(f: &FamilyDescriptor) -> pb::ColumnFamilySchema {
    let ttl = match f.ttl {
        Ttl::Forever => TTL_FOREVER.to_string(),
        Ttl::Seconds(s) => s.to_string(),
    };
    let b = |v: bool| if v { "true" } else { "false" };
    let mut attributes = vec![
        pair("VERSIONS", &f.versions.to_string()),
        pair("MIN_VERSIONS", &f.min_versions.to_string()),
        pair("TTL", &ttl),
        pair("KEEP_DELETED_CELLS", &f.keep_deleted_cells.to_string()),
        pair("BLOCKSIZE", &f.block_size.to_string()),
        pair("DATA_BLOCK_ENCODING", &f.data_block_encoding.to_string()),
        pair("COMPRESSION", &f.compression.to_string()),
        pair("BLOOMFILTER", f.bloom_filter.name()),
        pair("BLOCKCACHE", b(f.block_cache)),
        pair("IN_MEMORY", b(f.in_memory)),
        pair("PREFETCH_BLOCKS_ON_OPEN", b(f.prefetch_blocks_on_open)),
    ];
    attributes.extend(f.metadata.iter().map(|(k, v)| pair(k, v)));
    pb::ColumnFamilySchema {
        name: Bytes::copy_from_slice(f.name.as_bytes()),
        attributes,
        configuration: configuration_pb(&f.configuration),
    }
}

fn configuration_pb(map: &std::collections::BTreeMap<String, String>) -> Vec<pb::NameStringPair> {
    map.iter()
        .map(|(k, v)| pb::NameStringPair {
            name: k.clone(),
            value: v.clone(),
        })
        .collect()
}

/// A table's schema for the client. As in HBase, a table's values hold only the settings that
/// differ from their defaults (HBase keeps only what was set), then the custom values.
/// Booleans are spelled as HBase's builder stores them (`Boolean.toString`: `false`).
pub fn table_to_pb(t: &TableDescriptor) -> pb::TableSchema {
    let name = t.name.to_string();
    let defaults = TableDescriptor::new(t.name.clone()).settings();
    let java = |v: &str| match v {
        "TRUE" => "true".to_string(),
        "FALSE" => "false".to_string(),
        other => other.to_string(),
    };
    pb::TableSchema {
        table_name: Some(table_name_pb(&name)),
        attributes: t
            .settings()
            .iter()
            .filter(|setting| !defaults.contains(setting))
            .map(|(k, v)| pair(k, &java(v)))
            .chain(t.metadata.iter().map(|(k, v)| pair(k, v)))
            .collect(),
        column_families: t.families.iter().map(family_to_pb).collect(),
        configuration: configuration_pb(&t.configuration),
    }
}

/// Applies one string value: a setting's value is checked (out of range: refused); a key
/// Strata has no setting for is kept as `METADATA`/`CONFIGURATION` (the model's
/// `set_metadata`, `set_configuration`).
fn apply(result: Result<(), SchemaError>, scope: &str, key: &str) -> HResult<()> {
    result.map_err(|e| HBaseError::do_not_retry(format!("{scope} setting {key}: {e}")))
}

fn utf8<'a>(b: &'a [u8], what: &str) -> HResult<&'a str> {
    std::str::from_utf8(b).map_err(|_| HBaseError::do_not_retry(format!("{what} is not UTF-8")))
}

/// A family from its HBase schema.
///
/// # Errors
/// A bad name or value (`DoNotRetryIOException` naming it).
pub fn family_from_pb(cf: &pb::ColumnFamilySchema) -> HResult<FamilyDescriptor> {
    let mut f = FamilyDescriptor::new(utf8(&cf.name, "family name")?);
    for a in &cf.attributes {
        let key = utf8(&a.first, "family attribute")?;
        let value = utf8(&a.second, "family attribute value")?;
        if key.eq_ignore_ascii_case("NAME") {
            continue;
        }
        apply(f.set_metadata(key, value), "family", key)?;
    }
    for c in &cf.configuration {
        apply(f.set_configuration(&c.name, &c.value), "family", &c.name)?;
    }
    f.validate()
        .map_err(|e| HBaseError::do_not_retry(e.to_string()))?;
    Ok(f)
}

/// A table from its HBase schema.
///
/// # Errors
/// No name, a bad name, family or value.
pub fn table_from_pb(schema: &pb::TableSchema) -> HResult<TableDescriptor> {
    let name = schema
        .table_name
        .as_ref()
        .ok_or_else(|| HBaseError::do_not_retry("table schema without a name"))?;
    let name = table_name_from_pb(name)?;
    let name = TableName::parse(&name).map_err(|e| HBaseError::do_not_retry(e.to_string()))?;
    let mut t = TableDescriptor::new(name);
    for a in &schema.attributes {
        let key = utf8(&a.first, "table attribute")?;
        let value = utf8(&a.second, "table attribute value")?;
        apply(t.set_metadata(key, value), "table", key)?;
    }
    for c in &schema.configuration {
        apply(t.set_configuration(&c.name, &c.value), "table", &c.name)?;
    }
    for cf in &schema.column_families {
        t = t.with_family(family_from_pb(cf)?);
    }
    t.validate()
        .map_err(|e| HBaseError::do_not_retry(e.to_string()))?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_the_default_namespace() {
        let pbn = table_name_pb("t1");
        assert_eq!(pbn.namespace.as_ref(), b"default");
        assert_eq!(table_name_from_pb(&pbn).unwrap(), "t1");
        let pbn = table_name_pb("ns:t1");
        assert_eq!(table_name_from_pb(&pbn).unwrap(), "ns:t1");
    }

    #[test]
    fn schema_round_trips_and_bad_values_are_refused() {
        let t = TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(FamilyDescriptor::new("f").with_versions(3));
        let back = table_from_pb(&table_to_pb(&t)).unwrap();
        assert_eq!(back.families[0].versions, 3);
        assert_eq!(back.families[0].ttl, Ttl::Forever);
        let mut bad = table_to_pb(&t);
        bad.column_families[0]
            .attributes
            .push(pair("VERSIONS", "many"));
        assert!(table_from_pb(&bad)
            .unwrap_err()
            .message
            .contains("VERSIONS"));
    }

    #[test]
    fn only_settings_that_differ_from_their_defaults_are_sent() {
        let mut t = TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(FamilyDescriptor::new("f"));
        assert!(table_to_pb(&t).attributes.is_empty());
        t.set("MAX_FILESIZE", "1GB").unwrap();
        let sent = table_to_pb(&t);
        assert_eq!(sent.attributes.len(), 1);
        assert_eq!(sent.attributes[0].first.as_ref(), b"MAX_FILESIZE");
        assert_eq!(table_from_pb(&sent).unwrap().max_filesize, 1 << 30);
    }

    #[test]
    fn custom_values_are_kept_and_sent_back() {
        let t = TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(FamilyDescriptor::new("f"));
        let mut sent = table_to_pb(&t);
        sent.attributes.push(pair("owner", "team-a"));
        sent.attributes.push(pair("PRIORITY", "0"));
        sent.configuration.push(pb::NameStringPair {
            name: "conf.k".into(),
            value: "1".into(),
        });
        sent.column_families[0]
            .attributes
            .push(pair("REPLICATION_SCOPE", "0"));
        sent.column_families[0].attributes.push(pair("fk", "fv"));
        let back = table_from_pb(&sent).unwrap();
        assert_eq!(back.metadata.len(), 1);
        assert_eq!(back.metadata["owner"], "team-a");
        assert_eq!(back.configuration["conf.k"], "1");
        assert_eq!(back.families[0].metadata.len(), 1);
        let again = table_to_pb(&back);
        assert!(again
            .attributes
            .iter()
            .any(|a| a.first.as_ref() == b"owner" && a.second.as_ref() == b"team-a"));
        assert_eq!(again.configuration[0].name, "conf.k");
        assert!(again.column_families[0]
            .attributes
            .iter()
            .any(|a| a.first.as_ref() == b"fk"));
    }
}
