use bytes::Bytes;
use strata_model::cell::{Cell, CellType};
use strata_model::ops::{
    Append, CheckAndMutate, Comparator, CompareOp, Condition, Delete, Filter, Get, Increment, Put,
    RowMutations, Scan, TimeRange,
};
use strata_model::schema::{Durability, FamilyDescriptor, TableDescriptor, TableName};

use super::*;
use crate::pb;

#[test]
fn cells_round_trip() {
    for t in CellType::ALL {
        let mut c = Cell::put("r", "f", "q", -5, "v");
        c.cell_type = t;
        assert_eq!(cell_from_pb(cell_to_pb(&c)).unwrap(), c);
    }
    let bad = pb::Cell {
        r#type: 99,
        ..Default::default()
    };
    assert!(cell_from_pb(bad).is_err());
}

#[test]
fn row_mutations_round_trip() {
    let rm = RowMutations::new("row")
        .with(Put::new("row").add("f", "a", "1").add_at("f", "b", 7, "2"))
        .unwrap()
        .with(Delete::new("row").column("f", "c").family_upto("g", 9))
        .unwrap()
        .with(Increment::new("row").add("f", "n", -3))
        .unwrap()
        .with(Append {
            durability: Durability::FsyncWal,
            ..Append::new("row").add("f", "s", "xy")
        })
        .unwrap();
    assert_eq!(row_mutations_from_pb(row_mutations_to_pb(&rm)).unwrap(), rm);
    let whole_row = RowMutations::new("r").with(Delete::new("r")).unwrap();
    assert_eq!(
        row_mutations_from_pb(row_mutations_to_pb(&whole_row)).unwrap(),
        whole_row
    );
}

#[test]
fn cell_ttls_round_trip() {
    let rm = RowMutations::new("row")
        .with(Put::new("row").add("f", "a", "1").with_ttl(60_000))
        .unwrap()
        .with(Increment::new("row").add("f", "n", 1).with_ttl(0))
        .unwrap()
        .with(Append::new("row").add("f", "s", "x").with_ttl(u64::MAX))
        .unwrap();
    let wire = row_mutations_to_pb(&rm);
    match &wire.mutations[0].kind {
        Some(pb::mutation::Kind::Put(p)) => assert_eq!(p.ttl_ms, Some(60_000)),
        other => panic!("{other:?}"),
    }
    assert_eq!(row_mutations_from_pb(wire).unwrap(), rm);
}

#[test]
fn gets_and_scans_round_trip() {
    let get = Get::new("r")
        .with_family("f")
        .with_column("g", "q")
        .with_time_range(TimeRange::new(3, 9).unwrap())
        .with_max_versions(4)
        .with_filter(Filter::Prefix(Bytes::from_static(b"r")))
        .with_cache_blocks(false)
        .with_per_family(Some(3), 2);
    assert_eq!(get_from_pb(get_to_pb(&get)).unwrap(), get);
    let plain = Get::new("r");
    assert_eq!(get_from_pb(get_to_pb(&plain)).unwrap(), plain);

    let mut scan = Scan {
        start_row: Bytes::from_static(b"a"),
        stop_row: Bytes::from_static(b"z"),
        reversed: true,
        limit: Some(10),
        caching: Some(5),
        max_versions: 2,
        filter: Some(Filter::all(vec![
            Filter::FirstKeyOnly,
            Filter::Value(
                CompareOp::Greater,
                Comparator::Binary(Bytes::from_static(b"m")),
            ),
        ])),
        max_results_per_family: Some(0),
        offset_per_family: 7,
        ..Scan::default()
    };
    scan.columns.add_column("f", "q");
    assert_eq!(scan_from_pb(scan_to_pb(&scan)).unwrap(), scan);
    let raw = Scan {
        raw: true,
        ..Scan::default()
    };
    assert_eq!(scan_from_pb(scan_to_pb(&raw)).unwrap(), raw);
    assert_eq!(
        scan_from_pb(scan_to_pb(&Scan::default())).unwrap(),
        Scan::default()
    );
}

#[test]
fn bad_filter_text_is_an_error() {
    let get = pb::Get {
        row: Bytes::from_static(b"r"),
        filter: "NoSuchFilter(".into(),
        ..Default::default()
    };
    let err = get_from_pb(get).unwrap_err();
    assert!(err.0.starts_with("filter:"), "{err}");
}

