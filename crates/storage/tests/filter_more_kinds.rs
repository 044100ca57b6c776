//! The filters beyond the first set (HBase's `ColumnPaginationFilter`, `ColumnCountGetFilter`,
//! `ColumnValueFilter`, `DependentColumnFilter`, `SingleColumnValueExcludeFilter`,
//! `FirstKeyValueMatchingQualifiersFilter`, `FuzzyRowFilter`, `InclusiveStopFilter`,
//! `RandomRowFilter`, `SkipFilter`, `WhileMatchFilter`, `TimestampsFilter` with `canHint`) on
//! hand-built rows, with HBase's results.

mod filter_support;

/// Under `filter` so that `cargo test filter` selects these tests.
mod filter {
    use crate::filter_support::{
        b, bin, keys, plain_rows, row, scan, scan_counting, scan_render, scv,
    };
    use strata_model::cell::Cell;
    use strata_model::ops::{
        Chance, ColumnCondition, ColumnPagination, CompareOp, DependentColumn, Filter, FuzzyKey,
    };

    /// Row `r`: `cf:a`@2,@1, `cf:b`@1, `cf:c`@3, `cf:d`@1, `cf2:a`@1.
    fn wide() -> Vec<Vec<Cell>> {
        vec![row(
            "r",
            &[
                ("cf", "a", 2, "a2"),
                ("cf", "a", 1, "a1"),
                ("cf", "b", 1, "b1"),
                ("cf", "c", 3, "c3"),
                ("cf", "d", 1, "d1"),
                ("cf2", "a", 1, "x1"),
            ],
        )]
    }

    fn page(limit: u32, offset: u32, column_offset: Option<&str>) -> Filter {
        Filter::ColumnPagination(ColumnPagination {
            limit,
            offset,
            column_offset: column_offset.map(b),
        })
    }

    #[test]
    fn column_pagination_pages_columns_newest_version_each() {
        assert_eq!(
            scan_render(&page(2, 1, None), &wide()),
            ["r/cf:b@1=b1", "r/cf:c@3=c3"]
        );
        // Counted across families, as HBase's one filter instance sees every store.
        assert_eq!(
            scan_render(&page(2, 3, None), &wide()),
            ["r/cf:d@1=d1", "r/cf2:a@1=x1"]
        );
        assert!(scan_render(&page(0, 0, None), &wide()).is_empty());
        assert_eq!(
            scan_render(&page(2, 0, Some("b")), &wide()),
            ["r/cf:b@1=b1", "r/cf:c@3=c3"]
        );
        // The offset column need not exist; with a column offset the int offset is ignored.
        assert_eq!(
            scan_render(&page(5, 4, Some("bb")), &wide()),
            ["r/cf:c@3=c3", "r/cf:d@1=d1", "r/cf2:a@1=x1"]
        );
    }

    #[test]
    fn column_count_get_ends_the_read_after_a_wider_row() {
        let rows = vec![
            row("a", &[("cf", "x", 1, "1"), ("cf", "y", 1, "1")]),
            row(
                "b",
                &[
                    ("cf", "x", 1, "1"),
                    ("cf", "y", 1, "1"),
                    ("cf", "z", 1, "1"),
                ],
            ),
            row("c", &[("cf", "x", 1, "1")]),
        ];
        let (out, looked) = scan_counting(Some(&Filter::ColumnCountGet(2)), &rows, false);
        assert_eq!(
            crate::filter_support::render(&out),
            ["a/cf:x@1=1", "a/cf:y@1=1", "b/cf:x@1=1", "b/cf:y@1=1"]
        );
        assert_eq!(
            looked, 2,
            "HBase: filterAllRemaining once a row had a third column"
        );
    }

    #[test]
    fn column_value_returns_only_the_matching_cells_of_its_column() {
        let f = Filter::ColumnValue(ColumnCondition {
            family: b("cf"),
            qualifier: b("a"),
            op: CompareOp::GreaterOrEqual,
            comparator: bin("a2"),
        });
        assert_eq!(scan_render(&f, &wide()), ["r/cf:a@2=a2"]);
        let none = Filter::ColumnValue(ColumnCondition {
            family: b("cf2"),
            qualifier: b("zz"),
            op: CompareOp::Equal,
            comparator: bin("x"),
        });
        assert!(scan_render(&none, &wide()).is_empty());
    }

