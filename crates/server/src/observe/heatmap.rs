//! A table's key-access heatmap (Bigtable's Key Visualizer): reads and writes by key range
//! over time.
//!
//! Time is cut into columns of a fixed width; the latest [`COLUMNS`] are kept. A column counts
//! accesses per row-key prefix ([`KEY_PREFIX`] bytes) for at most [`KEYS_PER_COLUMN`]
//! prefixes; once full, an access to a new prefix counts towards the nearest prefix below it
//! (the first one if none), so a column's keys act as range boundaries and memory stays
//! bounded. A view groups all prefixes seen into at most [`BANDS`] key ranges of about equal
//! numbers of prefixes.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Bound;
use std::time::{Duration, Instant};

/// Columns kept.
pub const COLUMNS: usize = 60;
/// Distinct key prefixes counted per column.
pub const KEYS_PER_COLUMN: usize = 128;
/// Bytes of a row key that identify its place.
pub const KEY_PREFIX: usize = 16;
/// Most rows of one multi-row request counted one by one; a larger request counts every
/// n-th of its rows for the n before it (see [`Heatmap::touch_rows`]).
pub const ROWS_PER_REQUEST: usize = 32;
/// Most key ranges (rows of the picture) in a view.
pub const BANDS: usize = 32;

#[derive(Debug)]
struct Column {
    index: u64,
    /// Prefix → (reads, writes).
    keys: BTreeMap<Vec<u8>, (u64, u64)>,
}

/// The accesses of one table.
#[derive(Debug)]
pub struct Heatmap {
    slot: Duration,
    origin: Instant,
    columns: VecDeque<Column>,
}

/// A heatmap's figures: `reads[band][column]` and `writes[band][column]`, [`COLUMNS`]
/// columns, oldest first, the last one holding now; band `i` covers rows from
/// `band_starts[i]` to the next band's start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeatmapView {
    /// Width of a column.
    pub slot: Duration,
    /// The first key prefix of each band, ascending.
    pub band_starts: Vec<Vec<u8>>,
    /// Reads per band and column.
    pub reads: Vec<Vec<u64>>,
    /// Writes per band and column.
    pub writes: Vec<Vec<u64>>,
}

impl Heatmap {
    /// An empty heatmap of columns `slot` wide.
    pub fn new(slot: Duration) -> Heatmap {
        Heatmap {
            slot,
            origin: Instant::now(),
            columns: VecDeque::with_capacity(COLUMNS),
        }
    }

    fn index(&self, now: Instant) -> u64 {
        let nanos = now.saturating_duration_since(self.origin).as_nanos() / self.slot.as_nanos();
        u64::try_from(nanos).unwrap_or(u64::MAX)
    }

    /// Counts one access to `row` at `now`.
    pub fn touch(&mut self, row: &[u8], write: bool, now: Instant) {
        self.touch_weighted(row, write, 1, now);
    }

