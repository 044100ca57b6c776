use bytes::Bytes;
use proptest::prelude::*;
use strata_model::cell::{Cell, CellType};
use strata_model::ops::TimeRange;
use strata_model::schema::KeepDeletedCells;
use strata_sstable::CellRef;

use super::{ReadSpec, Verdict, Visibility};

fn cell(row: &str, q: &str, ts: i64, t: CellType, seq: u64) -> Cell {
    Cell {
        row: Bytes::copy_from_slice(row.as_bytes()),
        family: Bytes::from_static(b"f"),
        qualifier: Bytes::copy_from_slice(q.as_bytes()),
        timestamp: ts,
        cell_type: t,
        seq,
        value: Bytes::from(format!("{row}/{q}/{ts}/{seq}")),
        ttl: None,
    }
}

fn put(row: &str, q: &str, ts: i64, seq: u64) -> Cell {
    cell(row, q, ts, CellType::Put, seq)
}

/// Runs the decision over `cells` (sorted here) and returns what is included.
fn visible(mut cells: Vec<Cell>, spec: ReadSpec) -> Vec<Cell> {
    cells.sort();
    let mut v = Visibility::new(spec);
    cells
        .into_iter()
        .filter(|c| v.decide(&CellRef::from_cell(c)) == Verdict::Include)
        .collect()
}

fn spec(versions: u32) -> ReadSpec {
    ReadSpec {
        max_versions: versions,
        ..ReadSpec::latest()
    }
}

#[test]
fn newest_versions_first_up_to_the_limit() {
    let cells = vec![
        put("r", "a", 1, 1),
        put("r", "a", 3, 3),
        put("r", "a", 2, 2),
        put("r", "b", 1, 4),
    ];
    let got = visible(cells.clone(), spec(2));
    assert_eq!(
        got,
        vec![
            put("r", "a", 3, 3),
            put("r", "a", 2, 2),
            put("r", "b", 1, 4)
        ]
    );
    assert_eq!(visible(cells, spec(1)).len(), 2);
}

#[test]
fn each_delete_kind_masks_what_it_covers() {
    let base = vec![
        put("r", "a", 1, 1),
        put("r", "a", 2, 2),
        put("r", "a", 3, 3),
        put("r", "b", 2, 4),
    ];
    let all = spec(10);
    let with = |m: Cell| {
        let mut c = base.clone();
        c.push(m);
        visible(c, all.clone())
    };
    // Delete: exactly one version of one column.
    let got = with(cell("r", "a", 2, CellType::Delete, 9));
    assert_eq!(
        got,
        vec![
            put("r", "a", 3, 3),
            put("r", "a", 1, 1),
            put("r", "b", 2, 4)
        ]
    );
    // DeleteColumn: every version at or before, one column.
    let got = with(cell("r", "a", 2, CellType::DeleteColumn, 9));
    assert_eq!(got, vec![put("r", "a", 3, 3), put("r", "b", 2, 4)]);
    // DeleteFamily: every column at or before.
    let got = with(cell("r", "", 2, CellType::DeleteFamily, 9));
    assert_eq!(got, vec![put("r", "a", 3, 3)]);
    // DeleteFamilyVersion: every column at exactly.
    let got = with(cell("r", "", 2, CellType::DeleteFamilyVersion, 9));
    assert_eq!(got, vec![put("r", "a", 3, 3), put("r", "a", 1, 1)]);
}

#[test]
fn markers_stay_within_their_row() {
    let cells = vec![
        cell("r1", "", 9, CellType::DeleteFamily, 5),
        put("r2", "a", 1, 1),
    ];
    assert_eq!(visible(cells, spec(1)), vec![put("r2", "a", 1, 1)]);
}

#[test]
fn a_rewrite_of_the_same_timestamp_hides_the_older_one() {
    let cells = vec![
        put("r", "a", 5, 1),
        put("r", "a", 5, 7),
        put("r", "a", 4, 2),
    ];
    assert_eq!(
        visible(cells, spec(2)),
        vec![put("r", "a", 5, 7), put("r", "a", 4, 2)]
    );
}

