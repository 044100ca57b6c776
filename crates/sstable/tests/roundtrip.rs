//! Random cell sets written with every encoding × compression × cached form read back exactly:
//! forward and reverse scans, seeks, point gets, checked against a `BTreeMap` model.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use proptest::prelude::*;
use std::ops::Bound;
use strata_model::cell::Cell;

fn forward(r: &strata_sstable::Reader) -> Vec<Cell> {
    scan(r.iter())
}

/// Every cell `it` shows from the first on.
fn scan(mut it: strata_sstable::reader::Iter) -> Vec<Cell> {
    let mut out = Vec::new();
    let mut ok = it.seek_to_first().unwrap();
    while ok {
        out.push(it.current_cell());
        ok = it.next().unwrap();
    }
    out
}

fn backward(r: &strata_sstable::Reader) -> Vec<Cell> {
    let mut it = r.iter();
    let mut out = Vec::new();
    let mut ok = it.seek_to_last().unwrap();
    while ok {
        out.push(it.current_cell());
        ok = it.prev().unwrap();
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn reads_back_what_was_written(
        model in cells(400),
        enc in encoding(),
        comp in compression(),
        form in cached_form(),
        bloom in bloom(),
        seeks in prop::collection::vec(key(), 1..20),
    ) {
        let reader = open(write(&model, options(enc, comp, bloom)), form);
        let expected: Vec<Cell> = model.values().cloned().collect();
        prop_assert_eq!(&forward(&reader), &expected);
        let mut rev = expected.clone();
        rev.reverse();
        prop_assert_eq!(&backward(&reader), &rev);

        // Read twice more so cached blocks are read back too.
        prop_assert_eq!(&forward(&reader), &expected);

        for target in &seeks {
            let mut it = reader.iter();
            let want = model.range(target..).next().map(|(_, c)| c.clone());
            let got = if it.seek(target).unwrap() { Some(it.current_cell()) } else { None };
            prop_assert_eq!(&got, &want);
            // Step on from the seek, then back.
            if got.is_some() {
                let want_next = model.range((Bound::Excluded(target), Bound::Unbounded))
                    .find(|(k, _)| *k > &got.as_ref().unwrap().key())
                    .map(|(_, c)| c.clone());
                let next = if it.next().unwrap() { Some(it.current_cell()) } else { None };
                prop_assert_eq!(&next, &want_next);
                if next.is_some() {
                    prop_assert!(it.prev().unwrap());
                    prop_assert_eq!(&Some(it.current_cell()), &got);
                }
            }

            let want_prev = model.range(..=target).next_back().map(|(_, c)| c.clone());
            let mut it = reader.iter();
            let got_prev = if it.seek_for_prev(target).unwrap() { Some(it.current_cell()) } else { None };
            prop_assert_eq!(&got_prev, &want_prev);
            if got_prev.is_some() {
                let want_after = model.range((Bound::Excluded(got_prev.as_ref().unwrap().key()), Bound::Unbounded))
                    .next().map(|(_, c)| c.clone());
                let after = if it.next().unwrap() { Some(it.current_cell()) } else { None };
                prop_assert_eq!(&after, &want_after);
            }

            // Point gets by row and by column.
            let row_cells: Vec<Cell> = model.values().filter(|c| c.row == target.row).cloned().collect();
            prop_assert_eq!(&reader.get_row(&target.row).unwrap(), &row_cells);
            let col_cells: Vec<Cell> = model.values()
                .filter(|c| c.row == target.row && c.qualifier == target.qualifier)
                .cloned().collect();
            prop_assert_eq!(&reader.get_column(&target.row, &target.qualifier).unwrap(), &col_cells);
        }

        // Every present row and column is found (no bloom false negatives).
        for c in model.values().take(50) {
            prop_assert!(reader.may_contain_row(&c.row).unwrap());
            prop_assert!(reader.may_contain_column(&c.row, &c.qualifier).unwrap());
            prop_assert!(reader.get_row(&c.row).unwrap().contains(c));
        }
        reader.verify().unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Forward seeks from where the iterator is (within its block or past it) land where a
    /// fresh seek does.
    #[test]
    fn forward_seeks_land_where_fresh_seeks_do(
        model in cells(400),
        enc in encoding(),
        comp in compression(),
        form in cached_form(),
        mut targets in prop::collection::vec(key(), 1..30),
        steps in prop::collection::vec(0usize..3, 30),
    ) {
        let reader = open(write(&model, options(enc, comp, Default::default())), form);
        targets.sort();
        let mut it = reader.iter();
        let mut ok = it.seek_to_first().unwrap();
        for (target, n) in targets.iter().zip(steps) {
            for _ in 0..n {
                if ok {
                    ok = it.next().unwrap();
                }
            }
            if ok && it.current_cell().key() > *target {
                continue; // not a forward seek
            }
            let want = model.range(target..).next().map(|(_, c)| c.clone());
            ok = it.reseek(target).unwrap();
            let got = if ok { Some(it.current_cell()) } else { None };
            prop_assert_eq!(&got, &want);
            if !ok {
                break;
            }
        }
    }
}

#[test]
fn an_empty_file_reads_as_empty() {
    let model = Model::new();
    for enc in strata_model::schema::DataBlockEncoding::ALL {
        let reader = open(
            write(&model, options(enc, Default::default(), Default::default())),
            None,
        );
        assert!(forward(&reader).is_empty());
        assert!(backward(&reader).is_empty());
        assert!(reader.get_row(b"x").unwrap().is_empty());
        assert_eq!(reader.info().mid_key, None);
        reader.verify().unwrap();
    }
}

#[test]
fn rejects_out_of_order_cells_and_keeps_going() {
    let mut w = strata_sstable::Writer::new(Vec::new(), "mem", Default::default()).unwrap();
    let a = Cell::put("b", "cf", "q", 1, "v");
    let b = Cell::put("a", "cf", "q", 1, "v");
    w.add(&strata_sstable::CellRef::from_cell(&a)).unwrap();
    let err = w.add(&strata_sstable::CellRef::from_cell(&b)).unwrap_err();
    assert!(err.to_string().contains("out of order"), "{err}");
    // The duplicate of the last key is rejected too.
    assert!(w.add(&strata_sstable::CellRef::from_cell(&a)).is_err());
    let (buf, info) = w.finish().unwrap();
    assert_eq!(info.cell_count, 1);
    let reader = open(bytes::Bytes::from(buf), None);
    assert_eq!(forward(&reader), vec![a]);
}

#[test]
fn an_uncached_iterator_uses_cached_blocks_and_adds_none() {
    use std::sync::Arc;
    use strata_sstable::cache::BlockCache;
    use strata_sstable::reader::ReaderOptions;

    let mut model = Model::new();
    for i in 0..2_000u32 {
        let c = Cell::put(
            bytes::Bytes::from(format!("row{i:06}")),
            family(),
            bytes::Bytes::from_static(b"q"),
            7,
            bytes::Bytes::from(vec![b'v'; 40]),
        );
        model.insert(c.key(), c);
    }
    let bytes = write(
        &model,
        options(Default::default(), Default::default(), Default::default()),
    );
    let cache = Arc::new(BlockCache::new(64 << 20));
    let options = ReaderOptions {
        cache: Some(cache.clone()),
        ..ReaderOptions::default()
    };
    let reader = strata_sstable::Reader::from_bytes(bytes, "mem", options).unwrap();
    let uncached = |r: &strata_sstable::Reader| scan(r.iter_uncached());
    let want: Vec<Cell> = model.values().cloned().collect();
    // Two uncached passes: every data block read from the file both times, none cached.
    assert_eq!(uncached(&reader), want);
    let blocks = reader.stats().blocks_read;
    assert!(blocks > 10, "{blocks} blocks");
    assert_eq!(uncached(&reader), want);
    assert_eq!(cache.stats().data_hits, 0);
    // The second pass finds the index blocks cached, every data block again in the file.
    let second = reader.stats().blocks_read - blocks;
    assert!(
        second > 10 && second + 10 > blocks,
        "{blocks} then {second}"
    );
    // A caching pass fills the cache; an uncached pass then reads from it, not the file.
    assert_eq!(forward(&reader), want);
    let after_fill = reader.stats().blocks_read;
    assert_eq!(uncached(&reader), want);
    assert_eq!(reader.stats().blocks_read, after_fill);
    assert!(cache.stats().data_hits > 0);
}
