//! A region's blocks leave the block cache on request (HBase's `clearBlockCache`): every
//! cached block of its store files, counted, and no block of another region sharing the cache.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::Arc;

use region_support::*;
use strata_model::ops::Scan;
use strata_sstable::cache::BlockCache;
use strata_storage::region::Region;

fn filled(dir: &std::path::Path, cache: &Arc<BlockCache>) -> Region {
    let env = Env::new(dir, table(&["f", "g"]));
    let r = env.open_cached(cache.clone());
    let value = "v".repeat(500);
    for i in 0..1_000 {
        let row = format!("row{i:06}");
        r.mutate_row(&put_row(&row, "q", 5, &value)).unwrap();
    }
    r.flush().unwrap();
    r
}

fn scan_all(r: &Region) -> usize {
    let mut scanner = r.scan(&Scan::default()).unwrap();
    let mut rows = 0;
    while scanner.next_row().unwrap().is_some() {
        rows += 1;
    }
    rows
}

#[test]
fn a_region_evicts_its_own_blocks_and_counts_them() {
    let (a_dir, b_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let cache = Arc::new(BlockCache::new(256 << 20));
    let a = filled(a_dir.path(), &cache);
    let b = filled(b_dir.path(), &cache);
    assert_eq!(scan_all(&a), 1_000);
    assert_eq!(scan_all(&b), 1_000);
    let before = cache.stats();

    let evicted = a.evict_cached_blocks();
    let after = cache.stats();
    assert!(evicted.blocks > 5, "{evicted:?}");
    assert_eq!(after.entries, before.entries - evicted.blocks);
    assert_eq!(after.used, before.used - evicted.bytes);

    // The other region's blocks stay: its scan hits them all.
    assert_eq!(scan_all(&b), 1_000);
    let b_again = cache.stats();
    assert_eq!(
        b_again.data_misses, after.data_misses,
        "{after:?} → {b_again:?}"
    );
    // The evicted region reads its blocks from its files again, and caches them.
    assert_eq!(scan_all(&a), 1_000);
    let a_again = cache.stats();
    assert!(a_again.data_misses > b_again.data_misses);
    assert_eq!(a.evict_cached_blocks().blocks, evicted.blocks);
    // Nothing left to evict.
    assert_eq!(a.evict_cached_blocks().blocks, 0);
}

#[test]
fn a_region_without_a_cache_evicts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    r.mutate_row(&put_row("r", "q", 5, "v")).unwrap();
    r.flush().unwrap();
    assert_eq!(scan_all(&r), 1);
    assert_eq!(r.evict_cached_blocks().blocks, 0);
}
