//! Tests every data-block encoding the same way: random sorted cells round-trip through the
//! encoder and decoder, seeks agree with a linear search, and malformed blocks never panic.

use bytes::Bytes;
use proptest::prelude::*;
use proptest::sample::Index;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::cell::{compare_keys, Cell, CellKey, CellType};
use strata_model::limits::{MAX_QUALIFIER_LEN, MAX_ROW_LEN};
use strata_model::schema::DataBlockEncoding;

use super::{decoder, encoder, DecodeError, Encoder};
use crate::cell_ref::CellRef;

// ---- Strategies ----

/// A prefix from `prefixes` plus a short tail over a tiny alphabet, so neighbours share
/// prefixes; now and then an arbitrary long string.
fn prefixed_bytes(prefixes: &'static [&'static [u8]], long: usize) -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        8 => (
            prop::sample::select(prefixes),
            prop::collection::vec(prop::sample::select(&[0u8, b'a', b'b', 0xff][..]), 0..4),
        )
            .prop_map(|(prefix, tail)| [prefix, &tail].concat()),
        1 => prop::collection::vec(any::<u8>(), 0..long),
    ]
    .boxed()
}

fn arb_row() -> BoxedStrategy<Vec<u8>> {
    prefixed_bytes(&[b"", b"r", b"row-", b"row-0000", b"\xff\xfe"], 300)
}

fn arb_qualifier() -> BoxedStrategy<Vec<u8>> {
    prefixed_bytes(&[b"", b"q", b"V", b"_0", b"column-"], 200)
}

fn arb_timestamp() -> BoxedStrategy<i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0i64),
        -3i64..3,
        1_455_700_000_000i64..1_455_700_000_100,
        any::<i64>(),
    ]
    .boxed()
}

fn arb_type() -> BoxedStrategy<CellType> {
    prop::sample::select(&CellType::ALL[..]).boxed()
}

fn arb_seq() -> BoxedStrategy<u64> {
    prop_oneof![4 => Just(0u64), 1 => 1u64..300, 1 => any::<u64>(), 1 => Just(u64::MAX)].boxed()
}

const COMMON_VALUES: &[&[u8]] = &[b"", b"x", b"abcd"];

fn arb_value() -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        3 => prop::sample::select(COMMON_VALUES).prop_map(<[u8]>::to_vec),
        3 => prop::collection::vec(any::<u8>(), 0..16),
        1 => prop::collection::vec(any::<u8>(), 0..5000),
    ]
    .boxed()
}

fn arb_key() -> impl Strategy<Value = CellKey> {
    (
        arb_row(),
        arb_qualifier(),
        arb_timestamp(),
        arb_type(),
        arb_seq(),
    )
        .prop_map(|(row, qualifier, timestamp, cell_type, seq)| CellKey {
            row: row.into(),
            qualifier: qualifier.into(),
            timestamp,
            cell_type,
            seq,
        })
}

/// A put's own TTL (type code 6 on disk) one time in four; never on delete markers.
fn arb_ttl() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![3 => Just(None), 1 => prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()].prop_map(Some)]
}

fn arb_cell() -> impl Strategy<Value = Cell> {
    (arb_key(), arb_value(), arb_ttl()).prop_map(|(key, value, ttl)| Cell {
        row: key.row,
        family: Bytes::new(),
        qualifier: key.qualifier,
        timestamp: key.timestamp,
        ttl: ttl.filter(|_| key.cell_type == CellType::Put),
        cell_type: key.cell_type,
        seq: key.seq,
        value: value.into(),
    })
}

/// Cells in store order (equal keys allowed).
fn arb_sorted_cells(max: usize) -> impl Strategy<Value = Vec<Cell>> {
    prop::collection::vec(arb_cell(), 0..max).prop_map(|mut cells| {
        cells.sort_by(|a, b| compare_keys(a.key_parts(), b.key_parts()));
        cells
    })
}

// ---- Helpers ----

/// Encodes `cells` as one block with `enc`, checking the encoder's bookkeeping.
fn encode_with(enc: &mut dyn Encoder, cells: &[Cell]) -> Vec<u8> {
    for cell in cells {
        enc.add(&CellRef::from_cell(cell));
    }
    assert_eq!(enc.cell_count(), cells.len());
    let expected_len = enc.encoded_len();
    let mut out = vec![0xAA]; // finish_into appends
    enc.finish_into(&mut out);
    assert_eq!(
        out.len() - 1,
        expected_len,
        "encoded_len disagrees with finish_into"
    );
    assert_eq!(enc.cell_count(), 0);
    out.split_off(1)
}

