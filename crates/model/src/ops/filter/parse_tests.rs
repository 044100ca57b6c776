//! The filter language: HBase's examples, every filter name, precedence, errors with
//! positions, and `Display` round trips.

use bytes::Bytes;
use proptest::prelude::*;

use super::*;

fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

fn bin(s: &str) -> Comparator {
    Comparator::Binary(b(s))
}

fn parse(text: &str) -> Filter {
    match parse_filter(text) {
        Ok(f) => f,
        Err(e) => panic!("{text:?}: {e}"),
    }
}

/// The error's offset and message.
fn error(text: &str) -> (usize, String) {
    match parse_filter(text) {
        Ok(f) => panic!("{text:?} parsed as {f:?}"),
        Err(e) => (e.offset(), e.message().to_string()),
    }
}

#[test]
fn reference_guide_examples() {
    assert_eq!(
        parse("PrefixFilter ('Row') AND PageFilter (1) AND FirstKeyOnlyFilter ()"),
        Filter::all(vec![
            Filter::Prefix(b("Row")),
            Filter::Page(1),
            Filter::FirstKeyOnly
        ])
    );
    // The guide's example has one ')' too many and spells TimestampsFilter with a capital S.
    assert_eq!(
        parse(
            "(RowFilter (=, 'binary:Row 1') AND TimestampsFilter (74689, 89734)) \
             OR ColumnRangeFilter ('abc', true, 'xyz', false)"
        ),
        Filter::any(vec![
            Filter::all(vec![
                Filter::Row(CompareOp::Equal, bin("Row 1")),
                Filter::Timestamps {
                    timestamps: vec![74689, 89734],
                    can_hint: false
                },
            ]),
            Filter::ColumnRange(ColumnRange {
                min: Some(b("abc")),
                min_inclusive: true,
                max: Some(b("xyz")),
                max_inclusive: false,
            }),
        ])
    );
    assert_eq!(
        error("TimeStampsFilter (74689, 89734)"),
        (
            0,
            "unknown filter name 'TimeStampsFilter'; did you mean TimestampsFilter?".into()
        )
    );
    // The guide's SingleColumnValueFilter example gives 'abc' without a comparator type,
    // which HBase rejects too.
    let guide = "SingleColumnValueFilter ('FamilyA', 'Column1', <=, 'abc', true, false)";
    assert!(error(guide).1.contains("expected a comparator"));
    assert_eq!(
        parse(&guide.replace("'abc'", "'binary:abc'")),
        Filter::SingleColumnValue(SingleColumnValue {
            filter_if_missing: true,
            latest_version_only: false,
            ..SingleColumnValue::new("FamilyA", "Column1", CompareOp::LessOrEqual, bin("abc"))
        })
    );
    assert_eq!(
        parse("QualifierFilter (>=, 'binary:xyz') AND ValueFilter (=, 'substring:abc')"),
        Filter::all(vec![
            Filter::Qualifier(CompareOp::GreaterOrEqual, bin("xyz")),
            Filter::Value(CompareOp::Equal, Comparator::Substring("abc".into())),
        ])
    );
    assert_eq!(
        parse("RowFilter (<=, 'binary:xyz')"),
        Filter::Row(CompareOp::LessOrEqual, bin("xyz"))
    );
    assert_eq!(
        parse("FamilyFilter (!=, 'regexstring:ab*')"),
        Filter::Family(CompareOp::NotEqual, Comparator::Regex("ab*".into()))
    );
}

