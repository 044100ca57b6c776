//! A compaction reads its inputs without filling the block cache (their blocks die with the
//! inputs), and still serves reads that hit the cache afterwards. Reads that ask for it
//! (HBase's `setCacheBlocks(false)` on a scan or get) do the same.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::Arc;

use region_support::*;
use strata_model::ops::{Get, Scan};
use strata_sstable::cache::BlockCache;
use strata_storage::compaction::exploring::MajorRequest;

#[test]
fn a_major_compaction_adds_no_data_block_to_the_cache() {
    let (_dir, r, cache) = three_files();
    let before = cache.stats();
    let report = r
        .compact_store(b"f", MajorRequest::User)
        .unwrap()
        .expect("a compaction ran");
    assert!(report.major);
    let after = cache.stats();
    // The output's opening may cache a few index and bloom blocks.
    assert_read_not_cached(&before, &after);
    // Reads still fill the cache from the compacted file and hit it next time.
    let get = Get::new(bytes::Bytes::from_static(b"row000042"));
    assert_eq!(r.get(&get).unwrap().len(), 1);
    let filled = cache.stats();
    assert!(filled.inserts > after.inserts, "{after:?} → {filled:?}");
    assert_eq!(r.get(&get).unwrap().len(), 1);
    assert!(cache.stats().data_hits > filled.data_hits);
}

/// Between `before` and `after`, the three files' data blocks (~48) were looked up and read,
/// and none was inserted (only a few index and bloom blocks may have been).
fn assert_read_not_cached(
    before: &strata_sstable::cache::CacheStats,
    after: &strata_sstable::cache::CacheStats,
) {
    assert!(
        after.data_misses - before.data_misses > 30,
        "{before:?} → {after:?}"
    );
    assert!(
        after.inserts - before.inserts < 10,
        "{before:?} → {after:?}"
    );
}

/// A region (in a temporary directory, kept by the caller) over a 256 MiB block cache, holding
/// three flushed files of ~1 MB each: dozens of 64 KiB data blocks per file.
fn three_files() -> (
    tempfile::TempDir,
    strata_storage::region::Region,
    Arc<BlockCache>,
) {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let cache = Arc::new(BlockCache::new(256 << 20));
    let r = env.open_cached(cache.clone());
    let value = "v".repeat(500);
    for file in 0..3 {
        for i in 0..2_000 {
            let row = format!("row{:06}", i * 3 + file);
            r.mutate_row(&put_row(&row, "q", 5, &value)).unwrap();
        }
        r.flush().unwrap();
    }
    (dir, r, cache)
}

fn scan_all(r: &strata_storage::region::Region, scan: &Scan) -> usize {
    let mut scanner = r.scan(scan).unwrap();
    let mut rows = 0;
    while scanner.next_row().unwrap().is_some() {
        rows += 1;
    }
    rows
}

#[test]
fn a_scan_that_asks_not_to_cache_blocks_adds_no_data_block() {
    let (_dir, r, cache) = three_files();
    let before = cache.stats();
    let uncached = Scan {
        cache_blocks: false,
        ..Scan::default()
    };
    assert_eq!(scan_all(&r, &uncached), 6_000);
    let after = cache.stats();
    assert_read_not_cached(&before, &after);
    // Again: nothing was kept, so the blocks are read again.
    assert_eq!(scan_all(&r, &uncached), 6_000);
    let again = cache.stats();
    assert!(
        again.data_misses - after.data_misses > 30,
        "{after:?} → {again:?}"
    );
    // The default scan fills the cache, and a scan after it hits.
    assert_eq!(scan_all(&r, &Scan::default()), 6_000);
    let filled = cache.stats();
    assert!(
        filled.inserts - again.inserts > 30,
        "{again:?} → {filled:?}"
    );
    assert_eq!(scan_all(&r, &uncached), 6_000);
    let hit = cache.stats();
    assert!(
        hit.data_hits - filled.data_hits > 30,
        "{filled:?} → {hit:?}"
    );
    assert_eq!(hit.data_misses, filled.data_misses, "{filled:?} → {hit:?}");
}

#[test]
fn a_get_that_asks_not_to_cache_blocks_adds_no_data_block() {
    let (_dir, r, cache) = three_files();
    let row = bytes::Bytes::from_static(b"row000042");
    let uncached = Get::new(row.clone()).with_cache_blocks(false);
    assert_eq!(r.get(&uncached).unwrap().len(), 1);
    // Index and bloom blocks are in now; the data block is not.
    let first = cache.stats();
    assert_eq!(r.get(&uncached).unwrap().len(), 1);
    let second = cache.stats();
    assert_eq!(second.inserts, first.inserts, "{first:?} → {second:?}");
    assert_eq!(
        second.data_misses,
        first.data_misses + 1,
        "{first:?} → {second:?}"
    );
    // A get that caches fills it; the next one, caching or not, hits.
    assert_eq!(r.get(&Get::new(row)).unwrap().len(), 1);
    let filled = cache.stats();
    assert_eq!(
        filled.inserts,
        second.inserts + 1,
        "{second:?} → {filled:?}"
    );
    assert_eq!(r.get(&uncached).unwrap().len(), 1);
    assert_eq!(cache.stats().data_hits, filled.data_hits + 1);
}
