//! The fixed 64-byte trailer at the end of every store file.
//!
//! ```text
//!  0  file_info    offset u64 LE | size u32 LE
//! 12  root_index   offset u64 LE | size u32 LE
//! 24  bloom_index  offset u64 LE | size u32 LE   (all zero: no bloom filter)
//! 36  index_levels u8                            (1 = the root points at data blocks)
//! 37  encoding u8 | 38 compression u8 | 39 reserved u8 (0)
//! 40  data_end u64 LE                            (end of the data section)
//! 48  format_version u32 LE
//! 52  crc32c u32 LE of bytes 0..52
//! 56  magic "STRATSST"
//! ```

use strata_model::schema::{Compression, DataBlockEncoding};

use crate::block::BlockHandle;
use crate::index::MAX_INDEX_LEVELS;

/// Trailer length.
pub const TRAILER_LEN: usize = 64;
/// Last eight bytes of every store file.
pub const MAGIC: &[u8; 8] = b"STRATSST";
/// The newest format this crate writes and reads: version 2 adds puts that carry their own TTL
/// (type code 6 in every data-block encoding). A file without such a cell is written as
/// [`FORMAT_VERSION_1`], byte for byte what earlier releases wrote and read.
pub const FORMAT_VERSION: u32 = 2;
/// The first format version, still written for files without per-cell TTLs.
pub const FORMAT_VERSION_1: u32 = 1;

/// The parsed trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trailer {
    /// Where the file info block is.
    pub file_info: BlockHandle,
    /// Where the root index block is.
    pub root_index: BlockHandle,
    /// Where the bloom index block is, if the file has a bloom filter.
    pub bloom_index: Option<BlockHandle>,
    /// Levels of the block index (1 = root only).
    pub index_levels: u8,
    /// Data-block encoding.
    pub encoding: DataBlockEncoding,
    /// Data-block compression.
    pub compression: Compression,
    /// End of the data section.
    pub data_end: u64,
    /// Format version.
    pub format_version: u32,
}

fn put_handle(out: &mut Vec<u8>, h: BlockHandle) {
    out.extend_from_slice(&h.offset.to_le_bytes());
    out.extend_from_slice(&h.size.to_le_bytes());
}

fn get_handle(b: &[u8]) -> BlockHandle {
    let mut o = [0u8; 8];
    o.copy_from_slice(&b[..8]);
    BlockHandle {
        offset: u64::from_le_bytes(o),
        size: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
    }
}

impl Trailer {
    /// Serializes to exactly [`TRAILER_LEN`] bytes.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TRAILER_LEN);
        put_handle(&mut out, self.file_info);
        put_handle(&mut out, self.root_index);
        put_handle(&mut out, self.bloom_index.unwrap_or_default());
        out.push(self.index_levels);
        out.push(self.encoding.id());
        out.push(self.compression.id());
        out.push(0);
        out.extend_from_slice(&self.data_end.to_le_bytes());
        out.extend_from_slice(&self.format_version.to_le_bytes());
        let crc = crc32c::crc32c(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(MAGIC);
        out
    }

    /// Parses the last [`TRAILER_LEN`] bytes of a file of `file_len` bytes.
    ///
    /// # Errors
    /// A reason when the magic, checksum, version or a field is wrong.
    pub(crate) fn decode(b: &[u8], file_len: u64) -> Result<Trailer, String> {
        if b.len() != TRAILER_LEN {
            return Err("file too short for a trailer".to_owned());
        }
        if &b[56..64] != MAGIC {
            return Err("bad magic: not a Strata store file, or truncated".to_owned());
        }
        let crc = u32::from_le_bytes([b[52], b[53], b[54], b[55]]);
        if crc32c::crc32c(&b[..52]) != crc {
            return Err("trailer checksum mismatch".to_owned());
        }
        let format_version = u32::from_le_bytes([b[48], b[49], b[50], b[51]]);
        if !(FORMAT_VERSION_1..=FORMAT_VERSION).contains(&format_version) {
            return Err(format!(
                "unsupported format version {format_version} \
                 (this build reads {FORMAT_VERSION_1} to {FORMAT_VERSION})"
            ));
        }
        let bloom = get_handle(&b[24..36]);
        let mut d = [0u8; 8];
        d.copy_from_slice(&b[40..48]);
        let t = Trailer {
            file_info: get_handle(&b[0..12]),
            root_index: get_handle(&b[12..24]),
            bloom_index: (bloom != BlockHandle::default()).then_some(bloom),
            index_levels: b[36],
            encoding: DataBlockEncoding::from_id(b[37]).ok_or("unknown encoding")?,
            compression: Compression::from_id(b[38]).ok_or("unknown compression")?,
            data_end: u64::from_le_bytes(d),
            format_version,
        };
        if t.index_levels == 0 || t.index_levels > MAX_INDEX_LEVELS {
            return Err(format!("bad index level count {}", t.index_levels));
        }
        let body_end = file_len - TRAILER_LEN as u64;
        let handles = [Some(t.file_info), Some(t.root_index), t.bloom_index];
        for h in handles.into_iter().flatten() {
            if h.offset
                .checked_add(h.disk_len())
                .is_none_or(|end| end > body_end)
            {
                return Err("a trailer handle points past the end of the file".to_owned());
            }
        }
        if t.data_end > body_end {
            return Err("data section ends past the end of the file".to_owned());
        }
        Ok(t)
    }
}
