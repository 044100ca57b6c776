//! Bloom filters, written in chunks that each cover a key range.
//!
//! Keys (see [`BloomKey`]): `ROW` adds the row, `ROWCOL` the (row, qualifier) pair, and
//! `ROWPREFIX_FIXED_LENGTH(n)` the first `n` bytes of the row. Cells arrive in store order, so the
//! keys arrive sorted; consecutive duplicates are added once. A chunk is closed when it holds
//! `keys_per_chunk` keys, and the bloom index records each chunk's first key, so a lookup loads
//! only the one chunk whose range covers the key.
//!
//! Family delete markers (DeleteFamily, DeleteFamilyVersion) carry an empty qualifier, so under
//! `ROWCOL` they land on (row, ""). A reader asking about (row, q) in a file with family deletes
//! must also ask about (row, "") — [`crate::Reader::may_contain_column`] does.

mod chunk;
mod index;

pub(crate) use chunk::{BloomChunk, ChunkBuilder};
pub(crate) use index::{BloomIndex, BloomIndexBuilder, ChunkEntry};

use strata_model::schema::BloomType;
use xxhash_rust::xxh3::xxh3_64;

/// Target bytes of one bloom chunk's bit array (HBase's `io.storefile.bloom.block.size`).
pub const CHUNK_BYTES: usize = 128 * 1024;

/// Bits per key for a false-positive rate `p` with the optimal number of hashes.
pub fn bits_per_key(p: f64) -> f64 {
    -p.ln() / (std::f64::consts::LN_2 * std::f64::consts::LN_2)
}

/// Keys per chunk so that a full chunk is about [`CHUNK_BYTES`].
pub fn keys_per_chunk(p: f64) -> usize {
    ((CHUNK_BYTES * 8) as f64 / bits_per_key(p)).max(1.0) as usize
}

/// The bloom key of a cell, as a (row part, qualifier part) pair that sorts in key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BloomKey<'a> {
    /// The row, or its prefix.
    pub row: &'a [u8],
    /// The qualifier for `ROWCOL`, else empty.
    pub qualifier: &'a [u8],
}

impl<'a> BloomKey<'a> {
    /// The key `bloom` stores for a cell of (`row`, `qualifier`); `None` for `BloomType::None`.
    pub fn of(bloom: BloomType, row: &'a [u8], qualifier: &'a [u8]) -> Option<BloomKey<'a>> {
        match bloom {
            BloomType::None => None,
            BloomType::Row => Some(BloomKey {
                row,
                qualifier: &[],
            }),
            BloomType::RowCol => Some(BloomKey { row, qualifier }),
            BloomType::RowPrefixFixedLength(n) => Some(BloomKey {
                row: &row[..row.len().min(n as usize)],
                qualifier: &[],
            }),
        }
    }

    /// The 64-bit hash the filter probes with. The row length is mixed in so that
    /// ("ab", "c") and ("a", "bc") differ.
    pub fn hash(&self) -> u64 {
        if self.qualifier.is_empty() {
            return xxh3_64(self.row);
        }
        let mut buf = Vec::with_capacity(self.row.len() + self.qualifier.len() + 4);
        buf.extend_from_slice(&(self.row.len() as u32).to_le_bytes());
        buf.extend_from_slice(self.row);
        buf.extend_from_slice(self.qualifier);
        xxh3_64(&buf)
    }
}

#[cfg(test)]
mod tests;