    /// Counts the accesses of one request to `rows` at `now`: every row while they are at
    /// most [`ROWS_PER_REQUEST`] (by the iterator's upper bound), else every n-th row for n
    /// accesses, the last one counted for those after it. Counts add up to the rows given.
    pub fn touch_rows<'a>(
        &mut self,
        rows: impl Iterator<Item = &'a [u8]>,
        write: bool,
        now: Instant,
    ) {
        let most = rows.size_hint().1.unwrap_or(usize::MAX);
        let stride = most.div_ceil(ROWS_PER_REQUEST).max(1) as u64;
        let (mut last, mut uncounted) = (None, 0u64);
        for row in rows {
            uncounted += 1;
            if uncounted == stride {
                self.touch_weighted(row, write, stride, now);
                uncounted = 0;
            }
            last = Some(row);
        }
        if let Some(row) = last.filter(|_| uncounted > 0) {
            self.touch_weighted(row, write, uncounted, now);
        }
    }

    /// Counts `weight` accesses to `row` at `now`.
    fn touch_weighted(&mut self, row: &[u8], write: bool, weight: u64, now: Instant) {
        let index = self.index(now);
        if self.columns.back().is_none_or(|c| c.index < index) {
            if self.columns.len() >= COLUMNS {
                self.columns.pop_front();
            }
            self.columns.push_back(Column {
                index,
                keys: BTreeMap::new(),
            });
        }
        let Some(column) = self.columns.back_mut() else {
            return;
        };
        let key = &row[..row.len().min(KEY_PREFIX)];
        let room = column.keys.len() < KEYS_PER_COLUMN;
        // One descent: the prefix itself, or (once the column is full) the one below it.
        let floor = column
            .keys
            .range_mut::<[u8], _>((Bound::Unbounded, Bound::Included(key)))
            .next_back()
            .filter(|(k, _)| !room || k.as_slice() == key)
            .map(|(_, counts)| counts);
        let counts = match floor {
            Some(counts) => counts,
            None if room => column.keys.entry(key.to_vec()).or_default(),
            None => match column.keys.values_mut().next() {
                Some(counts) => counts,
                None => return,
            },
        };
        if write {
            counts.1 += weight;
        } else {
            counts.0 += weight;
        }
    }

    /// The figures of the latest [`COLUMNS`] columns up to `now`.
    pub fn view(&self, now: Instant) -> HeatmapView {
        let last = self.index(now);
        // Column x of the view holds slot `last - (COLUMNS - 1 - x)`; older slots are out.
        let shown = |c: &&Column| c.index <= last && last - c.index < COLUMNS as u64;
        let mut keys: Vec<&Vec<u8>> = self
            .columns
            .iter()
            .filter(shown)
            .flat_map(|c| c.keys.keys())
            .collect();
        keys.sort();
        keys.dedup();
        let per_band = keys.len().div_ceil(BANDS).max(1);
        let band_starts: Vec<Vec<u8>> = keys.chunks(per_band).map(|c| c[0].clone()).collect();
        let mut reads = vec![vec![0; COLUMNS]; band_starts.len()];
        let mut writes = vec![vec![0; COLUMNS]; band_starts.len()];
        for c in self.columns.iter().filter(shown) {
            let x = COLUMNS - 1 - usize::try_from(last - c.index).unwrap_or(0);
            for (key, (r, w)) in &c.keys {
                let band = band_starts.partition_point(|s| s <= key).saturating_sub(1);
                reads[band][x] += r;
                writes[band][x] += w;
            }
        }
        HeatmapView {
            slot: self.slot,
            band_starts,
            reads,
            writes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_land_in_their_key_band_and_time_column() {
        let mut h = Heatmap::new(Duration::from_secs(1));
        let t0 = h.origin;
        h.touch(b"a", false, t0);
        h.touch(b"a", true, t0);
        h.touch(b"m", false, t0 + Duration::from_secs(2));
        let v = h.view(t0 + Duration::from_secs(2));
        assert_eq!(v.band_starts, vec![b"a".to_vec(), b"m".to_vec()]);
        let tail = |rows: &Vec<Vec<u64>>| -> Vec<Vec<u64>> {
            rows.iter().map(|r| r[COLUMNS - 3..].to_vec()).collect()
        };
        assert!(v.reads.iter().all(|r| r.len() == COLUMNS));
        assert_eq!(tail(&v.reads), vec![vec![1, 0, 0], vec![0, 0, 1]]);
        assert_eq!(tail(&v.writes), vec![vec![1, 0, 0], vec![0, 0, 0]]);
    }

    #[test]
    fn a_full_column_counts_new_keys_towards_the_key_below() {
        let mut h = Heatmap::new(Duration::from_secs(3600));
        let t0 = h.origin;
        for i in 0..KEYS_PER_COLUMN {
            h.touch(format!("k{i:04}").as_bytes(), false, t0);
        }
        h.touch(b"k0000x", false, t0);
        h.touch(b"a", false, t0);
        let c = h.columns.back().expect("one column");
        assert_eq!(c.keys.len(), KEYS_PER_COLUMN);
        assert_eq!(c.keys[b"k0000".as_slice()], (3, 0));
        let v = h.view(t0);
        assert!(v.band_starts.len() <= BANDS);
        assert_eq!(
            v.reads.iter().flatten().sum::<u64>(),
            KEYS_PER_COLUMN as u64 + 2
        );
    }

    #[test]
    fn a_large_request_counts_a_sample_of_its_rows_adding_up_to_all() {
        let mut h = Heatmap::new(Duration::from_secs(3600));
        let t0 = h.origin;
        let rows: Vec<Vec<u8>> = (0..1000).map(|i| format!("r{i:04}").into_bytes()).collect();
        h.touch_rows(rows.iter().map(Vec::as_slice), true, t0);
        let c = h.columns.back().expect("one column");
        // Every 32nd row for the 32 up to it, the last for the 8 after the 31st.
        assert_eq!(c.keys.len(), 32);
        assert_eq!(c.keys[b"r0031".as_slice()], (0, 32));
        assert_eq!(c.keys[b"r0999".as_slice()], (0, 8));
        assert_eq!(c.keys.values().map(|v| v.1).sum::<u64>(), 1000);
        // A small request counts each row; an iterator shorter than its bound adds up too.
        h.touch_rows([b"a".as_slice(), b"b"].into_iter(), false, t0);
        let odd = rows.iter().map(Vec::as_slice).filter(|r| r[4] % 2 == 1);
        h.touch_rows(odd, false, t0);
        let c = h.columns.back().expect("one column");
        assert_eq!(c.keys[b"a".as_slice()], (1, 0));
        assert_eq!(c.keys.values().map(|v| v.0).sum::<u64>(), 502);
    }

    #[test]
    fn old_columns_are_dropped() {
        let mut h = Heatmap::new(Duration::from_secs(1));
        let t0 = h.origin;
        for s in 0..(COLUMNS as u64 + 10) {
            h.touch(b"r", false, t0 + Duration::from_secs(s));
        }
        assert_eq!(h.columns.len(), COLUMNS);
        let v = h.view(t0 + Duration::from_secs(COLUMNS as u64 + 9));
        assert_eq!(v.reads[0].len(), COLUMNS);
        assert_eq!(v.reads[0].iter().sum::<u64>(), COLUMNS as u64);
    }
}
