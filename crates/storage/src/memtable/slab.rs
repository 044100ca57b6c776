//! Append-only storage addressed by `u32` ids, allocated a slab at a time.
//!
//! Ids index fixed-size slabs through a directory; both the directory and each slab are
//! created on first use and never move, so a shared reference to a slot stays valid for the
//! life of the `Slabs`. Slots are made by `T::default()` and mutated only through `T`'s own
//! interior mutability (atomics, `OnceLock`).
//!
//! # Thread safety
//! Lock-free for reads. Creating the directory or a slab goes through `OnceLock`: a thread that
//! needs a slab being created waits for it (once per slab).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

/// One slab: created whole on first use.
type Slab<T> = OnceLock<Box<[T]>>;

/// Slots of `T`, `1 << slab_bits` to a slab, at most `1 << dir_bits` slabs.
pub(crate) struct Slabs<T> {
    slab_bits: u32,
    dir_bits: u32,
    dir: OnceLock<Box<[Slab<T>]>>,
    slabs: AtomicU64,
}

impl<T: Default> Slabs<T> {
    /// Empty storage for up to `1 << (slab_bits + dir_bits)` slots (at most 2³¹).
    pub(crate) fn new(slab_bits: u32, dir_bits: u32) -> Slabs<T> {
        debug_assert!(slab_bits + dir_bits <= 31);
        Slabs {
            slab_bits,
            dir_bits,
            dir: OnceLock::new(),
            slabs: AtomicU64::new(0),
        }
    }

    /// How many slots fit.
    pub(crate) fn capacity(&self) -> u64 {
        1 << (self.slab_bits + self.dir_bits)
    }

    /// Slots per slab.
    pub(crate) fn slab_len(&self) -> u64 {
        1 << self.slab_bits
    }

    /// The slot `id`, if its slab exists.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&T> {
        let slab = self
            .dir
            .get()?
            .get((id >> self.slab_bits) as usize)?
            .get()?;
        slab.get((id & ((1 << self.slab_bits) - 1)) as usize)
    }

    /// The slot `id`, creating its slab if needed; `None` beyond capacity.
    pub(crate) fn get_or_create(&self, id: u64) -> Option<&T> {
        if id >= self.capacity() {
            return None;
        }
        let dir = self.dir.get_or_init(|| {
            (0..1usize << self.dir_bits)
                .map(|_| OnceLock::new())
                .collect()
        });
        let slab = dir.get((id >> self.slab_bits) as usize)?.get_or_init(|| {
            self.slabs.fetch_add(1, Relaxed);
            (0..1usize << self.slab_bits)
                .map(|_| T::default())
                .collect()
        });
        slab.get((id & ((1 << self.slab_bits) - 1)) as usize)
    }

    /// Bytes reserved: the directory and every slab created.
    pub(crate) fn reserved_bytes(&self) -> u64 {
        let dir = match self.dir.get() {
            Some(d) => (d.len() * size_of::<Slab<T>>()) as u64,
            None => 0,
        };
        dir + ((self.slabs.load(Relaxed) * size_of::<T>() as u64) << self.slab_bits)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU32;

    use super::*;

    #[test]
    fn slots_appear_with_their_slab() {
        let s: Slabs<AtomicU32> = Slabs::new(2, 2);
        assert_eq!(s.capacity(), 16);
        assert!(s.get(0).is_none());
        assert_eq!(s.reserved_bytes(), 0);
        if let Some(a) = s.get_or_create(5) {
            a.store(9, Relaxed);
        }
        assert_eq!(s.get(5).map(|a| a.load(Relaxed)), Some(9));
        assert!(s.get(4).is_some() && s.get(3).is_none() && s.get(8).is_none());
        assert!(s.get_or_create(16).is_none());
        assert!(s.get(u32::MAX).is_none());
    }
}
