//! Reads: get and scan, merging each family's memtable and files and applying visibility.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::time::Instant;

use bytes::Bytes;
use strata_model::cell::{compare_bytes, Cell, CellKey};
use strata_model::ops::{Columns, Get, Scan, TimeRange};
use strata_model::schema::Ttl;

use super::read_points::ReadGuard;
use super::row_read::{read_row, skip_row, PerFamily, RowRead};
use super::store::{SourceCursor, Store};
use super::Region;
use crate::error::Result;
use crate::read::filter::RowFilter;
use crate::read::{Cursor, MergeCursor, ReadSpec, Visibility};

/// What to read of one family.
pub(super) struct FamilyRead {
    pub(super) family: Bytes,
    /// `None`: every qualifier.
    pub(super) qualifiers: Option<BTreeSet<Bytes>>,
    pub(super) cursor: MergeCursor<SourceCursor>,
    pub(super) visibility: Visibility,
    pub(super) per_family: PerFamily,
}

/// What a get or a scan asks of each family it reads.
pub(super) struct FamilyAsk<'a> {
    pub(super) columns: &'a Columns,
    pub(super) time_range: TimeRange,
    pub(super) max_versions: u32,
    /// A raw scan: markers and masked cells too.
    pub(super) raw: bool,
    /// The read has a filter (versions are counted after it).
    pub(super) filtered: bool,
    pub(super) per_family: PerFamily,
    pub(super) fill_cache: bool,
}

impl FamilyAsk<'_> {
    pub(super) fn of_get(get: &Get) -> FamilyAsk<'_> {
        FamilyAsk {
            columns: &get.columns,
            time_range: get.time_range,
            max_versions: get.max_versions,
            raw: false,
            filtered: get.filter.is_some(),
            per_family: PerFamily {
                limit: get.max_results_per_family,
                offset: get.offset_per_family,
            },
            fill_cache: get.cache_blocks,
        }
    }

    fn of_scan(scan: &Scan) -> FamilyAsk<'_> {
        FamilyAsk {
            columns: &scan.columns,
            time_range: scan.time_range,
            max_versions: scan.max_versions,
            raw: scan.raw,
            filtered: scan.filter.is_some(),
            per_family: PerFamily {
                limit: scan.max_results_per_family,
                offset: scan.offset_per_family,
            },
            fill_cache: scan.cache_blocks,
        }
    }
}

impl Region {
    /// The cells of one row, as a get at the current read point.
    ///
    /// # Errors
    /// Invalid input, an unknown family, a row outside the region, or a store-file error.
    pub fn get(&self, get: &Get) -> Result<Vec<Cell>> {
        self.check_open()?;
        self.inner.counters.reads.fetch_add(1, Ordering::Relaxed);
        get.validate()?;
        self.check_row(&get.row)?;
        let reader = ReadGuard::new(&self.inner);
        self.get_unlocked(get, reader.read_point())
    }

    /// A get at `read_point` (`u64::MAX` under a row lock: every completed write to the row).
    pub(crate) fn get_unlocked(&self, get: &Get, read_point: u64) -> Result<Vec<Cell>> {
        if get.filter.is_none() {
            return self.point_get(get, read_point);
        }
        let mut families = self.family_reads(&FamilyAsk::of_get(get), read_point, Some(get))?;
        let mut filter = RowFilter::new(get.filter.as_ref(), false)?;
        if filter.skip_row(&get.row) {
            return Ok(Vec::new());
        }
        // An owned copy of the row, shared by the cells returned (see `point_get`).
        let start = CellKey::first_on_row(Bytes::copy_from_slice(&get.row));
        let mut out = Vec::new();
        for f in &mut families {
            f.cursor.seek(&start)?;
            read_row_of(f, &mut filter, &start.row, &mut out)?;
        }
        Ok(filter.end_row(out).unwrap_or_default())
    }

    /// A scanner over rows of the region, at the current read point.
    ///
    /// # Errors
    /// Invalid input, an unknown family, or a store-file error.
    pub fn scan(&self, scan: &Scan) -> Result<RegionScanner> {
        self.check_open()?;
        self.inner.counters.reads.fetch_add(1, Ordering::Relaxed);
        scan.validate()?;
        let reader = ReadGuard::new(&self.inner);
        let read_point = reader.read_point();
        let families = self.family_reads(&FamilyAsk::of_scan(scan), read_point, None)?;
        let (lower, upper) = scan.bounds();
        Ok(RegionScanner {
            families,
            lower: bound_row(lower),
            upper: bound_row(upper),
            reversed: scan.reversed,
            filter: RowFilter::new(scan.filter.as_ref(), scan.reversed)?,
            limit: scan.limit,
            batch: scan.batch.map(|b| b.max(1) as usize),
            returned: 0,
            position: None,
            pending: Vec::new(),
            done: false,
            _reader: reader,
        })
    }