#[test]
fn every_filter_name() {
    let cases: Vec<(&str, Filter)> = vec![
        ("PrefixFilter('r')", Filter::Prefix(b("r"))),
        ("PrefixFilter('')", Filter::Prefix(Bytes::new())),
        ("ColumnPrefixFilter('c')", Filter::ColumnPrefix(b("c"))),
        (
            "MultipleColumnPrefixFilter('a', 'b')",
            Filter::MultipleColumnPrefix(vec![b("a"), b("b")]),
        ),
        (
            "MultipleColumnPrefixFilter()",
            Filter::MultipleColumnPrefix(vec![]),
        ),
        (
            "ColumnRangeFilter('', false, 'm', true)",
            Filter::ColumnRange(ColumnRange {
                min: None,
                min_inclusive: false,
                max: Some(b("m")),
                max_inclusive: true,
            }),
        ),
        (
            "RowFilter(<, 'binary:m')",
            Filter::Row(CompareOp::Less, bin("m")),
        ),
        (
            "FamilyFilter(=, 'binaryprefix:c')",
            Filter::Family(CompareOp::Equal, Comparator::BinaryPrefix(b("c"))),
        ),
        (
            "QualifierFilter(>, 'binary:q')",
            Filter::Qualifier(CompareOp::Greater, bin("q")),
        ),
        (
            "ValueFilter(!=, 'regexstring:^\\d+$')",
            Filter::Value(CompareOp::NotEqual, Comparator::Regex("^\\d+$".into())),
        ),
        (
            "SingleColumnValueFilter('cf', 'q', >=, 'binary:5')",
            Filter::SingleColumnValue(SingleColumnValue::new(
                "cf",
                "q",
                CompareOp::GreaterOrEqual,
                bin("5"),
            )),
        ),
        ("PageFilter(10)", Filter::Page(10)),
        ("FirstKeyOnlyFilter()", Filter::FirstKeyOnly),
        (
            "KeyOnlyFilter()",
            Filter::KeyOnly {
                len_as_value: false,
            },
        ),
        (
            "KeyOnlyFilter(TRUE)",
            Filter::KeyOnly { len_as_value: true },
        ),
        (
            "TimestampsFilter(0, 9)",
            Filter::Timestamps {
                timestamps: vec![0, 9],
                can_hint: false,
            },
        ),
        (
            "TimestampsFilter(0, 9, true)",
            Filter::Timestamps {
                timestamps: vec![0, 9],
                can_hint: true,
            },
        ),
        ("ColumnCountGetFilter(4)", Filter::ColumnCountGet(4)),
        (
            "ColumnPaginationFilter(2, 1)",
            Filter::ColumnPagination(ColumnPagination {
                limit: 2,
                offset: 1,
                column_offset: None,
            }),
        ),
        (
            "ColumnPaginationFilter(2, 'c\\x00')",
            Filter::ColumnPagination(ColumnPagination {
                limit: 2,
                offset: 0,
                column_offset: Some(Bytes::from_static(b"c\x00")),
            }),
        ),
        ("InclusiveStopFilter('r9')", Filter::InclusiveStop(b("r9"))),
        (
            "SingleColumnValueExcludeFilter('cf', 'q', =, 'binary:v', true, false)",
            Filter::SingleColumnValueExclude(SingleColumnValue {
                filter_if_missing: true,
                latest_version_only: false,
                ..SingleColumnValue::new("cf", "q", CompareOp::Equal, bin("v"))
            }),
        ),
        (
            "DependentColumnFilter('cf', 'q')",
            Filter::DependentColumn(DependentColumn {
                family: b("cf"),
                qualifier: b("q"),
                drop_dependent_column: false,
                compare: None,
            }),
        ),
        (
            "DependentColumnFilter('cf', 'q', true, <=, 'binary:9')",
            Filter::DependentColumn(DependentColumn {
                family: b("cf"),
                qualifier: b("q"),
                drop_dependent_column: true,
                compare: Some((CompareOp::LessOrEqual, bin("9"))),
            }),
        ),
        (
            "ColumnValueFilter('cf', 'q', >, 'binaryprefix:a')",
            Filter::ColumnValue(ColumnCondition {
                family: b("cf"),
                qualifier: b("q"),
                op: CompareOp::Greater,
                comparator: Comparator::BinaryPrefix(b("a")),
            }),
        ),
        (
            "FirstKeyValueMatchingQualifiersFilter('a', 'b')",
            Filter::FirstKeyValueMatchingQualifiers(vec![b("a"), b("b")]),
        ),
        (
            "FuzzyRowFilter('r\\x00\\x007', '\\x00\\x01\\x01\\x00')",
            Filter::FuzzyRow(vec![FuzzyKey::with_wildcard(b"r??7", b'?')]),
        ),
        ("RandomRowFilter(0.25)", Filter::RandomRow(Chance(0.25))),
        ("RandomRowFilter(1e-7)", Filter::RandomRow(Chance(1e-7))),
        (
            "SKIP ValueFilter(=, 'binary:0')",
            Filter::Skip(Box::new(Filter::Value(CompareOp::Equal, bin("0")))),
        ),
        (
            "WHILE (RowFilter(<, 'binary:m') AND PageFilter(3)) OR PageFilter(1)",
            Filter::any(vec![
                Filter::WhileMatch(Box::new(Filter::all(vec![
                    Filter::Row(CompareOp::Less, bin("m")),
                    Filter::Page(3),
                ]))),
                Filter::Page(1),
            ]),
        ),
        (
            "MultiRowRangeFilter('a', true, 'c', false, 'x', false, '', true)",
            Filter::MultiRowRange(vec![
                RowRange {
                    start: b("a"),
                    start_inclusive: true,
                    stop: b("c"),
                    stop_inclusive: false,
                },
                RowRange {
                    start: b("x"),
                    start_inclusive: false,
                    stop: Bytes::new(),
                    stop_inclusive: true,
                },
            ]),
        ),
        ("FilterList(OR)", Filter::any(vec![])),
        (
            "FilterList(and, PageFilter(1))",
            Filter::all(vec![Filter::Page(1)]),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse(text), expected, "{text}");
        assert_eq!(parse(&expected.to_string()), expected, "{expected}");
    }
}

