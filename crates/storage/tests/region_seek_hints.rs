//! Filters that seek (HBase's `SEEK_NEXT_USING_HINT`) through a region's scan: the same
//! cells as the filter applied to a plain scan's rows, with fewer cells read.
#![allow(clippy::unwrap_used)]

mod filter_support;
mod region_support;

use bytes::Bytes;
use proptest::prelude::*;
use region_support::*;
use strata_model::cell::Cell;
use strata_model::ops::{
    ColumnPagination, ColumnRange, Delete, Filter, FuzzyKey, Get, RowRange, Scan,
};
use strata_storage::Region;

/// Every row of `scan` and the cells the scan read.
fn scan_all(r: &Region, scan: &Scan) -> (Vec<Vec<Cell>>, u64) {
    let mut sc = r.scan(scan).unwrap();
    let mut out = Vec::new();
    while let Some(cells) = sc.next_row().unwrap() {
        out.push(cells);
    }
    (out, sc.cells_examined())
}

fn filtered(filter: Filter, reversed: bool) -> Scan {
    Scan {
        filter: Some(filter),
        reversed,
        max_versions: 3,
        ..Scan::new()
    }
}

/// The filter evaluated over a plain scan's rows (no seeks), as the reference.
fn reference(r: &Region, filter: &Filter, reversed: bool) -> Vec<Vec<Cell>> {
    let (plain, _) = scan_all(
        r,
        &Scan {
            max_versions: 3,
            ..Scan::new()
        },
    );
    filter_support::scan(Some(filter), &plain, reversed)
}

fn rendered(rows: &[Vec<Cell>]) -> Vec<String> {
    filter_support::render(rows)
}

fn fuzzy(p: &[u8]) -> FuzzyKey {
    FuzzyKey::with_wildcard(p, b'?')
}

/// Rows `k0000`..`k{n}` with `f:c0`..`f:c{cols}` each.
fn grid(r: &Region, rows: usize, cols: usize) {
    for i in 0..rows {
        for c in 0..cols {
            put(r, &format!("k{i:04}"), "f", &format!("c{c:02}"), 1, "v");
        }
    }
}

#[test]
fn fuzzy_rows_seek_from_candidate_to_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    grid(&r, 2000, 2);
    r.flush().unwrap();
    let f = Filter::FuzzyRow(vec![fuzzy(b"k??17")]);
    let (out, read) = scan_all(&r, &filtered(f.clone(), false));
    assert_eq!(rendered(&out), rendered(&reference(&r, &f, false)));
    assert_eq!(out.len(), 20, "k0017, k0117, ... k1917");
    // Per match: its 2 cells, the first cell of the row after it, and of the first row of
    // the next candidate prefix (`k01` after `k0018`: `k0100`), before seeking to `k0117`;
    // a plain scan reads all 4000.
    assert!(read <= 100, "{read} cells read for 40 returned");
    let (back, _) = scan_all(&r, &filtered(f.clone(), true));
    assert_eq!(rendered(&back), rendered(&reference(&r, &f, true)));
}

#[test]
fn column_pagination_by_qualifier_seeks_to_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f", "g"]));
    let r = env.open();
    grid(&r, 50, 40);
    for i in 0..50 {
        put(&r, &format!("k{i:04}"), "g", "c30", 1, "g");
    }
    r.flush().unwrap();
    let f = Filter::ColumnPagination(ColumnPagination {
        limit: 2,
        offset: 0,
        column_offset: Some(Bytes::from_static(b"c30")),
    });
    let (out, read) = scan_all(&r, &filtered(f.clone(), false));
    assert_eq!(rendered(&out), rendered(&reference(&r, &f, false)));
    assert_eq!(out[0].len(), 2);
    // Per row: `c00` (hint to `c30`), `c30`, `c31`, `c32` (the page is full: next row), and
    // `g:c30` (next row); a plain scan reads 41 a row.
    assert!(read <= 50 * 5, "{read} cells read for 100 returned");
    // By count: one cell read per skipped column (NEXT_COL), none after the page.
    let by_count = Filter::ColumnPagination(ColumnPagination {
        limit: 2,
        offset: 5,
        column_offset: None,
    });
    let (out, read) = scan_all(&r, &filtered(by_count.clone(), false));
    assert_eq!(rendered(&out), rendered(&reference(&r, &by_count, false)));
    assert!(read <= 50 * 9, "{read} cells read for 100 returned");
}

#[test]
fn row_ranges_seek_to_the_next_range() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    grid(&r, 3000, 1);
    r.flush().unwrap();
    let range = |a: &str, z: &str| RowRange {
        start: Bytes::copy_from_slice(a.as_bytes()),
        start_inclusive: true,
        stop: Bytes::copy_from_slice(z.as_bytes()),
        stop_inclusive: false,
    };
    let f = Filter::MultiRowRange(vec![range("k1000", "k1003"), range("k2500", "k2502")]);
    let (out, read) = scan_all(&r, &filtered(f.clone(), false));
    assert_eq!(rendered(&out), rendered(&reference(&r, &f, false)));
    assert_eq!(out.len(), 5);
    assert!(read < 20, "{read} cells read for 5 returned");
}

