//! A decoded data block: cells in the NONE layout plus the offset of each cell, so a cursor
//! can binary-search and walk both ways. This is the "decoded" cached form.

use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::{compare_keys, CellKey};
use strata_model::schema::DataBlockEncoding;

use crate::cell_ref::CellRef;
use crate::encoding::{self, none, DecodeError};

/// Cells of one block, each addressable by index.
#[derive(Debug)]
pub struct DecodedBlock {
    /// Cells in the NONE layout.
    data: Bytes,
    /// Start of each cell in `data`.
    offsets: Vec<u32>,
}

impl DecodedBlock {
    /// Decodes a whole block of `encoding`.
    ///
    /// # Errors
    /// The block is malformed.
    pub(crate) fn decode(encoding: DataBlockEncoding, block: Bytes) -> Result<Self, DecodeError> {
        let block = match encoding {
            DataBlockEncoding::None => block,
            // NONE-layout cells followed by the row index: index the cells in place.
            DataBlockEncoding::RowIndex => {
                let len = block.len();
                let n = block
                    .get(len.wrapping_sub(4)..)
                    .and_then(|b| b.try_into().ok())
                    .map(u32::from_le_bytes)
                    .ok_or(DecodeError::new(0, "row-index block too short"))?;
                let footer = (n as usize)
                    .checked_mul(4)
                    .and_then(|f| f.checked_add(4))
                    .filter(|f| *f <= len)
                    .ok_or(DecodeError::new(
                        len.saturating_sub(4),
                        "row count too large",
                    ))?;
                block.slice(..len - footer)
            }
            _ => return Self::decode_copy(encoding, block),
        };
        // Already in our layout: only index it (and validate every cell on the way).
        let mut offsets = Vec::new();
        let mut pos = 0;
        while pos < block.len() {
            offsets.push(pos as u32);
            pos = none::read_cell(&block, pos)?.1;
        }
        Ok(DecodedBlock {
            data: block,
            offsets,
        })
    }

    /// Decodes a delta-encoded block into a fresh buffer.
    fn decode_copy(encoding: DataBlockEncoding, block: Bytes) -> Result<Self, DecodeError> {
        let mut decoder = encoding::decoder(encoding, block.clone())?;
        let mut data = Vec::with_capacity(block.len() * 2);
        let mut offsets = Vec::new();
        while decoder.advance()? {
            offsets.push(data.len() as u32);
            none::write_cell(&mut data, &decoder.current());
        }
        Ok(DecodedBlock {
            data: Bytes::from(data),
            offsets,
        })
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// True when the block has no cells.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Bytes held in memory (for cache weighting).
    pub fn memory_size(&self) -> usize {
        self.data.len() + self.offsets.len() * 4 + std::mem::size_of::<Self>()
    }

    /// The cell at `index`.
    ///
    /// Requires: `index < self.len()`. Every cell was validated when the block was decoded.
    #[inline]
    pub fn cell(&self, index: usize) -> CellRef<'_> {
        match none::read_cell(&self.data, self.offsets[index] as usize) {
            Ok((cell, _)) => cell,
            Err(_) => unreachable!("cells of a decoded block were validated"),
        }
    }

    /// Index of the first cell with key ≥ `target` (`len()` if none).
    pub fn lower_bound(&self, target: &CellKey) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if compare_keys(self.cell(mid).key_parts(), target.parts()).is_lt() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Index of the first cell with key > `target` (`len()` if none).
    pub fn upper_bound(&self, target: &CellKey) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if compare_keys(self.cell(mid).key_parts(), target.parts()).is_le() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// A cursor over a shared decoded block.
#[derive(Clone)]
pub(crate) struct DecodedCursor {
    block: Arc<DecodedBlock>,
    /// Current cell; `len()` or `usize::MAX` when off either end.
    index: usize,
}

impl DecodedCursor {
    pub(crate) fn new(block: Arc<DecodedBlock>) -> Self {
        DecodedCursor { block, index: 0 }
    }

    #[inline]
    pub(crate) fn valid(&self) -> bool {
        self.index < self.block.len()
    }

    #[inline]
    pub(crate) fn current(&self) -> CellRef<'_> {
        self.block.cell(self.index)
    }

    pub(crate) fn set_index(&mut self, index: usize) {
        self.index = index;
    }

    pub(crate) fn block(&self) -> &Arc<DecodedBlock> {
        &self.block
    }

    /// Steps forward; false when past the end.
    #[inline]
    pub(crate) fn next(&mut self) -> bool {
        if self.index < self.block.len() {
            self.index += 1;
        }
        self.valid()
    }

    /// Steps back; false when before the start.
    pub(crate) fn prev(&mut self) -> bool {
        if self.index == 0 || self.index == usize::MAX {
            self.index = usize::MAX;
            return false;
        }
        self.index -= 1;
        true
    }
}
