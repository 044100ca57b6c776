//! Builds one index block.

use strata_model::cell::CellKey;

use crate::block::BlockHandle;
use crate::key_codec;

/// Accumulates entries of one index block.
#[derive(Default)]
pub(crate) struct IndexBuilder {
    entries: Vec<u8>,
    offsets: Vec<u32>,
    first_key: Option<CellKey>,
}

impl IndexBuilder {
    /// Appends an entry.
    ///
    /// Requires: keys strictly increase.
    pub(crate) fn add(&mut self, key: &CellKey, handle: BlockHandle) {
        if self.first_key.is_none() {
            self.first_key = Some(key.clone());
        }
        self.offsets.push(self.entries.len() as u32);
        key_codec::put_key(&mut self.entries, key);
        handle.encode(&mut self.entries);
    }

    /// Bytes the block would take if finished now.
    pub(crate) fn size(&self) -> usize {
        self.entries.len() + self.offsets.len() * 4 + 4
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len()
    }

    /// The first entry's key.
    pub(crate) fn first_key(&self) -> Option<&CellKey> {
        self.first_key.as_ref()
    }

    /// Serializes the block and resets the builder.
    pub(crate) fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.entries);
        for off in &self.offsets {
            out.extend_from_slice(&off.to_le_bytes());
        }
        out.extend_from_slice(&(self.offsets.len() as u32).to_le_bytes());
        self.offsets.clear();
        self.first_key = None;
        out
    }
}
