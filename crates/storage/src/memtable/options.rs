//! Memtable settings.

use strata_model::schema::{FamilyDescriptor, InMemoryCompaction, KeepDeletedCells};

/// Memtable settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Arena chunk size in bytes. Default 2 MiB (HBase's MSLAB chunk). Memory is taken and
    /// freed a chunk at a time, so every segment that has taken a write holds at least one
    /// chunk; cells above a quarter chunk get their own allocation. Values below 64 are
    /// raised to 64. The in-memory policies' segments take smaller chunks when their flush
    /// threshold is smaller ([`Options::segment_chunk_size`]).
    pub chunk_size: usize,
    /// The family's `IN_MEMORY_COMPACTION`. Default `NONE` here (the classic memtable); a
    /// region passes its family's setting (whose default is `BASIC`), see
    /// [`Options::for_family`].
    pub policy: InMemoryCompaction,
    /// In-memory flush threshold: once the active segment holds more cell bytes than this,
    /// the insert that crossed it seals the segment onto the pipeline (never with `NONE`).
    /// Default 240 KiB, an eighth of HBase's 1.875 MiB: the active segment's skiplist stays
    /// small enough for its nodes to live in a core's cache, so an insert's search and link
    /// miss it less (seed 002's buffered writes: a quarter less server CPU a cell,
    /// docs/rfcs/0013-request-path.md Decision 22). The segments of the in-memory policies
    /// take their arena chunks at this size (see [`Options::segment_chunk_size`]).
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
    /// The arena chunk size of this memtable's segments: `chunk_size` for `NONE` (one segment
    /// holds the whole memtable); for the in-memory policies, whose segments are sealed past
    /// `in_memory_flush_size` cell bytes, the power of two at or above that threshold when
    /// smaller (a segment's cells with their keys then take about one or two chunks, instead
    /// of a mostly unused 2 MiB one that flattening and merging would keep allocated until
    /// the disk flush). At least 64 bytes.
    pub fn segment_chunk_size(&self) -> usize {
        let chunk = match self.policy {
            InMemoryCompaction::None => self.chunk_size,
            _ => usize::try_from(self.in_memory_flush_size)
                .ok()
                .and_then(usize::checked_next_power_of_two)
                .map_or(self.chunk_size, |c| c.min(self.chunk_size)),
        };
        chunk.max(64)
    }

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
            in_memory_flush_size: (256 << 10) - (16 << 10),
            pipeline_limit: 2,
            max_versions: 1,
            min_versions: 0,
            keep_deleted: KeepDeletedCells::False,
            ttl_ms: None,
            flush_oldest_segment_only: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_take_chunks_the_size_of_what_they_hold_before_a_seal() {
        let basic = |flush: u64| Options {
            policy: InMemoryCompaction::Basic,
            in_memory_flush_size: flush,
            ..Options::default()
        };
        // The default threshold (240 KiB) rounds up to 256 KiB chunks.
        assert_eq!(
            basic(Options::default().in_memory_flush_size).segment_chunk_size(),
            256 << 10
        );
        assert_eq!(basic(256 << 10).segment_chunk_size(), 256 << 10);
        assert_eq!(basic((256 << 10) + 1).segment_chunk_size(), 512 << 10);
        // Never above the configured chunk, never below 64 bytes.
        assert_eq!(basic(16 << 20).segment_chunk_size(), 2 << 20);
        assert_eq!(basic(u64::MAX).segment_chunk_size(), 2 << 20);
        assert_eq!(basic(10).segment_chunk_size(), 64);
        // The classic memtable is one segment: the configured chunk.
        let none = Options {
            in_memory_flush_size: 10,
            ..Options::default()
        };
        assert_eq!(none.segment_chunk_size(), 2 << 20);
    }
}
