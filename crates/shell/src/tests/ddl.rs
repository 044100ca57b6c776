//! `create` and `alter`.

use bytes::Bytes;
use strata_model::schema::{
    Compression, DataBlockEncoding, Durability, FamilyDescriptor, InMemoryCompaction,
    TableDescriptor, TableName, Ttl,
};

use super::{message, parse};
use crate::command::{PairKind, SettingPair};
use crate::{AlterChange, Command};

fn create(line: &str) -> (TableDescriptor, Vec<Bytes>) {
    match parse(line) {
        Command::Create { table, splits } => (table, splits),
        other => panic!("{other:?}"),
    }
}

fn keys(list: &[&str]) -> Vec<Bytes> {
    list.iter()
        .map(|k| Bytes::copy_from_slice(k.as_bytes()))
        .collect()
}

#[test]
fn create_with_family_names() {
    let (table, splits) = create("create 'ns:t', 'cf1', 'cf2'");
    let expected = TableDescriptor::new(TableName::parse("ns:t").unwrap())
        .with_family(FamilyDescriptor::new("cf1"))
        .with_family(FamilyDescriptor::new("cf2"));
    assert_eq!(table, expected);
    assert!(splits.is_empty());
}

#[test]
fn create_with_family_settings() {
    let (table, _) = create(
        "create 't', {NAME => 'cf', VERSIONS => 3, TTL => 86400, DATA_BLOCK_ENCODING => 'FAST_DIFF', \
         COMPRESSION => 'SNAPPY', IN_MEMORY_COMPACTION => 'EAGER', BLOCKCACHE => false, \
         PREFETCH_BLOCKS_ON_OPEN => 'true', CONFIGURATION => {'hbase.hstore.block.storage.policy' => 'ALL_SSD'}}, {NAME => 'cf2'}",
    );
    let cf = &table.families[0];
    assert_eq!(cf.versions, 3);
    assert_eq!(cf.ttl, Ttl::parse("86400").unwrap());
    assert_eq!(cf.data_block_encoding, DataBlockEncoding::FastDiff);
    assert_eq!(cf.compression, Compression::Snappy);
    assert_eq!(cf.in_memory_compaction, InMemoryCompaction::Eager);
    assert!(!cf.block_cache);
    assert!(cf.prefetch_blocks_on_open);
    assert_eq!(cf.storage_policy.to_string(), "ALL_SSD");
    assert_eq!(table.families[1], FamilyDescriptor::new("cf2"));
}

#[test]
fn create_with_table_settings_and_splits() {
    let (table, splits) = create(
        "create 't', 'cf', MAX_FILESIZE => '10GB', DURABILITY => 'ASYNC_WAL', COMPACTION_ENABLED => false, SPLIT_ENABLED => false, MERGE_ENABLED => 'false', SPLITS => ['b', 'a', \"\\x00\"]",
    );
    assert!(!table.compaction_enabled && !table.split_enabled && !table.merge_enabled);
    assert_eq!(table.max_filesize, 10 << 30);
    assert_eq!(table.durability, Durability::AsyncWal);
    assert_eq!(
        splits,
        vec![Bytes::from_static(b"\x00"), "a".into(), "b".into()]
    );

    let (_, splits) = create("create 't', 'cf', {NUMREGIONS => 4, SPLITALGO => 'HexStringSplit'}");
    assert_eq!(splits, keys(&["40000000", "80000000", "c0000000"]));
    let (_, splits) = create("create 't', 'cf', {NUMREGIONS => 2, SPLITALGO => 'UniformSplit'}");
    assert_eq!(
        splits,
        vec![Bytes::from_static(&[0x80, 0, 0, 0, 0, 0, 0, 0])]
    );
    let (table, _) = create("create 't', {NAME => 'f'}, {METADATA => {'READONLY' => 'true'}}");
    assert!(table.read_only);
}

