//! The simulation's model of region data and the checker of its invariants: which server holds
//! which region, which writes were acknowledged (each to a row), and what a reopened region
//! contains. Writes are checked by key range, not by region name: a region that opens must
//! hold every acknowledged write of its table's incarnation whose row it covers, whichever
//! region (a split parent, say) acknowledged it.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use strata_cluster::host::RegionHost;
use strata_cluster::layout::Layout;
use strata_cluster::mem::SharedStore;
use strata_cluster::record::RegionRecord;
use strata_cluster::wal::MemWal;

/// A region's key range: `[start, end)`, empty end = end of table.
pub type Range = (Vec<u8>, Vec<u8>);

/// Whether `row` is in `range`.
pub fn covers(range: &Range, row: &[u8]) -> bool {
    row >= range.0.as_slice() && (range.1.is_empty() || row < range.1.as_slice())
}

/// The table incarnation a region belongs to (`table,incarnation` of `table,incarnation.seq`):
/// key ranges are compared within one incarnation only.
pub fn incarnation(region: &str) -> &str {
    region.rsplit_once('.').map_or(region, |(i, _)| i)
}

/// Shared model state.
#[derive(Default)]
pub struct Model {
    /// Writes acknowledged to a client, per table incarnation: write id → row.
    pub acked: BTreeMap<String, BTreeMap<u64, Vec<u8>>>,
    /// Durable (flushed) contents per region: write ids.
    pub store: BTreeMap<String, BTreeSet<u64>>,
    /// Unflushed writes per (server, region): in its memtable and WAL.
    pub memtable: BTreeMap<(String, String), BTreeSet<u64>>,
    /// Key ranges of the regions opened or created by a split so far.
    pub ranges: BTreeMap<String, Range>,
    /// Servers that opened a region and did not close it cleanly.
    pub holders: BTreeMap<String, BTreeSet<String>>,
    /// Invariant violations seen.
    pub violations: Vec<String>,
    /// Regions opened after a crash of their previous holder (coverage).
    pub recovered_opens: u64,
    /// Opens in total.
    pub opens: u64,
    /// Splits carried out by servers.
    pub splits: u64,
    /// Merges carried out by servers.
    pub merges: u64,
    /// Daughters opened with writes their parent acknowledged (coverage).
    pub daughters_with_parent_writes: u64,
}

impl Model {
    /// The row of acknowledged write `w` of `region`'s incarnation.
    fn row_of(&self, region: &str, w: u64) -> Option<&Vec<u8>> {
        self.acked.get(incarnation(region)).and_then(|a| a.get(&w))
    }
}

pub type SharedModel = Rc<RefCell<Model>>;

/// The storage side of one simulated region server.
pub struct SimHost {
    pub server: String,
    pub model: SharedModel,
    pub wal: MemWal,
    /// Whether the next open or split fails (decided by the simulator).
    pub fail_next_open: Rc<RefCell<bool>>,
    /// The coordination store, read for a region's key range at open (as the real host
    /// reads the region's record).
    pub store: SharedStore,
    pub layout: Layout,
}

impl SimHost {
    fn range_of(&self, region: &str) -> Option<Range> {
        let key = self.layout.region(region);
        let kvs = self.store.borrow().peek_prefix(&key);
        let kv = kvs.into_iter().find(|kv| kv.key == key)?;
        let rec = RegionRecord::decode(&kv.value).ok()?;
        Some((rec.start, rec.end))
    }
}

