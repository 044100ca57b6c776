//! Scan page blocks: round trips (each row a cell block identical to `encode_cell_block`'s),
//! results dropped or discarded while writing, cell views, malformed pages rejected.

use bytes::Bytes;
use proptest::prelude::*;
use strata_model::cell::{Cell, CellType};

use super::*;

fn write(rows: &[Vec<Cell>]) -> Bytes {
    let mut w = PageBlockWriter::new();
    for cells in rows {
        w.begin_result();
        for c in cells {
            w.cell(
                &c.row,
                &c.family,
                &c.qualifier,
                c.timestamp,
                c.cell_type,
                &c.value,
            );
        }
        w.end_result().unwrap();
    }
    w.finish()
}

fn read(page: &Bytes) -> Vec<Vec<Cell>> {
    page_rows(page)
        .unwrap()
        .iter()
        .map(|r| decode_cell_block(&r.block).unwrap())
        .collect()
}

fn sample() -> Vec<Vec<Cell>> {
    let mut first = vec![
        Cell::put("row1", "f", "a", 3, "x"),
        Cell::put("row1", "f", "b", i64::MIN, ""),
        Cell::put("row1", "g", "", i64::MAX, vec![0u8; 300]),
    ];
    first[1].cell_type = CellType::DeleteColumn;
    // A run of more than 127 cells: its count takes two bytes.
    let long: Vec<Cell> = (0..300)
        .map(|i| Cell::put("row2", "f", format!("q{i:03}"), i, "v"))
        .collect();
    let mut last = vec![Cell::put("", "", "", -1, "")];
    last[0].cell_type = CellType::DeleteFamily;
    vec![first, long, last]
}

#[test]
fn a_page_round_trips_with_each_row_a_cell_block() {
    let rows = sample();
    let page = write(&rows);
    assert_eq!(read(&page), rows);
    let split = page_rows(&page).unwrap();
    for (row, cells) in split.iter().zip(&rows) {
        assert_eq!(row.block, encode_cell_block(cells), "a v1 cell block");
        assert_eq!(row.row, cells[0].row);
        assert_eq!(row.cells, cells.len());
        let range = page.as_ptr() as usize..page.as_ptr() as usize + page.len();
        assert!(range.contains(&(row.block.as_ptr() as usize)), "no copy");
    }
    assert!(page_rows(&Bytes::new()).unwrap().is_empty());
    assert!(PageBlockWriter::new().finish().is_empty());
}

#[test]
fn discarded_and_empty_results_leave_nothing() {
    let rows = sample();
    let mut w = PageBlockWriter::new();
    w.begin_result();
    w.cell(b"gone", b"f", b"q", 1, CellType::Put, b"v");
    w.discard_result();
    w.begin_result();
    w.end_result().unwrap();
    // A result begun while another is open replaces it.
    w.begin_result();
    w.cell(b"gone", b"f", b"q", 1, CellType::Put, b"v");
    for cells in &rows {
        w.begin_result();
        for c in cells {
            w.cell(
                &c.row,
                &c.family,
                &c.qualifier,
                c.timestamp,
                c.cell_type,
                &c.value,
            );
        }
        w.end_result().unwrap();
    }
    // An open result is dropped by finish.
    w.begin_result();
    w.cell(b"open", b"f", b"q", 1, CellType::Put, b"v");
    assert_eq!(w.finish(), write(&rows));
}

#[test]
fn cell_views_match_decoded_cells() {
    let rows = sample();
    for cells in &rows {
        let block = encode_cell_block(cells);
        let views: Vec<CellView<'_>> = CellBlockIter::new(&block)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(views.len(), cells.len());
        for (v, c) in views.iter().zip(cells) {
            assert_eq!(
                (
                    v.row,
                    v.family,
                    v.qualifier,
                    v.timestamp,
                    v.cell_type,
                    v.value
                ),
                (
                    &c.row[..],
                    &c.family[..],
                    &c.qualifier[..],
                    c.timestamp,
                    c.cell_type,
                    &c.value[..]
                )
            );
        }
    }
    // The same errors as the decoder, and nothing after the first.
    let bad = [1, b'r', 1, b'f', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0];
    let mut walk = CellBlockIter::new(&bad);
    let e = walk.next().unwrap().unwrap_err();
    assert_eq!(
        e,
        decode_cell_block(&Bytes::copy_from_slice(&bad)).unwrap_err()
    );
    assert!(walk.next().is_none());
}

fn rejects(page: &[u8], why: &str) {
    match page_rows(&Bytes::copy_from_slice(page)) {
        Err(e) => assert!(e.0.contains(why), "{page:?}: {e} lacks {why:?}"),
        Ok(rows) => panic!("{page:?}: read {rows:?}"),
    }
}

#[test]
fn malformed_pages_are_rejected_with_the_offset() {
    let rows = sample();
    let good = write(&rows).to_vec();
    let boundaries: Vec<usize> = {
        let mut at = vec![0];
        for cells in &rows {
            at.push(at.last().unwrap() + 4 + encode_cell_block(cells).len());
        }
        at
    };
    // Every prefix that does not end between results is rejected.
    for n in 1..good.len() {
        let read = page_rows(&Bytes::copy_from_slice(&good[..n]));
        assert_eq!(read.is_ok(), boundaries.contains(&n), "{n}");
    }
    rejects(&[1, 0, 0], "truncated result length at byte 0");
    rejects(
        &[9, 0, 0, 0, 1],
        "result of 9 bytes at byte 0 runs past the page",
    );
    rejects(&[0, 0, 0, 0], "result at byte 0 has no cells");
    let mut bad_type = good[..boundaries[1]].to_vec();
    bad_type.extend_from_slice(&[16, 0, 0, 0, 1, b'r', 1, b'f', 1, 0]);
    bad_type.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 9, 0]);
    rejects(
        &bad_type,
        &format!(
            "page block: result at byte {}: cell block: unknown cell type 9 at byte 14",
            boundaries[1]
        ),
    );
    let mut trailing = good.clone();
    trailing.extend_from_slice(&[2, 0, 0, 0, 5, b'r']);
    rejects(&trailing, "row of 5 bytes runs past the block at byte 0");
}

fn arb_row() -> impl Strategy<Value = Vec<Cell>> {
    let small = || proptest::collection::vec(any::<u8>(), 0..3);
    (
        small(),
        proptest::collection::vec(
            (
                small(),
                small(),
                any::<i64>(),
                0..5usize,
                proptest::collection::vec(any::<u8>(), 0..50),
            ),
            1..10,
        ),
    )
        .prop_map(|(row, cells)| {
            cells
                .into_iter()
                .map(|(family, qualifier, ts, t, value)| {
                    let mut c = Cell::put(row.clone(), family, qualifier, ts, value);
                    c.cell_type = CellType::ALL[t];
                    c
                })
                .collect()
        })
}

proptest! {
    #[test]
    fn any_rows_round_trip(rows in proptest::collection::vec(arb_row(), 0..8)) {
        prop_assert_eq!(read(&write(&rows)), rows);
    }

    #[test]
    fn arbitrary_pages_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = page_rows(&Bytes::from(bytes));
    }
}
