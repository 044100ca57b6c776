//! Data-block encodings: how the cells of one data block are laid out before compression.
//!
//! Every encoding provides a streaming [`Encoder`] (cells arrive in store order) and a streaming
//! [`Decoder`] (a cursor over the encoded bytes). The byte layouts are in
//! `docs/format/sstable.md`. A store file holds one family, so no encoding stores the family.
//!
//! Decoders never trust their input: every length is bounds-checked and a malformed block is a
//! [`DecodeError`], never a panic. (Blocks are checksummed, so a decode error means a bug or a
//! crafted file.)

mod diff;
mod fast_diff;
pub(crate) mod none;
mod prefix;
mod row_index;

pub(crate) use row_index::check_row_starts;

use bytes::Bytes;
use strata_model::cell::{CellKey, CellType};
use strata_model::schema::DataBlockEncoding;

use crate::cell_ref::CellRef;

/// On-disk type code of a put that carries its own TTL (format version 2). It is not a
/// [`CellType`]: the cell is a [`CellType::Put`], and a TTL varint (ms) follows where its
/// sequence id goes (after it when both are present). Every encoding stores type codes in a
/// field that has room for it (a 3-bit `code >> 1` field holds it as 3, which no type uses).
pub(crate) const PUT_TTL_CODE: u8 = 6;

/// The type code `cell` is written with: [`PUT_TTL_CODE`] for a put with a TTL, else its
/// type's code. Delete markers never carry a TTL (a TTL on one is not written).
#[inline]
pub(crate) fn disk_code(cell: &CellRef<'_>) -> u8 {
    match (cell.cell_type, cell.ttl) {
        (CellType::Put, Some(_)) => PUT_TTL_CODE,
        (t, _) => t.code(),
    }
}

/// The type an on-disk code stands for, and whether a TTL varint follows; `None` for a code
/// that is neither a type nor [`PUT_TTL_CODE`].
#[inline]
pub(crate) fn type_of_disk_code(code: u8) -> Option<(CellType, bool)> {
    match code {
        4 => Some((CellType::Put, false)),
        PUT_TTL_CODE => Some((CellType::Put, true)),
        code => CellType::from_code(code).map(|t| (t, false)),
    }
}

/// Reads the TTL varint of a cell whose code said one follows.
#[inline]
pub(crate) fn read_ttl(
    has_ttl: bool,
    buf: &[u8],
    p: &mut usize,
    at: usize,
) -> Result<Option<u64>, DecodeError> {
    if !has_ttl {
        return Ok(None);
    }
    crate::varint::get_u64(buf, p)
        .map(Some)
        .ok_or(DecodeError::new(at, "bad cell TTL"))
}

/// A malformed encoded block: what is wrong and where, as an offset inside the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Offset inside the (decompressed) block where decoding failed.
    pub offset: usize,
    /// What was wrong.
    pub reason: &'static str,
}

impl DecodeError {
    pub(crate) fn new(offset: usize, reason: &'static str) -> DecodeError {
        DecodeError { offset, reason }
    }
}

/// Builds one data block at a time.
pub(crate) trait Encoder: Send {
    /// Appends a cell.
    ///
    /// Requires: cells arrive in store order within the block.
    fn add(&mut self, cell: &CellRef<'_>);

    /// Bytes the block would take if finished now.
    fn encoded_len(&self) -> usize;

    /// Cells added since the last finish.
    fn cell_count(&self) -> usize;

    /// Appends the finished block to `out` and resets for the next block.
    fn finish_into(&mut self, out: &mut Vec<u8>);
}

/// A cursor over one encoded block. It starts before the first cell.
pub(crate) trait Decoder: Send {
    /// Moves to the next cell; `Ok(false)` once past the last.
    ///
    /// # Errors
    /// The block is malformed.
    fn advance(&mut self) -> Result<bool, DecodeError>;

    /// The current cell.
    ///
    /// Requires: the last call to `advance` or `seek` returned `Ok(true)`.
    fn current(&self) -> CellRef<'_>;

    /// Positions on the first cell whose key is ≥ `target`; `Ok(false)` if there is none.
    /// May restart from the beginning of the block.
    ///
    /// # Errors
    /// The block is malformed.
    fn seek(&mut self, target: &CellKey) -> Result<bool, DecodeError> {
        self.reset();
        while self.advance()? {
            if self.current().cmp_key(target).is_ge() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Goes back to before the first cell.
    fn reset(&mut self);
}

/// A fresh encoder for `encoding`.
pub(crate) fn encoder(encoding: DataBlockEncoding) -> Box<dyn Encoder> {
    match encoding {
        DataBlockEncoding::None => Box::new(none::NoneEncoder::default()),
        DataBlockEncoding::Prefix => Box::new(prefix::PrefixEncoder::default()),
        DataBlockEncoding::Diff => Box::new(diff::DiffEncoder::default()),
        DataBlockEncoding::FastDiff => Box::new(fast_diff::FastDiffEncoder::default()),
        DataBlockEncoding::RowIndex => Box::new(row_index::RowIndexEncoder::default()),
    }
}

/// A decoder over `block` (decompressed bytes as the encoder wrote them).
///
/// # Errors
/// The block's header or footer is malformed.
pub(crate) fn decoder(
    encoding: DataBlockEncoding,
    block: Bytes,
) -> Result<Box<dyn Decoder>, DecodeError> {
    Ok(match encoding {
        DataBlockEncoding::None => Box::new(none::NoneDecoder::new(block)),
        DataBlockEncoding::Prefix => Box::new(prefix::PrefixDecoder::new(block)?),
        DataBlockEncoding::Diff => Box::new(diff::DiffDecoder::new(block)?),
        DataBlockEncoding::FastDiff => Box::new(fast_diff::FastDiffDecoder::new(block)?),
        DataBlockEncoding::RowIndex => Box::new(row_index::RowIndexDecoder::new(block)?),
    })
}

#[cfg(test)]
pub(crate) mod tests;