fn encode(encoding: DataBlockEncoding, cells: &[Cell]) -> Vec<u8> {
    encode_with(encoder(encoding).as_mut(), cells)
}

fn decode_all(encoding: DataBlockEncoding, block: Vec<u8>) -> Result<Vec<Cell>, DecodeError> {
    let mut dec = decoder(encoding, Bytes::from(block))?;
    let mut cells = Vec::new();
    while dec.advance()? {
        cells.push(dec.current().to_cell(&Bytes::new()));
    }
    assert!(!dec.advance()?, "advance past the end stays past the end");
    Ok(cells)
}

/// Index of the first cell ≥ `key`, by linear search.
fn first_at_or_after(cells: &[Cell], key: &CellKey) -> usize {
    cells
        .iter()
        .position(|c| compare_keys(c.key_parts(), key.parts()).is_ge())
        .unwrap_or(cells.len())
}

/// Drives a decoder over possibly malformed `block` every way a reader would; it may return
/// errors or cells, but must not panic or loop.
fn exercise(encoding: DataBlockEncoding, block: &[u8], keys: &[CellKey]) {
    let Ok(mut dec) = decoder(encoding, Bytes::copy_from_slice(block)) else {
        return;
    };
    for _ in 0..2 {
        let mut n = 0;
        while let Ok(true) = dec.advance() {
            let cell = dec.current();
            std::hint::black_box((cell.row, cell.qualifier, cell.value));
            n += 1;
            assert!(n <= block.len(), "every cell takes at least one byte");
        }
        let _ = dec.advance();
        dec.reset();
    }
    for key in keys {
        if let Ok(true) = dec.seek(key) {
            std::hint::black_box(dec.current());
            let _ = dec.advance();
        }
    }
}

fn probe_keys() -> Vec<CellKey> {
    vec![
        CellKey::first_on_row(Bytes::new()),
        CellKey::first_on_row(Bytes::from_static(b"row-")),
        CellKey::first_on_column(Bytes::from_static(b"r"), Bytes::from_static(b"q")),
        CellKey::first_on_row(Bytes::from_static(b"\xff\xff\xff")),
    ]
}

// ---- Properties ----

