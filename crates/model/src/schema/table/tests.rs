use super::*;

fn table(name: &str) -> TableDescriptor {
    TableDescriptor::new(TableName::parse(name).unwrap()).with_family(FamilyDescriptor::new("cf"))
}

#[test]
fn defaults_are_hbase_defaults() {
    let t = table("t");
    assert_eq!(t.durability, Durability::SyncWal);
    assert_eq!(t.max_filesize, 10 * 1024 * 1024 * 1024);
    assert_eq!(t.memstore_flushsize, 128 * 1024 * 1024);
    assert_eq!(t.split_policy, SplitPolicy::IncreasingToUpperBound);
    assert!(!t.read_only);
    assert_eq!(t.validate(), Ok(()));
    assert_eq!(t.split_size(0), Some(256 << 20));
}

#[test]
fn table_names_follow_hbase_rules() {
    let n = TableName::parse("ns_1:my.table-2").unwrap();
    assert_eq!((n.namespace(), n.qualifier()), ("ns_1", "my.table-2"));
    assert_eq!(n.to_string(), "ns_1:my.table-2");
    let d = TableName::parse("users").unwrap();
    assert_eq!(d.namespace(), "default");
    assert_eq!(d.to_string(), "users");
    assert_eq!(TableName::parse("default:users").unwrap(), d);
    assert_eq!(TableName::new("", "users").unwrap(), d);
    assert_eq!("x:y".parse::<TableName>().unwrap().namespace(), "x");

    for (bad, message) in [
        ("", "invalid table name '': must not be empty"),
        (
            ".meta",
            "invalid table name '.meta': must start with [A-Za-z0-9_]",
        ),
        (
            "-t",
            "invalid table name '-t': must start with [A-Za-z0-9_]",
        ),
        (
            "a b",
            "invalid table name 'a b': character ' ' not allowed; use [A-Za-z0-9_.-]",
        ),
        (
            "ns:a:b",
            "invalid table name 'a:b': character ':' not allowed; use [A-Za-z0-9_.-]",
        ),
        (
            "my-ns:t",
            "invalid namespace name 'my-ns': character '-' not allowed; use [A-Za-z0-9_]",
        ),
        (":t", "invalid namespace name '': must not be empty"),
        ("ns:", "invalid table name '': must not be empty"),
    ] {
        assert_eq!(TableName::parse(bad).unwrap_err().to_string(), message);
    }
    assert!(TableName::parse(&"t".repeat(255)).is_ok());
    assert!(TableName::parse(&"t".repeat(256)).is_err());
    assert!(TableName::new(&"n".repeat(256), "t").is_err());
    assert!(TableName::default().validate().is_err());
}

#[test]
fn families_are_required_and_unique() {
    let t = TableDescriptor::new(TableName::parse("t").unwrap());
    assert_eq!(
        t.validate().unwrap_err().to_string(),
        "table 't' needs at least one column family"
    );
    let t = table("ns:t").with_family(FamilyDescriptor::new("cf"));
    assert_eq!(
        t.validate().unwrap_err().to_string(),
        "table 'ns:t' declares column family 'cf' twice"
    );
    let t = table("t").with_family(FamilyDescriptor::new("d").with_versions(0));
    assert!(t
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("VERSIONS"));
    let mut t = table("t");
    assert!(t.family(b"cf").is_some() && t.family(b"x").is_none());
    t.family_mut(b"cf").unwrap().versions = 3;
    assert_eq!(t.family(b"cf").unwrap().versions, 3);
}

#[test]
fn settings_parse_and_round_trip() {
    let mut t = table("t");
    t.set("durability", "fsync_wal").unwrap();
    t.set("MAX_FILESIZE", "20GB").unwrap();
    t.set("memstore_flushsize", "268435456").unwrap();
    t.set(
        "SPLIT_POLICY",
        "org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy",
    )
    .unwrap();
    t.set("READONLY", "true").unwrap();
    assert_eq!(t.durability, Durability::FsyncWal);
    assert_eq!(t.max_filesize, 20 << 30);
    assert_eq!(t.memstore_flushsize, 256 << 20);
    assert_eq!(t.split_policy, SplitPolicy::Disabled);
    assert!(t.read_only);
    assert_eq!(t.split_size(3), None);

    let mut u = table("t");
    for (k, v) in t.settings() {
        u.set(k, &v).unwrap();
    }
    assert_eq!(t, u);
}

#[test]
fn bad_settings_are_named() {
    let mut t = table("t");
    let before = t.clone();
    let err = |t: &mut TableDescriptor, k: &str, v: &str| t.set(k, v).unwrap_err().to_string();
    assert_eq!(
        err(&mut t, "DURABILITY", "SOMETIMES"),
        "DURABILITY: unknown value 'SOMETIMES'; allowed: USE_DEFAULT, SKIP_WAL, ASYNC_WAL, \
         SYNC_WAL, FSYNC_WAL"
    );
    assert!(err(&mut t, "MAX_FILESIZE", "1MB").starts_with("MAX_FILESIZE: invalid value '1MB'"));
    assert!(err(&mut t, "MEMSTORE_FLUSHSIZE", "big").starts_with("MEMSTORE_FLUSHSIZE"));
    assert!(err(&mut t, "READONLY", "no").starts_with("READONLY: unknown value 'no'"));
    assert_eq!(err(&mut t, "OWNER", "me"), "unknown table setting 'OWNER'");
    assert_eq!(t, before);
    let small = table("t").with_memstore_flushsize(1000);
    assert!(small
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("MEMSTORE_FLUSHSIZE"));
}