    fn family_reads(
        &self,
        ask: &FamilyAsk<'_>,
        read_point: u64,
        get: Option<&Get>,
    ) -> Result<Vec<FamilyRead>> {
        let now = self.inner.config.clock.now_ms();
        let columns = ask.columns;
        let chosen: Vec<(&Store, Option<BTreeSet<Bytes>>)> = if columns.is_all() {
            self.inner.stores.values().map(|s| (s, None)).collect()
        } else {
            let mut v = Vec::new();
            for (family, qualifiers) in &columns.families {
                self.check_family(family)?;
                if let Some(store) = self.inner.stores.get(family) {
                    v.push((store, qualifiers.clone()));
                }
            }
            v
        };
        let mut reads = Vec::new();
        for (store, qualifiers) in chosen {
            let spec = read_spec(store, ask, read_point, now);
            let sources = self.sources(
                store,
                &ask.time_range,
                read_point,
                get,
                qualifiers.as_ref(),
                ask.fill_cache,
            )?;
            reads.push(FamilyRead {
                family: store.name.clone(),
                qualifiers,
                cursor: MergeCursor::new(sources),
                visibility: Visibility::new(spec),
                per_family: ask.per_family,
            });
        }
        Ok(reads)
    }

    /// The memtable and the files a read must consult, newest first. For a get, an empty
    /// memtable and the files whose key range or bloom filter rule the row out are left out.
    /// Without `fill_cache` the files' data blocks read are not added to the block cache
    /// (index and bloom blocks always are, as in HBase).
    pub(super) fn sources(
        &self,
        store: &Store,
        time_range: &TimeRange,
        read_point: u64,
        get: Option<&Get>,
        qualifiers: Option<&BTreeSet<Bytes>>,
        fill_cache: bool,
    ) -> Result<Vec<SourceCursor>> {
        let counters = &self.inner.counters;
        // The memtable before the files: a flush installs its file before it empties the
        // memtable, so a memtable seen empty here has every visible cell in the files taken
        // after it (and a memtable taken first still holds what a flush moves meanwhile).
        // A get reads one row: the segments whose row filter rules it out are left out.
        let memtable = match get {
            None => Some(store.memtable.iter(read_point)),
            Some(get) => store.memtable.iter_for_row(read_point, &get.row),
        }
        .map(SourceCursor::Memtable);
        let files = store.files();
        let mut sources = Vec::with_capacity(files.len() + 1);
        sources.extend(memtable);
        for file in files.iter() {
            let info = file.reader.info();
            // A file entirely older than the range holds nothing the read sees, not even a
            // delete marker that matters; a file entirely newer may still hold markers that
            // mask cells in range.
            let older = info.max_timestamp < time_range.min;
            let newer = info.min_timestamp >= time_range.max && info.delete_count == 0;
            if info.cell_count == 0 || older || newer {
                counters
                    .files_skipped_time_range
                    .fetch_add(1, Ordering::Relaxed);
                continue;
            }
            if let Some(get) = get {
                if !row_in_file(&get.row, info) {
                    counters.files_skipped_bloom.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let may = match qualifiers {
                    Some(qs) if !qs.is_empty() => {
                        let mut any = false;
                        for q in qs {
                            if file.reader.may_contain_column(&get.row, q)? {
                                any = true;
                                break;
                            }
                        }
                        any
                    }
                    _ => file.reader.may_contain_row(&get.row)?,
                };
                if !may {
                    counters.files_skipped_bloom.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
            }
            counters.files_read.fetch_add(1, Ordering::Relaxed);
            sources.push(file.cursor(fill_cache));
        }
        Ok(sources)
    }
}

/// What a read of `store` sees: the family's versions, TTL and deleted-cell settings applied
/// to the read's time range, versions and read point, at `now` (ms).
///
/// Versions as HBase's `ScanQueryMatcher.getTrackers` counts them: a read returns
/// min(its versions, the family's VERSIONS) a column, a raw scan its own; with a filter,
/// the filter is offered the family's VERSIONS a column (a raw scan's every version) and
/// those counts apply to what it keeps.
pub(super) fn read_spec(store: &Store, ask: &FamilyAsk<'_>, read_point: u64, now: i64) -> ReadSpec {
    let max_versions = if ask.raw {
        ask.max_versions.max(1)
    } else {
        ask.max_versions.min(store.family.versions).max(1)
    };
    let versions_checked = ask.filtered.then(|| {
        if ask.raw {
            u32::MAX
        } else {
            store.family.versions.max(max_versions)
        }
    });
    ReadSpec {
        time_range: ask.time_range,
        max_versions,
        versions_checked,
        raw: ask.raw,
        min_versions: store.family.min_versions,
        expired_before: match store.family.ttl {
            Ttl::Forever => i64::MIN,
            ttl => ttl.millis().map_or(i64::MIN, |ms| now.saturating_sub(ms)),
        },
        keep_deleted: store.family.keep_deleted_cells,
        now,
        read_point,
    }
}

/// False when the file's first and last keys show it holds no cell of `row` (a file without
/// them, or a half of a parent file, is not ruled out: the parent's range covers the half's).
fn row_in_file(row: &[u8], info: &strata_sstable::FileInfo) -> bool {
    match (&info.first_key, &info.last_key) {
        (Some(first), Some(last)) => {
            compare_bytes(row, &first.row).is_ge() && compare_bytes(row, &last.row).is_le()
        }
        _ => true,
    }
}

/// Appends the cells of `row` that `f` returns to `out` (with `filter`), leaving the cursor on
/// the first cell after the row.
fn read_row_of(
    f: &mut FamilyRead,
    filter: &mut RowFilter,
    row: &Bytes,
    out: &mut Vec<Cell>,
) -> Result<()> {
    let read = RowRead {
        family: &f.family,
        qualifiers: f.qualifiers.as_ref(),
        visibility: &mut f.visibility,
        filter,
        per_family: f.per_family,
    };
    read_row(&mut f.cursor, read, row, out)
}

fn bound_row(b: std::ops::Bound<Bytes>) -> Option<(Bytes, bool)> {
    match b {
        std::ops::Bound::Included(r) => Some((r, true)),
        std::ops::Bound::Excluded(r) => Some((r, false)),
        std::ops::Bound::Unbounded => None,
    }
}

/// Rows of a scan, one at a time, in row order (or reversed).
///
/// Holds cursors on the files it started with: files compacted away meanwhile stay readable
/// until the scanner is dropped.
pub struct RegionScanner {
    pub(super) families: Vec<FamilyRead>,
    /// Lowest row and whether it is included.
    pub(super) lower: Option<(Bytes, bool)>,
    /// Highest row and whether it is included.
    pub(super) upper: Option<(Bytes, bool)>,
    pub(super) reversed: bool,
    pub(super) filter: RowFilter,
    pub(super) limit: Option<u64>,
    pub(super) batch: Option<usize>,
    pub(super) returned: u64,
    /// The last row read (the next one is after it, or before it when reversed).
    pub(super) position: Option<Bytes>,
    /// Cells of the current row not yet handed out (with `batch`).
    pub(super) pending: Vec<Cell>,
    pub(super) done: bool,
    /// Keeps the scanner's read point registered while it lives.
    pub(super) _reader: ReadGuard,
}

/// What [`RegionScanner::next_row_within`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum ScanStep {
    /// The next row's cells (or the next `batch` of them).
    Row(Vec<Cell>),
    /// The end of the scan.
    End,
    /// The deadline passed while rows were being skipped (filtered out or deleted); the next
    /// call goes on after the last row examined.
    TimedOut,
}

impl RegionScanner {
    /// The next row's cells (or the next `batch` of them), or `None` at the end.
    ///
    /// # Errors
    /// A store-file error; the scanner should be dropped after one.
    pub fn next_row(&mut self) -> Result<Option<Vec<Cell>>> {
        Ok(match self.next_row_within(None)? {
            ScanStep::Row(cells) => Some(cells),
            ScanStep::End | ScanStep::TimedOut => None,
        })
    }