#[test]
fn new_filters_check_their_arguments() {
    assert!(error("FuzzyRowFilter('ab', '\\x00')")
        .1
        .contains("a key of 2 bytes has a mask of 1"));
    assert!(error("FuzzyRowFilter('ab', '\\x00\\x02')")
        .1
        .contains("mask bytes are 0 (fixed) or 1 (any)"));
    assert!(error("FuzzyRowFilter('ab')")
        .1
        .contains("pairs of arguments"));
    assert!(error("ColumnPaginationFilter(-1, 0)")
        .1
        .contains("expected a non-negative limit"));
    assert!(error("DependentColumnFilter('cf', 'q', true, =)")
        .1
        .contains("takes 2 arguments"));
    assert!(error("ColumnValueFilter('cf', 'q', <, 'substring:a')")
        .1
        .contains("takes only = and !="));
    assert_eq!(
        error("SKIP").1,
        "expected a filter name or '(', found end of input"
    );
    let deep = format!("{}PageFilter(1)", "SKIP ".repeat(MAX_FILTER_DEPTH + 1));
    assert!(error(&deep).1.contains("nest deeper"));
}

#[test]
fn and_binds_tighter_than_or() {
    let (p, q, r) = (Filter::Page(1), Filter::Page(2), Filter::Page(3));
    assert_eq!(
        parse("PageFilter(1) OR PageFilter(2) AND PageFilter(3)"),
        Filter::any(vec![p.clone(), Filter::all(vec![q.clone(), r.clone()])])
    );
    assert_eq!(
        parse("PageFilter(1) AND PageFilter(2) or PageFilter(3)"),
        Filter::any(vec![Filter::all(vec![p.clone(), q.clone()]), r.clone()])
    );
    assert_eq!(
        parse("PageFilter(1) AND (PageFilter(2) OR PageFilter(3))"),
        Filter::all(vec![p.clone(), Filter::any(vec![q.clone(), r.clone()])])
    );
    // A chain is one list; parentheses keep a group as its own list.
    assert_eq!(
        parse("(PageFilter(1) AND PageFilter(2)) AND PageFilter(3)"),
        Filter::all(vec![Filter::all(vec![p.clone(), q.clone()]), r.clone()])
    );
    assert_eq!(parse("((PageFilter(1)))"), p);
}

