//! Shared strategies and helpers for the store-file tests.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use proptest::prelude::*;
use strata_model::cell::{Cell, CellKey, CellType};
use strata_model::schema::{BloomType, CachedForm, Compression, DataBlockEncoding};
use strata_sstable::{BlockCache, CellRef, Reader, ReaderOptions, Writer, WriterOptions};

/// The model: cells by key.
pub type Model = BTreeMap<CellKey, Cell>;

pub fn family() -> Bytes {
    Bytes::from_static(b"cf")
}

/// Rows drawn from a small alphabet so that prefixes are shared and rows repeat.
pub fn row() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(
            prop::sample::select(vec![b'a', b'b', b'c', 0u8, 0xff]),
            1..6
        ),
        prop::collection::vec(any::<u8>(), 1..40),
    ]
}

pub fn qualifier() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(vec![b'q', b'r', b'x']), 0..4)
}

pub fn timestamp() -> impl Strategy<Value = i64> {
    prop_oneof![
        0i64..20,
        1_700_000_000_000i64..1_700_000_000_100,
        Just(i64::MIN),
        Just(i64::MAX),
        any::<i64>(),
    ]
}

pub fn cell_type() -> impl Strategy<Value = CellType> {
    prop_oneof![
        6 => Just(CellType::Put),
        1 => Just(CellType::Delete),
        1 => Just(CellType::DeleteColumn),
        1 => Just(CellType::DeleteFamily),
        1 => Just(CellType::DeleteFamilyVersion),
    ]
}

pub fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::collection::vec(any::<u8>(), 0..16),
        1 => prop::collection::vec(any::<u8>(), 0..3000),
    ]
}

pub fn cell() -> impl Strategy<Value = Cell> {
    (
        row(),
        qualifier(),
        timestamp(),
        cell_type(),
        prop_oneof![Just(0u64), any::<u64>()],
        value(),
        // A put's own TTL (format version 2); delete markers never carry one.
        prop_oneof![3 => Just(None), 1 => any::<u64>().prop_map(Some)],
    )
        .prop_map(|(r, q, ts, t, seq, v, ttl)| Cell {
            row: Bytes::from(r),
            family: family(),
            qualifier: Bytes::from(q),
            timestamp: ts,
            cell_type: t,
            seq,
            value: Bytes::from(v),
            ttl: ttl.filter(|_| t == CellType::Put),
        })
}

/// A random cell set as a sorted model.
pub fn cells(max: usize) -> impl Strategy<Value = Model> {
    prop::collection::vec(cell(), 0..max)
        .prop_map(|cs| cs.into_iter().map(|c| (c.key(), c)).collect())
}

/// A random key to seek to (not necessarily present).
pub fn key() -> impl Strategy<Value = CellKey> {
    (
        row(),
        qualifier(),
        timestamp(),
        cell_type(),
        prop_oneof![Just(0u64), any::<u64>()],
    )
        .prop_map(|(r, q, ts, t, seq)| CellKey {
            row: Bytes::from(r),
            qualifier: Bytes::from(q),
            timestamp: ts,
            cell_type: t,
            seq,
        })
}

pub fn encoding() -> impl Strategy<Value = DataBlockEncoding> {
    prop::sample::select(DataBlockEncoding::ALL.to_vec())
}

pub fn compression() -> impl Strategy<Value = Compression> {
    prop::sample::select(Compression::ALL.to_vec())
}

pub fn cached_form() -> impl Strategy<Value = Option<CachedForm>> {
    prop::sample::select(vec![
        None,
        Some(CachedForm::Decoded),
        Some(CachedForm::Encoded),
        Some(CachedForm::Compressed),
    ])
}

pub fn bloom() -> impl Strategy<Value = BloomType> {
    prop::sample::select(vec![
        BloomType::None,
        BloomType::Row,
        BloomType::RowCol,
        BloomType::RowPrefixFixedLength(2),
    ])
}

/// Small blocks so that even small cell sets span many blocks and index levels.
pub fn options(
    encoding: DataBlockEncoding,
    compression: Compression,
    bloom: BloomType,
) -> WriterOptions {
    WriterOptions {
        family: family(),
        block_size: 1024,
        encoding,
        compression,
        bloom,
        index_block_size: 1024,
        ..WriterOptions::default()
    }
}

/// Writes the model's cells into an in-memory file.
pub fn write(model: &Model, options: WriterOptions) -> Bytes {
    let mut w = Writer::new(Vec::new(), "mem", options).unwrap();
    for c in model.values() {
        w.add(&CellRef::from_cell(c)).unwrap();
    }
    let (buf, info) = w.finish().unwrap();
    assert_eq!(info.cell_count, model.len() as u64);
    Bytes::from(buf)
}

pub fn open(bytes: Bytes, form: Option<CachedForm>) -> Reader {
    let options = match form {
        None => ReaderOptions::default(),
        Some(f) => ReaderOptions {
            cache: Some(Arc::new(BlockCache::new(1 << 20))),
            cache_data: true,
            cached_form: f,
        },
    };
    Reader::from_bytes(bytes, "mem", options).unwrap()
}
