//! Building a flat index by copying cells, in store order, into chunks of its own: a flatten
//! of a skiplist segment, and the survivors of an eager copy-compaction.
//!
//! One pass over the keys reads each cell once (its bytes are in an arena chunk: a cache miss,
//! most of the cost) and gets everything from it: the copy, the entry, the dense key, the
//! column runs and the figures. Cells land in key order, so a scan of the flat segment reads
//! its chunks front to back.

use super::chunks::ChunkWriter;
use super::flat::{common_prefix, dense, Entry, FlatIndex, Runs};
use super::key::KeyRef;
use super::segment::{Carried, Sums};
use super::skiplist::{SkipList, HEAD};

/// A built flat index, its figures (cells, bytes, sequence ids) and its chunks'.
pub(crate) struct FlatParts {
    pub(crate) index: FlatIndex,
    pub(crate) sums: Sums,
    pub(crate) figures: Carried,
}

/// Copies keys, in store order, into a new flat index.
pub(crate) struct FlatBuilder<'a> {
    writer: ChunkWriter,
    entries: Vec<Entry>,
    dense: Vec<u64>,
    runs: Runs<'a>,
    sums: Sums,
    shared: usize,
}

impl<'a> FlatBuilder<'a> {
    /// A builder for about `keys` keys whose rows all start with the first one's first
    /// `shared` bytes, copying cells into `chunk_size`-byte chunks.
    pub(crate) fn new(chunk_size: usize, shared: usize, keys: usize) -> FlatBuilder<'a> {
        FlatBuilder {
            writer: ChunkWriter::new(chunk_size),
            entries: Vec::with_capacity(keys),
            dense: Vec::with_capacity(keys),
            runs: Runs::with_capacity(keys),
            sums: Sums::default(),
            shared,
        }
    }

    /// Copies the next key's cell. False when the index has no chunk id left (it cannot
    /// take the key; the build should be given up).
    pub(crate) fn push(&mut self, key: KeyRef<'a>) -> bool {
        let Some(loc) = self.writer.push(key.data()) else {
            return false;
        };
        let cell = key.cell();
        self.runs.push(cell.row, cell.qualifier);
        self.sums.add_cell(&cell, key.stored_len());
        self.dense.push(dense(cell.row, self.shared));
        self.entries.push(Entry {
            loc,
            tag: key.tag(),
        });
        true
    }

    /// The index and its figures.
    pub(crate) fn finish(self) -> FlatParts {
        let (chunks, figures) = self.writer.finish();
        let run_end = self.runs.finish();
        FlatParts {
            index: FlatIndex::from_parts(chunks, self.entries, self.shared, self.dense, run_end),
            sums: self.sums,
            figures,
        }
    }
}

/// The length of the row prefix shared by the rows of `first` and `last` (the first and last
/// keys of a run in store order: every key between shares it).
pub(crate) fn shared_between(first: Option<KeyRef<'_>>, last: Option<KeyRef<'_>>) -> usize {
    match (first, last) {
        (Some(a), Some(b)) => common_prefix(a.row_bytes(), b.row_bytes()),
        _ => 0,
    }
}

/// A flat copy of the keys of a skiplist (sealed: no insert runs), its dense keys over
/// `shared` row bytes (at most its own first and last rows' common prefix). `None` when the
/// copy ran out of chunk ids.
pub(crate) fn flatten_list(
    list: &SkipList,
    shared: usize,
    chunk_size: usize,
    cells: usize,
) -> Option<FlatParts> {
    let mut builder = FlatBuilder::new(chunk_size, shared, cells);
    let mut id = list.successor(HEAD);
    while let Some(key) = list.key(id) {
        if !builder.push(key.as_ref()) {
            return None;
        }
        id = list.successor(id);
    }
    Some(builder.finish())
}
