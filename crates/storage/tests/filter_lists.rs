//! `FilterList` AND / OR: return-code merges, whole-row decisions, nesting.

mod filter_support;

/// Under `filter` so that `cargo test filter` selects these tests.
mod filter {
    use crate::filter_support::{
        b, bin, keys, plain_rows, row, scan, scan_counting, scan_render, scv,
    };
    use strata_model::ops::{ColumnRange, CompareOp, Filter, RowRange, MAX_FILTER_DEPTH};
    use strata_storage::read::filter::{FilterError, ReturnCode, RowFilter};

    use ReturnCode::{
        Include as I, IncludeAndNextCol as Inc, IncludeAndSeekNextRow as Inr, NextCol as Nc,
        NextRow as Nr, SeekNextUsingHint as Sh, Skip as S,
    };

    /// HBase 2.x `FilterListWithAND.mergeReturnCode(rc, localRC)`, transcribed case by case.
    fn hbase_and(rc: ReturnCode, local: ReturnCode) -> ReturnCode {
        if rc == Sh {
            return Sh;
        }
        match local {
            Sh => Sh,
            I => rc,
            Inc => match rc {
                I | Inc => Inc,
                Inr => Inr,
                S | Nc => Nc,
                Nr | Sh => Nr,
            },
            Inr => match rc {
                I | Inc | Inr => Inr,
                S | Nc | Nr | Sh => Nr,
            },
            S => match rc {
                I | S => S,
                Inc | Nc => Nc,
                Inr | Nr | Sh => Nr,
            },
            Nc => match rc {
                I | Inc | S | Nc => Nc,
                Inr | Nr | Sh => Nr,
            },
            Nr => Nr,
        }
    }

    /// HBase 2.x `FilterListWithOR.mergeReturnCode(rc, localRC)`, transcribed case by case.
    fn hbase_or(rc: ReturnCode, local: ReturnCode) -> ReturnCode {
        match local {
            I => I,
            Inc => match rc {
                I | S | Sh => I,
                Inc | Inr | Nc | Nr => Inc,
            },
            Inr => match rc {
                I | S | Sh => I,
                Inc | Nc => Inc,
                Inr | Nr => Inr,
            },
            S => match rc {
                I | Inc | Inr => I,
                S | Nc | Nr | Sh => S,
            },
            Nc => match rc {
                I => I,
                Nc | Nr => Nc,
                Inc | Inr => Inc,
                S | Sh => S,
            },
            Nr => match rc {
                I => I,
                Inc => Inc,
                Inr => Inr,
                S | Sh => S,
                Nc => Nc,
                Nr => Nr,
            },
            Sh => match rc {
                I | Inc | Inr => I,
                S | Nc | Nr => S,
                Sh => Sh,
            },
        }
    }

    #[test]
    fn merges_match_hbase_tables_in_both_orders() {
        for rc in ReturnCode::ALL {
            for local in ReturnCode::ALL {
                assert_eq!(rc.and(local), hbase_and(rc, local), "{rc:?} AND {local:?}");
                assert_eq!(local.and(rc), hbase_and(rc, local), "{local:?} AND {rc:?}");
                assert_eq!(rc.or(local), hbase_or(rc, local), "{rc:?} OR {local:?}");
                assert_eq!(local.or(rc), hbase_or(rc, local), "{local:?} OR {rc:?}");
            }
        }
        // The cases that matter most: OR never loses an included cell, AND never keeps an
        // excluded one, and the farther (AND) / nearer (OR) skip wins.
        assert_eq!(Nr.or(Inc), Inc);
        assert_eq!(S.or(Inc), I);
        assert_eq!(Nc.or(Nr), Nc);
        assert_eq!(S.and(Inc), Nc);
        assert_eq!(Nr.and(I), Nr);
        assert_eq!(Inr.and(Nc), Nr);
    }

