//! The multi-level block index.
//!
//! Every index block (root, intermediate, leaf) has the same layout:
//! ```text
//! entry* | entry_offset u32 LE × n | n u32 LE
//! entry = key (key_codec layout) | child offset varint | child size varint
//! ```
//! The key of an entry is a separator: greater than every key of the previous child and at most
//! the first key of its own child (data-block separators are shortened, see [`separator`]).
//! A search for `target` follows the last entry whose key is ≤ `target` (or the first entry).

mod builder;
mod cursor;
pub(crate) mod separator;

pub(crate) use builder::IndexBuilder;
pub(crate) use cursor::{IndexCursor, IndexLoader};

use bytes::Bytes;
use strata_model::cell::{compare_keys, CellKey};

use crate::block::BlockHandle;
use crate::dense_key;
use crate::key_codec::{self, KeyView};

/// Most levels a file may declare (a 64 KiB index block holds ~1000 entries, so 4 levels
/// address 10^12 data blocks).
pub const MAX_INDEX_LEVELS: u8 = 8;

/// One parsed index block; every entry was validated when it was parsed.
#[derive(Debug)]
pub struct IndexBlock {
    data: Bytes,
    offsets: Vec<u32>,
    /// The bytes every entry's row starts with (the common prefix of the first and last).
    prefix: Bytes,
    /// Per entry, the dense key of its row after `prefix` (see [`dense_key`]): a search reads
    /// these instead of decoding an entry per step.
    row_keys: Vec<u64>,
}

impl IndexBlock {
    /// Parses and validates an index block.
    ///
    /// # Errors
    /// A static reason when the layout is malformed.
    pub(crate) fn parse(data: Bytes) -> Result<IndexBlock, &'static str> {
        let len = data.len();
        if len < 4 {
            return Err("index block too short");
        }
        let n = u32::from_le_bytes([data[len - 4], data[len - 3], data[len - 2], data[len - 1]])
            as usize;
        let table = n
            .checked_mul(4)
            .and_then(|t| t.checked_add(4))
            .filter(|t| *t <= len)
            .ok_or("index entry count too large")?;
        let entries_end = len - table;
        let mut offsets = Vec::with_capacity(n);
        let mut expected = 0usize;
        for i in 0..n {
            let at = entries_end + i * 4;
            let off =
                u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]) as usize;
            // Entries are contiguous and in order.
            if off != expected {
                return Err("index entry offsets out of order");
            }
            let mut pos = off;
            let key = key_codec::get_key(&data[..entries_end], &mut pos).ok_or("bad index key")?;
            BlockHandle::decode(&data[..entries_end], &mut pos).ok_or("bad index handle")?;
            if i > 0 {
                let prev = Self::entry_at(&data[..entries_end], offsets[i - 1] as usize)
                    .ok_or("bad index entry")?;
                if compare_keys(prev.0.parts(), key.parts()).is_ge() {
                    return Err("index keys out of order");
                }
            }
            offsets.push(off as u32);
            expected = pos;
        }
        if expected != entries_end {
            return Err("index block has trailing bytes");
        }
        let mut block = IndexBlock {
            data,
            offsets,
            prefix: Bytes::new(),
            row_keys: Vec::new(),
        };
        if let (Some(first), Some(last)) = (block.offsets.first(), block.offsets.last()) {
            let (first, last) = (*first as usize, *last as usize);
            let (first, last) = (block.entry_row(first), block.entry_row(last));
            let p = dense_key::common_prefix(first, last);
            let start = first.as_ptr() as usize - block.data.as_ptr() as usize;
            let prefix = block.data.slice(start..start + p);
            block.row_keys = (0..block.len())
                .map(|i| dense_key::key(&block.entry_key(i).row[p..]))
                .collect();
            block.prefix = prefix;
        }
        Ok(block)
    }

    /// The row of the entry at `off`.
    ///
    /// Requires: an entry validated by `parse` starts at `off`.
    fn entry_row(&self, off: usize) -> &[u8] {
        let mut pos = off;
        match key_codec::get_key(&self.data, &mut pos) {
            Some(k) => k.row,
            None => unreachable!("index entries were validated by parse"),
        }
    }

    fn entry_at(buf: &[u8], off: usize) -> Option<(KeyView<'_>, BlockHandle)> {
        let mut pos = off;
        let key = key_codec::get_key(buf, &mut pos)?;
        let handle = BlockHandle::decode(buf, &mut pos)?;
        Some((key, handle))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// True when there are no entries (only the root of an empty file).
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Bytes held in memory (for cache weighting).
    pub fn memory_size(&self) -> usize {
        self.data.len()
            + self.offsets.len() * 4
            + self.row_keys.len() * 8
            + std::mem::size_of::<Self>()
    }

    /// Entry `i`: its separator key and the child's handle.
    ///
    /// Requires: `i < self.len()`.
    pub(crate) fn entry(&self, i: usize) -> (KeyView<'_>, BlockHandle) {
        match Self::entry_at(&self.data, self.offsets[i] as usize) {
            Some(e) => e,
            None => unreachable!("index entries were validated by parse"),
        }
    }

    /// Entry `i`'s separator key alone (a search step need not decode the handle).
    ///
    /// Requires: `i < self.len()`.
    #[inline]
    fn entry_key(&self, i: usize) -> KeyView<'_> {
        let mut pos = self.offsets[i] as usize;
        match key_codec::get_key(&self.data, &mut pos) {
            Some(k) => k,
            None => unreachable!("index entries were validated by parse"),
        }
    }

    /// Entry `i`'s key, owned.
    pub fn key(&self, i: usize) -> CellKey {
        self.entry(i).0.to_key()
    }

    /// Entry `i`'s child handle.
    pub fn handle(&self, i: usize) -> BlockHandle {
        self.entry(i).1
    }

    /// The entry to follow for `target`: the last whose key is ≤ `target`, or 0.
    ///
    /// Requires: the block is not empty.
    pub(crate) fn find(&self, target: &CellKey) -> usize {
        // Entries before `lo` have smaller rows (so keys ≤ target), entries from `hi` larger.
        let (mut lo, mut hi) = dense_key::span(&self.row_keys, &self.prefix, &target.row);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if compare_keys(self.entry_key(mid).parts(), target.parts()).is_le() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo.saturating_sub(1)
    }
}

#[cfg(test)]
mod tests;
