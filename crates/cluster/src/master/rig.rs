//! A test rig for the master's procedures: one master and a few region servers on the
//! in-memory store, ticked together 100 ms at a time, with a host whose regions hold no data
//! and whose splits and merges succeed unless told to fail.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::rc::Rc;

use super::{AdminError, AdminRequest, Master, MasterConfig};
use crate::host::RegionHost;
use crate::layout::Layout;
use crate::mem::{MemKv, MemStore, Perfect, SharedStore};
use crate::record::{RegionRecord, RegionState};
use crate::regionserver::{RegionServer, RegionServerConfig};
use crate::wal::MemWal;

/// A host whose regions hold no data; merges succeed unless `fail` is set, splits unless
/// `fail_splits` is above zero (each failed split counts it down).
#[derive(Clone, Default)]
pub struct Host {
    pub open: Rc<RefCell<BTreeSet<String>>>,
    pub fail: Rc<Cell<bool>>,
    pub fail_splits: Rc<Cell<u32>>,
    /// Splits tried.
    pub splits: Rc<Cell<u32>>,
}

impl RegionHost for Host {
    fn open(&self, region: &str, _epoch: u64) -> Result<(), String> {
        self.open.borrow_mut().insert(region.to_string());
        Ok(())
    }

    fn close(&self, region: &str) -> Result<(), String> {
        self.open.borrow_mut().remove(region);
        Ok(())
    }

    fn abort(&self) {
        self.open.borrow_mut().clear();
    }

    fn try_open(&self, region: &str, epoch: u64) -> Option<Result<(), String>> {
        Some(self.open(region, epoch))
    }

    fn try_close(&self, region: &str) -> Option<Result<(), String>> {
        Some(self.close(region))
    }

    fn cancel_open(&self, _region: &str) {}

    /// Splits at `row` (the model has no middle key: it needs one).
    fn try_split(
        &self,
        region: &str,
        _epoch: u64,
        _daughters: &(String, String),
        row: Option<&[u8]>,
    ) -> Option<Result<Vec<u8>, String>> {
        self.splits.set(self.splits.get() + 1);
        if self.fail_splits.get() > 0 {
            self.fail_splits.set(self.fail_splits.get() - 1);
            return Some(Err("injected split failure".into()));
        }
        let Some(row) = row else {
            return Some(Err("no split row".into()));
        };
        if !self.open.borrow_mut().remove(region) {
            return Some(Err("not open here".into()));
        }
        Some(Ok(row.to_vec()))
    }

    fn try_merge(&self, low: &str, high: &str, _merged: &str) -> Option<Result<(), String>> {
        if self.fail.get() {
            return Some(Err("injected merge failure".into()));
        }
        let mut open = self.open.borrow_mut();
        if !open.remove(low) || !open.remove(high) {
            return Some(Err("not open here".into()));
        }
        Some(Ok(()))
    }

    fn requests(&self) -> Vec<(String, crate::load::Accesses)> {
        Vec::new()
    }

    fn region_metrics(&self) -> Vec<(String, crate::region_metrics::RegionMetrics)> {
        Vec::new()
    }
}

/// One master and `servers.len()` region servers on one in-memory store.
pub struct Rig {
    pub store: SharedStore,
    pub now: u64,
    pub master: Master<MemKv, MemWal>,
    pub wal: MemWal,
    pub servers: Vec<RegionServer<MemKv, Host>>,
    pub hosts: Vec<Host>,
}

impl Rig {
    /// A rig of `servers` region servers, the master active (the balancer off).
    pub fn new(servers: usize) -> Rig {
        let store = MemStore::new(1);
        let layout = Layout::new("/t");
        let kv = || MemKv::new(store.clone(), Rc::new(Perfect));
        let wal = MemWal::new(0);
        let master = Master::new(
            kv(),
            wal.clone(),
            layout.clone(),
            "m:1".into(),
            MasterConfig {
                balance: false,
                janitor_period_ms: 5_000,
                ..MasterConfig::default()
            },
        );
        let hosts: Vec<Host> = (0..servers).map(|_| Host::default()).collect();
        let servers = hosts
            .iter()
            .enumerate()
            .map(|(i, h)| {
                RegionServer::new(
                    kv(),
                    h.clone(),
                    layout.clone(),
                    format!("h:{i}:1"),
                    format!("h:{i}"),
                    RegionServerConfig::default(),
                )
            })
            .collect();
        let mut rig = Rig {
            store,
            now: 0,
            master,
            wal,
            servers,
            hosts,
        };
        rig.run(5);
        assert!(rig.master.is_active());
        rig
    }

    /// Ticks everything `ticks` times, 100 ms apart.
    pub fn run(&mut self, ticks: usize) {
        for _ in 0..ticks {
            self.now += 100;
            self.store.borrow_mut().advance(self.now);
            self.master.tick(self.now);
            for s in &mut self.servers {
                s.tick(self.now);
            }
        }
    }

    /// The record of region `name`.
    pub fn region(&self, name: &str) -> Option<RegionRecord> {
        self.master
            .regions()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r)
    }

    /// Regions of table `t` not retired by a split or merge, by start row.
    pub fn live(&self) -> Vec<(String, RegionRecord)> {
        let mut all: Vec<_> = self
            .master
            .regions()
            .into_iter()
            .filter(|(_, r)| !matches!(r.state, RegionState::Merged | RegionState::Split))
            .collect();
        all.sort_by(|a, b| a.1.start.cmp(&b.1.start));
        all
    }

    /// Creates `t` split at `splits` and waits until every region is open.
    pub fn table(&mut self, splits: &[&str]) -> Vec<(String, RegionRecord)> {
        let req = AdminRequest::CreateTable {
            table: "t".into(),
            splits: splits.iter().map(|s| s.as_bytes().to_vec()).collect(),
        };
        self.master.submit(req).unwrap();
        self.run(10);
        let live = self.live();
        assert!(live.iter().all(|(_, r)| r.state == RegionState::Open));
        live
    }

    /// Asks for a merge of `a` and `b`.
    pub fn merge(&mut self, a: &str, b: &str) -> Result<String, AdminError> {
        self.master.submit(AdminRequest::Merge {
            a: a.into(),
            b: b.into(),
        })
    }

    /// Asks for a split of `region` at `row`.
    pub fn split(&mut self, region: &str, row: &str) -> Result<String, AdminError> {
        self.master.submit(AdminRequest::Split {
            region: region.into(),
            row: Some(row.as_bytes().to_vec()),
        })
    }
}