#[test]
fn quoted_strings_and_binary_escapes() {
    assert_eq!(parse("PrefixFilter('it''s')"), Filter::Prefix(b("it's")));
    assert_eq!(
        parse("RowFilter(=, 'binary:\\x00\\xffa\\x5C\\xZZ')"),
        Filter::Row(
            CompareOp::Equal,
            Comparator::Binary(Bytes::from_static(b"\x00\xffa\\\\xZZ"))
        )
    );
    // Text comparators keep backslashes: they are regular expressions.
    assert_eq!(
        parse("ValueFilter(=, 'regexstring:\\x41\\.')"),
        Filter::Value(CompareOp::Equal, Comparator::Regex("\\x41\\.".into()))
    );
    let f = Filter::Row(
        CompareOp::Equal,
        Comparator::Binary(Bytes::from_static(b"a'\\\x00\xff")),
    );
    assert_eq!(f.to_string(), "RowFilter(=, 'binary:a''\\x5C\\x00\\xFF')");
    assert_eq!(parse(&f.to_string()), f);
}

#[test]
fn display_is_readable() {
    let f = Filter::any(vec![
        Filter::all(vec![Filter::Prefix(b("r")), Filter::Page(2)]),
        Filter::all(vec![]),
        Filter::SingleColumnValue(SingleColumnValue {
            filter_if_missing: true,
            ..SingleColumnValue::new("cf", "q", CompareOp::Equal, bin("v"))
        }),
    ]);
    assert_eq!(
        f.to_string(),
        "(PrefixFilter('r') AND PageFilter(2)) OR FilterList(AND) OR \
         SingleColumnValueFilter('cf', 'q', =, 'binary:v', true, true)"
    );
    assert_eq!(parse(&f.to_string()), f);
}

#[test]
fn errors_name_the_position_and_expectation() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 0, "expected a filter name or '(', found end of input"),
        ("Foo()", 0, "unknown filter name 'Foo'"),
        ("PageFilter(1, 2)", 0, "PageFilter takes 1 argument (page size), found 2 argument(s)"),
        ("PageFilter('1')", 11, "argument 1 of PageFilter: expected a non-negative page size, found string '1'"),
        ("PageFilter(-1)", 11, "argument 1 of PageFilter: expected a non-negative page size, found number -1"),
        ("KeyOnlyFilter(1)", 14, "argument 1 of KeyOnlyFilter: expected true or false, found number 1"),
        ("RowFilter('binary:a', =)", 10, "argument 1 of RowFilter: expected a comparison operator (<, <=, =, !=, >=, >), found string 'binary:a'"),
        ("RowFilter(=, 'a')", 13, "argument 2 of RowFilter: expected a comparator"),
        ("RowFilter(=, 'bin:a')", 13, "unknown comparator type 'bin'"),
        ("RowFilter(<, 'substring:a')", 0, "invalid filter: substring comparator takes only = and !=, not <"),
        ("ValueFilter(=, 'long:x')", 15, "comparator 'long': expected a 64-bit integer"),
        ("ValueFilter(=, 'bigdecimal:1.2.3')", 15, "comparator 'bigdecimal': expected a decimal"),
        ("ValueFilter(=, 'binarycomponent:a')", 15, "expected 'binarycomponent:offset:bytes'"),
        ("ValueFilter(=, 'null:x')", 15, "takes no operand"),
        ("SingleColumnValueFilter('cf', 'q', =, 'binary:v', true)", 0, "SingleColumnValueFilter takes 4 arguments"),
        ("SingleColumnValueFilter('', 'q', =, 'binary:v')", 0, "column family must not be empty"),
        ("TimestampsFilter(5, -1)", 0, "timestamp -1 is negative"),
        ("MultiRowRangeFilter('a', true, 'b')", 0, "MultiRowRangeFilter takes groups of 4"),
        ("PrefixFilter('abc", 13, "unterminated string: expected a closing '"),
        ("PrefixFilter 'a'", 13, "expected '(' after filter name PrefixFilter, found string 'a'"),
        ("(PageFilter(1)", 14, "expected ')' to close '(' at byte 0, found end of input"),
        ("PageFilter(1))", 13, "')' without matching '('"),
        ("PageFilter(1 AND", 13, "expected ',' or ')' to close the arguments of PageFilter at byte 10"),
        ("PageFilter(1) PageFilter(2)", 14, "expected AND, OR or end of input, found 'PageFilter'"),
        ("PageFilter(1) AND", 17, "expected a filter name or '(', found end of input"),
        ("AND PageFilter(1)", 0, "expected a filter, found AND"),
        ("PageFilter(1) & PageFilter(2)", 14, "unexpected character '&'"),
        ("RowFilter(! 'binary:a')", 10, "expected '!=', found '!'"),
        ("FilterList(XOR)", 11, "expected AND or OR as FilterList's first argument"),
        ("ColumnRangeFilter('z', true, 'a', true)", 0, "min column sorts after max column"),
    ];
    for &(text, offset, message) in cases {
        let (at, got) = error(text);
        assert_eq!(at, offset, "{text}: {got}");
        assert!(got.contains(message), "{text}: {got:?} lacks {message:?}");
    }
    let e = parse_filter("Foo()").unwrap_err();
    assert_eq!(
        e.to_string(),
        "filter syntax error at byte 0: unknown filter name 'Foo'"
    );
}

