//! Flipping any byte or truncating the file gives an error naming the file and offset — never
//! a panic and never a wrong cell.
#![allow(clippy::unwrap_used)]

mod common;

use bytes::Bytes;
use common::*;
use strata_model::cell::Cell;
use strata_model::schema::{BloomType, CachedForm, Compression, DataBlockEncoding};
use strata_sstable::{Error, Reader, ReaderOptions};

fn sample() -> Model {
    let mut model = Model::new();
    for i in 0..150u32 {
        for q in ["a", "b"] {
            let c = Cell::put(
                format!("row{i:05}"),
                "cf",
                q,
                1_700_000_000_000 + i64::from(i),
                format!("value-{i}"),
            );
            model.insert(c.key(), c);
        }
    }
    model
}

/// Opens and reads everything; Ok(cells) or the first error.
fn read_all(bytes: Bytes, form: Option<CachedForm>) -> Result<Vec<Cell>, Error> {
    let options = match form {
        None => ReaderOptions::default(),
        Some(f) => ReaderOptions {
            cache: Some(std::sync::Arc::new(strata_sstable::BlockCache::new(
                1 << 20,
            ))),
            cache_data: true,
            cached_form: f,
        },
    };
    let reader = Reader::from_bytes(bytes, "sample.sst", options)?;
    reader.verify()?;
    let mut it = reader.iter();
    let mut out = Vec::new();
    let mut ok = it.seek_to_first()?;
    while ok {
        out.push(it.current_cell());
        ok = it.next()?;
    }
    Ok(out)
}

fn assert_names_the_file(e: &Error) {
    let s = e.to_string();
    assert!(s.contains("sample.sst"), "{s}");
    assert!(matches!(e, Error::Corruption { .. }), "{s}");
}

#[test]
fn every_flipped_byte_is_detected() {
    let model = sample();
    let expected: Vec<Cell> = model.values().cloned().collect();
    for (enc, comp) in [
        (DataBlockEncoding::None, Compression::None),
        (DataBlockEncoding::FastDiff, Compression::Snappy),
        (DataBlockEncoding::Prefix, Compression::Zstd),
        (DataBlockEncoding::RowIndex, Compression::Lz4),
        (DataBlockEncoding::Diff, Compression::Gz),
    ] {
        let good = write(&model, options(enc, comp, BloomType::RowCol));
        assert_eq!(read_all(good.clone(), None).unwrap(), expected);
        for i in 0..good.len() {
            for flip in [0x01u8, 0x80] {
                let mut bad = good.to_vec();
                bad[i] ^= flip;
                match read_all(Bytes::from(bad), Some(CachedForm::Decoded)) {
                    Err(e) => assert_names_the_file(&e),
                    Ok(cells) => panic!(
                        "{enc}/{comp}: flip at {i} went unnoticed ({} cells)",
                        cells.len()
                    ),
                }
            }
        }
    }
}

#[test]
fn every_truncation_is_detected() {
    let model = sample();
    let good = write(
        &model,
        options(
            DataBlockEncoding::FastDiff,
            Compression::Lz4,
            BloomType::Row,
        ),
    );
    for len in 0..good.len() {
        match read_all(good.slice(..len), None) {
            Err(e) => assert_names_the_file(&e),
            Ok(_) => panic!("truncation to {len} bytes went unnoticed"),
        }
    }
}

#[test]
fn corruption_errors_give_the_block_offset() {
    let model = sample();
    let good = write(
        &model,
        options(DataBlockEncoding::None, Compression::None, BloomType::None),
    );
    let mut bad = good.to_vec();
    bad[10] ^= 0xff; // inside the first data block, which starts at offset 0
    let reader =
        Reader::from_bytes(Bytes::from(bad), "sample.sst", ReaderOptions::default()).unwrap();
    let mut it = reader.iter();
    let e = it.seek_to_first().unwrap_err();
    match &e {
        Error::Corruption { offset, reason, .. } => {
            assert_eq!(*offset, 0);
            assert!(reason.contains("checksum"), "{reason}");
        }
        other => panic!("{other}"),
    }
    assert!(!it.valid());
}
