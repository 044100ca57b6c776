//! Fuzz target `roundtrip`: arbitrary cells and file options → write → read back, compared with
//! a `BTreeMap` model.
//!
//! The input (decoded with `arbitrary`) is a small list of cells plus the encoding, compression,
//! bloom type, block size and cached form. Cells are sorted and deduplicated by key (the model),
//! written with [`Writer`], and the file must then: pass `verify()`; scan forward and backward
//! to exactly the model; answer `get_row` / `get_column` like the model for every row written
//! and for probe rows; never rule out a present row or column by bloom filter; and land `seek` /
//! `seek_for_prev` where the model says.
#![no_main]

use std::collections::BTreeMap;
use std::sync::Arc;

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use strata_model::cell::{Cell, CellKey, CellType};
use strata_model::schema::{BloomType, CachedForm, Compression, DataBlockEncoding};
use strata_sstable::{BlockCache, CellRef, Reader, ReaderOptions, Writer, WriterOptions};

/// Most cells in one file.
const MAX_CELLS: usize = 300;
/// Most rows and probes looked up.
const MAX_LOOKUPS: usize = 40;

/// One cell as the fuzzer describes it. The row shares a prefix with the previous cell's row, so
/// that prefix-based encodings have something to elide.
#[derive(Debug, Arbitrary)]
struct FuzzCell {
    shared: u8,
    suffix: Vec<u8>,
    qualifier: Vec<u8>,
    timestamp: FuzzTimestamp,
    cell_type: u8,
    seq: FuzzSeq,
    value: FuzzValue,
}

#[derive(Debug, Arbitrary)]
enum FuzzTimestamp {
    Small(u8),
    Near(u16),
    Min,
    Max,
    Any(i64),
}

#[derive(Debug, Arbitrary)]
enum FuzzSeq {
    Zero,
    Small(u8),
    Any(u64),
}

#[derive(Debug, Arbitrary)]
enum FuzzValue {
    Bytes(Vec<u8>),
    /// A repeated byte, to make long compressible values cheaply.
    Run(u8, u16),
    /// The previous cell's value again (FAST_DIFF elides repeated values).
    Same,
}

#[derive(Debug, Arbitrary)]
struct FuzzInput {
    encoding: u8,
    compression: u8,
    bloom: u8,
    prefix_len: u8,
    block_size: u8,
    form: u8,
    cells: Vec<FuzzCell>,
    probes: Vec<(Vec<u8>, Vec<u8>)>,
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = FuzzInput::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    run(input);
});