#[test]
fn limits_are_enforced() {
    let nested =
        |levels: usize| format!("{}PageFilter(1){}", "(".repeat(levels), ")".repeat(levels));
    assert_eq!(parse(&nested(MAX_FILTER_DEPTH)), Filter::Page(1));
    let (offset, message) = error(&nested(MAX_FILTER_DEPTH + 1));
    assert_eq!(offset, MAX_FILTER_DEPTH);
    assert!(message.contains("nest deeper than 32"), "{message}");
    // Very deep input fails cleanly rather than overflowing the stack.
    assert!(parse_filter(&nested(30_000)).is_err());

    let mut deepest = Filter::FirstKeyOnly;
    for _ in 0..MAX_FILTER_DEPTH {
        deepest = Filter::all(vec![deepest]);
    }
    assert_eq!(parse(&deepest.to_string()), deepest);

    let long = format!("PrefixFilter('{}')", "a".repeat(64 * 1024));
    let (offset, message) = error(&long);
    assert_eq!(offset, 64 * 1024);
    assert!(message.contains("at most 65536"), "{message}");
}

/// Bytes that exercise escaping: quotes, backslashes, `\x` look-alikes, non-ASCII.
fn bytes_strategy() -> impl Strategy<Value = Bytes> {
    prop::collection::vec(
        prop_oneof![
            Just(b'\''),
            Just(b'\\'),
            Just(b'x'),
            Just(b'a'),
            Just(b'0'),
            any::<u8>()
        ],
        0..6,
    )
    .prop_map(Bytes::from)
}

fn nonempty_bytes() -> impl Strategy<Value = Bytes> {
    bytes_strategy().prop_filter("non-empty", |b| !b.is_empty())
}

fn text_strategy() -> impl Strategy<Value = String> {
    "(['\\\\:x(), ]|[a-z]|\\PC|\\n){0,6}"
}

fn op_and_comparator() -> impl Strategy<Value = (CompareOp, Comparator)> {
    let op = prop::sample::select(CompareOp::ALL.to_vec());
    let eq = prop::sample::select(vec![CompareOp::Equal, CompareOp::NotEqual]);
    prop_oneof![
        (op.clone(), bytes_strategy()).prop_map(|(o, v)| (o, Comparator::Binary(v))),
        (op.clone(), bytes_strategy()).prop_map(|(o, v)| (o, Comparator::BinaryPrefix(v))),
        (eq.clone(), text_strategy()).prop_map(|(o, v)| (o, Comparator::Substring(v))),
        (eq, text_strategy()).prop_map(|(o, v)| (o, Comparator::Regex(v))),
        (op.clone(), any::<i64>()).prop_map(|(o, n)| (o, Comparator::Long(n))),
        (
            op.clone(),
            prop::sample::select(vec![BitOp::And, BitOp::Or, BitOp::Xor]),
            bytes_strategy()
        )
            .prop_map(|(o, b, v)| (o, Comparator::Bit(b, v))),
        op.clone().prop_map(|o| (o, Comparator::Null)),
        (op.clone(), any::<i64>(), -40i32..40).prop_map(|(o, n, scale)| {
            let d = Decimal::parse(&format!("{n}E{}", -scale)).unwrap();
            (o, Comparator::BigDecimal(d))
        }),
        (op, any::<u16>(), bytes_strategy()).prop_map(|(o, offset, value)| {
            (
                o,
                Comparator::BinaryComponent {
                    offset: u32::from(offset),
                    value,
                },
            )
        }),
    ]
}

