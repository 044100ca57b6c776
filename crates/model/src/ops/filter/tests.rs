use super::*;

fn bin(s: &'static str) -> Comparator {
    Comparator::Binary(Bytes::from_static(s.as_bytes()))
}

#[test]
fn every_filter_kind_validates() {
    let filters = vec![
        Filter::Prefix(Bytes::from_static(b"user")),
        Filter::Prefix(Bytes::new()),
        Filter::ColumnPrefix(Bytes::from_static(b"c")),
        Filter::MultipleColumnPrefix(vec![Bytes::from_static(b"a"), Bytes::from_static(b"b")]),
        Filter::ColumnRange(ColumnRange {
            min: Some(Bytes::from_static(b"a")),
            min_inclusive: true,
            max: None,
            max_inclusive: false,
        }),
        Filter::Row(CompareOp::Less, bin("m")),
        Filter::Family(CompareOp::Equal, bin("cf")),
        Filter::Qualifier(
            CompareOp::GreaterOrEqual,
            Comparator::BinaryPrefix("q".into()),
        ),
        Filter::Value(CompareOp::NotEqual, Comparator::Substring("err".into())),
        Filter::SingleColumnValue(SingleColumnValue::new(
            "cf",
            "state",
            CompareOp::Equal,
            Comparator::Regex("^ok$".into()),
        )),
        Filter::Page(10),
        Filter::FirstKeyOnly,
        Filter::KeyOnly { len_as_value: true },
        Filter::Timestamps {
            timestamps: vec![1, 5, 9],
            can_hint: true,
        },
        Filter::ColumnCountGet(3),
        Filter::ColumnPagination(ColumnPagination {
            limit: 2,
            offset: 0,
            column_offset: Some(Bytes::from_static(b"c")),
        }),
        Filter::FuzzyRow(vec![FuzzyKey::with_wildcard(b"??_1", b'?')]),
        Filter::InclusiveStop(Bytes::from_static(b"r9")),
        Filter::RandomRow(Chance(0.5)),
        Filter::Skip(Box::new(Filter::Page(1))),
        Filter::WhileMatch(Box::new(Filter::FirstKeyOnly)),
        Filter::MultiRowRange(vec![RowRange {
            start: Bytes::from_static(b"a"),
            start_inclusive: true,
            stop: Bytes::from_static(b"c"),
            stop_inclusive: false,
        }]),
    ];
    let list = Filter::any(vec![Filter::all(filters.clone()), Filter::all(vec![])]);
    assert_eq!(list.validate(), Ok(()));
    for f in filters {
        assert_eq!(f.validate(), Ok(()), "{f:?}");
    }
}

#[test]
fn defaults_match_hbase() {
    let s = SingleColumnValue::new("cf", "q", CompareOp::Equal, bin("v"));
    assert!(!s.filter_if_missing && s.latest_version_only);
    assert_eq!(ListOp::default(), ListOp::MustPassAll);
}

#[test]
fn bad_filters_say_why() {
    let err = Filter::Row(CompareOp::Greater, Comparator::Substring("x".into()))
        .validate()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid filter: substring comparator takes only = and !=, not >"
    );
    let range = Filter::ColumnRange(ColumnRange {
        min: Some(Bytes::from_static(b"z")),
        max: Some(Bytes::from_static(b"a")),
        ..ColumnRange::default()
    });
    assert!(range.validate().is_err());
    let rows = Filter::MultiRowRange(vec![RowRange {
        start: Bytes::from_static(b"z"),
        stop: Bytes::from_static(b"a"),
        ..RowRange::default()
    }]);
    assert!(rows.validate().is_err());
    assert_eq!(
        Filter::Timestamps {
            timestamps: vec![3, -1],
            can_hint: false
        }
        .validate(),
        Err(OpError::NegativeTimestamp(-1))
    );
    let scv = SingleColumnValue::new("", "q", CompareOp::Equal, bin("v"));
    assert_eq!(
        Filter::SingleColumnValue(scv).validate(),
        Err(OpError::EmptyFamily)
    );
}

#[test]
fn nesting_is_bounded() {
    let mut f = Filter::FirstKeyOnly;
    for _ in 0..MAX_FILTER_DEPTH {
        f = Filter::all(vec![f]);
    }
    assert_eq!(f.validate(), Ok(()));
    let f = Filter::any(vec![f]);
    assert!(f
        .validate()
        .unwrap_err()
        .to_string()
        .contains("nest deeper"));
}

#[test]
fn whole_row_filters_are_known() {
    assert!(Filter::Page(1).needs_whole_row());
    assert!(Filter::any(vec![Filter::FirstKeyOnly, Filter::Page(1)]).needs_whole_row());
    assert!(!Filter::all(vec![Filter::FirstKeyOnly]).needs_whole_row());
}
