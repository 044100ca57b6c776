//! Which segments exist, the newest sequence id each holds per region, and when a segment
//! may be deleted.
//!
//! Invariants:
//! - while the log is open exactly one segment is active (the one appended to) and it is
//!   never obsolete; once the log is closed none is;
//! - a closed segment is obsolete when, for every region with entries in it, that region's
//!   flushed sequence id is at least the largest sequence id of the region in the segment
//!   (a segment without entries is obsolete as soon as it is closed).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// One segment file.
#[derive(Debug)]
pub(crate) struct Segment {
    pub path: PathBuf,
    /// Bytes in the file, header included.
    pub bytes: u64,
    /// Region → largest sequence id of that region in the segment.
    pub max_seq: HashMap<u64, u64>,
}

/// The live segments of a WAL and the regions' flushed sequence ids.
#[derive(Debug, Default)]
pub(crate) struct SegmentSet {
    segments: BTreeMap<u64, Segment>,
    active: Option<u64>,
    /// Region → sequence id up to which its edits are in store files.
    flushed: HashMap<u64, u64>,
}

impl SegmentSet {
    /// Adds a closed segment (found on open).
    pub fn insert_closed(&mut self, id: u64, segment: Segment) {
        self.segments.insert(id, segment);
    }

    /// Makes a new, empty segment the active one; the previous active one is closed.
    pub fn activate(&mut self, id: u64, path: PathBuf, bytes: u64) {
        self.segments.insert(
            id,
            Segment {
                path,
                bytes,
                max_seq: HashMap::new(),
            },
        );
        self.active = Some(id);
    }

    /// Closes the active segment (the log was closed): from now on it is obsolete once its
    /// regions' entries are flushed, as any closed segment. False if none was active.
    pub fn close_active(&mut self) -> bool {
        self.active.take().is_some()
    }

    /// Records a batch written to segment `id`, now `bytes` long.
    pub fn record_batch(&mut self, id: u64, regions: &[(u64, u64)], bytes: u64) {
        if let Some(segment) = self.segments.get_mut(&id) {
            segment.bytes = bytes;
            for &(region, seq) in regions {
                let max = segment.max_seq.entry(region).or_insert(seq);
                *max = (*max).max(seq);
            }
        }
    }

    /// Records that `region`'s edits up to `seq` are in store files.
    pub fn mark_flushed(&mut self, region: u64, seq: u64) {
        let flushed = self.flushed.entry(region).or_insert(seq);
        *flushed = (*flushed).max(seq);
    }

    /// Forgets `region` entirely: its entries no longer keep any segment alive.
    pub fn forget_region(&mut self, region: u64) {
        self.flushed.remove(&region);
        for segment in self.segments.values_mut() {
            segment.max_seq.remove(&region);
        }
    }

    /// Removes and returns the obsolete segments, oldest first.
    pub fn take_obsolete(&mut self) -> Vec<(u64, Segment)> {
        let obsolete: Vec<u64> = self
            .segments
            .iter()
            .filter(|(id, segment)| Some(**id) != self.active && self.is_flushed(segment))
            .map(|(id, _)| *id)
            .collect();
        obsolete
            .into_iter()
            .filter_map(|id| self.segments.remove(&id).map(|s| (id, s)))
            .collect()
    }

    /// Puts back a segment that [`take_obsolete`](Self::take_obsolete) returned but that
    /// could not be deleted; it is offered again next time.
    pub fn restore(&mut self, id: u64, segment: Segment) {
        self.segments.insert(id, segment);
    }

    /// The regions with entries in live segments, ascending.
    pub fn regions(&self) -> Vec<u64> {
        let mut regions: Vec<u64> = self
            .segments
            .values()
            .flat_map(|s| s.max_seq.keys().copied())
            .collect();
        regions.sort_unstable();
        regions.dedup();
        regions
    }

