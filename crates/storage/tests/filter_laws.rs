//! Algebraic laws of filter lists on random filters and rows: OR of a filter with itself, and
//! AND with a filter that passes everything, change nothing.

mod filter_support;

/// Under `filter` so that `cargo test filter` selects these tests.
mod filter {
    use crate::filter_support::{b, row, scan};
    use bytes::Bytes;
    use proptest::prelude::*;
    use strata_model::cell::Cell;
    use strata_model::ops::{
        ColumnCondition, ColumnPagination, ColumnRange, Comparator, CompareOp, Filter, FuzzyKey,
        RowRange, SingleColumnValue,
    };

    const ROWS: [&str; 6] = ["a", "ab", "b", "ba", "c", "ca"];
    const FAMILIES: [&str; 2] = ["cf1", "cf2"];
    const QUALIFIERS: [&str; 5] = ["", "a", "ab", "b", "c"];
    const VALUES: [&str; 5] = ["", "x", "xy", "Y", "ok"];
    const REGEXES: [&str; 6] = ["^a", "x$", "b.", "[xy]+", "(?i)y", "^$"];

    fn word(choices: &'static [&'static str]) -> impl Strategy<Value = Bytes> {
        prop::sample::select(choices).prop_map(b)
    }

    fn key() -> impl Strategy<Value = Bytes> {
        word(&["", "a", "ab", "b", "ba", "c", "x", "xy", "ok"])
    }

    fn op() -> impl Strategy<Value = CompareOp> {
        prop::sample::select(CompareOp::ALL.to_vec())
    }

    /// A comparison (operator, comparator) the model accepts.
    fn comparison() -> impl Strategy<Value = (CompareOp, Comparator)> {
        let eq = prop::sample::select(vec![CompareOp::Equal, CompareOp::NotEqual]);
        prop_oneof![
            (op(), key()).prop_map(|(o, k)| (o, Comparator::Binary(k))),
            (op(), key()).prop_map(|(o, k)| (o, Comparator::BinaryPrefix(k))),
            (eq.clone(), prop::sample::select(&["x", "Y", "a", ""][..]))
                .prop_map(|(o, s)| (o, Comparator::Substring(s.into()))),
            (eq, prop::sample::select(&REGEXES[..]))
                .prop_map(|(o, p)| (o, Comparator::Regex(p.into()))),
        ]
    }

    fn row_range() -> impl Strategy<Value = RowRange> {
        (key(), any::<bool>(), key(), any::<bool>()).prop_map(|(s, si, e, ei)| {
            let (start, stop) = if !s.is_empty() && !e.is_empty() && s > e {
                (e, s)
            } else {
                (s, e)
            };
            RowRange {
                start,
                start_inclusive: si,
                stop,
                stop_inclusive: ei,
            }
        })
    }

    /// Single filters; `counting` adds the kinds that are not idempotent under OR in HBase
    /// (`Page`: OR asks the second copy only about rows the first refused; `KeyOnly` with
    /// lengths: a second rewrite measures the first one's 4 bytes).
    fn leaf(counting: bool) -> BoxedStrategy<Filter> {
        let common = prop_oneof![
            key().prop_map(Filter::Prefix),
            key().prop_map(Filter::ColumnPrefix),
            prop::collection::vec(key(), 0..3).prop_map(Filter::MultipleColumnPrefix),
            (
                prop::option::of(key()),
                any::<bool>(),
                prop::option::of(key()),
                any::<bool>()
            )
                .prop_map(|(min, min_inclusive, max, max_inclusive)| {
                    let (min, max) = match (min, max) {
                        (Some(a), Some(z)) if a > z => (Some(z), Some(a)),
                        other => other,
                    };
                    Filter::ColumnRange(ColumnRange {
                        min,
                        min_inclusive,
                        max,
                        max_inclusive,
                    })
                }),
            comparison().prop_map(|(o, c)| Filter::Row(o, c)),
            (op(), word(&["cf1", "cf2", "cf", "d"]))
                .prop_map(|(o, f)| Filter::Family(o, Comparator::Binary(f))),
            comparison().prop_map(|(o, c)| Filter::Qualifier(o, c)),
            comparison().prop_map(|(o, c)| Filter::Value(o, c)),
            (
                prop::sample::select(&FAMILIES[..]),
                prop::sample::select(&QUALIFIERS[..]),
                comparison(),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(f, q, (o, c), missing, latest)| {
                    let mut s = SingleColumnValue::new(f, q, o, c);
                    s.filter_if_missing = missing;
                    s.latest_version_only = latest;
                    Filter::SingleColumnValue(s)
                }),
            Just(Filter::FirstKeyOnly),
            Just(Filter::KeyOnly {
                len_as_value: false
            }),
            (prop::collection::vec(1i64..5, 0..3), any::<bool>()).prop_map(
                |(timestamps, can_hint)| Filter::Timestamps {
                    timestamps,
                    can_hint
                }
            ),
            prop::collection::vec(row_range(), 0..3).prop_map(Filter::MultiRowRange),
            prop::collection::vec("[abc?]{1,2}", 0..3).prop_map(|ps| Filter::FuzzyRow(
                ps.iter()
                    .map(|p| FuzzyKey::with_wildcard(p.as_bytes(), b'?'))
                    .collect()
            )),
            (
                prop::sample::select(&FAMILIES[..]),
                prop::sample::select(&QUALIFIERS[..]),
                comparison()
            )
                .prop_map(|(f, q, (op, comparator))| Filter::ColumnValue(
                    ColumnCondition {
                        family: Bytes::from_static(f.as_bytes()),
                        qualifier: Bytes::from_static(q.as_bytes()),
                        op,
                        comparator,
                    }
                )),
            prop::collection::vec(word(&QUALIFIERS), 0..2)
                .prop_map(Filter::FirstKeyValueMatchingQualifiers),
            key().prop_map(Filter::InclusiveStop),
        ];
        if counting {
            prop_oneof![
                8 => common,
                1 => (0u64..4).prop_map(Filter::Page),
                1 => (0u32..3, 0u32..3, prop::option::of(word(&QUALIFIERS))).prop_map(
                    |(limit, offset, column_offset)| Filter::ColumnPagination(ColumnPagination {
                        limit,
                        offset,
                        column_offset,
                    })
                ),
                1 => (0u32..3).prop_map(Filter::ColumnCountGet),
                1 => Just(Filter::KeyOnly { len_as_value: true }),
            ]
            .boxed()
        } else {
            common.boxed()
        }
    }

    fn filter(counting: bool) -> impl Strategy<Value = Filter> {
        leaf(counting).prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Filter::all),
                prop::collection::vec(inner, 0..3).prop_map(Filter::any),
            ]
        })
    }

    /// Ascending rows, each with at least one cell.
    fn rows() -> impl Strategy<Value = Vec<Vec<Cell>>> {
        let cells = prop::collection::btree_map(
            (
                prop::sample::select(&FAMILIES[..]),
                prop::sample::select(&QUALIFIERS[..]),
                1i64..5,
            ),
            prop::sample::select(&VALUES[..]),
            1..8,
        );
        prop::collection::btree_map(prop::sample::select(&ROWS[..]), cells, 0..6).prop_map(|m| {
            m.into_iter()
                .map(|(k, cells)| {
                    let list: Vec<(&str, &str, i64, &str)> = cells
                        .into_iter()
                        .map(|((f, q, ts), v)| (f, q, ts, v))
                        .collect();
                    row(k, &list)
                })
                .collect()
        })
    }

    /// Filters that pass every cell of every row unchanged.
    fn pass_all() -> impl Strategy<Value = Filter> {
        prop::sample::select(vec![
            Filter::all(vec![]),
            Filter::any(vec![]),
            Filter::Prefix(Bytes::new()),
            Filter::ColumnPrefix(Bytes::new()),
            Filter::Family(CompareOp::GreaterOrEqual, Comparator::Binary(Bytes::new())),
            Filter::Row(CompareOp::Equal, Comparator::BinaryPrefix(Bytes::new())),
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn or_with_itself_is_the_filter(f in filter(false), rows in rows(), reversed in any::<bool>()) {
            let alone = scan(Some(&f), &rows, reversed);
            let twice = scan(Some(&Filter::any(vec![f.clone(), f])), &rows, reversed);
            prop_assert_eq!(twice, alone);
        }

        #[test]
        fn and_with_pass_all_is_the_filter(
            f in filter(true),
            pass in pass_all(),
            rows in rows(),
            reversed in any::<bool>(),
        ) {
            let alone = scan(Some(&f), &rows, reversed);
            let after = scan(Some(&Filter::all(vec![f.clone(), pass.clone()])), &rows, reversed);
            prop_assert_eq!(&after, &alone);
            let before = scan(Some(&Filter::all(vec![pass.clone(), f])), &rows, reversed);
            prop_assert_eq!(&before, &alone);
            let mut in_read_order = rows.clone();
            if reversed {
                in_read_order.reverse();
            }
            prop_assert_eq!(scan(Some(&pass), &rows, reversed), in_read_order);
        }

        #[test]
        fn one_row_filters_never_invent_cells(f in filter(true), rows in rows()) {
            for kept in scan(Some(&f), &rows, false) {
                let source = rows.iter().find(|r| r[0].row == kept[0].row).expect("row exists");
                let mut it = source.iter();
                for c in &kept {
                    prop_assert!(
                        it.any(|s| (&s.family, &s.qualifier, s.timestamp) == (&c.family, &c.qualifier, c.timestamp)),
                        "kept cells are an ordered subset of the row's"
                    );
                }
            }
        }
    }
}
