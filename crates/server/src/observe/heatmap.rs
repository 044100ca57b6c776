//! A table's key-access heatmap (Bigtable's Key Visualizer): reads and writes by key range
//! over time.
//!
//! Time is cut into columns of a fixed width; the latest [`COLUMNS`] are kept. A column counts
//! accesses per row-key prefix ([`KEY_PREFIX`] bytes) for at most [`KEYS_PER_COLUMN`]
//! prefixes; a key stands for the rows from it to the next key. Once full, a new prefix first
//! merges pairs of neighbouring keys with the fewest accesses into one range each (from the
//! lower key), quietest pairs first, until the column holds [`KEYS_AFTER_COARSENING`], so
//! memory stays bounded, every access stays in the range holding its row, and ranges keep
//! about equal traffic. Merging a quarter of the keys at once keeps the cost of a request
//! low when every request brings a new prefix (random reads): one sort of the column's
//! pairs for the next quarter's new prefixes, instead of a walk of the column for each.
//! A scan page
//! counts the rows it read, not where it started. A view groups all prefixes seen into at
//! most [`BANDS`] key ranges of about equal numbers of prefixes.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// Columns kept.
pub const COLUMNS: usize = 60;
/// Distinct key prefixes counted per column.
pub const KEYS_PER_COLUMN: usize = 128;
/// Keys a full column keeps once it merged its quietest neighbours.
pub const KEYS_AFTER_COARSENING: usize = KEYS_PER_COLUMN * 3 / 4;
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
        if column.keys.len() >= KEYS_PER_COLUMN && !column.keys.contains_key(key) {
            coarsen(&mut column.keys);
        }
        let counts = match column.keys.get_mut(key) {
            Some(counts) => counts,
            None => column.keys.entry(key.to_vec()).or_default(),
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

/// Makes room in a full column: the two neighbouring keys with the fewest accesses together
/// become one range, from the lower key, holding both counts. A key stands for the rows from
/// it to the next key, so every access stays in the range that holds its row; merging the
/// quietest neighbours keeps ranges of about equal traffic, so a hot key keeps a range of its
/// own and a scan across the table keeps its spread.
/// Merges pairs of neighbouring keys, the pair with the fewest accesses together first and
/// each key in at most one pair, until `keys` holds [`KEYS_AFTER_COARSENING`] (a greedy
/// matching on the keys' line takes at least a third of them, more than the quarter needed).
fn coarsen(keys: &mut BTreeMap<Vec<u8>, (u64, u64)>) {
    if keys.len() <= KEYS_AFTER_COARSENING {
        return;
    }
    let mut merges = keys.len() - KEYS_AFTER_COARSENING;
    let entries: Vec<(Vec<u8>, (u64, u64))> = std::mem::take(keys).into_iter().collect();
    let total = |i: usize| entries[i].1 .0 + entries[i].1 .1;
    let mut pairs: Vec<(u64, usize)> = (1..entries.len())
        .map(|i| (total(i - 1) + total(i), i - 1))
        .collect();
    pairs.sort_unstable();
    let mut paired = vec![false; entries.len()];
    // `joins[i]`: key i merges into the key before it.
    let mut joins = vec![false; entries.len()];
    for (_, i) in pairs {
        if merges == 0 {
            break;
        }
        if !paired[i] && !paired[i + 1] {
            paired[i] = true;
            paired[i + 1] = true;
            joins[i + 1] = true;
            merges -= 1;
        }
    }
    let mut kept: Vec<(Vec<u8>, (u64, u64))> = Vec::with_capacity(KEYS_AFTER_COARSENING);
    for ((key, (r, w)), join) in entries.into_iter().zip(joins) {
        match kept.last_mut() {
            Some(lower) if join => {
                lower.1 .0 += r;
                lower.1 .1 += w;
            }
            _ => kept.push((key, (r, w))),
        }
    }
    *keys = kept.into_iter().collect();
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
    fn a_full_column_merges_its_quietest_neighbours() {
        let mut h = Heatmap::new(Duration::from_secs(3600));
        let t0 = h.origin;
        for i in 0..KEYS_PER_COLUMN {
            // Every key twice, except k0100 and k0101, once each: the quietest pair.
            let n = if i == 100 || i == 101 { 1 } else { 2 };
            for _ in 0..n {
                h.touch(format!("k{i:04}").as_bytes(), false, t0);
            }
        }
        h.touch(b"k0127x", false, t0);
        let c = h.columns.back().expect("one column");
        assert_eq!(c.keys.len(), KEYS_AFTER_COARSENING + 1);
        assert_eq!(c.keys[b"k0100".as_slice()], (2, 0));
        assert!(!c.keys.contains_key(b"k0101".as_slice()));
        assert_eq!(c.keys[b"k0127x".as_slice()], (1, 0));
        // Every other range joined at most two keys: none holds more than twice a key's.
        assert!(c.keys.values().all(|&(r, _)| r <= 4), "{:?}", c.keys);
        // The next new prefixes fill the room made without merging again.
        for i in 0..(KEYS_PER_COLUMN - KEYS_AFTER_COARSENING - 1) {
            h.touch(format!("k{i:04}y").as_bytes(), false, t0);
        }
        let c = h.columns.back().expect("one column");
        assert_eq!(c.keys.len(), KEYS_PER_COLUMN);
        let v = h.view(t0);
        assert!(v.band_starts.len() <= BANDS);
        assert_eq!(
            v.reads.iter().flatten().sum::<u64>(),
            2 * KEYS_PER_COLUMN as u64 - 1 + (KEYS_PER_COLUMN - KEYS_AFTER_COARSENING - 1) as u64
        );
    }

    #[test]
    fn a_scan_of_the_whole_table_is_spread_over_its_key_range() {
        // A full scan in pages of 100 rows over 10,000 rows, each page's rows counted.
        let mut h = Heatmap::new(Duration::from_secs(3600));
        let t0 = h.origin;
        let rows: Vec<Vec<u8>> = (0..10_000)
            .map(|i| format!("row{i:06}").into_bytes())
            .collect();
        for page in rows.chunks(100) {
            h.touch_rows(page.iter().map(Vec::as_slice), false, t0);
        }
        let v = h.view(t0);
        let per_band: Vec<u64> = v.reads.iter().map(|r| r.iter().sum()).collect();
        assert_eq!(per_band.iter().sum::<u64>(), 10_000);
        // Bands cover the whole range and none holds much more than its share.
        assert!(
            v.band_starts.len() >= BANDS / 2,
            "{:?}",
            v.band_starts.len()
        );
        let share = 10_000 / per_band.len() as u64;
        assert!(
            per_band.iter().all(|&n| n <= share * 3),
            "{per_band:?} (share {share})"
        );
        assert!(v.band_starts.last().unwrap().as_slice() > b"row009".as_slice());
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
