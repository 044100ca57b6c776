//! Memtable settings.

use strata_model::schema::{FamilyDescriptor, InMemoryCompaction, KeepDeletedCells};

/// Memtable settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Arena chunk size in bytes. Default 2 MiB (HBase's MSLAB chunk). Memory is taken and
    /// freed a chunk at a time, so every segment that has taken a write holds at least one
    /// chunk; cells above a quarter chunk get their own allocation. Values below 64 are
    /// raised to 64.
    pub chunk_size: usize,
    /// The family's `IN_MEMORY_COMPACTION`. Default `NONE` here (the classic memtable); a
    /// region passes its family's setting (whose default is `BASIC`), see
    /// [`Options::for_family`].
    pub policy: InMemoryCompaction,
    /// In-memory flush threshold: once the active segment holds more cell bytes than this,
    /// the insert that crossed it seals the segment onto the pipeline (never with `NONE`).
    /// Default 1.875 MiB: a little less than one 2 MiB chunk (HBase: chunk size minus its
    /// header), so a sealed segment rarely spills into a second, nearly empty chunk.
    pub in_memory_flush_size: u64,
    /// BASIC merges indexes only once the pipeline holds more than this many segments
    /// (HBase's `hbase.hregion.compacting.pipeline.segments.limit`, default 2), and then only
    /// its newest size tier: the newest segments, as long as the newer ones together hold at
    /// least half the cells of the next older one (HBase merges them all). `usize::MAX`:
    /// BASIC only flattens.
    pub pipeline_limit: usize,
    /// The family's VERSIONS: EAGER drops older versions beyond it.
    pub max_versions: u32,
    /// The family's MIN_VERSIONS (kept by EAGER along with VERSIONS).
    pub min_versions: u32,
    /// The family's KEEP_DELETED_CELLS: EAGER drops no masked put unless it is `FALSE`.
    pub keep_deleted: KeepDeletedCells,
    /// The family's TTL in milliseconds (`None`: `FOREVER`). EAGER drops cells older than
    /// `now − ttl` (MIN_VERSIONS kept), `now` coming from the clock given by
    /// [`Memtable::set_clock`](super::Memtable::set_clock) or from the caller of
    /// [`Memtable::compact_in_memory_at`](super::Memtable::compact_in_memory_at).
    pub ttl_ms: Option<i64>,
    /// A disk-flush [`snapshot`](super::Memtable::snapshot) takes only the oldest pipeline
    /// segment when the pipeline has one, instead of the whole memtable (the family's
    /// `hbase.hregion.compacting.memstore.flush.oldest`). Default false: the composite
    /// snapshot of active segment and pipeline.
    pub flush_oldest_segment_only: bool,
}

impl Options {
    /// The options of a store of `family`: its in-memory compaction policy, VERSIONS,
    /// MIN_VERSIONS, KEEP_DELETED_CELLS, TTL and flush-oldest setting; defaults for the rest.
    pub fn for_family(family: &FamilyDescriptor) -> Options {
        Options {
            policy: family.in_memory_compaction,
            max_versions: family.versions,
            min_versions: family.min_versions,
            keep_deleted: family.keep_deleted_cells,
            ttl_ms: family.ttl.millis(),
            flush_oldest_segment_only: family.flush_oldest_segment,
            ..Options::default()
        }
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            chunk_size: 2 << 20,
            policy: InMemoryCompaction::None,
            in_memory_flush_size: (2 << 20) - (128 << 10),
            pipeline_limit: 2,
            max_versions: 1,
            min_versions: 0,
            keep_deleted: KeepDeletedCells::False,
            ttl_ms: None,
            flush_oldest_segment_only: false,
        }
    }
}