#[test]
fn the_read_point_hides_later_writes_and_their_deletes() {
    let cells = vec![
        put("r", "a", 5, 10),
        put("r", "a", 4, 2),
        cell("r", "a", 4, CellType::Delete, 11),
    ];
    let got = visible(
        cells,
        ReadSpec {
            read_point: 5,
            ..spec(5)
        },
    );
    assert_eq!(got, vec![put("r", "a", 4, 2)]);
}

#[test]
fn time_ranges_and_ttl_and_min_versions() {
    let cells: Vec<Cell> = (1..=5)
        .map(|ts| put("r", "a", ts * 10, ts as u64))
        .collect();
    let ranged = ReadSpec {
        time_range: TimeRange::new(20, 40).unwrap(),
        ..spec(10)
    };
    assert_eq!(
        visible(cells.clone(), ranged),
        vec![put("r", "a", 30, 3), put("r", "a", 20, 2)]
    );
    // Everything older than 35 expired.
    let ttl = ReadSpec {
        expired_before: 35,
        ..spec(10)
    };
    assert_eq!(
        visible(cells.clone(), ttl.clone()),
        vec![put("r", "a", 50, 5), put("r", "a", 40, 4)]
    );
    // MIN_VERSIONS keeps the newest versions even when expired.
    let all_expired = ReadSpec {
        expired_before: 1000,
        min_versions: 2,
        ..spec(10)
    };
    assert_eq!(
        visible(cells, all_expired),
        vec![put("r", "a", 50, 5), put("r", "a", 40, 4)]
    );
}

#[test]
fn keep_deleted_cells_lets_time_travel_see_before_the_delete() {
    let cells = vec![
        put("r", "a", 10, 1),
        cell("r", "a", 20, CellType::DeleteColumn, 2),
    ];
    let before = TimeRange::new(0, 15).unwrap();
    let plain = ReadSpec {
        time_range: before,
        ..spec(1)
    };
    assert!(visible(cells.clone(), plain.clone()).is_empty());
    let keep = ReadSpec {
        keep_deleted: KeepDeletedCells::True,
        ..plain
    };
    assert_eq!(
        visible(cells.clone(), keep.clone()),
        vec![put("r", "a", 10, 1)]
    );
    // A read whose range covers the delete still sees it applied.
    let now = ReadSpec {
        time_range: TimeRange::ALL,
        ..keep
    };
    assert!(visible(cells, now).is_empty());
}

/// An independent statement of the rules, column by column.
fn model(cells: &[Cell], spec: &ReadSpec) -> Vec<Cell> {
    let seen: Vec<&Cell> = cells.iter().filter(|c| c.seq <= spec.read_point).collect();
    let applies = |m: &Cell| {
        spec.keep_deleted == KeepDeletedCells::False || m.timestamp < spec.time_range.max
    };
    let mut out = Vec::new();
    let mut columns: Vec<(Bytes, Bytes)> = seen
        .iter()
        .map(|c| (c.row.clone(), c.qualifier.clone()))
        .collect();
    columns.sort();
    columns.dedup();
    for (row, q) in columns {
        let mut puts: Vec<&Cell> = seen
            .iter()
            .copied()
            .filter(|c| c.row == row && c.qualifier == q && c.cell_type == CellType::Put)
            .collect();
        puts.sort();
        puts.dedup_by(|later, first| later.timestamp == first.timestamp);
        let mut returned = 0;
        for p in puts {
            let masked = seen.iter().any(|m| {
                m.row == row
                    && applies(m)
                    && match m.cell_type {
                        CellType::DeleteFamily => p.timestamp <= m.timestamp,
                        CellType::DeleteFamilyVersion => p.timestamp == m.timestamp,
                        CellType::DeleteColumn => m.qualifier == q && p.timestamp <= m.timestamp,
                        CellType::Delete => m.qualifier == q && p.timestamp == m.timestamp,
                        CellType::Put => false,
                    }
            });
            let in_range = p.timestamp >= spec.time_range.min && p.timestamp < spec.time_range.max;
            let expired = p.timestamp < spec.expired_before && returned >= spec.min_versions;
            if !masked && in_range && !expired && returned < spec.max_versions {
                returned += 1;
                out.push(p.clone());
            }
        }
    }
    out
}