fn run(input: FuzzInput) {
    let encoding = DataBlockEncoding::ALL[usize::from(input.encoding) % 5];
    let compression = Compression::ALL[usize::from(input.compression) % 5];
    let bloom = match input.bloom % 4 {
        0 => BloomType::None,
        1 => BloomType::Row,
        2 => BloomType::RowCol,
        _ => BloomType::RowPrefixFixedLength(u16::from(input.prefix_len % 8)),
    };
    let block_size = [1024, 1024, 4096, 64 * 1024][usize::from(input.block_size % 4)];
    let form = match input.form % 4 {
        0 => None,
        1 => Some(CachedForm::Decoded),
        2 => Some(CachedForm::Encoded),
        _ => Some(CachedForm::Compressed),
    };

    // The model: cells by key (later duplicates replace earlier ones).
    let family = Bytes::from_static(b"cf");
    let mut model: BTreeMap<CellKey, Cell> = BTreeMap::new();
    let mut prev_row: Vec<u8> = Vec::new();
    let mut prev_value = Bytes::new();
    for c in input.cells.iter().take(MAX_CELLS) {
        let keep = usize::from(c.shared).min(prev_row.len());
        let mut row = prev_row[..keep].to_vec();
        row.extend(c.suffix.iter().take(64));
        let value = match &c.value {
            FuzzValue::Bytes(b) => Bytes::copy_from_slice(&b[..b.len().min(4096)]),
            FuzzValue::Run(b, n) => Bytes::from(vec![*b; usize::from(*n % 8192)]),
            FuzzValue::Same => prev_value.clone(),
        };
        let cell = Cell {
            row: Bytes::from(row.clone()),
            family: family.clone(),
            qualifier: Bytes::copy_from_slice(&c.qualifier[..c.qualifier.len().min(32)]),
            timestamp: match c.timestamp {
                FuzzTimestamp::Small(t) => i64::from(t),
                FuzzTimestamp::Near(t) => 1_700_000_000_000 + i64::from(t),
                FuzzTimestamp::Min => i64::MIN,
                FuzzTimestamp::Max => i64::MAX,
                FuzzTimestamp::Any(t) => t,
            },
            cell_type: CellType::ALL[usize::from(c.cell_type) % 5],
            seq: match c.seq {
                FuzzSeq::Zero => 0,
                FuzzSeq::Small(s) => u64::from(s),
                FuzzSeq::Any(s) => s,
            },
            value: value.clone(),
            ttl: None,
        };
        prev_row = row;
        prev_value = value;
        model.insert(cell.key(), cell);
    }

    // Write.
    let options = WriterOptions {
        family: family.clone(),
        block_size,
        encoding,
        compression,
        bloom,
        index_block_size: 1024,
        ..WriterOptions::default()
    };
    let mut w = match Writer::new(Vec::new(), "fuzz", options) {
        Ok(w) => w,
        // The writer rejects a zero prefix length (it used to write a file the reader could
        // not open: regressions/roundtrip/rowprefix-len0-unreadable).
        Err(_) if bloom == BloomType::RowPrefixFixedLength(0) => return,
        Err(e) => panic!("writer options: {e}"),
    };
    for c in model.values() {
        w.add(&CellRef::from_cell(c)).expect("add a sorted cell");
    }
    let (buf, info) = w.finish().expect("finish");
    assert_eq!(info.cell_count, model.len() as u64);

    // Read back.
    let reader = Reader::from_bytes(
        Bytes::from(buf),
        "fuzz",
        ReaderOptions {
            cache: form.map(|_| Arc::new(BlockCache::new(8 << 20))),
            cache_data: true,
            cached_form: form.unwrap_or_default(),
        },
    )
    .expect("open a file just written");
    let report = reader.verify().expect("verify a file just written");
    assert_eq!(report.cells, model.len() as u64);
    assert_eq!(reader.info().cell_count, model.len() as u64);

    let want: Vec<&Cell> = model.values().collect();
    for pass in 0..2 {
        // Forward (twice: the second pass is served by the cache).
        let mut got = Vec::new();
        let mut it = reader.iter();
        let mut ok = it.seek_to_first().expect("seek_to_first");
        while ok {
            got.push(it.current_cell());
            ok = it.next().expect("next");
        }
        assert_eq!(
            got.iter().collect::<Vec<_>>(),
            want,
            "forward scan, pass {pass}"
        );
    }
    {
        let mut got = Vec::new();
        let mut it = reader.iter();
        let mut ok = it.seek_to_last().expect("seek_to_last");
        while ok {
            got.push(it.current_cell());
            ok = it.prev().expect("prev");
        }
        got.reverse();
        assert_eq!(got.iter().collect::<Vec<_>>(), want, "backward scan");
    }

    // Point reads: every row written (up to a cap), then probes.
    let mut rows: Vec<Bytes> = model.keys().map(|k| k.row.clone()).collect();
    rows.dedup();
    let step = (rows.len() / MAX_LOOKUPS).max(1);
    let mut lookups: Vec<(Bytes, Bytes)> = rows
        .iter()
        .step_by(step)
        .map(|r| {
            let q = model
                .range(CellKey::first_on_row(r.clone())..)
                .next()
                .map(|(k, _)| k.qualifier.clone())
                .unwrap_or_default();
            (r.clone(), q)
        })
        .collect();
    lookups.extend(
        input
            .probes
            .iter()
            .take(MAX_LOOKUPS)
            .map(|(r, q)| (Bytes::copy_from_slice(r), Bytes::copy_from_slice(q))),
    );
    for (row, qualifier) in &lookups {
        let want_row: Vec<&Cell> = model
            .range(CellKey::first_on_row(row.clone())..)
            .take_while(|(k, _)| k.row == *row)
            .map(|(_, c)| c)
            .collect();
        if !want_row.is_empty() {
            assert!(
                reader.may_contain_row(row).expect("bloom"),
                "bloom ruled out a present row {row:?}"
            );
        }
        let got = reader.get_row(row).expect("get_row");
        assert_eq!(got.iter().collect::<Vec<_>>(), want_row, "get_row({row:?})");

        let want_col: Vec<&Cell> = want_row
            .iter()
            .copied()
            .filter(|c| c.qualifier == *qualifier)
            .collect();
        if !want_col.is_empty() {
            assert!(
                reader.may_contain_column(row, qualifier).expect("bloom"),
                "bloom ruled out a present column {row:?}/{qualifier:?}"
            );
        }
        let got = reader.get_column(row, qualifier).expect("get_column");
        // Exactly the model's cells of that (row, qualifier).
        assert_eq!(
            got.iter().collect::<Vec<_>>(),
            want_col,
            "get_column({row:?}, {qualifier:?})"
        );

        // Seeks to the first key of the row and to a key in the middle of it.
        let mut it = reader.iter();
        for target in [
            CellKey::first_on_row(row.clone()),
            CellKey::first_on_column(row.clone(), qualifier.clone()),
            CellKey {
                row: row.clone(),
                qualifier: qualifier.clone(),
                timestamp: 0,
                cell_type: CellType::Put,
                seq: 0,
            },
        ] {
            let want = model.range(target.clone()..).next().map(|(_, c)| c);
            let got = it.seek(&target).expect("seek").then(|| it.current_cell());
            assert_eq!(got.as_ref(), want, "seek({target:?})");
            let want = model.range(..=target.clone()).next_back().map(|(_, c)| c);
            let got = it
                .seek_for_prev(&target)
                .expect("seek_for_prev")
                .then(|| it.current_cell());
            assert_eq!(got.as_ref(), want, "seek_for_prev({target:?})");
            // One step each way from the seek_for_prev position.
            if got.is_some() {
                let want_next = model
                    .range((
                        std::ops::Bound::Excluded(target.clone()),
                        std::ops::Bound::Unbounded,
                    ))
                    .next()
                    .map(|(_, c)| c);
                let got_next = it.next().expect("next").then(|| it.current_cell());
                assert_eq!(got_next.as_ref(), want_next, "next after seek_for_prev");
            }
        }
    }
    assert_eq!(
        reader.count_cells().expect("count_cells"),
        model.len() as u64
    );
}
