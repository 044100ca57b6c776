//! The cluster's key-access heatmap (Bigtable's Key Visualizer), kept by a master from the
//! region servers' load reports (`strata_cluster::load`): each report carries, per busy
//! region, its reads and writes over the interval it covers; the master adds them to a ring
//! of [`COLUMNS`] time columns of [`SLOT`] each, by table and region start key.
//!
//! A report's counts are spread over the columns its interval overlaps, in proportion, so a
//! server reporting every 5 s fills 10 s columns evenly whatever the phase of its reports.
//! Counts are kept by start key rather than region name, so a region's history stays in
//! place when it splits, merges or moves. Memory is bounded: a column holds at most
//! [`KEYS_PER_COLUMN`] (table, start key) entries; once full, counts of a new key go to the
//! nearest key below it in the same table (or are counted as dropped).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use strata_cluster::load::Accesses;
use strata_server::observe::HeatmapView;

/// Width of a column.
pub const SLOT: Duration = Duration::from_secs(10);
/// Columns kept (10 minutes).
pub const COLUMNS: usize = 60;
/// Most (table, start key) entries per column.
pub const KEYS_PER_COLUMN: usize = 2048;
/// Most key ranges (rows of the picture) in a view.
pub const BANDS: usize = 32;

#[derive(Debug, Default)]
struct Column {
    index: u64,
    entries: usize,
    /// Table → start key → accesses.
    tables: BTreeMap<String, BTreeMap<Vec<u8>, Accesses>>,
}

impl Column {
    fn add(&mut self, table: &str, start: &[u8], n: Accesses) -> bool {
        let full = self.entries >= KEYS_PER_COLUMN;
        let keys = match self.tables.get_mut(table) {
            Some(keys) => keys,
            None if full => return false,
            None => self.tables.entry(table.to_owned()).or_default(),
        };
        let slot = if keys.contains_key(start) {
            keys.get_mut(start)
        } else if !full {
            self.entries += 1;
            Some(keys.entry(start.to_vec()).or_default())
        } else {
            let below = keys
                .range::<[u8], _>((std::ops::Bound::Unbounded, std::ops::Bound::Excluded(start)))
                .next_back()
                .map(|(k, _)| k.clone());
            match below {
                Some(k) => keys.get_mut(&k),
                None => keys.values_mut().next(),
            }
        };
        match slot {
            Some(a) => {
                a.reads += n.reads;
                a.writes += n.writes;
                true
            }
            None => false,
        }
    }
}

/// The ring of columns.
#[derive(Debug, Default)]
pub struct ClusterHeatmap {
    columns: VecDeque<Column>,
    /// Accesses that found no place (a full column, an unknown region).
    dropped: u64,
    /// Reports added.
    reports: u64,
}

fn index_of(ms: u64) -> u64 {
    ms / slot_ms()
}

