//! Each filter kind on hand-built rows, with HBase's results.

mod filter_support;

/// Under `filter` so that `cargo test filter` selects these tests.
mod filter {
    use crate::filter_support::{
        b, bin, keys, plain_rows, render, row, scan, scan_counting, scan_render, scv,
    };
    use strata_model::cell::Cell;
    use strata_model::ops::{ColumnRange, Comparator, CompareOp, Filter, RowRange};
    use strata_storage::read::filter::{FilterError, RowFilter};

    #[test]
    fn no_filter_passes_rows_untouched() {
        let rows = plain_rows(&["a", "b"]);
        assert_eq!(scan(None, &rows, false), rows);
        let mut rf = RowFilter::new(None, false).unwrap();
        assert!(rf.is_pass_all() && !rf.has_filter_row() && !rf.is_done());
        assert_eq!(rf.apply(Vec::new()), None);
        assert_eq!(rf.apply(rows[0].clone()), Some(rows[0].clone()));
    }

    #[test]
    fn prefix_keeps_its_rows_and_stops_after_them() {
        let rows = plain_rows(&["a0", "a1", "b", "b1", "b2", "c1", "c2"]);
        let f = Filter::Prefix(b("b"));
        let (out, looked) = scan_counting(Some(&f), &rows, false);
        assert_eq!(keys(&out), ["b", "b1", "b2"]);
        assert_eq!(looked, 6, "done at c1: c2 is never read");
        let (out, looked) = scan_counting(Some(&f), &rows, true);
        assert_eq!(keys(&out), ["b2", "b1", "b"]);
        assert_eq!(looked, 6, "reversed: done at a1, a0 is never read");
        assert_eq!(
            keys(&scan(Some(&Filter::Prefix(b(""))), &rows, false)).len(),
            7
        );
    }

    #[test]
    fn row_filter_compares_the_key() {
        let rows = plain_rows(&["a1", "b1", "b2", "c1"]);
        let keys_of = |op, c| keys(&scan(Some(&Filter::Row(op, c)), &rows, false));
        assert_eq!(keys_of(CompareOp::Less, bin("b2")), ["a1", "b1"]);
        assert_eq!(keys_of(CompareOp::GreaterOrEqual, bin("b2")), ["b2", "c1"]);
        assert_eq!(
            keys_of(CompareOp::Equal, Comparator::Regex("^b".into())),
            ["b1", "b2"]
        );
        assert_eq!(
            keys_of(CompareOp::NotEqual, Comparator::Substring("B".into())),
            ["a1", "c1"]
        );
        assert_eq!(
            keys_of(CompareOp::Equal, Comparator::BinaryPrefix(b("c"))),
            ["c1"]
        );
        let mut rf =
            RowFilter::new(Some(&Filter::Row(CompareOp::Equal, bin("b1"))), false).unwrap();
        assert!(
            rf.skip_row(b"a1") && !rf.skip_row(b"b1"),
            "rejected by key, unread"
        );
    }

    fn two_families() -> Vec<Vec<Cell>> {
        vec![row(
            "r",
            &[
                ("cf1", "a", 1, "x"),
                ("cf1", "b", 1, "y"),
                ("cf2", "a", 1, "z"),
            ],
        )]
    }

    #[test]
    fn family_filter() {
        let rows = two_families();
        let f = Filter::Family(CompareOp::Equal, bin("cf2"));
        assert_eq!(scan_render(&f, &rows), ["r/cf2:a@1=z"]);
        let f = Filter::Family(CompareOp::Less, bin("cf2"));
        assert_eq!(scan_render(&f, &rows), ["r/cf1:a@1=x", "r/cf1:b@1=y"]);
    }

