//! An ordered cursor over a store file, forward and backward, with seeks.

use bytes::Bytes;
use strata_model::cell::{Cell, CellKey};

use super::blocks::DataBlock;
use super::Reader;
use crate::cell_ref::CellRef;
use crate::decoded::DecodedCursor;
use crate::encoding::{self, DecodeError, Decoder};
use crate::error::{Error, Result};
use crate::index::IndexCursor;

/// The cursor inside the current data block.
enum BlockIter {
    /// Random access over a decoded block (backward moves need it).
    Decoded(DecodedCursor),
    /// Streaming over an encoded block: decoding cost is paid only for cells visited.
    Stream {
        decoder: Box<dyn Decoder>,
        bytes: Bytes,
        valid: bool,
    },
}

impl BlockIter {
    fn valid(&self) -> bool {
        match self {
            BlockIter::Decoded(c) => c.valid(),
            BlockIter::Stream { valid, .. } => *valid,
        }
    }
}

/// A cursor over the cells of one file, in store order.
///
/// Moves return `Ok(true)` when positioned on a cell, `Ok(false)` when past either end. After
/// an error the iterator is unpositioned. Reads only the blocks it visits.
pub struct Iter {
    reader: Reader,
    index: IndexCursor,
    block: Option<BlockIter>,
    /// Whether data blocks read from the source go into the block cache.
    fill_cache: bool,
    /// The sequence id every cell is read with, whatever the file holds (a bulk-loaded
    /// file's: see [`Iter::with_assigned_seq`]).
    assigned_seq: Option<u64>,
}

impl Iter {
    pub(crate) fn new(reader: Reader, fill_cache: bool) -> Iter {
        let index = IndexCursor::new(reader.inner.root.clone(), reader.inner.trailer.index_levels);
        Iter {
            reader,
            index,
            block: None,
            fill_cache,
            assigned_seq: None,
        }
    }

    /// Reads every cell with sequence id `seq`, as HBase's `StoreFileScanner` reads a
    /// bulk-loaded file: the file was written outside the region, and the region gave the
    /// load one sequence id, which orders its cells against the region's own writes.
    /// Positioning still compares the file's own keys; a file holds one cell per key in
    /// practice, so seeks land where they would with the assigned id.
    pub fn with_assigned_seq(mut self, seq: u64) -> Iter {
        self.assigned_seq = Some(seq);
        self
    }

    /// True when positioned on a cell.
    #[inline]
    pub fn valid(&self) -> bool {
        self.block.as_ref().is_some_and(BlockIter::valid)
    }

