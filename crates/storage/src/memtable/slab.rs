//! Append-only storage addressed by `u32` ids, allocated a slab at a time.
//!
//! Ids index fixed-size slabs through a two-level directory; directory blocks and slabs are
//! created on first use and never move, so a shared reference to a slot stays valid for the
//! life of the `Slabs`. Slots are made by `T::default()` and mutated only through `T`'s own
//! interior mutability (atomics, `OnceLock`).
//!
//! # Thread safety
//! Lock-free for reads. Creating a directory block or a slab goes through `OnceLock`: a thread
//! that needs one being created waits for it (once per slab).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

/// One slab: created whole on first use.
type Slab<T> = OnceLock<Box<[T]>>;

/// Directory blocks at the top level.
const TOP: usize = 64;

/// Slots of `T`: `1 << slab_bits` to a slab, `1 << block_bits` slabs to a directory block,
/// [`TOP`] blocks. A directory block is small (a few KiB) and made on demand, so an empty
/// `Slabs` costs only its top array.
pub(crate) struct Slabs<T> {
    slab_bits: u32,
    block_bits: u32,
    top: [OnceLock<Box<[Slab<T>]>>; TOP],
    slabs: AtomicU64,
    blocks: AtomicU64,
}

impl<T: Default> Slabs<T> {
    /// Empty storage for up to `TOP << (slab_bits + block_bits)` slots (at most 2³¹).
    pub(crate) fn new(slab_bits: u32, block_bits: u32) -> Slabs<T> {
        debug_assert!(slab_bits + block_bits + TOP.ilog2() <= 31);
        Slabs {
            slab_bits,
            block_bits,
            top: std::array::from_fn(|_| OnceLock::new()),
            slabs: AtomicU64::new(0),
            blocks: AtomicU64::new(0),
        }
    }

    /// How many slots fit.
    pub(crate) fn capacity(&self) -> u64 {
        (TOP as u64) << (self.slab_bits + self.block_bits)
    }

    /// Slots per slab.
    pub(crate) fn slab_len(&self) -> u64 {
        1 << self.slab_bits
    }

    /// (top index, slab index in its block, slot index in its slab).
    #[inline]
    fn place(&self, id: u64) -> (usize, usize, usize) {
        let slab = id >> self.slab_bits;
        (
            (slab >> self.block_bits) as usize,
            (slab & ((1 << self.block_bits) - 1)) as usize,
            (id & ((1 << self.slab_bits) - 1)) as usize,
        )
    }

    /// The slot `id`, if its slab exists.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&T> {
        let (block, slab, slot) = self.place(u64::from(id));
        self.top.get(block)?.get()?.get(slab)?.get()?.get(slot)
    }

    /// The slot `id`, creating its slab if needed; `None` beyond capacity.
    pub(crate) fn get_or_create(&self, id: u64) -> Option<&T> {
        let (block, slab, slot) = self.place(id);
        let block = self.top.get(block)?.get_or_init(|| {
            self.blocks.fetch_add(1, Relaxed);
            (0..1usize << self.block_bits)
                .map(|_| OnceLock::new())
                .collect()
        });
        let slab = block.get(slab)?.get_or_init(|| {
            self.slabs.fetch_add(1, Relaxed);
            (0..1usize << self.slab_bits)
                .map(|_| T::default())
                .collect()
        });
        slab.get(slot)
    }

    /// Bytes reserved: directory blocks and slabs created.
    pub(crate) fn reserved_bytes(&self) -> u64 {
        let block = (size_of::<Slab<T>>() as u64) << self.block_bits;
        let slab = (size_of::<T>() as u64) << self.slab_bits;
        self.blocks.load(Relaxed) * block + self.slabs.load(Relaxed) * slab
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU32;

    use super::*;

    #[test]
    fn slots_appear_with_their_slab() {
        let s: Slabs<AtomicU32> = Slabs::new(2, 2);
        assert_eq!(s.capacity(), 64 * 16);
        assert!(s.get(0).is_none());
        assert_eq!(s.reserved_bytes(), 0);
        if let Some(a) = s.get_or_create(5) {
            a.store(9, Relaxed);
        }
        assert_eq!(s.get(5).map(|a| a.load(Relaxed)), Some(9));
        assert!(s.get(4).is_some() && s.get(3).is_none() && s.get(8).is_none());
        assert!(s.get_or_create(64 * 16).is_none());
        assert!(s.get_or_create(64 * 16 - 1).is_some());
        assert!(s.get(u32::MAX).is_none());
    }
}