    #[test]
    fn qualifier_and_value_filters_judge_each_version() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "a", 3, "x"),
                ("cf", "a", 2, "y"),
                ("cf", "a", 1, "x"),
                ("cf", "b", 1, "x"),
            ],
        )];
        let f = Filter::Value(CompareOp::Equal, bin("x"));
        assert_eq!(
            scan_render(&f, &rows),
            ["r/cf:a@3=x", "r/cf:a@1=x", "r/cf:b@1=x"]
        );
        let f = Filter::Qualifier(CompareOp::Greater, bin("a"));
        assert_eq!(scan_render(&f, &rows), ["r/cf:b@1=x"]);
        let f = Filter::Value(CompareOp::Equal, Comparator::Regex("^[xz]$".into()));
        assert_eq!(scan_render(&f, &rows).len(), 3);
    }

    #[test]
    fn column_prefix_skips_the_rest_of_a_family_only() {
        let rows = vec![row(
            "r",
            &[
                ("cf1", "a", 1, "1"),
                ("cf1", "ab", 1, "2"),
                ("cf1", "abc", 1, "3"),
                ("cf1", "b", 1, "4"),
                ("cf2", "ab", 1, "5"),
            ],
        )];
        let f = Filter::ColumnPrefix(b("ab"));
        assert_eq!(
            scan_render(&f, &rows),
            ["r/cf1:ab@1=2", "r/cf1:abc@1=3", "r/cf2:ab@1=5"]
        );
    }

    #[test]
    fn multiple_column_prefixes_match_any_prefix() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "a", 1, ""),
                ("cf", "ab", 1, ""),
                ("cf", "ac", 1, ""),
                ("cf", "b1", 1, ""),
                ("cf", "c", 1, ""),
                ("cf", "d1", 1, ""),
                ("cf", "e", 1, ""),
            ],
        )];
        let quals = |ps: &[&str]| {
            let f = Filter::MultipleColumnPrefix(ps.iter().map(|p| b(p)).collect());
            scan(Some(&f), &rows, false)
                .iter()
                .flatten()
                .map(|c| c.qualifier.escape_ascii().to_string())
                .collect::<Vec<_>>()
        };
        // HBase drops "ac" here (it only tries the largest prefix ≤ the qualifier); we do not.
        assert_eq!(quals(&["ab", "a"]), ["a", "ab", "ac"]);
        assert_eq!(quals(&["d", "b"]), ["b1", "d1"]);
        assert!(quals(&[]).is_empty());
    }

    #[test]
    fn column_range_bounds() {
        let cells: Vec<(&str, &str, i64, &str)> = ["a", "b", "c", "d", "e"]
            .iter()
            .flat_map(|q| [("cf", *q, 2, "new"), ("cf", *q, 1, "old")])
            .collect();
        let rows = vec![row("r", &cells)];
        let quals = |min: Option<&str>, min_inclusive, max: Option<&str>, max_inclusive| {
            let f = Filter::ColumnRange(ColumnRange {
                min: min.map(b),
                min_inclusive,
                max: max.map(b),
                max_inclusive,
            });
            let mut q: Vec<String> = scan(Some(&f), &rows, false)
                .iter()
                .flatten()
                .map(|c| c.qualifier.escape_ascii().to_string())
                .collect();
            q.dedup();
            q
        };
        assert_eq!(quals(Some("b"), true, Some("d"), false), ["b", "c"]);
        assert_eq!(quals(Some("b"), false, Some("d"), true), ["c", "d"]);
        assert_eq!(quals(None, false, Some("b"), true), ["a", "b"]);
        assert_eq!(quals(Some("d"), true, None, false), ["d", "e"]);
        assert_eq!(
            render(&scan(
                Some(&Filter::ColumnRange(ColumnRange {
                    min: Some(b("e")),
                    min_inclusive: true,
                    ..Default::default()
                })),
                &rows,
                false,
            )),
            ["r/cf:e@2=new", "r/cf:e@1=old"]
        );
    }

    fn state_rows() -> Vec<Vec<Cell>> {
        vec![
            row(
                "r1",
                &[
                    ("cf", "name", 1, "ann"),
                    ("cf", "state", 1, "ok"),
                    ("cf2", "x", 1, "1"),
                ],
            ),
            row("r2", &[("cf", "name", 1, "bob"), ("cf", "state", 1, "bad")]),
            row("r3", &[("cf", "name", 1, "cy"), ("cf2", "x", 1, "3")]),
            row("r4", &[("cf", "state", 2, "bad"), ("cf", "state", 1, "ok")]),
        ]
    }

    #[test]
    fn single_column_value_keeps_whole_rows_and_missing_columns_both_ways() {
        let rows = state_rows();
        let mut cond = scv("cf", "state", CompareOp::Equal, "ok");
        let out = scan(Some(&Filter::SingleColumnValue(cond.clone())), &rows, false);
        assert_eq!(
            keys(&out),
            ["r1", "r3"],
            "rows without the column pass by default"
        );
        assert_eq!(out[0].len(), 3, "the whole row, other families included");
        cond.filter_if_missing = true;
        let out = scan(Some(&Filter::SingleColumnValue(cond.clone())), &rows, false);
        assert_eq!(keys(&out), ["r1"]);
        assert!(
            RowFilter::new(Some(&Filter::SingleColumnValue(cond)), false)
                .unwrap()
                .has_filter_row()
        );
    }

    #[test]
    fn single_column_value_latest_version_only_or_any() {
        let rows = state_rows();
        let mut cond = scv("cf", "state", CompareOp::Equal, "ok");
        cond.filter_if_missing = true;
        let f = Filter::SingleColumnValue(cond.clone());
        assert_eq!(
            keys(&scan(Some(&f), &rows, false)),
            ["r1"],
            "r4's latest is bad"
        );
        cond.latest_version_only = false;
        let out = scan(Some(&Filter::SingleColumnValue(cond)), &rows, false);
        assert_eq!(keys(&out), ["r1", "r4"]);
        assert_eq!(out[1].len(), 2, "both versions returned");
    }

    #[test]
    fn single_column_value_in_a_later_family() {
        let rows = vec![
            row("r1", &[("a", "q", 1, "1"), ("b", "q", 1, "yes")]),
            row("r2", &[("a", "q", 1, "2"), ("b", "q", 1, "no")]),
        ];
        let f = Filter::SingleColumnValue(scv("b", "q", CompareOp::Equal, "yes"));
        assert_eq!(scan_render(&f, &rows), ["r1/a:q@1=1", "r1/b:q@1=yes"]);
    }

    #[test]
    fn page_limits_rows_across_calls() {
        let rows = plain_rows(&["a", "b", "c", "d", "e"]);
        let (out, looked) = scan_counting(Some(&Filter::Page(2)), &rows, false);
        assert_eq!((keys(&out), looked), (vec!["a".to_string(), "b".into()], 2));
        let (out, looked) = scan_counting(Some(&Filter::Page(0)), &rows, false);
        assert!(out.is_empty() && looked == 0);
        assert_eq!(keys(&scan(Some(&Filter::Page(9)), &rows, true)).len(), 5);
        // Empty rows (nothing kept) do not count.
        let only_c = Filter::all(vec![
            Filter::Row(CompareOp::GreaterOrEqual, bin("c")),
            Filter::Page(2),
        ]);
        assert_eq!(keys(&scan(Some(&only_c), &rows, false)), ["c", "d"]);
    }

    #[test]
    fn page_counts_the_rows_that_reach_it() {
        let rows = state_rows();
        let cond = Filter::SingleColumnValue(scv("cf", "state", CompareOp::NotEqual, "ok"));
        // Page last: counts only rows the condition kept (HBase's advice).
        let last = Filter::all(vec![cond.clone(), Filter::Page(1)]);
        assert_eq!(keys(&scan(Some(&last), &rows, false)), ["r2"]);
        // Page first: it counts r1 before the condition drops it, as in HBase.
        let first = Filter::all(vec![Filter::Page(1), cond]);
        assert!(scan(Some(&first), &rows, false).is_empty());
    }

    #[test]
    fn first_key_only_returns_one_cell_per_row() {
        let rows = vec![
            row(
                "r1",
                &[
                    ("cf1", "a", 2, "x"),
                    ("cf1", "a", 1, "y"),
                    ("cf1", "b", 1, "z"),
                    ("cf2", "c", 1, "w"),
                ],
            ),
            row("r2", &[("cf2", "c", 1, "v")]),
        ];
        assert_eq!(
            scan_render(&Filter::FirstKeyOnly, &rows),
            ["r1/cf1:a@2=x", "r2/cf2:c@1=v"]
        );
    }

    #[test]
    fn key_only_strips_values_or_replaces_them_by_their_length() {
        let rows = vec![row("r", &[("cf", "a", 1, "hello"), ("cf", "b", 1, "")])];
        let out = scan(
            Some(&Filter::KeyOnly {
                len_as_value: false,
            }),
            &rows,
            false,
        );
        assert!(out[0].iter().all(|c| c.value.is_empty()));
        assert_eq!(out[0][0].qualifier, b("a"));
        let out = scan(Some(&Filter::KeyOnly { len_as_value: true }), &rows, false);
        assert_eq!(out[0][0].value.as_ref(), [0, 0, 0, 5]);
        assert_eq!(out[0][1].value.as_ref(), [0, 0, 0, 0]);
    }

    #[test]
    fn timestamps_filter_keeps_listed_versions() {
        let cells: Vec<_> = (1..=5).map(|ts| ("cf", "q", ts, "v")).collect();
        let rows = vec![row("r", &cells), row("s", &[("cf", "q", 9, "v")])];
        let f = Filter::Timestamps {
            timestamps: vec![4, 2, 4],
            can_hint: false,
        };
        assert_eq!(scan_render(&f, &rows), ["r/cf:q@4=v", "r/cf:q@2=v"]);
        assert!(scan(
            Some(&Filter::Timestamps {
                timestamps: vec![],
                can_hint: false
            }),
            &rows,
            false
        )
        .is_empty());
    }

    fn range(start: &str, start_inclusive: bool, stop: &str, stop_inclusive: bool) -> RowRange {
        RowRange {
            start: b(start),
            start_inclusive,
            stop: b(stop),
            stop_inclusive,
        }
    }

    #[test]
    fn multi_row_range_keeps_rows_in_any_range_and_stops_after_the_last() {
        let rows = plain_rows(&["a1", "b1", "b2", "c1", "c2", "d1", "e1"]);
        let f = Filter::MultiRowRange(vec![
            range("d", true, "", false),
            range("b1", true, "b2", false),
        ]);
        assert_eq!(keys(&scan(Some(&f), &rows, false)), ["b1", "d1", "e1"]);
        let f = Filter::MultiRowRange(vec![
            range("b1", false, "c1", true),
            range("a", true, "b1", true),
        ]);
        let (out, looked) = scan_counting(Some(&f), &rows, false);
        assert_eq!(
            (keys(&out), looked),
            (vec!["a1".into(), "b1".into(), "b2".into(), "c1".into()], 5)
        );
        let (out, looked) = scan_counting(Some(&f), &rows, true);
        assert_eq!(keys(&out), ["c1", "b2", "b1", "a1"]);
        assert_eq!(looked, 7, "reversed: no row before a1 to stop at");
        let f = Filter::MultiRowRange(vec![range("c", true, "c2", true)]);
        let (out, looked) = scan_counting(Some(&f), &rows, true);
        assert_eq!((keys(&out), looked), (vec!["c2".into(), "c1".into()], 5));
        let (out, looked) = scan_counting(Some(&Filter::MultiRowRange(vec![])), &rows, false);
        assert!(out.is_empty() && looked == 0);
    }

    #[test]
    fn bad_regex_is_rejected_when_compiled() {
        let f = Filter::Value(CompareOp::Equal, Comparator::Regex("(?=x)".into()));
        let err = RowFilter::new(Some(&f), false).unwrap_err();
        assert!(matches!(err, FilterError::Regex { .. }), "{err}");
        let as_region_error: strata_storage::Error = err.into();
        assert_eq!(as_region_error.kind(), strata_storage::ErrorKind::Invalid);
    }
}
