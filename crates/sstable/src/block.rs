//! Block framing: every block on disk is its payload followed by a 10-byte block trailer.
//!
//! ```text
//! payload (compressed or raw) | block_type u8 | codec u8 | raw_len u32 LE | crc32c u32 LE
//! ```
//! The CRC32C covers the payload and the first six trailer bytes, so a flipped bit anywhere in
//! the block (type, codec and length included) is detected before anything is decoded.

use bytes::Bytes;
use strata_model::schema::Compression;

use crate::compression;
use crate::error::{Error, Result};
use crate::source::Source;
use crate::varint;

/// Bytes after each payload.
pub const BLOCK_TRAILER_LEN: usize = 10;

/// Largest raw (decompressed) block the reader accepts. Blocks grow past BLOCKSIZE only to
/// hold one large cell, and cells are limited far below this.
pub const MAX_RAW_BLOCK_LEN: usize = 256 << 20;

/// What a block holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BlockType {
    /// Cells, encoded then compressed.
    Data = 1,
    /// Entries pointing at data blocks.
    LeafIndex = 2,
    /// Entries pointing at index blocks.
    IntermediateIndex = 3,
    /// The top level of the block index, read when the file opens.
    RootIndex = 4,
    /// One chunk of the bloom filter.
    BloomChunk = 5,
    /// Bloom parameters and the index of its chunks.
    BloomIndex = 6,
    /// File metadata.
    FileInfo = 7,
}

impl BlockType {
    /// The type for a stored byte.
    pub fn from_u8(b: u8) -> Option<BlockType> {
        Some(match b {
            1 => BlockType::Data,
            2 => BlockType::LeafIndex,
            3 => BlockType::IntermediateIndex,
            4 => BlockType::RootIndex,
            5 => BlockType::BloomChunk,
            6 => BlockType::BloomIndex,
            7 => BlockType::FileInfo,
            _ => return None,
        })
    }

    /// A short name for tools.
    pub fn name(self) -> &'static str {
        match self {
            BlockType::Data => "data",
            BlockType::LeafIndex => "leaf-index",
            BlockType::IntermediateIndex => "intermediate-index",
            BlockType::RootIndex => "root-index",
            BlockType::BloomChunk => "bloom-chunk",
            BlockType::BloomIndex => "bloom-index",
            BlockType::FileInfo => "file-info",
        }
    }
}

/// Where a block is: the offset of its payload and the payload's length (trailer excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct BlockHandle {
    /// File offset of the payload.
    pub offset: u64,
    /// Payload bytes on disk (compressed size), without the block trailer.
    pub size: u32,
}

impl BlockHandle {
    /// Bytes the whole block takes on disk.
    pub fn disk_len(self) -> u64 {
        u64::from(self.size) + BLOCK_TRAILER_LEN as u64
    }

    /// Appends the handle as two varints.
    pub fn encode(self, out: &mut Vec<u8>) {
        varint::put_u64(out, self.offset);
        varint::put_u32(out, self.size);
    }

    /// Reads a handle written by [`BlockHandle::encode`].
    pub fn decode(buf: &[u8], pos: &mut usize) -> Option<BlockHandle> {
        Some(BlockHandle {
            offset: varint::get_u64(buf, pos)?,
            size: varint::get_u32(buf, pos)?,
        })
    }
}

