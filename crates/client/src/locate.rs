//! Region locations: which region (and server) holds a row, forward or in reverse, and the
//! per-table cache of the master's answer.
//!
//! Invariants: a [`Regions`] list is sorted by start row; the first region starts at the
//! empty row and the last ends at the empty row (meaning "the end"). A stale list may have
//! gaps or overlaps after splits and merges; lookups then miss or hit a region whose server
//! answers `NOT_SERVING_REGION`, and the caller drops the list and asks again.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_proto::pb;

/// Where a region is: its id, row range, server and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionLocation {
    /// The region's id, unique in the cluster.
    pub region_id: u64,
    /// First row (inclusive); empty for the table's first region.
    pub start_row: Bytes,
    /// Row where the region ends (exclusive); empty for the table's last region.
    pub end_row: Bytes,
    /// `host:port` of the region server hosting it; empty if unassigned.
    pub server: String,
    /// Bytes in store files (0 when not open).
    pub store_bytes: u64,
    /// Bytes in memtables (0 when not open).
    pub memtable_bytes: u64,
    /// Number of store files (0 when not open).
    pub store_files: u32,
    /// The region's name in the cluster's records (`table,seq`); empty from an older server.
    pub name: String,
    /// Reads and writes served since the region opened (0 when not open).
    pub requests: u64,
    /// Minor compactions running in the region now: filled by
    /// [`crate::Admin::regions_with_load`] (0 when not open, and in plain locations).
    pub minor_compactions: u32,
    /// Major compactions running in the region now, as `minor_compactions`.
    pub major_compactions: u32,
}

impl RegionLocation {
    /// True if `row` falls in the region. An open bound is not compared: that would read
    /// the row's bytes, often a cache miss in a large buffer of rows.
    pub fn contains(&self, row: &[u8]) -> bool {
        (self.start_row.is_empty() || self.start_row.as_ref() <= row)
            && (self.end_row.is_empty() || row < self.end_row.as_ref())
    }
}

impl From<pb::RegionLocation> for RegionLocation {
    fn from(r: pb::RegionLocation) -> Self {
        RegionLocation {
            region_id: r.region_id,
            start_row: r.start_row,
            end_row: r.end_row,
            server: r.server,
            store_bytes: r.store_bytes,
            memtable_bytes: r.memtable_bytes,
            store_files: r.store_files,
            name: r.name,
            requests: r.requests,
            minor_compactions: r.minor_compactions,
            major_compactions: r.major_compactions,
        }
    }
}

/// Where a scan (or a single-row request) reads next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    /// From this row, inclusive; the empty row means "from the start" forward and "from the
    /// end" in reverse.
    From(Bytes),
    /// Strictly after this row in scan direction (before it, in reverse).
    After(Bytes),
}

/// A table's regions, sorted by start row.
#[derive(Clone, Debug, Default)]
pub(crate) struct Regions {
    regions: Vec<RegionLocation>,
}

impl Regions {
    /// Regions from the master's answer, sorted by start row.
    pub(crate) fn new(mut regions: Vec<RegionLocation>) -> Regions {
        regions.sort_by(|a, b| a.start_row.cmp(&b.start_row));
        Regions { regions }
    }

    /// Every region, by start row.
    pub(crate) fn all(&self) -> &[RegionLocation] {
        &self.regions
    }

    /// The region holding `row`.
    pub(crate) fn containing(&self, row: &[u8]) -> Option<&RegionLocation> {
        self.position(row).map(|i| &self.regions[i])
    }

    /// The index in [`Regions::all`] of the region holding `row`.
    pub(crate) fn position(&self, row: &[u8]) -> Option<usize> {
        let i = self
            .regions
            .partition_point(|r| r.start_row.as_ref() <= row)
            .checked_sub(1)?;
        self.regions.get(i).filter(|r| r.contains(row)).map(|_| i)
    }

    /// The region holding the rows just below `row` (start < row <= end): where a reversed
    /// scan continues when it must stay strictly below `row`.
    pub(crate) fn before(&self, row: &[u8]) -> Option<&RegionLocation> {
        let i = self
            .regions
            .partition_point(|r| r.start_row.as_ref() < row)
            .checked_sub(1)?;
        self.regions
            .get(i)
            .filter(|r| r.end_row.is_empty() || r.end_row.as_ref() >= row)
    }

