//! The master's side of the protocol, as a state machine driven by [`Master::tick`]: hold a
//! lease, campaign, and once elected load the catalog, watch servers and acknowledgements, and
//! drive the persisted procedures to completion.
//!
//! Every write of the active master is a transaction guarded by its election key's create
//! revision (its epoch) and by the mod revision of every catalog key it changes, so a deposed or
//! confused master changes nothing; on any failed or unanswered write it drops its image and
//! reloads (or steps down).
//!
//! Module map: `image` (the in-memory catalog and its indexes), `batch` (guarded batched
//! writes), `procs` (one function per procedure kind), `tables` (disable, enable, reopen and
//! truncate), `split` (region splits and the janitor of split and merged parents), `merge` (region
//! merges), `admin` (requests
//! that start procedures), `operations` (balancer switch,
//! decommission), `balancer`, `decommission` (draining).

mod admin;
mod balancer;
mod batch;
mod decommission;
mod image;
mod merge;
mod operations;
mod procs;
mod requests;
#[cfg(test)]
mod rig;
mod split;
mod tables;

use crate::election::{self, Candidacy};
use crate::kv::{Kv, KvError, Revision, WatchId};
use crate::layout::Layout;
use crate::lease::{LeaseKeeper, LeaseStatus, Millis};
use crate::record::{Procedure, RegionRecord, TableRecord};
use crate::wal::WalFencer;

pub use admin::{AdminError, AdminRequest, Refusal, RefusalKind, Switch, MAX_TABLE_RECORD};
use batch::Batch;
use image::{Image, Loader};
pub use requests::{parse_result, submit_request, take_result};

/// Master settings.
#[derive(Debug, Clone)]
pub struct MasterConfig {
    /// Lease TTL of the master's candidacy, seconds.
    pub ttl_secs: i64,
    /// Keys per page when loading the catalog.
    pub page: usize,
    /// Offline regions turned into assign procedures per tick.
    pub sweep_per_tick: usize,
    /// Pages of the catalog read per tick while loading (the lease is renewed between ticks).
    pub load_pages_per_tick: usize,
    /// Operations written per tick, at most (bounds a tick's duration on a large catalog).
    pub ops_per_tick: u64,
    /// Whether the balancer runs, until an operator sets its switch (persisted in etcd).
    pub balance: bool,
    /// Interval between the balancer's reads of the servers' load reports, ms.
    pub balance_period_ms: Millis,
    /// Interval between two rounds of the janitor deleting split parents, ms.
    pub janitor_period_ms: Millis,
}

impl Default for MasterConfig {
    fn default() -> Self {
        MasterConfig {
            ttl_secs: 3,
            page: 1000,
            sweep_per_tick: 5000,
            load_pages_per_tick: 20,
            ops_per_tick: 20_000,
            balance: true,
            balance_period_ms: 10_000,
            janitor_period_ms: 2_000,
        }
    }
}

/// Why the leader stopped its tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Halt {
    /// Its election key is gone or replaced: step down.
    Deposed,
    /// Its image may differ from etcd: reload.
    Stale,
}

struct Lead {
    candidacy: Candidacy,
    image: Image,
    /// Watches of `rs/`, `ack/` and `request/`.
    watches: [WatchId; 3],
    /// Whether `request/` may hold requests (set by its watch; true after loading).
    requests_pending: bool,
    batch: Batch,
}

/// Counters of the master's work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MasterStats {
    /// Times this master became leader.
    pub elected: u64,
    /// Catalog loads (election or reload).
    pub loads: u64,
    /// Guarded transactions committed.
    pub txns: u64,
    /// Operations in those transactions.
    pub ops: u64,
}