fn arb_cell() -> impl Strategy<Value = Cell> {
    (
        prop::sample::select(vec!["r1", "r2"]),
        prop::sample::select(vec!["", "a", "b"]),
        0i64..8,
        prop_oneof![
            5 => Just(CellType::Put),
            1 => Just(CellType::Delete),
            1 => Just(CellType::DeleteColumn),
            1 => Just(CellType::DeleteFamily),
            1 => Just(CellType::DeleteFamilyVersion),
        ],
        0u64..30,
    )
        .prop_map(|(r, q, ts, t, seq)| {
            let q = if t.is_family_delete() { "" } else { q };
            cell(r, q, ts, t, seq)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn matches_the_model(
        cells in prop::collection::vec(arb_cell(), 0..40),
        max_versions in 1u32..4,
        min_versions in 0u32..3,
        min in 0i64..4,
        len in 1i64..8,
        expired_before in prop_oneof![Just(i64::MIN), 0i64..8],
        keep in prop::sample::select(vec![KeepDeletedCells::False, KeepDeletedCells::True]),
        read_point in prop_oneof![Just(u64::MAX), 0u64..30],
    ) {
        let mut cells = cells;
        cells.sort();
        cells.dedup_by(|a, b| a.key() == b.key());
        let spec = ReadSpec {
            time_range: TimeRange::new(min, min + len).unwrap(),
            max_versions,
            versions_checked: None,
            raw: false,
            min_versions,
            expired_before,
            keep_deleted: keep,
            now: i64::MIN,
            read_point,
        };
        let mut want = model(&cells, &spec);
        want.sort();
        prop_assert_eq!(visible(cells, spec), want);
    }
}

#[test]
fn an_expired_cell_ttl_skips_the_cell_before_it_counts() {
    let with_ttl = |c: Cell, ttl| Cell {
        ttl: Some(ttl),
        ..c
    };
    let cells = vec![
        with_ttl(put("r", "a", 30, 3), 5),
        // The same timestamp, older: shows once the newer one expired (HBase's preCheck
        // skips the expired cell before the column tracker sees it).
        put("r", "a", 30, 2),
        put("r", "a", 10, 1),
        with_ttl(put("r", "b", 20, 4), 100),
    ];
    let at = |now| ReadSpec {
        now,
        min_versions: 1,
        ..spec(1)
    };
    // At 35 (= 30 + 5) nothing has expired.
    assert_eq!(
        visible(cells.clone(), at(35)),
        vec![cells[0].clone(), cells[3].clone()]
    );
    // At 36 the TTL cell is gone, MIN_VERSIONS notwithstanding; the duplicate shows.
    assert_eq!(
        visible(cells.clone(), at(36)),
        vec![cells[1].clone(), cells[3].clone()]
    );
    assert_eq!(visible(cells.clone(), at(121)), vec![cells[1].clone()]);
    // No `now`: nothing expires.
    assert_eq!(visible(cells.clone(), at(i64::MIN)).len(), 2);
}

#[test]
fn a_column_is_done_once_it_gave_its_versions_but_never_the_family_marker_column() {
    let mut v = Visibility::new(spec(2));
    let a1 = put("r", "a", 3, 1);
    let a2 = put("r", "a", 2, 2);
    assert_eq!(v.decide(&CellRef::from_cell(&a1)), Verdict::Include);
    assert!(!v.column_done(b"a"));
    assert_eq!(v.decide(&CellRef::from_cell(&a2)), Verdict::Include);
    assert!(v.column_done(b"a"));
    assert!(!v.column_done(b"b"), "another column is not done");

    // The empty qualifier's column also holds family markers that mask other columns.
    let mut v = Visibility::new(spec(1));
    assert_eq!(
        v.decide(&CellRef::from_cell(&put("r", "", 3, 1))),
        Verdict::Include
    );
    assert!(!v.column_done(b""));
}

fn raw(versions: u32) -> ReadSpec {
    ReadSpec {
        raw: true,
        ..spec(versions)
    }
}

/// HBase's `RawScanQueryMatcher` with `ScanWildcardColumnTracker`: markers come back and mask
/// nothing, do not count as versions, and the column ends at the first put past the limit.
#[test]
fn raw_reads_return_markers_and_count_puts_only() {
    let cells = vec![
        cell("r", "", 3, CellType::DeleteFamily, 9),
        put("r", "a", 3, 3),
        cell("r", "a", 2, CellType::Delete, 8),
        put("r", "a", 2, 2),
        cell("r", "a", 1, CellType::DeleteColumn, 7),
        put("r", "a", 1, 1),
    ];
    let mut sorted = cells.clone();
    sorted.sort();
    assert_eq!(visible(cells.clone(), raw(3)), sorted);
    assert_eq!(
        visible(cells.clone(), raw(1)),
        vec![
            cell("r", "", 3, CellType::DeleteFamily, 9),
            put("r", "a", 3, 3),
            cell("r", "a", 2, CellType::Delete, 8),
        ]
    );
    // Not raw: the family delete masks every put.
    assert!(visible(cells, spec(3)).is_empty());
}

/// HBase's `ScanWildcardColumnTracker`: a cell of the same timestamp and type as the one last
/// returned is a duplicate; the time range and TTL apply to markers too.
#[test]
fn raw_reads_skip_duplicates_and_apply_range_and_ttl_to_markers() {
    let cells = vec![
        cell("r", "a", 5, CellType::Delete, 9),
        cell("r", "a", 5, CellType::Delete, 8),
        put("r", "a", 5, 3),
        put("r", "a", 5, 2),
        cell("r", "a", 1, CellType::Delete, 7),
    ];
    assert_eq!(
        visible(cells.clone(), raw(5)),
        vec![
            cell("r", "a", 5, CellType::Delete, 9),
            put("r", "a", 5, 3),
            cell("r", "a", 1, CellType::Delete, 7),
        ]
    );
    let ranged = ReadSpec {
        time_range: TimeRange::new(0, 5).unwrap(),
        ..raw(5)
    };
    assert_eq!(
        visible(cells.clone(), ranged),
        vec![cell("r", "a", 1, CellType::Delete, 7)]
    );
    let ttl = ReadSpec {
        expired_before: 3,
        ..raw(5)
    };
    assert_eq!(
        visible(cells, ttl),
        vec![cell("r", "a", 5, CellType::Delete, 9), put("r", "a", 5, 3)]
    );
}

/// HBase's `UserScanQueryMatcher`: with a filter the column offers `versions_checked` puts,
/// and `admit` counts what the filter kept against `max_versions`.
#[test]
fn versions_checked_before_the_filter_and_admitted_after() {
    let spec = ReadSpec {
        versions_checked: Some(3),
        ..spec(1)
    };
    let cells: Vec<Cell> = (1..=4).map(|ts| put("r", "a", ts, ts as u64)).collect();
    let mut sorted = cells.clone();
    sorted.sort();
    let mut v = Visibility::new(spec);
    let offered: Vec<i64> = sorted
        .iter()
        .filter(|c| v.decide(&CellRef::from_cell(c)) == Verdict::Include)
        .map(|c| c.timestamp)
        .collect();
    assert_eq!(offered, [4, 3, 2]);
    let mut v = Visibility::new(ReadSpec {
        versions_checked: Some(3),
        ..super::ReadSpec::latest()
    });
    v.decide(&CellRef::from_cell(&sorted[0]));
    assert!(v.admit());
    assert!(!v.admit());
}
