//! Signals from a store's file count: when writers must slow down, and how urgently the store
//! needs compacting.

/// HBase's `hbase.hstore.blockingStoreFiles` default: above this many files a store blocks
/// flushes (and so, indirectly, writes) until compactions catch up.
pub const DEFAULT_BLOCKING_FILE_COUNT: usize = 16;

/// The store has too many files: delay its flushes and throttle writers to the region until a
/// compaction reduces the count (HBase's `HStore.hasTooManyStoreFiles`: strictly more than the
/// blocking count).
pub fn too_many_files(file_count: usize, blocking_file_count: usize) -> bool {
    file_count > blocking_file_count
}

/// The store has enough files not already compacting to be worth a selection (HBase's
/// `RatioBasedCompactionPolicy.needsCompaction`). A cheap pre-check before
/// [`super::exploring::select`].
pub fn needs_compaction(file_count: usize, compacting: usize, min_files: usize) -> bool {
    file_count.saturating_sub(compacting) >= min_files
}

/// How close the store is to blocking: 0 at or below `min_files`, 1 at the blocking count, more
/// beyond (HBase's `DefaultStoreFileManager.getCompactionPressure`). The compaction throughput
/// controller raises its limit with the highest pressure among running compactions.
pub fn pressure(file_count: usize, min_files: usize, blocking_file_count: usize) -> f64 {
    if file_count <= min_files {
        return 0.0;
    }
    let span = blocking_file_count.saturating_sub(min_files).max(1);
    (file_count - min_files) as f64 / span as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocking_is_strictly_above_the_count() {
        assert!(!too_many_files(16, DEFAULT_BLOCKING_FILE_COUNT));
        assert!(too_many_files(17, DEFAULT_BLOCKING_FILE_COUNT));
    }

    #[test]
    fn pressure_rises_linearly_from_min_to_blocking() {
        assert_eq!(pressure(3, 3, 16), 0.0);
        assert_eq!(pressure(16, 3, 16), 1.0);
        assert_eq!(pressure(29, 3, 16), 2.0);
        assert_eq!(pressure(5, 3, 3), 2.0); // Degenerate settings do not divide by zero.
    }

    #[test]
    fn needs_compaction_counts_files_not_compacting() {
        assert!(needs_compaction(5, 2, 3));
        assert!(!needs_compaction(5, 3, 3));
    }
}
