//! `Reader::prefetch` (HBase's `PREFETCH_BLOCKS_ON_OPEN`): every block into the cache, in each
//! cached form and encoding, without counting lookups; stopped when asked; nothing without a
//! cache of data blocks.
#![allow(clippy::unwrap_used)]

mod common;

use std::cell::Cell as Counter;
use std::sync::Arc;

use common::*;
use strata_model::cell::Cell;
use strata_model::schema::{BloomType, CachedForm, Compression, DataBlockEncoding};
use strata_sstable::cache::BlockCache;
use strata_sstable::reader::ReaderOptions;
use strata_sstable::Reader;

fn model(rows: u32) -> Model {
    let mut model = Model::new();
    for i in 0..rows {
        let c = Cell::put(
            bytes::Bytes::from(format!("row{i:06}")),
            family(),
            bytes::Bytes::from_static(b"q"),
            7,
            bytes::Bytes::from(format!(
                "{:040}",
                u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            )),
        );
        model.insert(c.key(), c);
    }
    model
}

fn reader(
    model: &Model,
    encoding: DataBlockEncoding,
    form: CachedForm,
    cache_data: bool,
) -> (Reader, Arc<BlockCache>) {
    let bytes = write(model, options(encoding, Compression::Lz4, BloomType::Row));
    let cache = Arc::new(BlockCache::new(64 << 20));
    let options = ReaderOptions {
        cache: Some(cache.clone()),
        cache_data,
        cached_form: form,
    };
    (Reader::from_bytes(bytes, "mem", options).unwrap(), cache)
}

#[test]
fn a_prefetched_file_serves_every_get_from_the_cache() {
    let model = model(2_000);
    for encoding in [
        DataBlockEncoding::None,
        DataBlockEncoding::FastDiff,
        DataBlockEncoding::RowIndex,
    ] {
        for form in [
            CachedForm::Decoded,
            CachedForm::Encoded,
            CachedForm::Compressed,
        ] {
            let (reader, cache) = reader(&model, encoding, form, true);
            let done = reader.prefetch(&|| false).unwrap();
            let read = reader.stats();
            assert!(done.complete, "{encoding:?} {form:?}");
            assert!(done.blocks > 20, "{encoding:?} {form:?}: {done:?}");
            assert_eq!(
                (done.blocks, done.bytes),
                (read.blocks_read, read.bytes_read)
            );
            let stats = cache.stats();
            assert_eq!(
                stats.data_hits + stats.data_misses,
                0,
                "prefetch counted lookups"
            );
            // Every row is found without reading the file again.
            for (key, cell) in model.iter().step_by(7) {
                assert_eq!(reader.get_row(&key.row).unwrap(), vec![cell.clone()]);
            }
            assert_eq!(
                reader.stats().blocks_read,
                read.blocks_read,
                "{encoding:?} {form:?}"
            );
            assert_eq!(cache.stats().data_misses, 0);
            // A second prefetch finds everything cached.
            let again = reader.prefetch(&|| false).unwrap();
            assert_eq!((again.blocks, again.complete), (0, true));
        }
    }
}

#[test]
fn prefetch_stops_when_asked_and_keeps_what_it_cached() {
    let model = model(2_000);
    let (reader, cache) = reader(&model, DataBlockEncoding::None, CachedForm::Encoded, true);
    let asked = Counter::new(0);
    let done = reader
        .prefetch(&|| {
            asked.set(asked.get() + 1);
            asked.get() > 5
        })
        .unwrap();
    assert!(!done.complete);
    assert!(done.blocks >= 1 && done.blocks <= 7, "{done:?}");
    let cached = cache.stats().entries;
    assert!(cached >= 1);
    // The rest comes on the next call.
    let rest = reader.prefetch(&|| false).unwrap();
    assert!(rest.complete && rest.blocks > 10, "{rest:?}");
}

#[test]
fn nothing_is_prefetched_when_data_blocks_are_not_cached() {
    let model = model(500);
    let (reader, cache) = reader(&model, DataBlockEncoding::None, CachedForm::Encoded, false);
    let done = reader.prefetch(&|| false).unwrap();
    assert_eq!((done.blocks, done.complete), (0, true));
    assert_eq!(cache.stats().entries, 0);
    let uncached = Reader::from_bytes(
        write(
            &model,
            options(DataBlockEncoding::None, Compression::None, BloomType::Row),
        ),
        "mem",
        ReaderOptions::default(),
    )
    .unwrap();
    let done = uncached.prefetch(&|| false).unwrap();
    assert_eq!((done.blocks, done.complete), (0, true));
    assert_eq!(uncached.stats().blocks_read, 0);
}
