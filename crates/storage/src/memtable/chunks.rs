//! A flat segment's cell storage: chunks frozen whole, each cell named by a packed location
//! (chunk id, offset, length) instead of a `Bytes` handle of its own (HBase's CellChunkMap).
//!
//! A skiplist segment's cells are split off the chunk being appended to, each its own frozen
//! `Bytes` (32 bytes a cell in the node): without `unsafe`, that is the only way to read a
//! chunk another thread still appends to. A flat segment never changes, so its cells are
//! copied into chunks of its own, in key order, and each chunk is frozen whole once full: one
//! `Bytes` a chunk, and a cell is 8 bytes of location. A merge of flat segments copies no
//! cell: the merged segment holds every input's chunks (a reference count each) and renumbers
//! the chunk ids of its entries.
//!
//! Location word: `chunk id (24 bits) | offset (20) | length (20)`. Cells above a quarter
//! chunk get a chunk of their own, named with length 0 (the whole chunk), so a chunk of up to
//! 1 MiB and a shared cell of up to 256 KiB fit; 2²⁴ chunks are far more than a memtable holds.

use bytes::{BufMut, Bytes, BytesMut};

use super::segment::Carried;

const OFFSET_BITS: u32 = 20;
const LEN_BITS: u32 = 20;
const CHUNK_SHIFT: u32 = OFFSET_BITS + LEN_BITS;

/// The largest chunk a flat segment takes (offsets have 20 bits).
pub(crate) const MAX_CHUNK_BYTES: usize = 1 << OFFSET_BITS;

/// The smallest: below it, cells of a few bytes would mostly get chunks of their own.
const MIN_CHUNK_BYTES: usize = 256;

/// Chunk ids a segment may use.
pub(crate) const MAX_CHUNKS: usize = 1 << (u64::BITS - CHUNK_SHIFT);

/// The chunk id in a location.
#[inline]
pub(crate) fn chunk_of(loc: u64) -> usize {
    (loc >> CHUNK_SHIFT) as usize
}

/// `loc` with its chunk id moved up by `base` (chunk lists concatenated in a merge).
/// Requires: the sum stays below [`MAX_CHUNKS`].
#[inline]
pub(crate) fn rebase(loc: u64, base: usize) -> u64 {
    loc + ((base as u64) << CHUNK_SHIFT)
}

/// The bytes `loc` names in `chunks` (empty if it names none).
#[inline]
pub(crate) fn cell_at(chunks: &[Bytes], loc: u64) -> &[u8] {
    let Some(chunk) = chunks.get(chunk_of(loc)) else {
        return &[];
    };
    let offset = ((loc >> LEN_BITS) & ((1 << OFFSET_BITS) - 1)) as usize;
    let len = (loc & ((1 << LEN_BITS) - 1)) as usize;
    if len == 0 {
        return chunk;
    }
    chunk.get(offset..offset + len).unwrap_or_default()
}

/// Copies cells into chunks frozen whole, handing out their locations.
pub(crate) struct ChunkWriter {
    chunk_size: usize,
    /// By id; the chunk being filled has an empty placeholder until it is frozen.
    chunks: Vec<Bytes>,
    /// The chunk being filled, and its id.
    current: BytesMut,
    open: Option<usize>,
    figures: Carried,
}

impl ChunkWriter {
    /// A writer filling chunks of `chunk_size` bytes (clamped to what a location can name).
    pub(crate) fn new(chunk_size: usize) -> ChunkWriter {
        ChunkWriter {
            chunk_size: chunk_size.clamp(MIN_CHUNK_BYTES, MAX_CHUNK_BYTES),
            chunks: Vec::new(),
            current: BytesMut::new(),
            open: None,
            figures: Carried::default(),
        }
    }

    /// Copies `cell` (its chunk layout) and returns its location, or `None` once the segment
    /// has used every chunk id.
    pub(crate) fn push(&mut self, cell: &[u8]) -> Option<u64> {
        if cell.len() > self.chunk_size / 4 {
            // A chunk of its own, named whole (length 0).
            let id = self.chunks.len();
            if id >= MAX_CHUNKS {
                return None;
            }
            self.chunks.push(Bytes::copy_from_slice(cell));
            self.figures.large_cells += 1;
            self.figures.reserved_bytes += cell.len() as u64;
            return Some((id as u64) << CHUNK_SHIFT);
        }
        let id = match self.open {
            Some(id) if self.chunk_size - self.current.len() >= cell.len() => id,
            _ => {
                self.freeze_open();
                let id = self.chunks.len();
                if id >= MAX_CHUNKS {
                    return None;
                }
                self.chunks.push(Bytes::new());
                self.current = BytesMut::with_capacity(self.chunk_size);
                self.open = Some(id);
                self.figures.chunks += 1;
                self.figures.reserved_bytes += self.chunk_size as u64;
                id
            }
        };
        let offset = self.current.len();
        self.current.put_slice(cell);
        Some((id as u64) << CHUNK_SHIFT | (offset as u64) << LEN_BITS | cell.len() as u64)
    }

    /// Freezes the chunk being filled into its slot.
    fn freeze_open(&mut self) {
        if let Some(id) = self.open.take() {
            self.chunks[id] = std::mem::take(&mut self.current).freeze();
        }
    }

    /// The chunks, indexed by id, and their figures.
    pub(crate) fn finish(mut self) -> (Vec<Bytes>, Carried) {
        self.freeze_open();
        (self.chunks, self.figures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_found_by_location_across_chunks_and_large_cells() {
        let mut w = ChunkWriter::new(256);
        let cells: Vec<Vec<u8>> = (0..200u32)
            .map(|i| vec![i as u8; 1 + (i as usize * 37) % 120])
            .collect();
        let locs: Vec<u64> = cells.iter().map(|c| w.push(c).expect("room")).collect();
        let (chunks, figures) = w.finish();
        for (cell, &loc) in cells.iter().zip(&locs) {
            assert_eq!(cell_at(&chunks, loc), &cell[..]);
        }
        assert!(figures.large_cells > 0 && figures.chunks > 1);
        let rebased = rebase(locs[5], 3);
        assert_eq!(chunk_of(rebased), chunk_of(locs[5]) + 3);
        assert_eq!(cell_at(&[], locs[0]), &[] as &[u8]);
    }
}