fn ordered(a: Bytes, b: Bytes) -> (Bytes, Bytes) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

fn leaf_strategy() -> impl Strategy<Value = Filter> {
    let column_range = (
        prop::option::of(nonempty_bytes()),
        any::<bool>(),
        prop::option::of(nonempty_bytes()),
        any::<bool>(),
    )
        .prop_map(|(min, min_inclusive, max, max_inclusive)| {
            let (min, max) = match (min, max) {
                (Some(a), Some(b)) => {
                    let (a, b) = ordered(a, b);
                    (Some(a), Some(b))
                }
                other => other,
            };
            Filter::ColumnRange(ColumnRange {
                min,
                min_inclusive,
                max,
                max_inclusive,
            })
        });
    let row_range = (
        bytes_strategy(),
        any::<bool>(),
        bytes_strategy(),
        any::<bool>(),
    )
        .prop_map(|(start, start_inclusive, stop, stop_inclusive)| {
            let (start, stop) = if start.is_empty() || stop.is_empty() {
                (start, stop)
            } else {
                ordered(start, stop)
            };
            RowRange {
                start,
                start_inclusive,
                stop,
                stop_inclusive,
            }
        });
    let scv = (
        nonempty_bytes(),
        bytes_strategy(),
        op_and_comparator(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(family, qualifier, (op, comparator), missing, latest)| {
            Filter::SingleColumnValue(SingleColumnValue {
                family,
                qualifier,
                op,
                comparator,
                filter_if_missing: missing,
                latest_version_only: latest,
            })
        });
    prop_oneof![
        bytes_strategy().prop_map(Filter::Prefix),
        bytes_strategy().prop_map(Filter::ColumnPrefix),
        prop::collection::vec(bytes_strategy(), 0..3).prop_map(Filter::MultipleColumnPrefix),
        column_range,
        op_and_comparator().prop_map(|(o, c)| Filter::Row(o, c)),
        op_and_comparator().prop_map(|(o, c)| Filter::Family(o, c)),
        op_and_comparator().prop_map(|(o, c)| Filter::Qualifier(o, c)),
        op_and_comparator().prop_map(|(o, c)| Filter::Value(o, c)),
        scv,
        any::<u64>().prop_map(Filter::Page),
        Just(Filter::FirstKeyOnly),
        any::<bool>().prop_map(|len_as_value| Filter::KeyOnly { len_as_value }),
        (prop::collection::vec(0..=i64::MAX, 0..3), any::<bool>()).prop_map(
            |(timestamps, can_hint)| Filter::Timestamps {
                timestamps,
                can_hint
            }
        ),
        prop::collection::vec(row_range, 0..3).prop_map(Filter::MultiRowRange),
        any::<u32>().prop_map(Filter::ColumnCountGet),
        (
            any::<u32>(),
            any::<u32>(),
            prop::option::of(bytes_strategy())
        )
            .prop_map(|(limit, offset, column_offset)| Filter::ColumnPagination(
                ColumnPagination {
                    limit,
                    offset: if column_offset.is_some() { 0 } else { offset },
                    column_offset,
                }
            )),
        (nonempty_bytes(), bytes_strategy(), op_and_comparator()).prop_map(
            |(family, qualifier, (op, comparator))| Filter::ColumnValue(ColumnCondition {
                family,
                qualifier,
                op,
                comparator,
            })
        ),
        (
            nonempty_bytes(),
            bytes_strategy(),
            any::<bool>(),
            prop::option::of(op_and_comparator())
        )
            .prop_map(|(family, qualifier, drop_dependent_column, compare)| {
                Filter::DependentColumn(DependentColumn {
                    family,
                    qualifier,
                    drop_dependent_column,
                    compare,
                })
            }),
        prop::collection::vec(bytes_strategy(), 0..3)
            .prop_map(Filter::FirstKeyValueMatchingQualifiers),
        prop::collection::vec(
            prop::collection::vec(prop::option::of(any::<u8>()), 0..6),
            0..3
        )
        .prop_map(|keys| Filter::FuzzyRow(
            keys.into_iter()
                .map(|k| FuzzyKey {
                    key: k.iter().map(|b| b.unwrap_or(0)).collect(),
                    mask: k.iter().map(|b| u8::from(b.is_none())).collect(),
                })
                .collect()
        )),
        bytes_strategy().prop_map(Filter::InclusiveStop),
        (-2.0f32..2.0).prop_map(|c| Filter::RandomRow(Chance(c))),
    ]
}

/// Valid filter trees with lists nested at most 4 deep.
fn filter_strategy() -> impl Strategy<Value = Filter> {
    leaf_strategy().prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            (
                prop_oneof![Just(ListOp::MustPassAll), Just(ListOp::MustPassOne)],
                prop::collection::vec(inner.clone(), 0..4),
            )
                .prop_map(|(op, filters)| Filter::List(FilterList { op, filters })),
            inner.clone().prop_map(|f| Filter::Skip(Box::new(f))),
            inner.prop_map(|f| Filter::WhileMatch(Box::new(f))),
        ]
    })
}