impl RegionHost for SimHost {
    fn open(&self, region: &str, _epoch: u64) -> Result<(), String> {
        if std::mem::take(&mut *self.fail_next_open.borrow_mut()) {
            return Err("injected open failure".into());
        }
        let range = self
            .range_of(region)
            .ok_or_else(|| format!("region {region} has no record"))?;
        let mut m = self.model.borrow_mut();
        m.opens += 1;
        if self.wal.is_removed(region) {
            m.violations.push(format!(
                "{} opened {region}, whose directory was deleted",
                self.server
            ));
        }
        let parents = self.wal.referenced_parents(region);
        let daughter = !parents.is_empty();
        for parent in &parents {
            if self.wal.is_removed(parent) {
                m.violations.push(format!(
                    "{} opened {region}, which references deleted parent {parent}",
                    self.server
                ));
            }
        }
        // The model's daughters (and merged regions) compact their references away as they
        // open.
        self.wal.compacted(region);
        let holders = m.holders.get(region).cloned().unwrap_or_default();
        let mut crashed_holder = false;
        for h in holders.iter().filter(|h| **h != self.server) {
            crashed_holder = true;
            if !self.wal.is_fenced(h) {
                m.violations.push(format!(
                    "{} opened {region} while {h} holds it with an unfenced WAL",
                    self.server
                ));
            }
        }
        if crashed_holder {
            m.recovered_opens += 1;
        }
        let mut content = m.store.get(region).cloned().unwrap_or_default();
        content.extend(self.wal.take_recovered(region));
        let lost: Vec<u64> = m
            .acked
            .get(incarnation(region))
            .map(|acked| {
                acked
                    .iter()
                    .filter(|(w, row)| covers(&range, row) && !content.contains(w))
                    .map(|(w, _)| *w)
                    .collect()
            })
            .unwrap_or_default();
        if !lost.is_empty() {
            m.violations.push(format!(
                "{} opened {region} without acknowledged writes {lost:?}",
                self.server
            ));
        }
        if daughter && !content.is_empty() {
            m.daughters_with_parent_writes += 1;
        }
        m.store.insert(region.to_string(), content);
        m.ranges.insert(region.to_string(), range);
        m.holders
            .insert(region.to_string(), BTreeSet::from([self.server.clone()]));
        Ok(())
    }

    fn close(&self, region: &str) -> Result<(), String> {
        let mut m = self.model.borrow_mut();
        let flushed = m
            .memtable
            .remove(&(self.server.clone(), region.to_string()))
            .unwrap_or_default();
        m.store
            .entry(region.to_string())
            .or_default()
            .extend(flushed);
        self.wal.truncate(&self.server, region);
        if let Some(h) = m.holders.get_mut(region) {
            h.remove(&self.server);
        }
        Ok(())
    }

    /// As the storage engine: refuses a region still referencing its parent, flushes, picks
    /// the middle row of the region's data if not given one (at least three distinct rows),
    /// and writes each daughter's share of the parent's files; the parent stops being held.
    fn try_split(
        &self,
        region: &str,
        _epoch: u64,
        daughters: &(String, String),
        row: Option<&[u8]>,
    ) -> Option<Result<Vec<u8>, String>> {
        if std::mem::take(&mut *self.fail_next_open.borrow_mut()) {
            return Some(Err("injected split failure".into()));
        }
        if self.wal.referenced_parent(region).is_some() {
            return Some(Err("still references its parent".into()));
        }
        let mut m = self.model.borrow_mut();
        let Some(range) = m.ranges.get(region).cloned() else {
            return Some(Err(format!("{region} was never opened")));
        };
        // Closed for writes, then flushed: every write it acknowledged is in its files.
        let flushed = m
            .memtable
            .remove(&(self.server.clone(), region.to_string()))
            .unwrap_or_default();
        m.store
            .entry(region.to_string())
            .or_default()
            .extend(flushed);
        self.wal.truncate(&self.server, region);
        let content = m.store.get(region).cloned().unwrap_or_default();
        let split = match row {
            Some(r) => r.to_vec(),
            None => {
                let rows: BTreeSet<&Vec<u8>> = content
                    .iter()
                    .filter_map(|w| m.row_of(region, *w))
                    .collect();
                if rows.len() < 3 {
                    return Some(Err("no usable split point".into()));
                }
                match rows.iter().nth(rows.len() / 2) {
                    Some(r) => (*r).clone(),
                    None => return Some(Err("no usable split point".into())),
                }
            }
        };
        if split <= range.0 || (!range.1.is_empty() && split >= range.1) {
            return Some(Err("split row outside the region".into()));
        }
        let (low, high): (BTreeSet<u64>, BTreeSet<u64>) = content
            .iter()
            .partition(|w| m.row_of(region, **w).is_some_and(|r| *r < split));
        m.store.insert(daughters.0.clone(), low);
        m.store.insert(daughters.1.clone(), high);
        m.ranges
            .insert(daughters.0.clone(), (range.0.clone(), split.clone()));
        m.ranges
            .insert(daughters.1.clone(), (split.clone(), range.1.clone()));
        if let Some(h) = m.holders.get_mut(region) {
            h.remove(&self.server);
        }
        m.splits += 1;
        self.wal.add_references(region, daughters);
        Some(Ok(split))
    }

