//! Memtable figures and errors.

/// Figures of a memtable or a flush snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cells held.
    pub cells: u64,
    /// Row, qualifier and value bytes of those cells.
    pub data_bytes: u64,
    /// Memory per cell beyond `data_bytes`: index nodes, upper links and length headers.
    pub index_bytes: u64,
    /// Arena chunks allocated.
    pub chunks: u64,
    /// Cells stored outside chunks (larger than a quarter chunk).
    pub large_cells: u64,
    /// Memory reserved: whole chunks, large cells, whole index slabs.
    pub reserved_bytes: u64,
    /// Segments (active, pipeline and pending snapshot).
    pub segments: usize,
    /// Of those, segments with a flat (sorted array) index.
    pub flat_segments: usize,
    /// Smallest sequence id held, if any cell.
    pub min_seq: Option<u64>,
    /// Largest sequence id held, if any cell.
    pub max_seq: Option<u64>,
}

impl Stats {
    /// `data_bytes + index_bytes`: the size flush decisions use.
    pub fn size_bytes(&self) -> u64 {
        self.data_bytes + self.index_bytes
    }
}

/// Why a cell was not inserted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InsertError {
    /// The sequence id does not fit the 56 bits a memtable keeps.
    #[error("sequence id {seq} exceeds the memtable maximum {max}", max = super::MAX_SEQ)]
    SeqTooLarge {
        /// The cell's sequence id.
        seq: u64,
    },
}

/// Why a snapshot was not released.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    /// The snapshot is not the one pending (already released, or from another memtable).
    #[error("flush snapshot {id} is not pending")]
    NotPending {
        /// The snapshot's id.
        id: u64,
    },
}