#[test]
fn check_and_mutate_round_trips() {
    let rm = RowMutations::new("r")
        .with(Put::new("r").add("f", "q", "v"))
        .unwrap();
    for condition in [
        Condition::equals("f", "q", "old"),
        Condition::absent("f", "q"),
        Condition::Filter(Filter::Prefix(Bytes::from_static(b"r"))),
    ] {
        let cam = CheckAndMutate::new(condition, rm.clone());
        assert_eq!(
            check_and_mutate_from_pb(check_and_mutate_to_pb("t", &cam)).unwrap(),
            cam
        );
    }
}

#[test]
fn schemas_round_trip_and_bad_settings_fail() {
    let mut family = FamilyDescriptor::new("cf");
    family.set("VERSIONS", "5").unwrap();
    family.set("MIN_VERSIONS", "2").unwrap();
    family.set("COMPRESSION", "ZSTD").unwrap();
    family.set("DATA_BLOCK_ENCODING", "FAST_DIFF").unwrap();
    family.set("TTL", "86400").unwrap();
    let table = TableDescriptor::new(TableName::parse("ns:t").unwrap())
        .with_family(family)
        .with_family(FamilyDescriptor::new("other"))
        .with_max_filesize(64 << 20);
    assert_eq!(table_from_pb(table_to_pb(&table)).unwrap(), table);

    let mut bad = table_to_pb(&table);
    bad.families[0]
        .settings
        .insert("VERSIONS".into(), "many".into());
    let err = table_from_pb(bad).unwrap_err();
    assert!(err.0.contains("family 'cf'"), "{err}");
    let mut unknown = table_to_pb(&table);
    unknown.settings.insert("NO_SUCH".into(), "1".into());
    assert!(table_from_pb(unknown).is_err());
}

#[test]
fn custom_values_round_trip_and_old_records_decode_without_them() {
    use prost::Message;
    let mut family = FamilyDescriptor::new("cf");
    family.set_metadata("fk", "fv").unwrap();
    family.set_configuration("hbase.x", "1").unwrap();
    let mut table = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family);
    table.set_metadata("owner", "team-a").unwrap();
    table.set_configuration("conf.k", "2").unwrap();
    let back = table_from_pb(table_to_pb(&table)).unwrap();
    assert_eq!(back, table);
    assert_eq!(back.metadata["owner"], "team-a");
    assert_eq!(back.families[0].configuration["hbase.x"], "1");

    // A schema recorded before custom values existed: fields 1-3 only.
    #[derive(Clone, PartialEq, prost::Message)]
    struct OldFamily {
        #[prost(string, tag = "1")]
        name: String,
        #[prost(map = "string, string", tag = "2")]
        settings: std::collections::HashMap<String, String>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    struct OldTable {
        #[prost(string, tag = "1")]
        name: String,
        #[prost(map = "string, string", tag = "2")]
        settings: std::collections::HashMap<String, String>,
        #[prost(message, repeated, tag = "3")]
        families: Vec<OldFamily>,
    }
    let old = OldTable {
        name: "t".into(),
        settings: [("READONLY".to_string(), "TRUE".to_string())].into(),
        families: vec![OldFamily {
            name: "cf".into(),
            settings: Default::default(),
        }],
    };
    let decoded = pb::TableSchema::decode(old.encode_to_vec().as_slice()).unwrap();
    let table = table_from_pb(decoded).unwrap();
    assert!(table.read_only && table.metadata.is_empty() && table.configuration.is_empty());
    assert!(table.families[0].metadata.is_empty());
}

#[test]
fn custom_values_that_became_settings_set_them() {
    // Recorded when SPLIT_ENABLED and PREFETCH_BLOCKS_ON_OPEN were kept as custom values.
    let mut schema = table_to_pb(
        &TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(FamilyDescriptor::new("cf")),
    );
    schema.settings.remove("SPLIT_ENABLED");
    schema
        .metadata
        .insert("SPLIT_ENABLED".into(), "false".into());
    schema.metadata.insert("owner".into(), "team-a".into());
    schema.families[0]
        .settings
        .remove("PREFETCH_BLOCKS_ON_OPEN");
    let family_meta = &mut schema.families[0].metadata;
    family_meta.insert("PREFETCH_BLOCKS_ON_OPEN".into(), "true".into());
    let table = table_from_pb(schema).unwrap();
    assert!(!table.split_enabled && table.merge_enabled);
    assert_eq!(table.metadata.len(), 1);
    assert_eq!(table.metadata["owner"], "team-a");
    assert!(table.families[0].prefetch_blocks_on_open);
    assert!(table.families[0].metadata.is_empty());
}