#[test]
fn create_errors() {
    for (line, expected) in [
        ("create 't'", "given 1, expected at least 2"),
        (
            "create 't', {MAX_FILESIZE => '1GB'}",
            "table 't' needs at least one column family",
        ),
        ("create 't', 'f', 'f'", "declares column family 'f' twice"),
        (
            "create 't', {NAME => 'f', VERSIONS => 0}",
            "family 'f': VERSIONS: invalid value '0'",
        ),
        (
            "create 't', {NAME => 'f', COMPRESSION => 'ZIP'}",
            "COMPRESSION: unknown value 'ZIP'",
        ),
        (
            "create 't', {NAME => 'f', BOGUS => 1}",
            "unknown column family setting 'BOGUS'",
        ),
        (
            "create 't', {NAME => 'f', VERSIONS => nil}",
            "VERSIONS: expected a string or a number",
        ),
        (
            "create 't', {NAME => 'f', VERSIONS => 2, MIN_VERSIONS => 3}",
            "MIN_VERSIONS: 3 exceeds",
        ),
        ("create 't', 'f:x'", "must not contain ':'"),
        (
            "create 't', 'f', {OWNER => 'bob'}",
            "unknown table setting 'OWNER'",
        ),
        (
            "create 't', 'f', {SPLITS => 'a'}",
            "SPLITS must be an array",
        ),
        (
            "create 't', 'f', {SPLITS => ['a', 'a']}",
            "'a' is given twice",
        ),
        (
            "create 't', 'f', {SPLITS => ['']}",
            "split keys must not be empty",
        ),
        (
            "create 't', 'f', {SPLITS => ['a'], NUMREGIONS => 2, SPLITALGO => 'UniformSplit'}",
            "not both",
        ),
        (
            "create 't', 'f', {NUMREGIONS => 2}",
            "NUMREGIONS needs SPLITALGO",
        ),
        (
            "create 't', 'f', {SPLITALGO => 'HexStringSplit'}",
            "SPLITALGO needs NUMREGIONS",
        ),
        (
            "create 't', 'f', {NUMREGIONS => 1, SPLITALGO => 'HexStringSplit'}",
            "at least 2",
        ),
        (
            "create 't', 'f', {NUMREGIONS => 999999, SPLITALGO => 'HexStringSplit'}",
            "allowed",
        ),
        (
            "create 't', 'f', {NUMREGIONS => 4, SPLITALGO => 'DecimalStringSplit'}",
            "not supported",
        ),
        (
            "create 't', 'f', {SPLITS_FILE => 'splits.txt'}",
            "SPLITS_FILE is not supported",
        ),
        (
            "create 't', 5",
            "expected a family name or a hash, got an integer",
        ),
    ] {
        let m = message(line);
        assert!(m.contains(expected), "{line}: {m}");
    }
}

fn alter(line: &str) -> Vec<AlterChange> {
    match parse(line) {
        Command::Alter { table, changes } => {
            assert_eq!(table, TableName::parse("t").unwrap());
            changes
        }
        other => panic!("{other:?}"),
    }
}

fn family(name: &str, settings: &[(&str, &str)]) -> AlterChange {
    AlterChange::Family {
        name: name.into(),
        settings: settings
            .iter()
            .map(|&pair| SettingPair::from(pair))
            .collect(),
    }
}

#[test]
fn alter_forms() {
    assert_eq!(
        alter("alter 't', {NAME => 'cf', VERSIONS => 5}"),
        vec![family("cf", &[("VERSIONS", "5")])]
    );
    assert_eq!(
        alter("alter 't', NAME => 'cf', METHOD => 'delete'"),
        vec![AlterChange::DeleteFamily("cf".into())]
    );
    assert_eq!(
        alter("alter 't', 'delete' => 'cf'"),
        vec![AlterChange::DeleteFamily("cf".into())]
    );
    assert_eq!(
        alter("alter 't', MAX_FILESIZE => '134217728'"),
        vec![AlterChange::Table(vec![SettingPair::from((
            "MAX_FILESIZE",
            "134217728"
        ))])]
    );
    assert_eq!(
        alter("alter 't', METHOD => 'table_att', READONLY => true"),
        vec![AlterChange::Table(vec![SettingPair::from((
            "READONLY", "true"
        ))])]
    );
    assert_eq!(
        alter(
            "alter 't', 'new', {NAME => 'old', METHOD => 'delete'}, {NAME => 'x', TTL => '1 DAY'}"
        ),
        vec![
            family("new", &[]),
            AlterChange::DeleteFamily("old".into()),
            family("x", &[("TTL", "1 DAY")]),
        ]
    );
}