    /// When more than `max_segments` segments are live, the regions whose unflushed entries
    /// keep the oldest ones (those past the limit) alive, ascending: flushing them lets those
    /// segments go (HBase's `hbase.regionserver.maxlogs` forced flushes). Empty otherwise.
    pub fn regions_holding_oldest(&self, max_segments: usize) -> Vec<u64> {
        let excess = self.segments.len().saturating_sub(max_segments);
        let mut regions: Vec<u64> = self
            .segments
            .iter()
            .filter(|(id, _)| Some(**id) != self.active)
            .take(excess)
            .flat_map(|(_, s)| s.max_seq.iter())
            .filter(|(region, max)| self.flushed.get(region).is_none_or(|f| f < max))
            .map(|(region, _)| *region)
            .collect();
        regions.sort_unstable();
        regions.dedup();
        regions
    }

    /// Number of live segments and their total bytes.
    pub fn count_and_bytes(&self) -> (u64, u64) {
        let bytes = self.segments.values().map(|s| s.bytes).sum();
        (self.segments.len() as u64, bytes)
    }

    fn is_flushed(&self, segment: &Segment) -> bool {
        segment
            .max_seq
            .iter()
            .all(|(region, max)| self.flushed.get(region).is_some_and(|f| f >= max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: Vec<(u64, Segment)>) -> Vec<u64> {
        v.into_iter().map(|(id, _)| id).collect()
    }

    #[test]
    fn the_regions_holding_segments_past_the_limit_are_named() {
        let mut set = SegmentSet::default();
        set.activate(1, "1".into(), 24);
        set.record_batch(1, &[(7, 10), (8, 3)], 100);
        set.activate(2, "2".into(), 24);
        set.record_batch(2, &[(9, 20)], 50);
        set.activate(3, "3".into(), 24);
        set.record_batch(3, &[(7, 30)], 50);
        assert!(set.regions_holding_oldest(3).is_empty());
        assert_eq!(set.regions_holding_oldest(2), vec![7, 8]);
        assert_eq!(set.regions_holding_oldest(1), vec![7, 8, 9]);
        // The active segment is never counted as one to free.
        assert_eq!(set.regions_holding_oldest(0), vec![7, 8, 9]);
        // A region flushed past its entries in a segment no longer holds it.
        set.mark_flushed(7, 10);
        assert_eq!(set.regions_holding_oldest(2), vec![8]);
    }

    #[test]
    fn a_segment_goes_only_when_every_region_in_it_flushed_past_it() {
        let mut set = SegmentSet::default();
        set.activate(1, "1".into(), 24);
        set.record_batch(1, &[(7, 10), (8, 3), (7, 12)], 100);
        set.activate(2, "2".into(), 24);
        set.record_batch(2, &[(7, 20)], 50);
        assert_eq!(set.count_and_bytes(), (2, 150));
        assert_eq!(set.regions(), vec![7, 8]);
        assert!(set.take_obsolete().is_empty());
        set.mark_flushed(7, 12);
        assert!(set.take_obsolete().is_empty(), "region 8 has not flushed");
        set.mark_flushed(8, 2);
        assert!(
            set.take_obsolete().is_empty(),
            "region 8 flushed only to 2 of 3"
        );
        set.mark_flushed(8, 3);
        set.mark_flushed(7, 11); // never moves backwards
        assert_eq!(ids(set.take_obsolete()), vec![1]);
        set.mark_flushed(7, 99);
        assert!(set.take_obsolete().is_empty(), "the active segment stays");
    }

    #[test]
    fn forgotten_regions_and_empty_segments_keep_nothing_alive() {
        let mut set = SegmentSet::default();
        set.activate(1, "1".into(), 24);
        set.activate(2, "2".into(), 24);
        set.record_batch(2, &[(5, 1)], 60);
        set.activate(3, "3".into(), 24);
        assert_eq!(ids(set.take_obsolete()), vec![1]);
        set.forget_region(5);
        let taken = set.take_obsolete();
        assert_eq!(taken.len(), 1);
        let (id, segment) = taken.into_iter().next().unwrap();
        set.restore(id, segment);
        assert_eq!(ids(set.take_obsolete()), vec![2]);
    }
}