    /// As [`next_row`](Self::next_row), but gives up with [`ScanStep::TimedOut`] once
    /// `deadline` has passed and at least one row was examined, so a scan whose filter skips
    /// many rows can answer its caller in time (HBase's scan heartbeats).
    ///
    /// # Errors
    /// A store-file error; the scanner should be dropped after one.
    pub fn next_row_within(&mut self, deadline: Option<Instant>) -> Result<ScanStep> {
        if let Some(batch) = self.batch {
            if !self.pending.is_empty() {
                let n = batch.min(self.pending.len());
                return Ok(ScanStep::Row(self.pending.drain(..n).collect()));
            }
        }
        let mut examined = false;
        loop {
            if self.done || self.limit.is_some_and(|l| self.returned >= l) {
                return Ok(ScanStep::End);
            }
            if self.filter.is_done() {
                self.done = true;
                return Ok(ScanStep::End);
            }
            if examined && deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(ScanStep::TimedOut);
            }
            examined = true;
            let Some(row) = self.next_row_key()? else {
                self.done = true;
                return Ok(ScanStep::End);
            };
            self.position = Some(row.clone());
            let skip = self.filter.skip_row(&row);
            // A row-key filter that skips the row may know the next row that can pass.
            let seek_to = if skip && !self.reversed {
                self.filter.row_hint(&row).map(CellKey::first_on_row)
            } else {
                None
            };
            let mut cells = Vec::new();
            let start = CellKey::first_on_row(row.clone());
            for f in &mut self.families {
                if self.reversed {
                    f.cursor.seek(&start)?;
                }
                if let Some(target) = &seek_to {
                    f.cursor.reseek(target)?;
                } else if skip {
                    skip_row(&mut f.cursor, &row)?;
                } else {
                    read_row_of(f, &mut self.filter, &row, &mut cells)?;
                }
            }
            if skip {
                continue;
            }
            let Some(cells) = self.filter.end_row(cells) else {
                continue;
            };
            self.returned += 1;
            match self.batch {
                Some(batch) if cells.len() > batch => {
                    self.pending = cells;
                    let first: Vec<Cell> = self.pending.drain(..batch).collect();
                    return Ok(ScanStep::Row(first));
                }
                _ => return Ok(ScanStep::Row(cells)),
            }
        }
    }

