//! [`BlockCache::set_capacity`]: shrinking evicts down to the new budget, growing makes room,
//! and both are safe while other threads read and insert.

use super::*;

fn block(bytes: usize) -> CachedBlock {
    CachedBlock::Encoded(Bytes::from(vec![7u8; bytes]))
}

fn key(offset: u64) -> CacheKey {
    CacheKey { file: 1, offset }
}

#[test]
fn shrinking_evicts_down_to_the_new_capacity_and_growing_keeps_more() {
    let cache = BlockCache::new(4 << 20);
    for i in 0..512 {
        cache.insert(key(i), block(4096));
    }
    let full = cache.stats();
    assert!(full.used > 1 << 20, "filled: {full:?}");
    cache.set_capacity(512 << 10);
    let small = cache.stats();
    assert_eq!(small.capacity, 512 << 10);
    assert!(small.used <= (512 << 10) + 4096, "shrunk: {small:?}");
    assert!(
        small.evictions > full.evictions,
        "evictions counted: {small:?}"
    );
    cache.set_capacity(8 << 20);
    for i in 1000..2000 {
        cache.insert(key(i), block(4096));
    }
    let grown = cache.stats();
    assert_eq!(grown.capacity, 8 << 20);
    assert!(grown.used > 4 << 20, "grew past the old size: {grown:?}");
    assert!(grown.used <= 8 << 20);
}

#[test]
fn resizing_while_threads_read_and_insert_stays_within_bounds() {
    let cache = Arc::new(BlockCache::new(2 << 20));
    let workers: Vec<_> = (0..2)
        .map(|t| {
            let cache = cache.clone();
            std::thread::spawn(move || {
                for i in 0..20_000u64 {
                    let k = key(t * 1_000_000 + i % 700);
                    if cache.get(&k, false).is_none() {
                        cache.insert(k, block(2048));
                    }
                }
            })
        })
        .collect();
    for round in 0..200u64 {
        cache.set_capacity(if round % 2 == 0 { 256 << 10 } else { 2 << 20 });
    }
    for w in workers {
        w.join().expect("worker");
    }
    cache.set_capacity(256 << 10);
    let s = cache.stats();
    assert!(s.used <= (256 << 10) + 4096, "{s:?}");
}
