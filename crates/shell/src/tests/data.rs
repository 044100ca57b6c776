//! Data commands: put, get, scan, delete, deleteall, incr, append, get_counter, count.

use bytes::Bytes;
use strata_model::ops::{
    Append, Columns, Delete, DeleteKind, Filter, Get, Increment, Put, Scan, TimeRange,
};
use strata_model::schema::TableName;

use super::{message, parse};
use crate::Command;

fn t(name: &str) -> TableName {
    TableName::parse(name).unwrap()
}

#[test]
fn put_with_and_without_timestamp() {
    assert_eq!(
        parse("put 't1', 'r1', 'cf:q', 'v'"),
        Command::Put {
            table: t("t1"),
            put: Put::new("r1").add("cf", "q", "v"),
        }
    );
    assert_eq!(
        parse(r#"put 'ns:t', "\x00\xff", 'cf:a:b', "\x01", 1700000000000"#),
        Command::Put {
            table: t("ns:t"),
            put: Put::new(vec![0u8, 0xff]).add_at("cf", "a:b", 1_700_000_000_000, vec![1u8]),
        }
    );
    // A bare family writes the empty qualifier; integers are written as their digits.
    assert_eq!(
        parse("put('t', 5, 'cf', -12)"),
        Command::Put {
            table: t("t"),
            put: Put::new("5").add("cf", "", "-12"),
        }
    );
}

#[test]
fn put_takes_a_ttl_and_refuses_other_attributes() {
    assert_eq!(
        parse("put 't', 'r', 'cf:q', 'v', {TTL => 60000}"),
        Command::Put {
            table: t("t"),
            put: Put::new("r").add("cf", "q", "v").with_ttl(60_000),
        }
    );
    assert_eq!(
        parse("put 't', 'r', 'cf:q', 'v', 5, {TTL => 0}"),
        Command::Put {
            table: t("t"),
            put: Put::new("r").add_at("cf", "q", 5, "v").with_ttl(0),
        }
    );
    assert!(message("put 't', 'r', 'cf:q', 'v', {TTL => -1}").contains("TTL must be at least 0"));
    let attributes = message("put 't', 'r', 'cf:q', 'v', {ATTRIBUTES => {'k' => 'v'}}");
    assert!(
        attributes.starts_with("put: ATTRIBUTES is not supported"),
        "{attributes}"
    );
    let visibility = message("put 't', 'r', 'cf:q', 'v', 5, {VISIBILITY => 'SECRET'}");
    assert!(
        visibility.starts_with("put: VISIBILITY is not supported"),
        "{visibility}"
    );
    let unknown = message("put 't', 'r', 'cf:q', 'v', {FOO => 1}");
    assert!(unknown.contains("unknown option FOO"), "{unknown}");
    let misplaced = message("put 't', 'r', 'cf:q', 'v', {TTL => 1}, 5");
    assert!(misplaced.contains("must come last"), "{misplaced}");
}

#[test]
fn get_forms() {
    let get = |line: &str| match parse(line) {
        Command::Get { table, get } => {
            assert_eq!(table, t("t"));
            get
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(get("get 't', 'r'"), Get::new("r"));
    assert_eq!(
        get("get 't', 'r', 'cf:q'"),
        Get::new("r").with_column("cf", "q")
    );
    assert_eq!(
        get("get 't', 'r', 'cf:q', 'other'"),
        Get::new("r").with_column("cf", "q").with_family("other")
    );
    assert_eq!(
        get("get 't', 'r', ['cf:a', 'cf:b']"),
        Get::new("r").with_column("cf", "a").with_column("cf", "b")
    );
    assert_eq!(
        get("get 't', 'r', {COLUMN => 'cf', TIMESTAMP => 5, VERSIONS => 3}"),
        Get::new("r")
            .with_family("cf")
            .with_time_range(TimeRange::at(5).unwrap())
            .with_max_versions(3)
    );
    assert_eq!(
        get("get 't', 'r', COLUMNS => ['cf:a', 'cf2'], TIMERANGE => [10, 20]"),
        Get::new("r")
            .with_column("cf", "a")
            .with_family("cf2")
            .with_time_range(TimeRange::new(10, 20).unwrap())
    );
    assert_eq!(get(r#"get 't', "\x00""#).row, Bytes::from_static(&[0]));
}

#[test]
fn get_errors() {
    for (line, expected) in [
        (
            "get 't'",
            "wrong number of arguments (given 1, expected at least 2)",
        ),
        ("get 't', ''", "row must not be empty"),
        (
            "get 't', 'r', {VERSIONS => 0}",
            "VERSIONS must be a positive integer, got 0",
        ),
        (
            "get 't', 'r', {VERSIONS => 'x'}",
            "VERSIONS must be an integer, got a string",
        ),
        (
            "get 't', 'r', {TIMERANGE => [5, 1]}",
            "time range [5, 1) is invalid",
        ),
        (
            "get 't', 'r', {TIMERANGE => 5}",
            "TIMERANGE must be [min, max]",
        ),
        (
            "get 't', 'r', {TIMESTAMP => -1}",
            "time range [-1, 0) is invalid",
        ),
        (
            "get 't', 'r', {TIMESTAMP => 1, TIMERANGE => [0, 2]}",
            "not both",
        ),
        ("get 't', 'r', {COLUMN => 'a', COLUMNS => 'b'}", "not both"),
        ("get 't', 'r', {COLUMNS => []}", "must not be empty"),
        (
            "get 't', 'r', {LIMIT => 1}",
            "unknown option LIMIT; accepted: COLUMN",
        ),
        (
            "get 't', 'r', {VERSIONS => 1}, 'cf'",
            "the options hash must come last",
        ),
        (
            "get 't', 'r', {VERSIONS => 1, VERSIONS => 2}",
            "option VERSIONS is given twice",
        ),
        ("get 't', 'r', {1 => 2}", "option keys must be names"),
        ("get 't', 'r', ':q'", "column family must not be empty"),
        ("get 't', 'r', 1.5", "column must be a string, got a float"),
        ("get 't', 'r', {FILTER => 5}", "FILTER must be a string"),
    ] {
        let m = message(line);
        assert!(m.contains(expected), "{line}: {m}");
    }
}

#[test]
fn scan_options() {
    let scan = |line: &str| match parse(line) {
        Command::Scan { scan, .. } => scan,
        other => panic!("{other:?}"),
    };
    assert_eq!(scan("scan 't'"), Scan::new());
    let s = scan(
        r#"scan 't', {STARTROW => "\x00", STOPROW => 'z', LIMIT => 10, REVERSED => false,
            CACHE => 100, BATCH => 5, CACHE_BLOCKS => false, RAW => false, VERSIONS => 2,
            TIMERANGE => [1, 9], COLUMNS => ['cf:q', 'cf2']}"#,
    );
    let mut columns = Columns::default();
    columns.add_column("cf", "q");
    columns.add_family("cf2");
    let expected = Scan {
        start_row: Bytes::from_static(b"\x00"),
        stop_row: Bytes::from_static(b"z"),
        limit: Some(10),
        caching: Some(100),
        batch: Some(5),
        cache_blocks: false,
        max_versions: 2,
        time_range: TimeRange::new(1, 9).unwrap(),
        columns,
        ..Scan::new()
    };
    assert_eq!(s, expected);
    let s = scan("scan 't', {RAW => true, VERSIONS => 10, COLUMNS => 'cf'}");
    assert!(s.raw);
    assert_eq!(s.max_versions, 10);
    let s = scan("scan 't', ROWPREFIXFILTER => 'ab', REVERSED => true, TIMESTAMP => 7");
    assert_eq!(s.prefix, Bytes::from_static(b"ab"));
    assert!(s.reversed);
    assert_eq!(s.time_range, TimeRange::at(7).unwrap());
    let s = scan("scan 't', {STARTROW => 'z', ENDROW => 'a', REVERSED => true, COLUMN => 'cf'}");
    assert_eq!(
        (s.start_row.as_ref(), s.stop_row.as_ref()),
        (&b"z"[..], &b"a"[..])
    );
}

#[test]
fn scan_errors() {
    for (line, expected) in [
        (
            "scan 't', {RAW => true, COLUMNS => 'cf:q'}",
            "a raw scan selects whole families",
        ),
        ("scan 't', {RAW => 1}", "RAW must be true or false"),
        ("scan 't', {LIMIT => 0}", "LIMIT must be a positive integer"),
        (
            "scan 't', {LIMIT => -1}",
            "LIMIT must be a positive integer",
        ),
        (
            "scan 't', {CACHE => 5000000000}",
            "CACHE must be a positive integer",
        ),
        (
            "scan 't', {REVERSED => 'yes'}",
            "REVERSED must be true or false",
        ),
        (
            "scan 't', {STARTROW => 'b', STOPROW => 'a'}",
            "start row sorts after stop row",
        ),
        ("scan 't', {STOPROW => 'a', ENDROW => 'b'}", "not both"),
        ("scan 't', {MAXLENGTH => 1}", "unknown option MAXLENGTH"),
        ("scan 't', 'cf'", "expected a hash {...}, got a string"),
        (
            "scan 't', {}, {}",
            "wrong number of arguments (given 3, expected 1 to 2)",
        ),
        (
            "scan",
            "wrong number of arguments (given 0, expected 1 to 2)",
        ),
        ("scan 'bad name'", "invalid table name 'bad name'"),
        ("scan ':t'", "invalid namespace name"),
        ("scan 5", "table name must be a string, got an integer"),
        (r#"scan "\xff""#, "table name must be valid UTF-8"),
    ] {
        let m = message(line);
        assert!(m.contains(expected), "{line}: {m}");
    }
    let m = message("scan 't', {FOO => 1}");
    assert!(m.contains("\nusage: scan 't'"), "{m}");
}

#[test]
fn delete_removes_all_versions_up_to_the_timestamp() {
    let delete = |line: &str| match parse(line) {
        Command::Delete { delete, .. } => delete,
        other => panic!("{other:?}"),
    };
    let d = delete("delete 't', 'r', 'cf:q'");
    assert_eq!(d, Delete::new("r").column("cf", "q"));
    assert_eq!(d.markers[0].kind, DeleteKind::Column);
    assert_eq!(
        delete("delete 't', 'r', 'cf:q', 100"),
        Delete::new("r").column_upto("cf", "q", 100)
    );
    assert_eq!(
        delete("delete 't', 'r', 'cf'"),
        Delete::new("r").family("cf")
    );
    assert_eq!(delete("deleteall 't', 'r'"), Delete::new("r"));
    assert_eq!(
        delete("deleteall 't', 'r', 'cf:q', 9"),
        Delete::new("r").column_upto("cf", "q", 9)
    );
    assert_eq!(
        delete("deleteall 't', 'r', 'cf', 9"),
        Delete::new("r").family_upto("cf", 9)
    );
    let whole = delete("deleteall 't', 'r', nil, 9");
    assert_eq!((whole.markers.len(), whole.timestamp), (0, Some(9)));
    for (line, expected) in [
        (
            "delete 't', 'r'",
            "wrong number of arguments (given 2, expected 3 to 4)",
        ),
        ("delete 't', 'r', 'cf:q', -1", "timestamp -1 is negative"),
        (
            "delete 't', 'r', 'cf:q', 'x'",
            "timestamp must be an integer",
        ),
        ("deleteall 't', 'r', 'cf', -5", "timestamp -5 is negative"),
        ("deleteall 't', '', 'cf'", "row must not be empty"),
    ] {
        let m = message(line);
        assert!(m.contains(expected), "{line}: {m}");
    }
}

#[test]
fn counters_and_appends() {
    assert_eq!(
        parse("incr 't', 'r', 'cf:n'"),
        Command::Increment {
            table: t("t"),
            increment: Increment::new("r").add("cf", "n", 1),
        }
    );
    assert_eq!(
        parse("incr 't', 'r', 'cf:n', -9_000"),
        Command::Increment {
            table: t("t"),
            increment: Increment::new("r").add("cf", "n", -9000),
        }
    );
    assert_eq!(
        parse(r#"append 't', 'r', 'cf:q', "\x00""#),
        Command::Append {
            table: t("t"),
            append: Append::new("r").add("cf", "q", vec![0u8]),
        }
    );
    assert_eq!(
        parse("get_counter 't', 'r', 'cf:n'"),
        Command::GetCounter {
            table: t("t"),
            get: Get::new("r").with_column("cf", "n"),
        }
    );
    for (line, expected) in [
        (
            "incr 't', 'r', 'cf:n', 1.5",
            "increment must be an integer, got a float",
        ),
        ("incr 't', 'r'", "expected 3 to 4"),
        ("append 't', 'r', 'cf:q'", "given 3, expected 4"),
        ("get_counter 't', 'r'", "given 2, expected 3"),
        (
            "append 't', 'r', ':q', 'v'",
            "column family must not be empty",
        ),
    ] {
        let m = message(line);
        assert!(m.contains(expected), "{line}: {m}");
    }
}

#[test]
fn count_uses_hbase_defaults() {
    match parse("count 't'") {
        Command::Count {
            table,
            scan,
            interval,
        } => {
            assert_eq!((table, interval), (t("t"), 1000));
            assert_eq!(scan.caching, Some(10));
            assert!(!scan.cache_blocks);
            assert_eq!(scan.filter, Some(Filter::FirstKeyOnly));
        }
        other => panic!("{other:?}"),
    }
    match parse("count 't', INTERVAL => 100_000, CACHE => 1000, STARTROW => 'm'") {
        Command::Count { scan, interval, .. } => {
            assert_eq!((interval, scan.caching), (100_000, Some(1000)));
            assert_eq!(scan.start_row, Bytes::from_static(b"m"));
        }
        other => panic!("{other:?}"),
    }
    for (line, expected) in [
        (
            "count 't', {INTERVAL => 0}",
            "INTERVAL must be a positive integer",
        ),
        (
            "count 't', {BOGUS => 0}",
            "unknown option BOGUS; accepted: INTERVAL, STARTROW",
        ),
    ] {
        let m = message(line);
        assert!(m.contains(expected), "{line}: {m}");
    }
}

#[test]
fn filters_use_the_filter_language() {
    match parse(r#"scan 't', {FILTER => "PrefixFilter('ab') AND FirstKeyOnlyFilter()"}"#) {
        Command::Scan { scan, .. } => assert_eq!(
            scan.filter,
            Some(Filter::all(vec![
                Filter::Prefix(Bytes::from_static(b"ab")),
                Filter::FirstKeyOnly
            ]))
        ),
        other => panic!("{other:?}"),
    }
    match parse(r#"get 't', 'r', FILTER => "KeyOnlyFilter()""#) {
        Command::Get { get, .. } => assert_eq!(
            get.filter,
            Some(Filter::KeyOnly {
                len_as_value: false
            })
        ),
        other => panic!("{other:?}"),
    }
    // HBase's SKIP / WHILE and the paging and fuzzy filters.
    match parse(
        r#"scan 't', FILTER => "WHILE ColumnPaginationFilter(2, 1) AND FuzzyRowFilter('a\x00', '\x00\x01')""#,
    ) {
        Command::Scan { scan, .. } => assert_eq!(
            scan.filter,
            Some(Filter::all(vec![
                Filter::WhileMatch(Box::new(Filter::ColumnPagination(
                    strata_model::ops::ColumnPagination {
                        limit: 2,
                        offset: 1,
                        column_offset: None,
                    }
                ))),
                Filter::FuzzyRow(vec![strata_model::ops::FuzzyKey::with_wildcard(
                    b"a?", b'?'
                )]),
            ]))
        ),
        other => panic!("{other:?}"),
    }
    // count keeps the user's filter and adds its own.
    match parse(r#"count 't', FILTER => "PrefixFilter('a')""#) {
        Command::Count { scan, .. } => assert_eq!(
            scan.filter,
            Some(Filter::all(vec![
                Filter::Prefix(Bytes::from_static(b"a")),
                Filter::FirstKeyOnly
            ]))
        ),
        other => panic!("{other:?}"),
    }
}