    /// Cells the scan has read so far, over its families: every cell examined, not those
    /// seeks passed over (the measure of what a filter's seek hints save).
    pub fn cells_examined(&self) -> u64 {
        self.families.iter().map(|f| f.visibility.examined()).sum()
    }

    /// The next row to read, positioning the cursors at or before its first cell.
    pub(super) fn next_row_key(&mut self) -> Result<Option<Bytes>> {
        if self.reversed {
            return self.prev_row_key();
        }
        if self.position.is_none() {
            for f in &mut self.families {
                match &self.lower {
                    Some((row, _)) => f.cursor.seek(&CellKey::first_on_row(row.clone()))?,
                    None => f.cursor.seek_to_first()?,
                };
            }
        }
        let mut next: Option<Bytes> = None;
        for f in &self.families {
            if f.cursor.valid() {
                let r = f.cursor.current().row;
                if next.as_ref().is_none_or(|n| compare_bytes(r, n).is_lt()) {
                    next = Some(Bytes::copy_from_slice(r));
                }
            }
        }
        let Some(row) = next else { return Ok(None) };
        if let Some((lower, false)) = &self.lower {
            if row == *lower {
                // An excluded lower bound: skip its cells and look again.
                for f in &mut self.families {
                    skip_row(&mut f.cursor, &row)?;
                }
                self.position = Some(row);
                return self.next_row_key();
            }
        }
        if let Some((upper, inclusive)) = &self.upper {
            let past = if *inclusive {
                row > *upper
            } else {
                row >= *upper
            };
            if past {
                return Ok(None);
            }
        }
        Ok(Some(row))
    }

    /// Reversed scans: the largest row below the last one read (or at most the upper bound).
    fn prev_row_key(&mut self) -> Result<Option<Bytes>> {
        let mut prev: Option<Bytes> = None;
        for f in &mut self.families {
            let found = match (&self.position, &self.upper) {
                (Some(row), _) => f
                    .cursor
                    .seek_for_prev(&CellKey::first_on_row(row.clone()))?,
                (None, Some((row, _))) => {
                    let mut next = row.to_vec();
                    next.push(0);
                    f.cursor
                        .seek_for_prev(&CellKey::first_on_row(Bytes::from(next)))?
                }
                (None, None) => f.cursor.seek_to_last()?,
            };
            if found {
                let r = f.cursor.current().row;
                if prev.as_ref().is_none_or(|p| compare_bytes(r, p).is_gt()) {
                    prev = Some(Bytes::copy_from_slice(r));
                }
            }
        }
        let Some(row) = prev else { return Ok(None) };
        if self.position.is_none() {
            if let Some((upper, false)) = &self.upper {
                if row == *upper {
                    self.position = Some(row);
                    return self.prev_row_key();
                }
            }
        }
        if let Some((lower, inclusive)) = &self.lower {
            let past = if *inclusive {
                row < *lower
            } else {
                row <= *lower
            };
            if past {
                return Ok(None);
            }
        }
        Ok(Some(row))
    }
}
