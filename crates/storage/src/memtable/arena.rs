//! Arena chunks for cell bytes (MSLAB-like): memory is taken and freed a chunk at a time.
//!
//! A chunk is one `BytesMut` allocation of `chunk_size` bytes. A cell is appended at the
//! chunk's end and split off as a frozen `Bytes`, which shares the chunk's allocation; the chunk
//! is freed when its last cell's `Bytes` is dropped, i.e. with its segment. Cells larger than a
//! quarter chunk get their own allocation, so a chunk never wastes more than a quarter of itself
//! at its tail.
//!
//! # Thread safety
//! `alloc` may be called from any number of threads. The chunk being filled is behind a mutex
//! held only to append and split one cell; nothing else is locked while it is held.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use bytes::{Bytes, BytesMut};
use parking_lot::Mutex;

/// Cell-byte storage for one segment.
pub(crate) struct Arena {
    chunk_size: usize,
    /// The unused tail of the chunk being filled (empty before the first cell).
    /// Lock order: a leaf lock.
    current: Mutex<BytesMut>,
    chunks: AtomicU64,
    large_cells: AtomicU64,
    large_bytes: AtomicU64,
}

impl Arena {
    /// An arena with `chunk_size`-byte chunks; allocates nothing until the first cell.
    pub(crate) fn new(chunk_size: usize) -> Arena {
        Arena {
            chunk_size,
            current: Mutex::new(BytesMut::new()),
            chunks: AtomicU64::new(0),
            large_cells: AtomicU64::new(0),
            large_bytes: AtomicU64::new(0),
        }
    }

    /// Stores `len` bytes written by `write` and returns them frozen.
    ///
    /// Requires: `write` appends exactly `len` bytes.
    pub(crate) fn alloc(&self, len: usize, write: impl FnOnce(&mut BytesMut)) -> Bytes {
        if len > self.chunk_size / 4 {
            let mut own = BytesMut::with_capacity(len);
            write(&mut own);
            self.large_cells.fetch_add(1, Relaxed);
            self.large_bytes.fetch_add(len as u64, Relaxed);
            return own.freeze();
        }
        let mut current = self.current.lock();
        if current.capacity() < len {
            // The old tail stays allocated with its chunk until the segment is dropped.
            *current = BytesMut::with_capacity(self.chunk_size);
            self.chunks.fetch_add(1, Relaxed);
        }
        write(&mut current);
        current.split().freeze()
    }

    /// Chunks allocated so far.
    pub(crate) fn chunks(&self) -> u64 {
        self.chunks.load(Relaxed)
    }

    /// Cells that got their own allocation.
    pub(crate) fn large_cells(&self) -> u64 {
        self.large_cells.load(Relaxed)
    }

    /// Bytes reserved: whole chunks plus large cells.
    pub(crate) fn reserved_bytes(&self) -> u64 {
        self.chunks() * self.chunk_size as u64 + self.large_bytes.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use bytes::BufMut;

    use super::*;

    #[test]
    fn small_cells_share_chunks_and_large_cells_do_not() {
        let arena = Arena::new(64);
        let a = arena.alloc(10, |b| b.put_slice(&[1; 10]));
        let b = arena.alloc(16, |b| b.put_slice(&[2; 16]));
        assert_eq!(arena.chunks(), 1);
        // Same allocation, adjacent.
        assert_eq!(a.as_ptr().wrapping_add(10), b.as_ptr());
        let big = arena.alloc(17, |b| b.put_slice(&[3; 17]));
        assert_eq!((arena.chunks(), arena.large_cells()), (1, 1));
        for _ in 0..3 {
            arena.alloc(16, |b| b.put_slice(&[4; 16]));
        }
        // 10 + 16 + 16 + 16 = 58; the next 16 does not fit.
        assert_eq!(arena.chunks(), 2);
        assert_eq!(arena.reserved_bytes(), 2 * 64 + 17);
        assert_eq!(
            (&a[..], &b[..], &big[..]),
            (&[1; 10][..], &[2; 16][..], &[3; 17][..])
        );
    }
}