#[test]
fn alter_changes_apply_in_order_and_keep_other_settings() {
    let mut table = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("a"))
        .with_family(FamilyDescriptor::new("b"));
    table.families[0].set("COMPRESSION", "SNAPPY").unwrap();
    let changes = alter(
        "alter 't', {NAME => 'a', VERSIONS => 4}, 'c', 'delete' => 'b', MEMSTORE_FLUSHSIZE => '64MB'",
    );
    AlterChange::apply_all(&changes, &mut table).unwrap();
    let names: Vec<&str> = table.families.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(table.families[0].versions, 4);
    assert_eq!(table.families[0].compression, Compression::Snappy);
    assert_eq!(table.memstore_flushsize, 64 << 20);

    let gone = AlterChange::DeleteFamily("zzz".into()).apply(&mut table);
    assert!(gone
        .unwrap_err()
        .to_string()
        .contains("has no column family 'zzz'"));
    let all = [
        AlterChange::DeleteFamily("a".into()),
        AlterChange::DeleteFamily("c".into()),
    ];
    let err = AlterChange::apply_all(&all, &mut table).unwrap_err();
    assert!(
        err.to_string().contains("needs at least one column family"),
        "{err}"
    );
}

#[test]
fn metadata_and_configuration_hashes_keep_custom_values() {
    let changes = alter(
        "alter 't', {METADATA => {'owner' => 'team-a', 'MAX_FILESIZE' => '4194304'}}, \
         {NAME => 'f', CONFIGURATION => {'hbase.x' => '1'}}",
    );
    assert_eq!(
        alter("alter 't', METADATA => {'owner' => 'team-a', 'MAX_FILESIZE' => '4194304'}"),
        changes[..1]
    );
    assert_eq!(
        changes[0],
        AlterChange::Table(vec![
            SettingPair {
                key: "owner".into(),
                value: "team-a".into(),
                kind: PairKind::Metadata
            },
            SettingPair {
                key: "MAX_FILESIZE".into(),
                value: "4194304".into(),
                kind: PairKind::Metadata
            },
        ])
    );
    let mut table = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    AlterChange::apply_all(&changes, &mut table).unwrap();
    assert_eq!(table.metadata["owner"], "team-a");
    assert_eq!(table.max_filesize, 4 << 20);
    assert_eq!(table.families[0].configuration["hbase.x"], "1");
    match parse("create 't', {NAME => 'f', METADATA => {'k' => 'v'}}, {METADATA => {'a' => 'b'}}") {
        Command::Create { table, .. } => {
            assert_eq!(table.metadata["a"], "b");
            assert_eq!(table.families[0].metadata["k"], "v");
        }
        other => panic!("{other:?}"),
    }
    // A plain unknown key is still an error.
    assert!(message("alter 't', NO_SUCH_SETTING => '1'").contains("NO_SUCH_SETTING"));
}

#[test]
fn alter_errors() {
    for (line, expected) in [
        ("alter 't'", "given 1, expected at least 2"),
        ("alter 't', {}", "empty hash"),
        (
            "alter 't', {NAME => 'cf', VERSIONS => -1}",
            "VERSIONS: invalid value '-1'",
        ),
        (
            "alter 't', NAME => 'cf', METHOD => 'table_att_unset'",
            "METHOD 'table_att_unset' is not supported",
        ),
        (
            "alter 't', METHOD => 'delete'",
            "METHOD => 'delete' needs NAME",
        ),
        (
            "alter 't', NAME => 'cf', METHOD => 'delete', VERSIONS => 1",
            "unknown option VERSIONS",
        ),
        (
            "alter 't', MAX_FILESIZE => '1KB'",
            "MAX_FILESIZE: invalid value '1KB'",
        ),
        ("alter 't', BOGUS => '1'", "unknown table setting 'BOGUS'"),
        ("alter 't', {NAME => '.x'}", "must not start with '.'"),
        ("alter 't', 3", "expected a family name or a hash"),
    ] {
        let m = message(line);
        assert!(m.contains(expected), "{line}: {m}");
    }
}
