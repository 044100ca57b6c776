//! A compaction reads its inputs without filling the block cache (their blocks die with the
//! inputs), and still serves reads that hit the cache afterwards.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::Arc;

use region_support::*;
use strata_model::ops::Get;
use strata_sstable::cache::BlockCache;
use strata_storage::compaction::exploring::MajorRequest;

#[test]
fn a_major_compaction_adds_no_data_block_to_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let cache = Arc::new(BlockCache::new(256 << 20));
    let r = env.open_cached(cache.clone());
    // Three files of ~1 MB each: dozens of 64 KiB data blocks per file.
    let value = "v".repeat(500);
    for file in 0..3 {
        for i in 0..2_000 {
            let row = format!("row{:06}", i * 3 + file);
            r.mutate_row(&put_row(&row, "q", 5, &value)).unwrap();
        }
        r.flush().unwrap();
    }
    let before = cache.stats();
    let report = r
        .compact_store(b"f", MajorRequest::User)
        .unwrap()
        .expect("a compaction ran");
    assert!(report.major);
    let after = cache.stats();
    // The inputs' data blocks (~48) were looked up and read, none inserted; the output's
    // opening may cache a few index and bloom blocks.
    assert!(
        after.data_misses - before.data_misses > 30,
        "{before:?} → {after:?}"
    );
    assert!(
        after.inserts - before.inserts < 10,
        "{before:?} → {after:?}"
    );
    // Reads still fill the cache from the compacted file and hit it next time.
    let get = Get::new(bytes::Bytes::from_static(b"row000042"));
    assert_eq!(r.get(&get).unwrap().len(), 1);
    let filled = cache.stats();
    assert!(filled.inserts > after.inserts, "{after:?} → {filled:?}");
    assert_eq!(r.get(&get).unwrap().len(), 1);
    assert!(cache.stats().data_hits > filled.data_hits);
}