#[test]
fn version_hints_keep_delete_markers() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    for ts in 1..=3 {
        put(&r, "r", "f", "a", ts, &format!("a{ts}"));
        put(&r, "r", "f", "b", ts, &format!("b{ts}"));
    }
    r.delete(&Delete::new("r").column_upto("f", "a", 2))
        .unwrap();
    for can_hint in [false, true] {
        let f = Filter::Timestamps {
            timestamps: vec![1],
            can_hint,
        };
        let (out, _) = scan_all(&r, &filtered(f, false));
        assert_eq!(rendered(&out), ["r/f:b@1=b1"], "can_hint {can_hint}");
    }
}

/// Filters that seek, alone and in lists.
fn hinting() -> impl Strategy<Value = Filter> {
    let q = prop::sample::select(vec!["", "a", "b", "bb", "c", "d"]);
    let key = || prop::sample::select(vec!["", "a", "b", "b1", "c", "c2", "d"]);
    let leaf = prop_oneof![
        prop::collection::vec("[abc?]{1,3}", 0..3)
            .prop_map(|ps| Filter::FuzzyRow(ps.iter().map(|p| fuzzy(p.as_bytes())).collect())),
        (0u32..3, 0u32..3, prop::option::of(q.clone())).prop_map(|(limit, offset, at)| {
            Filter::ColumnPagination(ColumnPagination {
                limit,
                offset,
                column_offset: at.map(|s| Bytes::copy_from_slice(s.as_bytes())),
            })
        }),
        q.clone()
            .prop_map(|p| Filter::ColumnPrefix(Bytes::copy_from_slice(p.as_bytes()))),
        prop::collection::vec(q.clone(), 0..3).prop_map(|ps| Filter::MultipleColumnPrefix(
            ps.iter()
                .map(|p| Bytes::copy_from_slice(p.as_bytes()))
                .collect()
        )),
        (q.clone(), any::<bool>()).prop_map(|(min, min_inclusive)| Filter::ColumnRange(
            ColumnRange {
                min: (!min.is_empty()).then(|| Bytes::copy_from_slice(min.as_bytes())),
                min_inclusive,
                max: None,
                max_inclusive: false,
            }
        )),
        prop::collection::vec(1i64..4, 0..3).prop_map(|timestamps| Filter::Timestamps {
            timestamps,
            can_hint: true
        }),
        prop::collection::vec((key(), key()), 0..3).prop_map(|rs| Filter::MultiRowRange(
            rs.into_iter()
                .map(|(a, z)| {
                    let (a, z) = if !a.is_empty() && !z.is_empty() && a > z {
                        (z, a)
                    } else {
                        (a, z)
                    };
                    RowRange {
                        start: Bytes::copy_from_slice(a.as_bytes()),
                        start_inclusive: true,
                        stop: Bytes::copy_from_slice(z.as_bytes()),
                        stop_inclusive: false,
                    }
                })
                .collect()
        )),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Filter::all),
            prop::collection::vec(inner, 0..3).prop_map(Filter::any),
        ]
    })
}

/// Cells `(row, family, qualifier, ts)`; some go to a file, the rest stay in the memtable.
fn contents() -> impl Strategy<Value = Vec<(String, &'static str, &'static str, i64, bool)>> {
    prop::collection::vec(
        (
            "[abc]{1,3}",
            prop::sample::select(vec!["f", "g"]),
            prop::sample::select(vec!["", "a", "ab", "b", "bb", "c", "d"]),
            1i64..4,
            any::<bool>(),
        ),
        0..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn seeking_returns_what_the_filter_returns_over_a_plain_scan(
        cells in contents(),
        filter in hinting(),
        reversed in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let env = Env::new(dir.path(), table(&["f", "g"]));
        let r = env.open();
        let (flushed, live): (Vec<_>, Vec<_>) = cells.iter().partition(|c| c.4);
        for (row, f, q, ts, _) in &flushed {
            put(&r, row, f, q, *ts, &format!("{row}{q}{ts}"));
        }
        r.flush().unwrap();
        for (row, f, q, ts, _) in &live {
            put(&r, row, f, q, *ts, &format!("{row}{q}{ts}"));
        }
        let (out, _) = scan_all(&r, &filtered(filter.clone(), reversed));
        prop_assert_eq!(rendered(&out), rendered(&reference(&r, &filter, reversed)));
        // A get of each row: the same filter over that row alone.
        let (plain, _) = scan_all(&r, &Scan { max_versions: 3, ..Scan::new() });
        for row in plain {
            let mut get = Get::new(row[0].row.clone()).with_filter(filter.clone());
            get.max_versions = 3;
            let got = r.get(&get).unwrap();
            let want = filter_support::scan(Some(&filter), &[row], false);
            prop_assert_eq!(
                filter_support::render(&[got]).join(" "),
                rendered(&want).join(" ")
            );
        }
    }
}
