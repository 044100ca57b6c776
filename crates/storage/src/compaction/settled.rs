//! Settled windows: a window of the first promoted tier (`base × windows_per_tier`, one day at
//! HBase's defaults) that a compaction has reduced to one file is not merged again when a
//! wider window takes it in, while the store holds at most half its blocking file count. A
//! deviation from HBase's date-tiered policy (RFC 0006, "Deviations").
//!
//! HBase merges the files of every window with at least `min_files` of them, so each
//! promotion (1 d → 4 d → 16 d → …) rewrites all of the data once more. Here a window wider
//! than the first promoted tier is compacted unit by unit (a unit: a window of the first
//! promoted tier, grouping files by their treated newest cell): the window's exploring
//! selection runs over each unit's files alone, so a unit that a compaction reduced to one
//! file (a *settled* unit) is never merged with its neighbours, and no merge crosses a unit
//! boundary. A time-range read of old data opens the unit files it overlaps, and old data is
//! rewritten no more. The file count grows by one per unit of data kept; once the store holds
//! more than half the blocking count (HBase sizes `hbase.hstore.blockingStoreFiles` at
//! 1.5–2× a date-tiered store's file count), windows are explored whole as HBase does, and
//! "might be stuck" still takes whole windows.

use super::exploring::{explore, ExploringConfig};
use super::plan::{total_size, FileMeta};

/// Whether settled files are left alone in a store of `store_files` files (compacting ones
/// included): at most half of `blocking_file_count`.
pub fn keeps_settled(store_files: usize, blocking_file_count: usize) -> bool {
    store_files.saturating_mul(2) <= blocking_file_count
}

/// The unit of each treated timestamp (floor division by `unit_ms`, so negative timestamps
/// too). Treated timestamps in store order never decrease, so each unit's files are adjacent.
pub fn units(treated: &[i64], unit_ms: i64) -> Vec<i64> {
    let unit_ms = unit_ms.max(1);
    treated.iter().map(|t| t.div_euclid(unit_ms)).collect()
}

/// The exploring selection over each unit's files (`files` in store order, `units` from
/// [`units`]); the best unit's selection (most files, then fewest bytes), or empty when no
/// unit has a qualifying run (a unit of one file never has).
pub fn explore_units<'a>(
    files: &[&'a FileMeta],
    units: &[i64],
    config: &ExploringConfig,
    off_peak: bool,
) -> Vec<&'a FileMeta> {
    let mut best: Vec<&FileMeta> = Vec::new();
    let mut best_size = 0u64;
    let mut begin = 0;
    while begin < files.len() {
        let end = begin
            + units[begin..]
                .iter()
                .take_while(|u| **u == units[begin])
                .count();
        let unit = &files[begin..end];
        begin = end;
        if unit.len() < config.min_files {
            continue;
        }
        let chosen = explore(unit, config, false, off_peak);
        let size = total_size(&chosen);
        if chosen.len() > best.len() || (chosen.len() == best.len() && size < best_size) {
            best = chosen;
            best_size = size;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_floor_negative_timestamps() {
        assert_eq!(units(&[-3, 1, 9, 15, 29], 10), vec![-1, 0, 0, 1, 2]);
        assert_eq!(units(&[], 10), Vec::<i64>::new());
    }

    #[test]
    fn half_the_blocking_count() {
        assert!(keeps_settled(8, 16));
        assert!(!keeps_settled(9, 16));
        assert!(keeps_settled(0, 0));
    }
}