fn slot_ms() -> u64 {
    u64::try_from(SLOT.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// `n × part / whole`, rounded down.
fn share(n: u64, part: u64, whole: u64) -> u64 {
    u64::try_from(u128::from(n) * u128::from(part) / u128::from(whole.max(1))).unwrap_or(n)
}

impl ClusterHeatmap {
    /// An empty heatmap.
    pub fn new() -> ClusterHeatmap {
        ClusterHeatmap::default()
    }

    /// An empty heatmap to share between its feed and a view.
    pub fn shared() -> Arc<Mutex<ClusterHeatmap>> {
        Arc::new(Mutex::new(ClusterHeatmap::new()))
    }

    /// Reports added so far.
    pub fn reports(&self) -> u64 {
        self.reports
    }

    /// Accesses that could not be placed (unknown regions, full columns).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Counts accesses that could not be placed (a region whose key range is unknown).
    pub fn drop_unplaced(&mut self, n: Accesses) {
        self.dropped += n.total();
    }

    /// The column of slot `index`, made if missing (in order; the oldest beyond [`COLUMNS`]
    /// go); `None` for a slot older than every kept one when the ring is full.
    fn column(&mut self, index: u64) -> Option<&mut Column> {
        let at = self.columns.partition_point(|c| c.index < index);
        if self.columns.get(at).is_none_or(|c| c.index != index) {
            if self.columns.len() >= COLUMNS && at == 0 {
                return None;
            }
            self.columns.insert(
                at,
                Column {
                    index,
                    ..Column::default()
                },
            );
            while self.columns.len() > COLUMNS {
                self.columns.pop_front();
            }
        }
        let at = self.columns.partition_point(|c| c.index < index);
        self.columns.get_mut(at)
    }

    /// Adds one report received at `now_ms` covering the `interval_ms` before it: `counts`
    /// are the accesses of regions given by (table, start key).
    pub fn add(&mut self, now_ms: u64, interval_ms: u64, counts: &[(String, Vec<u8>, Accesses)]) {
        if interval_ms == 0 || counts.is_empty() {
            return;
        }
        self.reports += 1;
        let from = now_ms.saturating_sub(interval_ms);
        // The columns the interval overlaps, with the milliseconds of each, oldest first.
        let mut parts: Vec<(u64, u64)> = Vec::new();
        let mut t = from;
        while t < now_ms {
            let i = index_of(t);
            let end = ((i + 1) * slot_ms()).min(now_ms);
            parts.push((i, end - t));
            t = end;
        }
        for (table, start, n) in counts {
            let mut left = *n;
            for (k, (index, ms)) in parts.iter().enumerate() {
                let part = if k + 1 == parts.len() {
                    left
                } else {
                    Accesses {
                        reads: share(n.reads, *ms, interval_ms),
                        writes: share(n.writes, *ms, interval_ms),
                    }
                };
                left.reads -= part.reads;
                left.writes -= part.writes;
                if part.total() == 0 {
                    continue;
                }
                let placed = self
                    .column(*index)
                    .is_some_and(|c| c.add(table, start, part));
                if !placed {
                    self.dropped += part.total();
                }
            }
        }
    }

    /// Tables with accesses in the kept columns, in name order.
    pub fn tables(&self) -> Vec<String> {
        let mut t: Vec<String> = self
            .columns
            .iter()
            .flat_map(|c| c.tables.keys().cloned())
            .collect();
        t.sort();
        t.dedup();
        t
    }

    /// `table`'s figures over the latest [`COLUMNS`] columns up to `now_ms`, with rows cut at
    /// `starts` (the table's current region start keys; the keys seen when empty), grouped
    /// into at most [`BANDS`] bands of about equal numbers of regions.
    pub fn view(&self, table: &str, now_ms: u64, starts: &[Vec<u8>]) -> HeatmapView {
        let last = index_of(now_ms);
        let shown = |c: &&Column| c.index <= last && last - c.index < COLUMNS as u64;
        let mut keys: Vec<Vec<u8>> = if starts.is_empty() {
            self.columns
                .iter()
                .filter(shown)
                .filter_map(|c| c.tables.get(table))
                .flat_map(|k| k.keys().cloned())
                .collect()
        } else {
            starts.to_vec()
        };
        keys.sort();
        keys.dedup();
        let per_band = keys.len().div_ceil(BANDS).max(1);
        let band_starts: Vec<Vec<u8>> = keys.chunks(per_band).map(|c| c[0].clone()).collect();
        let mut reads = vec![vec![0; COLUMNS]; band_starts.len()];
        let mut writes = vec![vec![0; COLUMNS]; band_starts.len()];
        for c in self.columns.iter().filter(shown) {
            let x = COLUMNS - 1 - usize::try_from(last - c.index).unwrap_or(0);
            for (key, a) in c.tables.get(table).into_iter().flatten() {
                let band = band_starts.partition_point(|s| s <= key).saturating_sub(1);
                if let (Some(r), Some(w)) = (reads.get_mut(band), writes.get_mut(band)) {
                    r[x] += a.reads;
                    w[x] += a.writes;
                }
            }
        }
        HeatmapView {
            slot: SLOT,
            band_starts,
            reads,
            writes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(reads: u64, writes: u64) -> Accesses {
        Accesses { reads, writes }
    }

    fn one(table: &str, start: &str, n: Accesses) -> Vec<(String, Vec<u8>, Accesses)> {
        vec![(table.to_owned(), start.as_bytes().to_vec(), n)]
    }

    #[test]
    fn reports_of_several_servers_add_up_by_region_and_column() {
        let mut h = ClusterHeatmap::new();
        // Two servers, each reporting 5 s intervals inside the column [10 s, 20 s).
        h.add(15_000, 5_000, &one("t", "", a(10, 1)));
        h.add(15_000, 5_000, &one("t", "m", a(0, 7)));
        h.add(20_000, 5_000, &one("t", "", a(5, 0)));
        h.add(20_000, 5_000, &one("u", "", a(100, 0)));
        let starts = vec![b"".to_vec(), b"m".to_vec()];
        let v = h.view("t", 20_000, &starts);
        assert_eq!(v.band_starts, starts);
        let last = COLUMNS - 1;
        // 20 s is in column 2 (the rightmost); [10 s, 20 s) is column 1, one to its left.
        assert_eq!(v.reads[0][last - 1], 15);
        assert_eq!(v.writes[0][last - 1], 1);
        assert_eq!(v.writes[1][last - 1], 7);
        assert_eq!(
            v.reads.iter().flatten().sum::<u64>(),
            15,
            "table u is apart"
        );
        assert_eq!(h.tables(), vec!["t".to_owned(), "u".to_owned()]);
        assert_eq!(h.reports(), 4);
    }

    #[test]
    fn an_interval_across_two_columns_is_split_in_proportion() {
        let mut h = ClusterHeatmap::new();
        // [8 s, 13 s): 2 s in column 0, 3 s in column 1.
        h.add(13_000, 5_000, &one("t", "a", a(100, 11)));
        let v = h.view("t", 13_000, &[]);
        let last = COLUMNS - 1;
        assert_eq!((v.reads[0][last - 1], v.reads[0][last]), (40, 60));
        assert_eq!(
            v.writes[0][last - 1] + v.writes[0][last],
            11,
            "nothing lost"
        );
    }

    #[test]
    fn a_split_region_keeps_its_history_under_its_range() {
        let mut h = ClusterHeatmap::new();
        h.add(5_000, 5_000, &one("t", "", a(9, 0)));
        // The region [, ) split at "k": its history lands in the first daughter's band.
        let v = h.view("t", 5_000, &[b"".to_vec(), b"k".to_vec()]);
        assert_eq!(v.reads[0][COLUMNS - 1], 9);
        assert_eq!(v.reads[1][COLUMNS - 1], 0);
    }

    #[test]
    fn many_regions_are_grouped_into_bands() {
        let mut h = ClusterHeatmap::new();
        let starts: Vec<Vec<u8>> = (0..1000).map(|i| format!("r{i:04}").into_bytes()).collect();
        let counts: Vec<_> = starts
            .iter()
            .map(|s| ("t".to_owned(), s.clone(), a(1, 0)))
            .collect();
        h.add(5_000, 5_000, &counts);
        let v = h.view("t", 5_000, &starts);
        assert!(v.band_starts.len() <= BANDS);
        assert_eq!(v.reads.iter().flatten().sum::<u64>(), 1000);
    }

    #[test]
    fn memory_stays_bounded() {
        let mut h = ClusterHeatmap::new();
        for s in 0..(COLUMNS as u64 + 5) {
            let counts: Vec<_> = (0..(KEYS_PER_COLUMN + 10))
                .map(|i| ("t".to_owned(), format!("k{i:05}").into_bytes(), a(1, 0)))
                .collect();
            h.add((s + 1) * 10_000, 10_000, &counts);
        }
        assert_eq!(h.columns.len(), COLUMNS);
        assert!(h.columns.iter().all(|c| c.entries <= KEYS_PER_COLUMN));
        // Keys past the bound count towards the key below them: nothing dropped.
        assert_eq!(h.dropped(), 0);
        let full: u64 = h.columns[0].tables["t"].values().map(|a| a.reads).sum();
        assert_eq!(full, KEYS_PER_COLUMN as u64 + 10);
        // A new table in a full column has nowhere to go; a slot older than the ring neither.
        let end = (COLUMNS as u64 + 5) * 10_000;
        h.add(end - 1_000, 1_000, &one("new", "", a(3, 0)));
        h.add(20_000, 1_000, &one("t", "", a(4, 0)));
        assert_eq!(h.dropped(), 7);
    }
}
