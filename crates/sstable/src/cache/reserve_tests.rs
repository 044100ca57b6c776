//! The meta partition's reserve: data blocks use what index and bloom blocks do not take, and
//! meta blocks still get up to a quarter of the budget, the data partition giving way.

use super::*;

fn data(bytes: usize) -> CachedBlock {
    CachedBlock::Encoded(Bytes::from(vec![7u8; bytes]))
}

/// A bloom chunk of `bytes` bits' bytes (a meta block).
fn meta(bytes: usize) -> CachedBlock {
    let mut raw = vec![0u8; 5 + bytes];
    raw[0] = 3;
    raw[1..5].copy_from_slice(&((bytes * 8) as u32).to_le_bytes());
    CachedBlock::Bloom(Arc::new(
        BloomChunk::parse(Bytes::from(raw)).expect("chunk"),
    ))
}

fn key(file: u64, offset: u64) -> CacheKey {
    CacheKey { file, offset }
}

#[test]
fn data_blocks_use_the_room_meta_blocks_do_not_take() {
    let capacity = 8 << 20;
    let cache = BlockCache::new(capacity);
    cache.insert(key(1, 0), meta(4096));
    for i in 0..4096 {
        cache.insert(key(2, i), data(4096));
    }
    let s = cache.stats();
    // A fixed quarter for meta blocks held data to 6 MiB; now only a step (1/64) is kept back.
    assert!(s.used > capacity * 9 / 10, "{s:?}");
    assert!(s.used <= capacity, "{s:?}");
    assert!(
        cache.get(&key(1, 0), true).is_some(),
        "the meta block stays"
    );
    assert_eq!(cache.data_capacity(), capacity - capacity / 64);
}

#[test]
fn meta_blocks_growing_take_room_from_data_blocks_up_to_a_quarter() {
    let capacity = 8 << 20;
    let cache = BlockCache::new(capacity);
    for i in 0..4096 {
        cache.insert(key(2, i), data(4096));
    }
    // 1.5 MiB of meta blocks: the data partition shrinks to leave them their room.
    for i in 0..384 {
        cache.insert(key(1, i), meta(4096));
    }
    let s = cache.stats();
    assert!(s.used <= capacity, "{s:?}");
    assert!(cache.data_capacity() <= capacity - (3 << 19), "{s:?}");
    assert!((0..384).all(|i| cache.get(&key(1, i), true).is_some()));
    // Past the quarter, meta blocks evict meta blocks, never data blocks below three quarters.
    for i in 384..1024 {
        cache.insert(key(1, i), meta(4096));
    }
    assert_eq!(cache.data_capacity(), capacity - capacity / 4);
    assert!(cache.stats().used <= capacity + 4096);
    // Dropping the file of the meta blocks gives their room back to data blocks.
    cache.evict_file(1);
    assert_eq!(cache.data_capacity(), capacity - capacity / 64);
}

#[test]
fn resizing_keeps_the_reserve_of_the_meta_blocks_held() {
    let cache = BlockCache::new(64 << 20);
    for i in 0..512 {
        cache.insert(key(1, i), meta(4096));
    }
    // 2 MiB of meta blocks, a step of 1 MiB: 3 MiB kept back.
    assert_eq!(cache.data_capacity(), (64 << 20) - (3 << 20));
    cache.set_capacity(16 << 20);
    // Shrunk to 16 MiB: a quarter (4 MiB) may be meta, and 2 MiB is held (step 256 KiB).
    assert_eq!(cache.data_capacity(), (16 << 20) - (2 << 20) - (256 << 10));
    cache.set_capacity(4 << 20);
    // At 4 MiB the quarter caps the meta blocks: evicted down to 1 MiB.
    assert_eq!(cache.data_capacity(), 3 << 20);
    assert!(cache.stats().used <= (4 << 20) + 4096);
}