proptest! {
    #[test]
    fn round_trips(cells in arb_sorted_cells(80)) {
        for encoding in DataBlockEncoding::ALL {
            let mut enc = encoder(encoding);
            let block = encode_with(enc.as_mut(), &cells);
            // A finished encoder starts the next block from scratch.
            prop_assert_eq!(&encode_with(enc.as_mut(), &cells), &block, "{:?}", encoding);
            let decoded = decode_all(encoding, block);
            prop_assert_eq!(decoded.as_ref(), Ok(&cells), "{:?}", encoding);
        }
    }

    #[test]
    fn seeks_find_the_first_cell_at_or_after_the_key(
        cells in arb_sorted_cells(60),
        random_keys in prop::collection::vec(arb_key(), 0..8),
        picks in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let mut keys = random_keys;
        if !cells.is_empty() {
            for pick in &picks {
                let cell = pick.get(&cells);
                keys.push(cell.key());
                keys.push(CellKey::first_on_row(cell.row.clone()));
                keys.push(CellKey::first_on_column(cell.row.clone(), cell.qualifier.clone()));
            }
        }
        keys.extend(probe_keys());
        for encoding in DataBlockEncoding::ALL {
            let block = encode(encoding, &cells);
            let mut dec = decoder(encoding, Bytes::from(block)).map_err(|e| {
                TestCaseError::fail(format!("{encoding:?}: {e:?}"))
            })?;
            // Seeks in arbitrary order, some forward and some backward from the last one.
            for key in &keys {
                let want = first_at_or_after(&cells, key);
                let found = dec.seek(key);
                prop_assert_eq!(&found, &Ok(want < cells.len()), "{:?} seek {:?}", encoding, key);
                if want < cells.len() {
                    prop_assert_eq!(dec.current().to_cell(&Bytes::new()), cells[want].clone());
                    // The cursor carries on from the sought cell.
                    let next = dec.advance();
                    prop_assert_eq!(&next, &Ok(want + 1 < cells.len()), "{:?}", encoding);
                    if want + 1 < cells.len() {
                        prop_assert_eq!(
                            dec.current().to_cell(&Bytes::new()),
                            cells[want + 1].clone()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn reset_restarts_the_block(cells in arb_sorted_cells(30), skip in 0usize..40) {
        for encoding in DataBlockEncoding::ALL {
            let mut dec = decoder(encoding, Bytes::from(encode(encoding, &cells)))
                .map_err(|e| TestCaseError::fail(format!("{encoding:?}: {e:?}")))?;
            for _ in 0..skip {
                if !dec.advance().map_err(|e| TestCaseError::fail(format!("{e:?}")))? {
                    break;
                }
            }
            dec.reset();
            for cell in &cells {
                prop_assert_eq!(dec.advance(), Ok(true));
                prop_assert_eq!(&dec.current().to_cell(&Bytes::new()), cell);
            }
            prop_assert_eq!(dec.advance(), Ok(false));
        }
    }

    #[test]
    fn random_bytes_never_panic(block in prop::collection::vec(any::<u8>(), 0..300)) {
        for encoding in DataBlockEncoding::ALL {
            exercise(encoding, &block, &probe_keys());
        }
    }

    #[test]
    fn damaged_blocks_never_panic(
        cells in arb_sorted_cells(20),
        at in any::<Index>(),
        bit in 0u32..8,
        truncate in any::<bool>(),
    ) {
        let mut keys = probe_keys();
        keys.extend(cells.iter().take(3).map(Cell::key));
        for encoding in DataBlockEncoding::ALL {
            let mut block = encode(encoding, &cells);
            if block.is_empty() {
                continue;
            }
            let i = at.index(block.len());
            if truncate {
                block.truncate(i);
            } else {
                block[i] ^= 1 << bit;
            }
            exercise(encoding, &block, &keys);
        }
    }
}

// ---- Edge cases ----

#[test]
fn limits_round_trip() {
    let cell = |row: Vec<u8>, qualifier: Vec<u8>, value: Vec<u8>, seq| Cell {
        row: row.into(),
        family: Bytes::new(),
        qualifier: qualifier.into(),
        timestamp: i64::MIN,
        cell_type: CellType::DeleteFamily,
        seq,
        value: value.into(),
        ttl: None,
    };
    let cells = vec![
        cell(vec![], vec![], vec![], 0),
        cell(vec![7; MAX_ROW_LEN], vec![], vec![1; 1 << 20], u64::MAX),
        cell(vec![7; MAX_ROW_LEN], vec![9; MAX_QUALIFIER_LEN], vec![], 0),
        cell(vec![8], vec![9; MAX_QUALIFIER_LEN], vec![1; 1 << 20], 1),
    ];
    for encoding in DataBlockEncoding::ALL {
        assert_eq!(
            decode_all(encoding, encode(encoding, &cells)),
            Ok(cells.clone())
        );
    }
}

#[test]
fn empty_blocks_decode_to_nothing() {
    for encoding in DataBlockEncoding::ALL {
        assert_eq!(decode_all(encoding, encode(encoding, &[])), Ok(vec![]));
        let mut dec = decoder(encoding, Bytes::from(encode(encoding, &[]))).expect("empty block");
        assert_eq!(dec.seek(&CellKey::first_on_row(Bytes::new())), Ok(false));
    }
}

/// DIFF and FAST_DIFF keep the row length apart from the key bytes, so rows of different
/// lengths still share their common prefix (HBase's flat key starts with the row length).
#[test]
fn rows_of_different_lengths_share_prefixes() {
    let cells: Vec<Cell> = ["user1", "user10", "user100", "user1000", "user10000"]
        .iter()
        .map(|row| Cell::put(row.as_bytes().to_vec(), "", "q", 1, "v"))
        .collect();
    let prefix = encode(DataBlockEncoding::Prefix, &cells).len();
    for encoding in [DataBlockEncoding::Diff, DataBlockEncoding::FastDiff] {
        let len = encode(encoding, &cells).len();
        assert!(
            len + 12 < prefix,
            "{encoding:?}: {len} bytes vs PREFIX {prefix}"
        );
    }
}

// ---- Sizes on Phoenix-like data (seed 003: Lars Hofhansl, "Compression vs Block Encoding") ----

const BLOCK_SIZE: usize = 64 * 1024;

/// Rows keyed by increasing 4-byte big-endian integers with columns `V1`, `V2`, `V3` (random
/// 4-byte floats) and `_0` (Phoenix's marker, value "x"), in store order; each row's cells share
/// a timestamp that advances by `0..=max_ts_step` ms from row to row.
fn phoenix_like_cells(rows: u32, max_ts_step: i64) -> Vec<Cell> {
    let mut rng = SmallRng::seed_from_u64(3);
    let mut ts = 1_455_700_000_000i64;
    let mut cells = Vec::with_capacity(rows as usize * 4);
    for r in 0..rows {
        ts += rng.gen_range(0..=max_ts_step);
        let row = Bytes::copy_from_slice(&r.to_be_bytes());
        for q in ["V1", "V2", "V3"] {
            let value = rng.gen::<f32>().to_be_bytes().to_vec();
            cells.push(Cell::put(row.clone(), "0", q, ts, value));
        }
        cells.push(Cell::put(row, "0", "_0", ts, "x"));
    }
    cells
}

/// Encodes `cells` into blocks of about [`BLOCK_SIZE`].
fn encode_blocks(encoding: DataBlockEncoding, cells: &[Cell]) -> Vec<Vec<u8>> {
    let mut enc = encoder(encoding);
    let mut blocks = Vec::new();
    for cell in cells {
        enc.add(&CellRef::from_cell(cell));
        if enc.encoded_len() >= BLOCK_SIZE {
            let mut block = Vec::with_capacity(BLOCK_SIZE + 64);
            enc.finish_into(&mut block);
            blocks.push(block);
        }
    }
    if enc.cell_count() > 0 {
        let mut block = Vec::new();
        enc.finish_into(&mut block);
        blocks.push(block);
    }
    blocks
}

#[test]
fn phoenix_like_bytes_per_cell() {
    // (encoding, bound with equal timestamps, bound with timestamps a few ms apart)
    let bounds = [
        (DataBlockEncoding::None, 22.0, 22.0),
        (DataBlockEncoding::Prefix, 9.5, 10.0),
        (DataBlockEncoding::Diff, 7.75, 8.0),
        (DataBlockEncoding::FastDiff, 6.75, 7.0),
        (DataBlockEncoding::RowIndex, 23.0, 23.0),
    ];
    for (max_ts_step, label) in [(0, "same ms"), (3, "0-3 ms apart")] {
        let cells = phoenix_like_cells(20_000, max_ts_step);
        let raw: usize = cells.iter().map(Cell::raw_size).sum();
        println!(
            "timestamps {label}: HBase KeyValue {:.2} bytes/cell",
            raw as f64 / cells.len() as f64
        );
        for (encoding, same_ms, few_ms) in bounds {
            let blocks = encode_blocks(encoding, &cells);
            let bytes: usize = blocks.iter().map(Vec::len).sum();
            let per_cell = bytes as f64 / cells.len() as f64;
            println!("  {:<12} {per_cell:.2} bytes/cell", encoding.name());
            let bound = if max_ts_step == 0 { same_ms } else { few_ms };
            assert!(
                per_cell <= bound,
                "{encoding:?} {label}: {per_cell:.2} > {bound}"
            );
            let decoded: usize = blocks
                .into_iter()
                .map(|b| decode_all(encoding, b).map(|c| c.len()))
                .sum::<Result<usize, _>>()
                .expect("decodes");
            assert_eq!(decoded, cells.len());
        }
    }
}

#[test]
fn row_index_check_catches_a_footer_that_misses_a_row() {
    use super::check_row_starts;
    let cells: Vec<Cell> = ["a", "a", "b", "c"]
        .iter()
        .enumerate()
        .map(|(i, r)| Cell::put(*r, "f", format!("q{i}"), 1, "v"))
        .collect();
    let mut enc = super::encoder(DataBlockEncoding::RowIndex);
    for c in &cells {
        enc.add(&CellRef::from_cell(c));
    }
    let mut block = Vec::new();
    enc.finish_into(&mut block);
    check_row_starts(Bytes::from(block.clone())).unwrap();
    // Rename row "b" to "a" in place (same length, still sorted): the footer now lists a row
    // start that is no longer one.
    let at = block.iter().rposition(|&b| b == b'b').unwrap();
    block[at] = b'a';
    assert!(check_row_starts(Bytes::from(block)).is_err());
}
