//! Reads inside a cache-only scope: a block missing from the block cache is read in place when
//! its source can give it without waiting (a local file in the OS page cache), and refused —
//! nothing read, the caller retries where it may block — when it cannot.
#![allow(clippy::unwrap_used)]

mod common;

use std::fs::File;
use std::io;
use std::sync::Arc;

use bytes::Bytes;
use common::*;
use strata_model::cell::{Cell, CellKey};
use strata_model::schema::{BloomType, CachedForm, Compression, DataBlockEncoding};
use strata_sstable::cache_only::{cache_only_reads, cache_only_refused, is_would_block};
use strata_sstable::{BlockCache, Reader, ReaderOptions, Source};

fn sample() -> Model {
    let mut model = Model::new();
    for i in 0..400u32 {
        let c = Cell::put(format!("row{i:05}"), "cf", "q", 1, format!("value-{i}"));
        model.insert(c.key(), c);
    }
    model
}

fn cached() -> ReaderOptions {
    ReaderOptions {
        cache: Some(Arc::new(BlockCache::new(1 << 20))),
        cache_data: true,
        cached_form: CachedForm::Decoded,
    }
}

/// The store file written to disk (not tmpfs: the test reads through the page cache of a
/// real file system), just written, so its pages are cached.
fn on_disk(bytes: &Bytes) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("f.sst");
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn get(reader: &Reader, row: &str) -> strata_sstable::Result<Vec<Cell>> {
    reader.get_row(row.as_bytes())
}

#[test]
fn a_page_cached_block_is_read_in_place_and_then_cached() {
    let model = sample();
    let bytes = write(
        &model,
        options(DataBlockEncoding::None, Compression::None, BloomType::None),
    );
    let (_dir, path) = on_disk(&bytes);
    let reader = Reader::open(&path, cached()).unwrap();
    let before = cache_only_reads();
    let (found, refused) = cache_only_refused(|| get(&reader, "row00200"));
    let found = found.unwrap();
    assert!(!refused, "the block's pages were in the page cache");
    assert_eq!(found.len(), 1);
    assert_eq!(&found[0].value[..], b"value-200");
    assert!(cache_only_reads().in_place > before.in_place);
    // Now in the block cache: read again without touching the file.
    let reads = reader.stats();
    let (again, refused) = cache_only_refused(|| get(&reader, "row00200"));
    assert!(!refused);
    assert_eq!(again.unwrap(), found);
    assert_eq!(reader.stats().blocks_read, reads.blocks_read);
}

/// A source that always has to wait (HDFS, object storage without a local copy).
struct Waits(File);

impl Source for Waits {
    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes> {
        self.0.read_at(offset, len)
    }

    fn size(&self) -> io::Result<u64> {
        self.0.size()
    }
}

#[test]
fn a_read_that_would_wait_is_refused_and_reads_nothing() {
    let model = sample();
    let bytes = write(
        &model,
        options(
            DataBlockEncoding::FastDiff,
            Compression::Lz4,
            BloomType::Row,
        ),
    );
    let (_dir, path) = on_disk(&bytes);
    let source = Arc::new(Waits(File::open(&path).unwrap()));
    let reader = Reader::from_source(source, "waits".into(), cached()).unwrap();
    let before = cache_only_reads();
    let reads = reader.stats();
    let (result, refused) = cache_only_refused(|| get(&reader, "row00123"));
    assert!(refused);
    assert!(is_would_block(&result.unwrap_err()));
    assert_eq!(
        reader.stats().blocks_read,
        reads.blocks_read,
        "nothing read"
    );
    assert!(cache_only_reads().refused > before.refused);
    // Where it may block, the same read answers.
    let found = get(&reader, "row00123").unwrap();
    assert_eq!(&found[0].value[..], b"value-123");
}

#[test]
fn a_corrupt_block_read_in_place_is_an_error_not_a_refusal() {
    let model = sample();
    let mut raw = write(
        &model,
        options(DataBlockEncoding::None, Compression::None, BloomType::None),
    )
    .to_vec();
    // The first data block starts the file; flip a byte of its cells.
    raw[40] ^= 0xff;
    let (_dir, path) = on_disk(&Bytes::from(raw));
    let reader = Reader::open(&path, cached()).unwrap();
    let (result, refused) = cache_only_refused(|| {
        let mut it = reader.iter();
        it.seek(&CellKey::first_on_row(Bytes::from_static(b"row00000")))
    });
    assert!(!refused);
    let e = result.unwrap_err();
    assert!(!is_would_block(&e));
    assert!(e.to_string().contains("checksum"), "{e}");
}

#[test]
fn a_file_reads_without_waiting_only_whole_ranges_inside_it() {
    let (_dir, path) = on_disk(&Bytes::from(vec![7u8; 10_000]));
    let file = File::open(&path).unwrap();
    assert_eq!(
        file.read_at_nowait(100, 50).unwrap(),
        Some(Bytes::from(vec![7u8; 50]))
    );
    assert_eq!(
        file.read_at_nowait(9_990, 50).unwrap(),
        None,
        "partly past the end: the blocking read reports it"
    );
    let past = file.read_at_nowait(10_000, 1).unwrap_err();
    assert_eq!(past.kind(), io::ErrorKind::UnexpectedEof);
}