    /// As the storage engine: refuses regions still referencing a parent, or not adjacent,
    /// flushes both, and writes the merged region referencing both's files; neither is held
    /// any more.
    fn try_merge(&self, low: &str, high: &str, merged: &str) -> Option<Result<(), String>> {
        if std::mem::take(&mut *self.fail_next_open.borrow_mut()) {
            return Some(Err("injected merge failure".into()));
        }
        if [low, high]
            .iter()
            .any(|r| self.wal.referenced_parent(r).is_some())
        {
            return Some(Err("still references a parent".into()));
        }
        let mut m = self.model.borrow_mut();
        let (Some(lr), Some(hr)) = (m.ranges.get(low).cloned(), m.ranges.get(high).cloned()) else {
            return Some(Err("a region was never opened".into()));
        };
        if lr.1.is_empty() || lr.1 != hr.0 {
            return Some(Err(format!("{low} and {high} are not adjacent")));
        }
        let mut content = BTreeSet::new();
        for r in [low, high] {
            // Closed for writes, then flushed: every write it acknowledged is in its files.
            let flushed = m
                .memtable
                .remove(&(self.server.clone(), r.to_string()))
                .unwrap_or_default();
            let store = m.store.entry(r.to_string()).or_default();
            store.extend(flushed);
            content.extend(store.iter().copied());
            self.wal.truncate(&self.server, r);
            if let Some(h) = m.holders.get_mut(r) {
                h.remove(&self.server);
            }
        }
        m.store.insert(merged.to_string(), content);
        m.ranges.insert(merged.to_string(), (lr.0, hr.1));
        m.merges += 1;
        self.wal.add_merge_references((low, high), merged);
        Some(Ok(()))
    }

    fn abort(&self) {
        let mut m = self.model.borrow_mut();
        m.memtable.retain(|(s, _), _| *s != self.server);
    }

    // The model's opens and closes finish at once.
    fn try_open(&self, region: &str, epoch: u64) -> Option<Result<(), String>> {
        Some(self.open(region, epoch))
    }

    fn try_close(&self, region: &str) -> Option<Result<(), String>> {
        Some(self.close(region))
    }

    fn cancel_open(&self, _region: &str) {}

    /// Writes in each region's memtable here: enough for the load reports to carry rates.
    fn requests(&self) -> Vec<(String, strata_cluster::load::Accesses)> {
        let m = self.model.borrow();
        m.memtable
            .iter()
            .filter(|((s, _), _)| *s == self.server)
            .map(|((_, r), w)| {
                let writes = w.len() as u64;
                (
                    r.clone(),
                    strata_cluster::load::Accesses { reads: 0, writes },
                )
            })
            .collect()
    }

    /// The same writes as the regions' statistics (what the metrics reports carry).
    fn region_metrics(&self) -> Vec<(String, strata_cluster::region_metrics::RegionMetrics)> {
        self.requests()
            .into_iter()
            .map(|(r, a)| {
                let m = strata_cluster::region_metrics::RegionMetrics {
                    writes: a.writes,
                    ..Default::default()
                };
                (r, m)
            })
            .collect()
    }
}