    /// The region a request at `position` reads, in scan direction.
    pub(crate) fn at(&self, position: &Position, reversed: bool) -> Option<&RegionLocation> {
        match (position, reversed) {
            (Position::From(row), false) => self.containing(row),
            (Position::From(row), true) if row.is_empty() => {
                self.regions.last().filter(|r| r.end_row.is_empty())
            }
            (Position::From(row), true) => self.containing(row),
            (Position::After(row), false) => {
                let mut next = Vec::with_capacity(row.len() + 1);
                next.extend_from_slice(row);
                next.push(0);
                self.containing(&next)
            }
            (Position::After(row), true) => self.before(row),
        }
    }
}

/// Every table's cached regions. Entries are replaced whole, never edited.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    tables: Mutex<HashMap<String, Arc<Regions>>>,
}

impl Cache {
    /// The cached regions of `table`, if any.
    pub(crate) fn get(&self, table: &str) -> Option<Arc<Regions>> {
        self.tables.lock().get(table).cloned()
    }

    /// Caches `regions` for `table`.
    pub(crate) fn put(&self, table: &str, regions: Arc<Regions>) {
        self.tables.lock().insert(table.to_string(), regions);
    }

    /// Drops `table`'s regions, so the next request asks the master again.
    pub(crate) fn invalidate(&self, table: &str) {
        self.tables.lock().remove(table);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(id: u64, start: &'static [u8], end: &'static [u8]) -> RegionLocation {
        RegionLocation {
            region_id: id,
            start_row: Bytes::from_static(start),
            end_row: Bytes::from_static(end),
            server: format!("s{id}:1"),
            store_bytes: 0,
            memtable_bytes: 0,
            store_files: 0,
            name: String::new(),
            requests: 0,
            minor_compactions: 0,
            major_compactions: 0,
        }
    }

    fn three() -> Regions {
        Regions::new(vec![
            region(3, b"m", b""),
            region(1, b"", b"f"),
            region(2, b"f", b"m"),
        ])
    }

    fn id(r: Option<&RegionLocation>) -> Option<u64> {
        r.map(|r| r.region_id)
    }

    #[test]
    fn forward_lookups() {
        let r = three();
        assert_eq!(id(r.containing(b"")), Some(1));
        assert_eq!(id(r.containing(b"a")), Some(1));
        assert_eq!(id(r.containing(b"f")), Some(2));
        assert_eq!(id(r.containing(b"lzzz")), Some(2));
        assert_eq!(id(r.containing(b"m")), Some(3));
        assert_eq!(id(r.containing(b"\xff\xff")), Some(3));
        // Strictly after "e\xff..." can still be region 1; after "f" is region 2.
        assert_eq!(
            id(r.at(&Position::After(Bytes::from_static(b"e")), false)),
            Some(1)
        );
        assert_eq!(
            id(r.at(&Position::After(Bytes::from_static(b"f")), false)),
            Some(2)
        );
        assert_eq!(id(r.at(&Position::From(Bytes::new()), false)), Some(1));
    }

    #[test]
    fn reversed_lookups() {
        let r = three();
        let after = |row: &'static [u8]| id(r.at(&Position::After(Bytes::from_static(row)), true));
        let from = |row: &'static [u8]| id(r.at(&Position::From(Bytes::from_static(row)), true));
        assert_eq!(from(b""), Some(3));
        assert_eq!(from(b"m"), Some(3));
        assert_eq!(from(b"l"), Some(2));
        // Below a region's start row is the previous region.
        assert_eq!(after(b"m"), Some(2));
        assert_eq!(after(b"f"), Some(1));
        assert_eq!(after(b"f\x00"), Some(2));
        assert_eq!(after(b"zz"), Some(3));
        // Nothing sorts below the first region's start.
        assert_eq!(after(b""), None);
    }

    #[test]
    fn gaps_miss() {
        let r = Regions::new(vec![region(1, b"", b"f"), region(3, b"m", b"")]);
        assert_eq!(id(r.containing(b"g")), None);
        assert_eq!(id(r.before(b"h")), None);
        assert_eq!(id(r.before(b"f")), Some(1));
        let r = Regions::new(vec![region(1, b"", b"f")]);
        assert_eq!(id(r.at(&Position::From(Bytes::new()), true)), None);
    }
}