/// Fragments of the language, so random input gets past the lexer.
fn fragment() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "(",
        ")",
        ",",
        " ",
        "'",
        "''",
        "AND",
        "OR",
        "SKIP",
        "PageFilter",
        "RowFilter",
        "FilterList",
        "SingleColumnValueFilter",
        "MultiRowRangeFilter",
        "'binary:a'",
        "'substring:",
        "=",
        "<=",
        "!",
        "true",
        "-",
        "1",
        "99999999999999999999",
        "\\x",
    ])
}

proptest! {
    #[test]
    fn display_round_trips(filter in filter_strategy()) {
        prop_assert_eq!(filter.validate(), Ok(()));
        let text = filter.to_string();
        prop_assert_eq!(parse_filter(&text), Ok(filter), "{}", text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,64}") {
        let _ = parse_filter(&text);
    }

    #[test]
    fn language_like_text_never_panics(parts in prop::collection::vec(fragment(), 0..40)) {
        let _ = parse_filter(&parts.concat());
    }

    #[test]
    fn damaged_filters_never_panic(filter in filter_strategy(), cut in any::<prop::sample::Index>()) {
        let text = filter.to_string();
        let chars: Vec<char> = text.chars().collect();
        let i = cut.index(chars.len() + 1);
        let prefix: String = chars[..i].iter().collect();
        let without: String = chars.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, c)| c).collect();
        let _ = parse_filter(&prefix);
        let _ = parse_filter(&without);
    }
}

#[test]
fn numeric_comparators_parse() {
    assert_eq!(
        parse_filter("ValueFilter(>=, 'long:-5')").unwrap(),
        Filter::Value(CompareOp::GreaterOrEqual, Comparator::Long(-5))
    );
    assert_eq!(
        parse_filter("ValueFilter(=, 'bitxor:\\x01')").unwrap(),
        Filter::Value(
            CompareOp::Equal,
            Comparator::Bit(BitOp::Xor, Bytes::from_static(b"\x01"))
        )
    );
    assert_eq!(
        parse_filter("SingleColumnValueFilter('f', 'q', <, 'bigdecimal:12.50')")
            .unwrap()
            .to_string(),
        "SingleColumnValueFilter('f', 'q', <, 'bigdecimal:12.50')"
    );
    assert_eq!(
        parse_filter("RowFilter(=, 'binarycomponent:2:ab')").unwrap(),
        Filter::Row(
            CompareOp::Equal,
            Comparator::BinaryComponent {
                offset: 2,
                value: b("ab")
            }
        )
    );
}