    /// The current cell.
    ///
    /// # Panics
    /// When not [`valid`](Iter::valid).
    #[inline]
    pub fn current(&self) -> CellRef<'_> {
        let mut cell = match &self.block {
            Some(BlockIter::Decoded(c)) if c.valid() => c.current(),
            Some(BlockIter::Stream {
                decoder,
                valid: true,
                ..
            }) => decoder.current(),
            _ => panic!("Iter::current on an unpositioned iterator"),
        };
        if let Some(seq) = self.assigned_seq {
            cell.seq = seq;
        }
        cell
    }

    /// The current cell, copied out with the file's family.
    ///
    /// # Panics
    /// When not [`valid`](Iter::valid).
    pub fn current_cell(&self) -> Cell {
        self.current().to_cell(&self.reader.inner.info.family)
    }

    fn corruption(&self, e: DecodeError) -> Error {
        let offset = if self.index.valid() {
            self.index.handle().offset
        } else {
            0
        };
        Error::corruption(
            &self.reader.inner.name,
            offset,
            format!(
                "{} (at byte {} of the decompressed block)",
                e.reason, e.offset
            ),
        )
    }

    /// Wraps a move so that an error leaves the iterator unpositioned.
    fn guard(&mut self, r: Result<bool>) -> Result<bool> {
        if r.is_err() {
            self.block = None;
        }
        r
    }

    fn load(&mut self, want_decoded: bool) -> Result<()> {
        let handle = self.index.handle();
        self.block = None;
        let block = self
            .reader
            .inner
            .data_block(handle, want_decoded, self.fill_cache)?;
        self.block = Some(match block {
            DataBlock::Decoded(b) => BlockIter::Decoded(DecodedCursor::new(b)),
            DataBlock::Encoded(bytes) => {
                let decoder = encoding::decoder(self.reader.inner.info.encoding, bytes.clone())
                    .map_err(|e| self.corruption(e))?;
                BlockIter::Stream {
                    decoder,
                    bytes,
                    valid: false,
                }
            }
        });
        Ok(())
    }

    /// Positions on the first cell of the loaded block.
    fn block_first(&mut self) -> Result<bool> {
        let r = match &mut self.block {
            Some(BlockIter::Decoded(c)) => {
                c.set_index(0);
                Ok(c.valid())
            }
            Some(BlockIter::Stream { decoder, valid, .. }) => {
                decoder.reset();
                let r = decoder.advance();
                *valid = matches!(r, Ok(true));
                r
            }
            None => Ok(false),
        };
        r.map_err(|e| self.corruption(e))
    }

    /// Positions on the last cell of the loaded (decoded) block.
    fn block_last(&mut self) -> bool {
        match &mut self.block {
            Some(BlockIter::Decoded(c)) => {
                let n = c.block().len();
                c.set_index(if n == 0 { usize::MAX } else { n - 1 });
                c.valid()
            }
            _ => false,
        }
    }

    /// From the current block on, finds the first block with a cell.
    fn forward_from_block(&mut self, mut positioned: bool) -> Result<bool> {
        while !positioned {
            if !self.index.next(self.reader.inner.as_ref())? {
                self.block = None;
                return Ok(false);
            }
            self.load(false)?;
            positioned = self.block_first()?;
        }
        Ok(true)
    }

    /// From the current block back, finds the last block with a cell.
    fn backward_from_block(&mut self, mut positioned: bool) -> Result<bool> {
        while !positioned {
            if !self.index.prev(self.reader.inner.as_ref())? {
                self.block = None;
                return Ok(false);
            }
            self.load(true)?;
            positioned = self.block_last();
        }
        Ok(true)
    }

    /// Positions on the first cell of the file.
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn seek_to_first(&mut self) -> Result<bool> {
        let r = self.seek_to_first_inner();
        self.guard(r)
    }

    fn seek_to_first_inner(&mut self) -> Result<bool> {
        if !self.index.first(self.reader.inner.as_ref())? {
            self.block = None;
            return Ok(false);
        }
        self.load(false)?;
        let positioned = self.block_first()?;
        self.forward_from_block(positioned)
    }

    /// Positions on the last cell of the file.
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn seek_to_last(&mut self) -> Result<bool> {
        let r = self.seek_to_last_inner();
        self.guard(r)
    }

    fn seek_to_last_inner(&mut self) -> Result<bool> {
        if !self.index.last(self.reader.inner.as_ref())? {
            self.block = None;
            return Ok(false);
        }
        self.load(true)?;
        let positioned = self.block_last();
        self.backward_from_block(positioned)
    }

    /// Positions on the first cell with key ≥ `target`.
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn seek(&mut self, target: &CellKey) -> Result<bool> {
        let r = self.seek_inner(target);
        self.guard(r)
    }

    fn seek_inner(&mut self, target: &CellKey) -> Result<bool> {
        if !self.index.seek(self.reader.inner.as_ref(), target)? {
            self.block = None;
            return Ok(false);
        }
        self.load(false)?;
        let r = match &mut self.block {
            Some(BlockIter::Decoded(c)) => {
                let i = c.block().lower_bound(target);
                c.set_index(i);
                Ok(c.valid())
            }
            Some(BlockIter::Stream { decoder, valid, .. }) => {
                let r = decoder.seek(target);
                *valid = matches!(r, Ok(true));
                r
            }
            None => Ok(false),
        };
        let positioned = r.map_err(|e| self.corruption(e))?;
        self.forward_from_block(positioned)
    }

    /// Positions on the first cell with key ≥ `target`, for a target at or after the current
    /// cell of an iterator moving forward: within the current decoded block when its last
    /// cell reaches the target (no index search, no block-cache lookup), else as
    /// [`Iter::seek`].
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn reseek(&mut self, target: &CellKey) -> Result<bool> {
        if let Some(BlockIter::Decoded(c)) = &mut self.block {
            if c.valid() {
                if c.current().cmp_key(target).is_ge() {
                    return Ok(true);
                }
                let block = c.block();
                if block.cell(block.len() - 1).cmp_key(target).is_ge() {
                    // Every cell up to the current one is below the target.
                    let i = block.lower_bound_from(c.index() + 1, target);
                    c.set_index(i);
                    return Ok(true);
                }
            }
        }
        self.seek(target)
    }

    /// Positions on the last cell with key ≤ `target`.
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn seek_for_prev(&mut self, target: &CellKey) -> Result<bool> {
        let r = self.seek_for_prev_inner(target);
        self.guard(r)
    }

    fn seek_for_prev_inner(&mut self, target: &CellKey) -> Result<bool> {
        if !self.index.seek(self.reader.inner.as_ref(), target)? {
            self.block = None;
            return Ok(false);
        }
        self.load(true)?;
        let positioned = match &mut self.block {
            Some(BlockIter::Decoded(c)) => {
                let i = c.block().upper_bound(target);
                c.set_index(i.checked_sub(1).unwrap_or(usize::MAX));
                c.valid()
            }
            _ => false,
        };
        self.backward_from_block(positioned)
    }

    /// Moves to the next cell.
    ///
    /// # Errors
    /// I/O or corruption.
    #[expect(
        clippy::should_implement_trait,
        reason = "a cursor: cells borrow the iterator, so std's Iterator cannot hand them out"
    )]
    #[inline]
    pub fn next(&mut self) -> Result<bool> {
        // Fast path: the next cell is in the same decoded block.
        match &mut self.block {
            Some(BlockIter::Decoded(c)) => {
                if c.next() {
                    return Ok(true);
                }
            }
            Some(BlockIter::Stream { decoder, valid, .. }) => {
                let r = decoder.advance();
                if let Ok(true) = r {
                    return Ok(true);
                }
                *valid = false;
                let r = r
                    .map_err(|e| self.corruption(e))
                    .and_then(|_| self.forward_from_block(false));
                return self.guard(r);
            }
            None => return Ok(false),
        }
        let r = self.next_inner();
        self.guard(r)
    }

    fn next_inner(&mut self) -> Result<bool> {
        let r = match &mut self.block {
            Some(BlockIter::Decoded(c)) => Ok(c.next()),
            Some(BlockIter::Stream { decoder, valid, .. }) => {
                let r = decoder.advance();
                *valid = matches!(r, Ok(true));
                r
            }
            None => return Ok(false),
        };
        let positioned = r.map_err(|e| self.corruption(e))?;
        self.forward_from_block(positioned)
    }

    /// Moves to the previous cell.
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn prev(&mut self) -> Result<bool> {
        let r = self.prev_inner();
        self.guard(r)
    }

    fn prev_inner(&mut self) -> Result<bool> {
        if let Some(BlockIter::Stream {
            decoder,
            bytes,
            valid,
        }) = &self.block
        {
            // Backward moves need random access: decode the whole block and find our place.
            if !*valid {
                self.block = None;
                return Ok(false);
            }
            let key = decoder.current().to_key();
            let handle = self.index.handle();
            let decoded = self.reader.inner.decode(handle, bytes.clone())?;
            let i = decoded.lower_bound(&key);
            let mut c = DecodedCursor::new(std::sync::Arc::new(decoded));
            c.set_index(i);
            self.block = Some(BlockIter::Decoded(c));
        }
        let positioned = match &mut self.block {
            Some(BlockIter::Decoded(c)) => c.prev(),
            _ => return Ok(false),
        };
        self.backward_from_block(positioned)
    }
}