    #[test]
    fn dependent_column_keeps_the_reference_timestamps() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "ref", 2, "yes"),
                ("cf", "ref", 1, "no"),
                ("cf", "v", 2, "v2"),
                ("cf", "v", 1, "v1"),
                ("cf", "w", 3, "w3"),
                ("cf2", "x", 2, "x2"),
            ],
        )];
        let dep = |drop: bool, compare| {
            Filter::DependentColumn(DependentColumn {
                family: b("cf"),
                qualifier: b("ref"),
                drop_dependent_column: drop,
                compare,
            })
        };
        assert_eq!(
            scan_render(&dep(false, None), &rows),
            [
                "r/cf:ref@2=yes",
                "r/cf:ref@1=no",
                "r/cf:v@2=v2",
                "r/cf:v@1=v1",
                "r/cf2:x@2=x2"
            ]
        );
        assert_eq!(
            scan_render(&dep(true, Some((CompareOp::Equal, bin("yes")))), &rows),
            ["r/cf:v@2=v2", "r/cf2:x@2=x2"]
        );
        let without = vec![row("s", &[("cf", "v", 1, "v1")])];
        assert!(scan(Some(&dep(false, None)), &without, false).is_empty());
    }

    #[test]
    fn single_column_value_exclude_drops_the_tested_column() {
        let rows = vec![
            row("a", &[("cf", "s", 1, "ok"), ("cf", "t", 1, "1")]),
            row("b", &[("cf", "s", 1, "bad"), ("cf", "t", 1, "2")]),
            row("c", &[("cf", "t", 1, "3")]),
        ];
        let f = Filter::SingleColumnValueExclude(scv("cf", "s", CompareOp::Equal, "ok"));
        assert_eq!(scan_render(&f, &rows), ["a/cf:t@1=1", "c/cf:t@1=3"]);
    }

    #[test]
    fn first_key_value_matching_qualifiers_stops_after_the_first_match() {
        let f = Filter::FirstKeyValueMatchingQualifiers(vec![b("c"), b("zz")]);
        assert_eq!(
            scan_render(&f, &wide()),
            ["r/cf:a@2=a2", "r/cf:a@1=a1", "r/cf:b@1=b1", "r/cf:c@3=c3"]
        );
    }

    #[test]
    fn fuzzy_row_matches_fixed_positions_either_way() {
        let rows = plain_rows(&["u1_a", "u1_b", "u22a", "u2_a", "x", "x9_a", "zz_a1"]);
        let f = Filter::FuzzyRow(vec![FuzzyKey::with_wildcard(b"??_a", b'?')]);
        assert_eq!(
            keys(&scan(Some(&f), &rows, false)),
            ["u1_a", "u2_a", "x", "x9_a", "zz_a1"]
        );
        assert_eq!(
            keys(&scan(Some(&f), &rows, true)),
            ["zz_a1", "x9_a", "x", "u2_a", "u1_a"]
        );
        let two = Filter::FuzzyRow(vec![
            FuzzyKey::with_wildcard(b"u?_b", b'?'),
            FuzzyKey::with_wildcard(b"z", b'?'),
        ]);
        assert_eq!(keys(&scan(Some(&two), &rows, false)), ["u1_b", "zz_a1"]);
        let none = Filter::FuzzyRow(vec![]);
        assert!(scan(Some(&none), &rows, false).is_empty());
    }

    #[test]
    fn inclusive_stop_includes_its_row_and_ends_the_read() {
        let rows = plain_rows(&["a", "b", "b0", "c"]);
        let f = Filter::InclusiveStop(b("b"));
        let (out, looked) = scan_counting(Some(&f), &rows, false);
        assert_eq!(keys(&out), ["a", "b"]);
        assert_eq!(looked, 3);
        assert_eq!(keys(&scan(Some(&f), &rows, true)), ["c", "b0", "b"]);
    }

    #[test]
    fn random_row_keeps_rows_by_chance() {
        let names: Vec<String> = (0..2000).map(|i| format!("r{i:05}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let rows = plain_rows(&refs);
        let count = |c: f32| scan(Some(&Filter::RandomRow(Chance(c))), &rows, false).len();
        assert_eq!(count(-1.0), 0);
        assert_eq!(count(0.0), 0);
        assert_eq!(count(1.5), 2000);
        let half = count(0.5);
        assert!((700..1300).contains(&half), "{half} of 2000 rows at 0.5");
    }

    #[test]
    fn skip_drops_rows_with_any_excluded_cell() {
        let rows = vec![
            row("a", &[("cf", "x", 1, "1"), ("cf", "y", 1, "0")]),
            row("b", &[("cf", "x", 1, "1"), ("cf", "y", 1, "2")]),
        ];
        let f = Filter::Skip(Box::new(Filter::Value(CompareOp::NotEqual, bin("0"))));
        assert_eq!(scan_render(&f, &rows), ["b/cf:x@1=1", "b/cf:y@1=2"]);
        // The inner filter is never asked about row keys (HBase: `filterRowKey` is false).
        let rf = Filter::Skip(Box::new(Filter::Row(CompareOp::Less, bin("b"))));
        assert_eq!(keys(&scan(Some(&rf), &rows, false)), ["a", "b"]);
    }

    #[test]
    fn while_match_ends_the_read_at_the_first_exclusion() {
        let rows = plain_rows(&["a", "b", "c", "a2"]);
        let f = Filter::WhileMatch(Box::new(Filter::Row(CompareOp::Less, bin("c"))));
        let (out, looked) = scan_counting(Some(&f), &rows, false);
        assert_eq!(keys(&out), ["a", "b"]);
        assert_eq!(looked, 3, "a2 is never read");
        // Mid-row: the rest of the row goes too (HBase's DONE_SCAN).
        let rows = vec![
            row(
                "a",
                &[
                    ("cf", "x", 1, "1"),
                    ("cf", "y", 1, "0"),
                    ("cf", "z", 1, "1"),
                ],
            ),
            row("b", &[("cf", "x", 1, "1")]),
        ];
        let v = Filter::WhileMatch(Box::new(Filter::Value(CompareOp::Equal, bin("1"))));
        assert_eq!(scan_render(&v, &rows), ["a/cf:x@1=1"]);
    }

    #[test]
    fn timestamps_with_hint_return_what_timestamps_without_do() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "a", 5, "5"),
                ("cf", "a", 4, "4"),
                ("cf", "a", 2, "2"),
                ("cf", "b", 4, "4"),
                ("cf", "b", 1, "1"),
            ],
        )];
        for can_hint in [false, true] {
            let f = Filter::Timestamps {
                timestamps: vec![2, 1],
                can_hint,
            };
            assert_eq!(scan_render(&f, &rows), ["r/cf:a@2=2", "r/cf:b@1=1"]);
        }
    }
}
