//! Cell blocks: round trips, the old per-cell form still read, malformed blocks rejected.

use bytes::Bytes;
use proptest::prelude::*;
use strata_model::cell::{Cell, CellType};

use super::*;
use crate::pb;

fn sample() -> Vec<Cell> {
    let mut cells = vec![
        Cell::put("row1", "f", "a", 3, "x"),
        Cell::put("row1", "f", "b", i64::MIN, ""),
        Cell::put("row1", "g", "", i64::MAX, vec![0u8; 300]),
        Cell::put("row2", "g", "q", -1, "y"),
    ];
    cells[1].cell_type = CellType::DeleteColumn;
    cells
}

#[test]
fn a_block_round_trips_and_writes_row_and_family_once_per_run() {
    let cells = sample();
    let block = encode_cell_block(&cells);
    assert_eq!(decode_cell_block(&block).unwrap(), cells);
    let row1 = block.windows(4).filter(|w| w == b"row1").count();
    assert_eq!(row1, 2, "row1 starts two runs (families f and g)");
    assert!(decode_cell_block(&Bytes::new()).unwrap().is_empty());
    for t in CellType::ALL {
        let mut c = Cell::put("r", "f", "q", 0, "v");
        c.cell_type = t;
        assert_eq!(
            decode_cell_block(&encode_cell_block(&[c.clone()])).unwrap(),
            [c]
        );
    }
}

#[test]
fn results_are_read_in_either_form() {
    let cells = sample();
    let old = result_to_pb_as(&cells, false);
    assert!(old.cell_block.is_empty() && old.cells.len() == cells.len());
    assert_eq!(result_from_pb(old.clone()).unwrap(), cells);
    let new = result_to_pb_as(&cells, true);
    assert!(new.cells.is_empty() && !new.cell_block.is_empty());
    assert_eq!(result_from_pb(new.clone()).unwrap(), cells);
    let both = pb::Result {
        cells: old.cells,
        cell_block: new.cell_block,
    };
    let e = result_from_pb(both).unwrap_err();
    assert!(e.0.contains("both"), "{e}");
}

#[test]
fn decoded_cells_share_the_block() {
    let block = encode_cell_block(&[Cell::put("r", "f", "q", 1, vec![7u8; 64])]);
    let cells = decode_cell_block(&block).unwrap();
    let range = block.as_ptr() as usize..block.as_ptr() as usize + block.len();
    assert!(
        range.contains(&(cells[0].value.as_ptr() as usize)),
        "no copy"
    );
}

fn rejects(block: &[u8], why: &str) {
    match decode_cell_block(&Bytes::copy_from_slice(block)) {
        Err(e) => assert!(e.0.contains(why), "{block:?}: {e} lacks {why:?}"),
        Ok(cells) => panic!("{block:?}: decoded {cells:?}"),
    }
}

#[test]
fn malformed_blocks_are_rejected_with_the_offset() {
    let good = encode_cell_block(&[Cell::put("r", "f", "q", 1, "v")]).to_vec();
    // Every strict prefix is truncated somewhere.
    for n in 1..good.len() {
        assert!(
            decode_cell_block(&Bytes::copy_from_slice(&good[..n])).is_err(),
            "{n}"
        );
    }
    rejects(&[5, b'r'], "row of 5 bytes runs past the block at byte 0");
    rejects(&[1, b'r', 1, b'f', 0], "a run of zero cells at byte 4");
    rejects(&[1, b'r', 1, b'f', 200, 1], "cells cannot fit");
    rejects(
        &[1, b'r', 1, b'f', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0],
        "unknown cell type 9",
    );
    rejects(
        &[1, b'r', 1, b'f', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        "1 cells cannot fit",
    );
    let mut value_missing = vec![1, b'r', 1, b'f', 1, 1, b'q'];
    value_missing.extend_from_slice(&[0; 9]);
    rejects(&value_missing, "truncated value length at byte 16");
    let mut short_timestamp = vec![1, b'r', 1, b'f', 1, 8];
    short_timestamp.extend_from_slice(&[b'q'; 8]);
    short_timestamp.extend_from_slice(&[0; 3]);
    rejects(&short_timestamp, "truncated timestamp at byte 14");
    rejects(&[0x80; 11], "overflows 64 bits");
    rejects(
        &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
        "runs past",
    );
    let mut trailing = good.clone();
    trailing.push(3);
    rejects(&trailing, "row of 3 bytes runs past the block at byte 18");
}

fn arb_cell() -> impl Strategy<Value = Cell> {
    let small = || proptest::collection::vec(any::<u8>(), 0..3);
    (
        small(),
        small(),
        small(),
        any::<i64>(),
        0..5usize,
        proptest::collection::vec(any::<u8>(), 0..200),
    )
        .prop_map(|(row, family, qualifier, ts, t, value)| {
            let mut c = Cell::put(row, family, qualifier, ts, value);
            c.cell_type = CellType::ALL[t];
            c
        })
}

proptest! {
    #[test]
    fn any_cells_round_trip(cells in proptest::collection::vec(arb_cell(), 0..20)) {
        prop_assert_eq!(decode_cell_block(&encode_cell_block(&cells)).unwrap(), cells);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = decode_cell_block(&Bytes::from(bytes));
    }
}
