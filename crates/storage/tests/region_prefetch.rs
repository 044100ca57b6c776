//! `PREFETCH_BLOCKS_ON_OPEN`: a family's store files are read into the block cache as they
//! open (a flush's new file, every file of a region that opens), so gets then hit the cache;
//! a family without it caches nothing until read.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use region_support::*;
use strata_model::ops::Get;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_sstable::cache::BlockCache;

fn table(prefetch: bool) -> TableDescriptor {
    let f = FamilyDescriptor::new("f").with_prefetch_blocks_on_open(prefetch);
    TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f)
}

/// 2,000 rows of 500 bytes: one flushed file of about 1 MB, some 16 data blocks.
fn fill(r: &strata_storage::region::Region) {
    let value = "v".repeat(500);
    for i in 0..2_000 {
        r.mutate_row(&put_row(&format!("row{i:06}"), "q", 5, &value))
            .unwrap();
    }
    r.flush().unwrap();
}

/// Waits (20 s at most) until the cache holds `bytes`.
fn wait_cached(cache: &BlockCache, bytes: u64) {
    let start = Instant::now();
    while cache.stats().used < bytes {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "not prefetched: {:?}",
            cache.stats()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Gets of rows across the file, none of which may miss the cache.
fn gets_hit(r: &strata_storage::region::Region, cache: &BlockCache) {
    let before = cache.stats();
    for i in (0..2_000).step_by(37) {
        let get = Get::new(bytes::Bytes::from(format!("row{i:06}")));
        assert_eq!(r.get(&get).unwrap().len(), 1);
    }
    let after = cache.stats();
    assert_eq!(after.data_misses, before.data_misses, "{after:?}");
    assert!(after.data_hits >= before.data_hits + 54, "{after:?}");
}

#[test]
fn a_flushed_file_and_a_reopened_region_are_read_into_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(true));
    let cache = Arc::new(BlockCache::new(256 << 20));
    let r = env.open_cached(cache.clone());
    fill(&r);
    wait_cached(&cache, 1_000_000);
    assert_eq!(cache.stats().data_misses, 0);
    gets_hit(&r, &cache);
    r.close().unwrap();
    drop(r);

    // Opening the region again, with an empty cache, prefetches its file.
    let cache = Arc::new(BlockCache::new(256 << 20));
    let r = env.open_cached(cache.clone());
    wait_cached(&cache, 1_000_000);
    gets_hit(&r, &cache);
}

#[test]
fn without_the_setting_nothing_is_cached_until_read() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(false));
    let cache = Arc::new(BlockCache::new(256 << 20));
    let r = env.open_cached(cache.clone());
    fill(&r);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(cache.stats().inserts, 0, "{:?}", cache.stats());
    let get = Get::new(bytes::Bytes::from_static(b"row000042"));
    assert_eq!(r.get(&get).unwrap().len(), 1);
    assert_eq!(cache.stats().data_misses, 1);
}