/// One master (active or standing by).
pub struct Master<K: Kv, F: WalFencer> {
    kv: K,
    fencer: F,
    layout: Layout,
    address: String,
    config: MasterConfig,
    lease: Option<LeaseKeeper>,
    candidacy: Option<Candidacy>,
    lead: Option<Lead>,
    last_epoch: Option<Revision>,
    /// Counter of procedure ids in the current epoch (kept across reloads of the image).
    next_proc: u64,
    /// When a standby next reads the election.
    next_leader_check: Millis,
    /// The catalog being read after winning the election.
    loading: Option<Loader>,
    /// `stats.ops` at the start of the current tick.
    tick_start_ops: u64,
    /// When a tick last committed operations (work is flowing: tick again soon).
    last_progress: Option<Millis>,
    stats: MasterStats,
    /// When the balancer next weighs load.
    next_load_balance: Millis,
    /// The server the last load round found overloaded.
    last_overloaded: Option<String>,
    /// When the janitor next looks at split parents.
    next_janitor: Millis,
}

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// A master reachable at `address`.
    pub fn new(kv: K, fencer: F, layout: Layout, address: String, config: MasterConfig) -> Self {
        Master {
            kv,
            fencer,
            layout,
            address,
            config,
            lease: None,
            candidacy: None,
            lead: None,
            last_epoch: None,
            next_proc: 0,
            next_leader_check: 0,
            loading: None,
            tick_start_ops: 0,
            last_progress: None,
            stats: MasterStats::default(),
            next_load_balance: 0,
            last_overloaded: None,
            next_janitor: 0,
        }
    }

    /// Whether this master is active (elected, with a loaded catalog).
    pub fn is_active(&self) -> bool {
        self.lead.is_some()
    }

    /// Its epoch while active.
    pub fn epoch(&self) -> Option<Revision> {
        self.lead.as_ref().map(|l| l.candidacy.create_revision)
    }

    /// Its work counters.
    pub fn stats(&self) -> MasterStats {
        self.stats
    }

    /// The coordination store client.
    pub fn kv(&self) -> &K {
        &self.kv
    }

    /// While active: every region record.
    pub fn regions(&self) -> Vec<(String, RegionRecord)> {
        self.lead.as_ref().map_or_else(Vec::new, |l| {
            l.image
                .regions
                .iter()
                .map(|(k, v)| (k.clone(), v.0.clone()))
                .collect()
        })
    }

    /// While active: every table record.
    pub fn tables(&self) -> Vec<(String, TableRecord)> {
        self.lead.as_ref().map_or_else(Vec::new, |l| {
            l.image
                .tables
                .iter()
                .map(|(k, v)| (k.clone(), v.0.clone()))
                .collect()
        })
    }

    /// While active: every procedure in progress.
    pub fn procedures(&self) -> Vec<(String, Procedure)> {
        self.lead.as_ref().map_or_else(Vec::new, |l| {
            l.image
                .procs
                .iter()
                .map(|(k, v)| (k.clone(), v.0.clone()))
                .collect()
        })
    }

    /// While active: the decommissioned servers.
    pub fn decommissioned(&self) -> Vec<String> {
        self.lead
            .as_ref()
            .map_or_else(Vec::new, |l| l.image.drained.iter().cloned().collect())
    }

    /// While active: the balancer switch (persisted, else the configured default).
    pub fn balancer_enabled(&self) -> bool {
        self.lead.as_ref().map_or(self.config.balance, |l| {
            l.image.balancer_on.unwrap_or(self.config.balance)
        })
    }

    /// While active: the live region servers.
    pub fn live_servers(&self) -> Vec<String> {
        self.lead
            .as_ref()
            .map_or_else(Vec::new, |l| l.image.live.iter().cloned().collect())
    }

    /// Stops being a candidate (the lease is revoked, so a standby takes over at once).
    pub fn resign(&mut self) {
        if let Some(l) = self.lead.take() {
            for w in l.watches {
                self.kv.cancel(w);
            }
        }
        self.candidacy = None;
        if let Some(lease) = self.lease.take() {
            let _ = self.kv.revoke(lease.id());
        }
    }

    /// One step: keep the lease, campaign, and if active advance every procedure.
    pub fn tick(&mut self, now: Millis) {
        let lease = match self.lease.as_mut() {
            Some(l) => l,
            None => match LeaseKeeper::grant(&self.kv, self.config.ttl_secs, 0, now) {
                Ok(l) => self.lease.insert(l),
                Err(_) => return,
            },
        };
        if lease.tick(&self.kv, now) == LeaseStatus::Lost {
            self.step_down();
            return;
        }
        let lease_id = lease.id();
        if self.candidacy.is_none() {
            match election::campaign(&self.kv, &self.layout, lease_id, &self.address) {
                Ok(c) => self.candidacy = Some(c),
                Err(KvError::Invalid(_)) => {
                    self.step_down();
                    return;
                }
                Err(_) => return,
            }
        }
        if self.lead.is_none() {
            if self.loading.is_none() {
                // A standby looks at the election four times per TTL, not at every tick.
                if now < self.next_leader_check {
                    return;
                }
                if !self.elected() {
                    let ttl_ms = u64::try_from(self.config.ttl_secs).unwrap_or(1) * 1000;
                    self.next_leader_check = now + ttl_ms / 4;
                    return;
                }
            }
            if !self.continue_loading() {
                return;
            }
        }
        self.tick_start_ops = self.stats.ops;
        match self.lead_tick(now) {
            Ok(()) => {}
            Err(Halt::Deposed) => self.step_down(),
            Err(Halt::Stale) => self.drop_image(),
        }
        if self.stats.ops > self.tick_start_ops {
            self.last_progress = Some(now);
        }
    }

    /// Whether this master is active and committed work within the last
    /// [`crate::node::BUSY_WINDOW_MS`], or waits on its fencer's background work: a driver
    /// then ticks again after
    /// [`crate::node::BUSY_TICK`] rather than [`crate::node::TICK`], so procedures that flow
    /// (10,000 regions assigned at a start) are not paced by the idle tick.
    pub fn busy(&self, now: Millis) -> bool {
        self.lead.is_some()
            && (self
                .last_progress
                .is_some_and(|t| now.saturating_sub(t) < crate::node::BUSY_WINDOW_MS)
                || self.fencer.working())
    }

    fn step_down(&mut self) {
        self.drop_image();
        self.candidacy = None;
        self.lease = None;
    }

    fn drop_image(&mut self) {
        self.loading = None;
        if let Some(l) = self.lead.take() {
            for w in l.watches {
                self.kv.cancel(w);
            }
        }
    }

    /// Becomes active if this master's candidacy leads: loads the catalog and starts watching.
    /// Whether this master's candidacy leads.
    fn elected(&mut self) -> bool {
        let Some(candidacy) = self.candidacy.clone() else {
            return false;
        };
        match election::leader(&self.kv, &self.layout) {
            Ok(Some(kv)) => {
                kv.key == candidacy.key && kv.create_revision == candidacy.create_revision
            }
            Ok(None) => {
                // Our key is gone (lease expired): start over.
                self.step_down();
                false
            }
            Err(_) => false,
        }
    }

    /// Reads the next pages of the catalog; once complete starts watching and becomes active.
    fn continue_loading(&mut self) -> bool {
        let Some(candidacy) = self.candidacy.clone() else {
            return false;
        };
        let loader = self
            .loading
            .get_or_insert_with(|| Loader::new(&self.layout));
        let (image, from) = match loader.step(
            &self.kv,
            &self.layout,
            self.config.page,
            self.config.load_pages_per_tick,
        ) {
            Ok(Some(done)) => done,
            Ok(None) => return false,
            Err(_) => {
                self.loading = None;
                return false;
            }
        };
        self.loading = None;
        let Ok(w1) = self.kv.watch(&self.layout.servers(), from) else {
            return false;
        };
        let w2 = match self.kv.watch(&self.layout.acks(), from) {
            Ok(w) => w,
            Err(_) => {
                self.kv.cancel(w1);
                return false;
            }
        };
        let w3 = match self.kv.watch(&self.layout.requests(), from) {
            Ok(w) => w,
            Err(_) => {
                self.kv.cancel(w1);
                self.kv.cancel(w2);
                return false;
            }
        };
        if self.last_epoch != Some(candidacy.create_revision) {
            self.last_epoch = Some(candidacy.create_revision);
            self.next_proc = 0;
            self.stats.elected += 1;
        }
        // Never reuse an id of this epoch, even one persisted before a lost answer.
        let mine = format!("{:016x}-", candidacy.create_revision);
        for id in image.procs.keys() {
            if let Some(n) = id
                .strip_prefix(&mine)
                .and_then(|n| u64::from_str_radix(n, 16).ok())
            {
                self.next_proc = self.next_proc.max(n);
            }
        }
        self.stats.loads += 1;
        self.lead = Some(Lead {
            candidacy,
            image,
            watches: [w1, w2, w3],
            requests_pending: true,
            batch: Batch::default(),
        });
        true
    }

    fn lead_tick(&mut self, now: Millis) -> Result<(), Halt> {
        self.take_events()?;
        self.take_requests()?;
        self.start_crash_recoveries()?;
        self.sweep()?;
        self.housekeeping()?;
        self.janitor(now)?;
        self.drain()?;
        self.balance(now)?;
        for _ in 0..16 {
            if self.over_budget() {
                break;
            }
            let before = self.stats.ops + self.pending_ops() as u64;
            self.run_procedures(now)?;
            self.flush()?;
            if self.stats.ops + self.pending_ops() as u64 == before {
                break;
            }
        }
        Ok(())
    }

    /// Whether this tick has written its share of operations.
    pub(crate) fn over_budget(&self) -> bool {
        self.stats.ops + self.pending_ops() as u64 - self.tick_start_ops >= self.config.ops_per_tick
    }

    fn lead(&mut self) -> &mut Lead {
        self.lead.as_mut().expect("called only while active")
    }

    fn take_events(&mut self) -> Result<(), Halt> {
        let watches = self.lead().watches;
        for w in watches {
            match self.kv.poll(w) {
                Ok(events) if w == watches[2] => {
                    if !events.is_empty() {
                        self.lead().requests_pending = true;
                    }
                }
                Ok(events) => {
                    let layout = self.layout.clone();
                    let image = &mut self.lead().image;
                    for ev in &events {
                        image.apply_event(&layout, ev);
                    }
                }
                Err(KvError::WatchLost(_)) => return Err(Halt::Stale),
                Err(_) => {}
            }
        }
        Ok(())
    }

    /// A new procedure id: `<epoch>-<counter>`, unique across masters since epochs are.
    fn new_proc_id(&mut self) -> String {
        self.next_proc += 1;
        let epoch = self.lead().candidacy.create_revision;
        format!("{epoch:016x}-{:08x}", self.next_proc)
    }
}
