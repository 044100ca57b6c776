//! The simulation's model of region data and the checker of its invariants: which server holds
//! which region, which writes were acknowledged, and what a reopened region contains.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use strata_cluster::host::RegionHost;
use strata_cluster::wal::MemWal;

/// Shared model state.
#[derive(Default)]
pub struct Model {
    /// Writes acknowledged to a client, per region.
    pub acked: BTreeMap<String, BTreeSet<u64>>,
    /// Durable (flushed) contents per region.
    pub store: BTreeMap<String, BTreeSet<u64>>,
    /// Unflushed writes per (server, region): in its memtable and WAL.
    pub memtable: BTreeMap<(String, String), BTreeSet<u64>>,
    /// Servers that opened a region and did not close it cleanly.
    pub holders: BTreeMap<String, BTreeSet<String>>,
    /// Invariant violations seen.
    pub violations: Vec<String>,
    /// Regions opened after a crash of their previous holder (coverage).
    pub recovered_opens: u64,
    /// Opens in total.
    pub opens: u64,
}

pub type SharedModel = Rc<RefCell<Model>>;

/// The storage side of one simulated region server.
pub struct SimHost {
    pub server: String,
    pub model: SharedModel,
    pub wal: MemWal,
    /// Whether the next open fails (decided by the simulator).
    pub fail_next_open: Rc<RefCell<bool>>,
}

impl RegionHost for SimHost {
    fn open(&self, region: &str, _epoch: u64) -> Result<(), String> {
        if std::mem::take(&mut *self.fail_next_open.borrow_mut()) {
            return Err("injected open failure".into());
        }
        let mut m = self.model.borrow_mut();
        m.opens += 1;
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
        let acked = m.acked.get(region).cloned().unwrap_or_default();
        let lost: Vec<u64> = acked.difference(&content).copied().collect();
        if !lost.is_empty() {
            m.violations.push(format!(
                "{} opened {region} without acknowledged writes {lost:?}",
                self.server
            ));
        }
        m.store.insert(region.to_string(), content);
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

    fn abort(&self) {
        let mut m = self.model.borrow_mut();
        m.memtable.retain(|(s, _), _| *s != self.server);
    }

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
}