/// Frames `raw` as a block of `block_type`, compressing it with `codec` unless that does not
/// save at least 1/8 (then the block is stored raw, and says so). Returns the bytes to append.
pub(crate) fn frame(block_type: BlockType, codec: Compression, raw: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    let mut used = codec;
    if codec != Compression::None {
        compression::compress(codec, raw, out);
        if out.len() - start > raw.len() - raw.len() / 8 {
            out.truncate(start);
            used = Compression::None;
        }
    }
    if used == Compression::None {
        out.extend_from_slice(raw);
    }
    out.push(block_type as u8);
    out.push(used.id());
    // The writer rejects cells that would make a block exceed MAX_RAW_BLOCK_LEN.
    out.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    let crc = crc32c::crc32c(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// A block as read from disk, checksum verified, payload still compressed.
#[derive(Clone, Debug)]
pub struct RawBlock {
    /// What the block holds.
    pub block_type: BlockType,
    /// How the payload is compressed.
    pub codec: Compression,
    /// Length after decompression.
    pub raw_len: usize,
    /// The payload as stored.
    pub payload: Bytes,
}

impl RawBlock {
    /// Decompresses the payload.
    ///
    /// # Errors
    /// Corruption naming `file` and the block offset when the payload does not decompress.
    pub fn decompress(&self, file: &str, offset: u64) -> Result<Bytes> {
        if self.codec == Compression::None {
            return Ok(self.payload.clone());
        }
        compression::decompress(self.codec, &self.payload, self.raw_len)
            .map(Bytes::from)
            .map_err(|reason| Error::corruption(file, offset, reason))
    }
}

/// Reads the block at `handle` and verifies its checksum and type.
///
/// # Errors
/// I/O errors, and corruption (checksum, unknown type or codec, wrong type, oversized length).
pub(crate) fn read(
    source: &dyn Source,
    file: &str,
    handle: BlockHandle,
    expected: BlockType,
) -> Result<RawBlock> {
    let bytes = source
        .read_at(handle.offset, handle.disk_len() as usize)
        .map_err(|e| read_error(file, handle, e))?;
    parse(bytes, file, handle, expected)
}

/// [`read`] if it waits for nothing ([`Source::read_at_nowait`]); `None` if it would.
pub(crate) fn read_nowait(
    source: &dyn Source,
    file: &str,
    handle: BlockHandle,
    expected: BlockType,
) -> Result<Option<RawBlock>> {
    match source.read_at_nowait(handle.offset, handle.disk_len() as usize) {
        Ok(Some(bytes)) => parse(bytes, file, handle, expected).map(Some),
        Ok(None) => Ok(None),
        Err(e) => Err(read_error(file, handle, e)),
    }
}

fn read_error(file: &str, handle: BlockHandle, e: std::io::Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::corruption(
            file,
            handle.offset,
            "block extends past the end of the file",
        ),
        _ => Error::io(file, e),
    }
}

/// Checks and splits one framed block (payload + trailer).
pub(crate) fn parse(
    bytes: Bytes,
    file: &str,
    handle: BlockHandle,
    expected: BlockType,
) -> Result<RawBlock> {
    let corrupt = |reason: &str| Error::corruption(file, handle.offset, reason);
    if bytes.len() != handle.disk_len() as usize {
        return Err(corrupt("short block read"));
    }
    let body = bytes.len() - 4;
    let stored = u32::from_le_bytes([
        bytes[body],
        bytes[body + 1],
        bytes[body + 2],
        bytes[body + 3],
    ]);
    if crc32c::crc32c(&bytes[..body]) != stored {
        return Err(corrupt("block checksum mismatch"));
    }
    let t = body - 6;
    let block_type = BlockType::from_u8(bytes[t]).ok_or_else(|| corrupt("unknown block type"))?;
    if block_type != expected {
        return Err(corrupt(&format!(
            "expected a {} block, found a {} block",
            expected.name(),
            block_type.name()
        )));
    }
    let codec = Compression::from_id(bytes[t + 1]).ok_or_else(|| corrupt("unknown codec"))?;
    let raw_len =
        u32::from_le_bytes([bytes[t + 2], bytes[t + 3], bytes[t + 4], bytes[t + 5]]) as usize;
    if raw_len > MAX_RAW_BLOCK_LEN {
        return Err(corrupt("block raw length too large"));
    }
    if codec == Compression::None && raw_len != t {
        return Err(corrupt("raw block length mismatch"));
    }
    Ok(RawBlock {
        block_type,
        codec,
        raw_len,
        payload: bytes.slice(..t),
    })
}