    #[test]
    fn or_does_not_skip_a_cell_another_member_includes() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "a", 1, "1"),
                ("cf", "b", 1, "2"),
                ("cf", "c", 2, "x"),
                ("cf", "c", 1, "y"),
                ("cf", "d", 1, "x"),
            ],
        )];
        let upto_b = Filter::ColumnRange(ColumnRange {
            max: Some(b("b")),
            max_inclusive: true,
            ..ColumnRange::default()
        });
        let f = Filter::any(vec![upto_b, Filter::Value(CompareOp::Equal, bin("x"))]);
        assert_eq!(
            scan_render(&f, &rows),
            ["r/cf:a@1=1", "r/cf:b@1=2", "r/cf:c@2=x", "r/cf:d@1=x"]
        );
    }

    #[test]
    fn or_stops_asking_a_member_that_skipped_the_column() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "q", 3, "y"),
                ("cf", "q", 2, "x"),
                ("cf", "q", 1, "z"),
            ],
        )];
        // Timestamps answers NextCol at @2 (older than every listed timestamp); Value still
        // includes @2, and alone decides @1.
        let f = Filter::any(vec![
            Filter::Timestamps {
                timestamps: vec![3],
                can_hint: false,
            },
            Filter::Value(CompareOp::Equal, bin("x")),
        ]);
        assert_eq!(scan_render(&f, &rows), ["r/cf:q@3=y", "r/cf:q@2=x"]);
    }

    #[test]
    fn and_takes_the_farther_skip_within_a_family() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "a", 1, "x"),
                ("cf", "b", 1, "x"),
                ("cf", "b2", 1, "y"),
                ("cf", "c", 1, "x"),
                ("cf2", "b", 1, "x"),
            ],
        )];
        let f = Filter::all(vec![
            Filter::ColumnPrefix(b("b")),
            Filter::Value(CompareOp::Equal, bin("x")),
        ]);
        assert_eq!(scan_render(&f, &rows), ["r/cf:b@1=x", "r/cf2:b@1=x"]);
    }

    #[test]
    fn and_hides_excluded_cells_from_later_members() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "a", 1, "y"),
                ("cf", "b", 1, "x"),
                ("cf", "c", 1, "x"),
            ],
        )];
        let value_x = || Filter::Value(CompareOp::Equal, bin("x"));
        // HBASE-20565: FirstKeyOnly only sees cells the value filter passed.
        let f = Filter::all(vec![value_x(), Filter::FirstKeyOnly]);
        assert_eq!(scan_render(&f, &rows), ["r/cf:b@1=x"]);
        let f = Filter::all(vec![Filter::FirstKeyOnly, value_x()]);
        assert!(scan(Some(&f), &rows, false).is_empty());
    }

    #[test]
    fn or_with_a_whole_row_condition() {
        let rows = vec![
            row("r1", &[("cf", "name", 1, "a"), ("cf", "state", 1, "ok")]),
            row("r2", &[("cf", "name", 1, "b"), ("cf", "state", 1, "bad")]),
            row("r3", &[("cf", "name", 1, "c")]),
            row("r4", &[("cf", "state", 2, "bad"), ("cf", "state", 1, "ok")]),
        ];
        let mut cond = scv("cf", "state", CompareOp::Equal, "ok");
        cond.filter_if_missing = true;
        let f = Filter::any(vec![
            Filter::SingleColumnValue(cond.clone()),
            Filter::Prefix(b("r3")),
        ]);
        assert_eq!(keys(&scan(Some(&f), &rows, false)), ["r1", "r3"]);
        let f = Filter::all(vec![
            Filter::SingleColumnValue(cond),
            Filter::Prefix(b("r1")),
        ]);
        assert_eq!(keys(&scan(Some(&f), &rows, false)), ["r1"]);
    }

    #[test]
    fn lists_are_done_when_all_or_any_member_is() {
        let rows = plain_rows(&["a1", "a2", "b1", "c1", "d1"]);
        let or = Filter::any(vec![
            Filter::Prefix(b("a")),
            Filter::Row(CompareOp::Equal, bin("c1")),
        ]);
        let (out, looked) = scan_counting(Some(&or), &rows, false);
        assert_eq!(
            (keys(&out), looked),
            (vec!["a1".into(), "a2".into(), "c1".into()], 5)
        );
        let or = Filter::any(vec![Filter::Prefix(b("a")), Filter::Prefix(b("b"))]);
        let (out, looked) = scan_counting(Some(&or), &rows, false);
        assert_eq!(
            (keys(&out), looked),
            (vec!["a1".into(), "a2".into(), "b1".into()], 4)
        );
        let and = Filter::all(vec![
            Filter::Prefix(b("b")),
            Filter::Value(CompareOp::NotEqual, bin("zz")),
        ]);
        let (out, looked) = scan_counting(Some(&and), &rows, false);
        assert_eq!((keys(&out), looked), (vec!["b1".into()], 4));
    }

    #[test]
    fn row_ranges_or_values() {
        let mut rows = plain_rows(&["a", "b1", "b2", "c"]);
        rows.push(row("d", &[("cf", "q", 1, "special")]));
        let f = Filter::any(vec![
            Filter::MultiRowRange(vec![RowRange {
                start: b("b1"),
                start_inclusive: true,
                stop: b("b2"),
                stop_inclusive: true,
            }]),
            Filter::Value(CompareOp::Equal, bin("special")),
        ]);
        assert_eq!(keys(&scan(Some(&f), &rows, false)), ["b1", "b2", "d"]);
    }

    #[test]
    fn nested_lists() {
        let rows = vec![row(
            "r",
            &[
                ("cf", "a", 2, "x"),
                ("cf", "a", 1, "y"),
                ("cf", "b", 1, "z"),
                ("cf", "c", 1, "w"),
            ],
        )];
        let f = Filter::all(vec![
            Filter::any(vec![
                Filter::Qualifier(CompareOp::Equal, bin("a")),
                Filter::Qualifier(CompareOp::Equal, bin("b")),
            ]),
            Filter::Value(CompareOp::NotEqual, bin("x")),
        ]);
        assert_eq!(scan_render(&f, &rows), ["r/cf:a@1=y", "r/cf:b@1=z"]);
    }

    #[test]
    fn empty_lists_pass_everything() {
        let rows = plain_rows(&["a", "b"]);
        for f in [
            Filter::all(vec![]),
            Filter::any(vec![]),
            Filter::all(vec![Filter::any(vec![])]),
        ] {
            assert_eq!(scan(Some(&f), &rows, false), rows, "{f:?}");
        }
    }

    #[test]
    fn nesting_is_capped() {
        let nest = |depth: usize| {
            let mut f = Filter::FirstKeyOnly;
            for _ in 0..depth {
                f = Filter::all(vec![f]);
            }
            f
        };
        assert!(RowFilter::new(Some(&nest(MAX_FILTER_DEPTH)), false).is_ok());
        let err = RowFilter::new(Some(&nest(MAX_FILTER_DEPTH + 1)), false).unwrap_err();
        assert_eq!(err, FilterError::TooDeep(MAX_FILTER_DEPTH));
    }

    #[test]
    fn only_members_that_included_a_cell_transform_it() {
        let rows = vec![row(
            "r",
            &[("cf", "a", 1, "hello"), ("cf", "b", 1, "world")],
        )];
        let f = Filter::any(vec![
            Filter::all(vec![
                Filter::Qualifier(CompareOp::Equal, bin("a")),
                Filter::KeyOnly {
                    len_as_value: false,
                },
            ]),
            Filter::Qualifier(CompareOp::Equal, bin("b")),
        ]);
        assert_eq!(scan_render(&f, &rows), ["r/cf:a@1=", "r/cf:b@1=world"]);
        // Values are judged before KeyOnly rewrites them.
        let f = Filter::all(vec![
            Filter::KeyOnly { len_as_value: true },
            Filter::Value(CompareOp::Equal, bin("hello")),
        ]);
        let out = scan(Some(&f), &rows, false);
        assert_eq!(out[0].len(), 1);
        assert_eq!(out[0][0].value.as_ref(), [0, 0, 0, 5]);
    }

    #[test]
    fn or_of_pages_counts_per_member_like_hbase() {
        // HBase's OR asks members' filterRow in order and stops at the first that keeps the row,
        // so the second Page only counts rows the first refused: OR(Page(1), Page(1)) yields two.
        let rows = plain_rows(&["a", "b", "c"]);
        let f = Filter::any(vec![Filter::Page(1), Filter::Page(1)]);
        assert_eq!(keys(&scan(Some(&f), &rows, false)), ["a", "b"]);
    }
}
