//! A deterministic simulation of masters and region servers over the in-memory etcd: simulated
//! time, every random choice from one seeded generator, faults injected (kill -9 and restart,
//! SIGSTOP-like pauses, partitions from etcd, etcd lost by everyone at once, lost requests and
//! answers, broken watches, failed opens), and the invariants checked after every step. A
//! server that aborts (its lease lost) registers again as a new incarnation after a back-off,
//! revoking the lease it lost, as a region server process does.

pub mod model;
pub mod outage;
mod requests;

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::rc::Rc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_cluster::host::RegionHost;
use strata_cluster::kv::LeaseId;
use strata_cluster::layout::{region_table, Layout};
use strata_cluster::lease::Millis;
use strata_cluster::master::{AdminRequest, Master, MasterConfig};
use strata_cluster::mem::{Delivery, Link, MemKv, MemStore, SharedStore};
use strata_cluster::record::{Procedure, RegionRecord, RegionState, TableRecord, TableState};
use strata_cluster::regionserver::{RegionServer, RegionServerConfig};
use strata_cluster::wal::MemWal;

use model::{Model, SharedModel, SimHost};

type Rng64 = Rc<RefCell<SmallRng>>;

/// Settings of one run.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub masters: usize,
    pub servers: usize,
    pub initial_regions: u32,
    /// Time with faults injected.
    pub chaos_ms: Millis,
    /// Time after healing in which everything must be served again.
    pub heal_ms: Millis,
    pub step_ms: Millis,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            masters: 2,
            servers: 4,
            initial_regions: 6,
            chaos_ms: 30_000,
            heal_ms: 30_000,
            step_ms: 20,
        }
    }
}

/// Counters of what a run exercised.
#[derive(Debug, Default, Clone, Copy)]
pub struct Coverage {
    pub decommissions: u64,
    pub server_kills: u64,
    pub server_pauses: u64,
    pub master_kills: u64,
    pub partitions: u64,
    pub elections: u64,
    pub recovered_opens: u64,
    pub opens: u64,
    pub acked_writes: u64,
    pub admin_accepted: u64,
    /// Disable, enable, reopen and truncate requests accepted.
    pub lifecycle_accepted: u64,
    /// Creations of a table under the name of a dropped one.
    pub recreated: u64,
    /// Split requests accepted.
    pub splits_accepted: u64,
    /// Splits carried out by a server.
    pub splits_done: u64,
    /// Daughters opened holding writes their parent acknowledged.
    pub daughters_with_parent_writes: u64,
    /// Merge requests accepted.
    pub merges_accepted: u64,
    /// Merges carried out by a server.
    pub merges_done: u64,
    /// Times every process lost etcd at once.
    pub etcd_outages: u64,
    /// Servers that registered again as a new incarnation after aborting.
    pub reincarnations: u64,
}

struct SimLink {
    rng: Rng64,
    now: Rc<Cell<Millis>>,
    cut_until: Cell<Millis>,
    loss: f64,
}

impl Link for SimLink {
    fn next(&self) -> Delivery {
        if self.now.get() < self.cut_until.get() {
            return Delivery {
                drop_request: true,
                ..Delivery::default()
            };
        }
        let mut rng = self.rng.borrow_mut();
        Delivery {
            drop_request: rng.gen_bool(self.loss),
            drop_response: rng.gen_bool(self.loss),
            delay: rng.gen_range(0..40),
        }
    }

    fn break_watch(&self) -> bool {
        self.rng.borrow_mut().gen_bool(self.loss / 10.0)
    }
}

struct Node<T> {
    process: Option<T>,
    link: Rc<SimLink>,
    next_tick: Millis,
    paused_until: Millis,
    restart_at: Millis,
    /// The lease of the incarnation that aborted in this process (revoked by the next one).
    predecessor: Option<LeaseId>,
}

type SimMaster = Master<MemKv, MemWal>;

/// The balancer is off for this long at the end of a run.
const QUIESCE_MS: Millis = 8000;
/// Longest extra time after healing for procedures still in flight to finish.
const SETTLE_MS: Millis = 10_000;
type SimServer = RegionServer<MemKv, SimHost>;

/// A served region's end row and name.
type EndAndName<'a> = (&'a [u8], &'a str);

/// One simulated cluster.
pub struct World {
    seed: u64,
    config: SimConfig,
    rng: Rng64,
    now: Rc<Cell<Millis>>,
    store: SharedStore,
    wal: MemWal,
    model: SharedModel,
    layout: Layout,
    masters: Vec<Node<SimMaster>>,
    servers: Vec<Node<SimServer>>,
    startcode: u64,
    next_write: u64,
    next_table: u32,
    /// Names of tables a drop was accepted for (candidates for re-creation).
    dropped: BTreeSet<String>,
    loss: f64,
    pub coverage: Coverage,
    trace: Vec<String>,
    verbose: bool,
    epochs: BTreeSet<i64>,
    /// After healing: the balancer switch and decommissions still to undo.
    restore: bool,
    /// A server ticked since the last check of who serves what.
    served_changed: bool,
    /// The balancer was switched off for the last seconds (a load move may start any time
    /// while clients write, and must not be caught half done by the final check).
    quiesced: bool,
}

impl World {
    pub fn new(seed: u64, config: SimConfig, verbose: bool) -> World {
        let rng: Rng64 = Rc::new(RefCell::new(SmallRng::seed_from_u64(seed)));
        let loss = [0.0, 0.01, 0.05][rng.borrow_mut().gen_range(0..3)];
        let now = Rc::new(Cell::new(0));
        let mut w = World {
            seed,
            rng,
            now,
            store: MemStore::new(1),
            wal: MemWal::new(1_500),
            model: Rc::new(RefCell::new(Model::default())),
            layout: Layout::new("/sim"),
            masters: Vec::new(),
            servers: Vec::new(),
            startcode: 0,
            next_write: 0,
            next_table: 1,
            dropped: BTreeSet::new(),
            loss,
            coverage: Coverage::default(),
            trace: Vec::new(),
            verbose,
            epochs: BTreeSet::new(),
            restore: false,
            quiesced: false,
            served_changed: true,
            config,
        };
        for _ in 0..w.config.masters {
            let link = w.link();
            w.masters.push(Node {
                process: None,
                link,
                next_tick: 0,
                paused_until: 0,
                restart_at: 0,
                predecessor: None,
            });
        }
        for _ in 0..w.config.servers {
            let link = w.link();
            w.servers.push(Node {
                process: None,
                link,
                next_tick: 0,
                paused_until: 0,
                restart_at: 0,
                predecessor: None,
            });
        }
        w
    }

    fn link(&self) -> Rc<SimLink> {
        Rc::new(SimLink {
            rng: self.rng.clone(),
            now: self.now.clone(),
            cut_until: Cell::new(0),
            loss: self.loss,
        })
    }

    fn kv(&self, link: &Rc<SimLink>) -> MemKv {
        MemKv::new(self.store.clone(), link.clone() as Rc<dyn Link>)
    }

    fn log(&mut self, what: String) {
        let line = format!("{:>7} ms  {what}", self.now.get());
        if self.verbose {
            eprintln!("{line}");
        }
        self.trace.push(line);
    }

    fn chance(&self, p: f64) -> bool {
        self.rng.borrow_mut().gen_bool(p)
    }

    fn between(&self, lo: Millis, hi: Millis) -> Millis {
        self.rng.borrow_mut().gen_range(lo..hi)
    }

    fn start_master(&mut self, i: usize) {
        let kv = self.kv(&self.masters[i].link);
        let config = MasterConfig {
            ttl_secs: 2,
            page: 4,
            load_pages_per_tick: 2,
            sweep_per_tick: 3,
            ops_per_tick: 40,
            balance: true,
            balance_period_ms: 3000,
            janitor_period_ms: 500,
        };
        let m = Master::new(
            kv,
            self.wal.clone(),
            self.layout.clone(),
            format!("m{i}:16000"),
            config,
        );
        self.masters[i].process = Some(m);
        self.log(format!("master m{i} starts"));
    }

    fn start_server(&mut self, i: usize) {
        self.startcode += 1;
        let name = format!("rs{i}:16020:{}", self.startcode);
        let kv = self.kv(&self.servers[i].link);
        let host = SimHost {
            server: name.clone(),
            model: self.model.clone(),
            wal: self.wal.clone(),
            fail_next_open: Rc::new(RefCell::new(false)),
            store: self.store.clone(),
            layout: self.layout.clone(),
        };
        // Small budgets so that work spans ticks, as it does on a large catalog.
        let config = RegionServerConfig {
            ttl_secs: 2,
            margin_ms: 300,
            opens_per_tick: 3,
            load_period_ms: 1000,
            split_backoff_ms: 1000,
        };
        let predecessor = self.servers[i].predecessor.take();
        let rs = RegionServer::new(
            kv,
            host,
            self.layout.clone(),
            name.clone(),
            name.clone(),
            config,
        )
        .succeeding(predecessor);
        if predecessor.is_some() {
            self.coverage.reincarnations += 1;
        }
        self.servers[i].process = Some(rs);
        self.log(format!("server {name} starts"));
    }

    /// Runs the whole scenario; returns the violations found (empty = pass).
    pub fn run(&mut self) -> Vec<String> {
        for i in 0..self.masters.len() {
            self.start_master(i);
        }
        for i in 0..self.servers.len() {
            self.start_server(i);
        }
        let splits: Vec<Vec<u8>> = (1..self.config.initial_regions)
            .map(|i| format!("row{i:04}").into_bytes())
            .collect();
        let mut created = false;
        let end_chaos = self.config.chaos_ms;
        let end = end_chaos + self.config.heal_ms;
        // Past `end`, moves the balancer started just before it was switched off (a master
        // reloading its image can take their last steps late) may finish, within a bound.
        let settle_end = end + SETTLE_MS;
        while self.now.get() < end
            || (self.now.get() < settle_end
                && !self
                    .store
                    .borrow()
                    .peek_prefix(&self.layout.procs())
                    .is_empty())
        {
            let now = self.now.get() + self.config.step_ms;
            self.now.set(now);
            self.store.borrow_mut().advance(now);
            if now < end_chaos {
                self.inject_faults();
            } else if now - self.config.step_ms < end_chaos {
                self.heal();
            }
            self.restart_crashed();
            self.tick_nodes();
            if !created {
                created = self.admin(AdminRequest::CreateTable {
                    table: "t".into(),
                    splits: splits.clone(),
                });
            } else if now < end_chaos && self.chance(0.01) {
                self.random_admin();
            }
            if self.restore {
                self.restore_operations();
            } else if now + QUIESCE_MS >= end && now >= end_chaos && !self.quiesced {
                self.quiesced = self.admin(AdminRequest::SetBalancer { on: false });
            }
            self.client_writes();
            // Only a server's tick adds a region it serves (time only takes them away).
            if std::mem::take(&mut self.served_changed) {
                self.check_single_server();
            }
            if !self.model.borrow().violations.is_empty() {
                break;
            }
        }
        if self.model.borrow().violations.is_empty() {
            self.check_all_served();
        }
        let m = self.model.borrow();
        self.coverage.recovered_opens = m.recovered_opens;
        self.coverage.opens = m.opens;
        self.coverage.acked_writes = m.acked.values().map(|s| s.len() as u64).sum();
        self.coverage.splits_done = m.splits;
        self.coverage.merges_done = m.merges;
        self.coverage.daughters_with_parent_writes = m.daughters_with_parent_writes;
        m.violations.clone()
    }

    /// The run's last events, for a failure report.
    pub fn trace_tail(&self, n: usize) -> String {
        let mut s = String::new();
        for line in self.trace.iter().rev().take(n).rev() {
            let _ = writeln!(s, "{line}");
        }
        s
    }

    fn inject_faults(&mut self) {
        let now = self.now.get();
        let n = self.servers.len();
        if self.chance(0.002) {
            let i = self.between(0, n as u64) as usize;
            if self.servers[i].process.is_some() {
                let name = self.servers[i]
                    .process
                    .as_ref()
                    .map(|p| p.name().to_string())
                    .unwrap_or_default();
                if let Some(p) = self.servers[i].process.take() {
                    p.host().abort();
                }
                self.servers[i].restart_at = now + self.between(500, 5_000);
                self.coverage.server_kills += 1;
                self.log(format!("kill -9 {name}"));
            }
        }
        if self.chance(0.002) {
            let i = self.between(0, n as u64) as usize;
            let until = now + self.between(500, 8_000);
            self.servers[i].paused_until = until;
            self.coverage.server_pauses += 1;
            self.log(format!("pause rs{i} until {until}"));
        }
        if self.chance(0.002) {
            let until = now + self.between(500, 8_000);
            if self.chance(0.5) {
                let i = self.between(0, n as u64) as usize;
                self.servers[i].link.cut_until.set(until);
                self.log(format!("partition rs{i} from etcd until {until}"));
            } else {
                let i = self.between(0, self.masters.len() as u64) as usize;
                self.masters[i].link.cut_until.set(until);
                self.log(format!("partition m{i} from etcd until {until}"));
            }
            self.coverage.partitions += 1;
        }
        if self.chance(0.0005) {
            self.cut_everyone_from_etcd(now + self.between(1_000, 12_000));
        }
        if self.chance(0.001) {
            let i = self.between(0, self.masters.len() as u64) as usize;
            if self.chance(0.5) {
                if self.masters[i].process.take().is_some() {
                    self.masters[i].restart_at = now + self.between(500, 5_000);
                    self.coverage.master_kills += 1;
                    self.log(format!("kill -9 m{i}"));
                }
            } else {
                let until = now + self.between(500, 6_000);
                self.masters[i].paused_until = until;
                self.log(format!("pause m{i} until {until}"));
            }
        }
        if self.chance(0.005) {
            let i = self.between(0, n as u64) as usize;
            if let Some(p) = &self.servers[i].process {
                *p.host().fail_next_open.borrow_mut() = true;
            }
        }
    }

    /// etcd is lost by every master and server until `until` (isolated, or stopped and
    /// started again with its data).
    fn cut_everyone_from_etcd(&mut self, until: Millis) {
        for n in &self.masters {
            n.link.cut_until.set(until);
        }
        for n in &self.servers {
            n.link.cut_until.set(until);
        }
        self.coverage.etcd_outages += 1;
        self.log(format!("etcd lost by everyone until {until}"));
    }

    fn heal(&mut self) {
        self.log("heal: no more faults, links restored".into());
        self.restore = true;
        let now = self.now.get();
        for n in &mut self.masters {
            n.link.cut_until.set(0);
            n.paused_until = n.paused_until.min(now);
            n.restart_at = n.restart_at.min(now);
        }
        for n in &mut self.servers {
            n.link.cut_until.set(0);
            n.paused_until = n.paused_until.min(now);
            n.restart_at = n.restart_at.min(now);
            if let Some(p) = &n.process {
                *p.host().fail_next_open.borrow_mut() = false;
            }
        }
    }

    fn restart_crashed(&mut self) {
        let now = self.now.get();
        for i in 0..self.masters.len() {
            if self.masters[i].process.is_none() && now >= self.masters[i].restart_at {
                self.start_master(i);
            }
        }
        for i in 0..self.servers.len() {
            let aborted = self.servers[i]
                .process
                .as_ref()
                .and_then(|p| p.aborted().map(str::to_string));
            if let Some(why) = aborted {
                let (name, lease) = self.servers[i]
                    .process
                    .as_ref()
                    .map(|p| (p.name().to_string(), p.lease_id()))
                    .unwrap_or_default();
                self.log(format!(
                    "{name} aborted ({why}); registers again as a new incarnation"
                ));
                self.servers[i].process = None;
                self.servers[i].predecessor = lease;
                // The process's back-off (node::Backoff), from 200 ms.
                self.servers[i].restart_at = now + self.between(200, 2_000);
            }
            if self.servers[i].process.is_none() && now >= self.servers[i].restart_at {
                self.start_server(i);
            }
        }
    }

    fn tick_nodes(&mut self) {
        let now = self.now.get();
        for i in 0..self.masters.len() {
            let n = &self.masters[i];
            if n.process.is_none() || now < n.paused_until || now < n.next_tick {
                continue;
            }
            let was = self.masters[i].process.as_ref().and_then(|m| m.epoch());
            if let Some(m) = self.masters[i].process.as_mut() {
                m.tick(now);
            }
            let is = self.masters[i].process.as_ref().and_then(|m| m.epoch());
            if is.is_some() && is != was {
                if is.is_some_and(|e| self.epochs.insert(e)) {
                    self.coverage.elections += 1;
                }
                self.log(format!("m{i} active with epoch {}", is.unwrap_or(0)));
            }
            self.masters[i].next_tick = now + self.between(60, 140);
        }
        for i in 0..self.servers.len() {
            let n = &self.servers[i];
            if n.process.is_none() || now < n.paused_until || now < n.next_tick {
                continue;
            }
            if let Some(s) = self.servers[i].process.as_mut() {
                s.tick(now);
                self.served_changed = true;
            }
            self.servers[i].next_tick = now + self.between(60, 140);
        }
    }

    /// Clients write to regions through whichever server claims them; a server acknowledges only
    /// while it serves the region and its WAL append succeeds.
    fn client_writes(&mut self) {
        let now = self.now.get();
        for i in 0..self.servers.len() {
            if now < self.servers[i].paused_until || !self.chance(0.3) {
                continue;
            }
            let Some(rs) = self.servers[i].process.as_mut() else {
                continue;
            };
            let n = rs.served_regions(now).count();
            if n == 0 {
                continue;
            }
            let pick = self.rng.borrow_mut().gen_range(0..n);
            let Some(region) = rs.served_regions(now).nth(pick).map(str::to_string) else {
                continue;
            };
            let Some(row) = self.row_in(&region) else {
                continue;
            };
            let Some(rs) = self.servers[i].process.as_mut() else {
                continue;
            };
            let name = rs.name().to_string();
            self.next_write += 1;
            let w = self.next_write;
            match self.wal.append(&name, &region, w) {
                Ok(()) => {
                    let mut m = self.model.borrow_mut();
                    m.acked
                        .entry(model::incarnation(&region).to_string())
                        .or_default()
                        .insert(w, row);
                    m.memtable.entry((name, region)).or_default().insert(w);
                }
                Err(_) => {
                    rs.abort("WAL fenced");
                }
            }
        }
    }

    /// A row in `region`'s key range (as its server knows it): its start row followed by a
    /// few random digits, or a random row of the universe `row<digits>` / `<letter><digits>`
    /// that falls inside; `None` if no try lands in a narrow region.
    fn row_in(&self, region: &str) -> Option<Vec<u8>> {
        let range = self.model.borrow().ranges.get(region).cloned()?;
        for _ in 0..8 {
            let digits = format!("{:04}", self.between(0, 10_000));
            let row = if self.chance(0.5) {
                let mut r = range.0.clone();
                r.extend_from_slice(digits.as_bytes());
                r
            } else if self.chance(0.5) {
                format!("row{:04}{digits}", self.between(0, 7)).into_bytes()
            } else {
                let letter = char::from(b'a' + self.between(0, 6) as u8);
                format!("{letter}{digits}").into_bytes()
            };
            if model::covers(&range, &row) {
                return Some(row);
            }
        }
        None
    }

    /// No region is served by two servers (paused ones included: they would serve on waking).
    fn check_single_server(&mut self) {
        let now = self.now.get();
        let mut seen: std::collections::BTreeMap<&str, &str> = std::collections::BTreeMap::new();
        let mut bad = Vec::new();
        let model = self.model.borrow();
        // Served regions by (incarnation, start row): a parent and its daughter cover
        // overlapping rows under different names.
        let mut by_range: std::collections::BTreeMap<(&str, &[u8]), Vec<EndAndName<'_>>> =
            std::collections::BTreeMap::new();
        for n in &self.servers {
            let Some(rs) = &n.process else { continue };
            for region in rs.served_regions(now) {
                if let Some(other) = seen.insert(region, rs.name()) {
                    bad.push(format!(
                        "{region} served by {other} and {} at {now} ms",
                        rs.name()
                    ));
                }
                if let Some((start, end)) = model.ranges.get(region) {
                    by_range
                        .entry((model::incarnation(region), start.as_slice()))
                        .or_default()
                        .push((end.as_slice(), region));
                }
            }
        }
        let mut last: Option<(&str, &[u8], &str)> = None; // incarnation, end, region
        for ((inc, start), regions) in &by_range {
            if regions.len() > 1 {
                bad.push(format!(
                    "{regions:?} served at once with one start row at {now} ms"
                ));
            }
            if let Some((prev_inc, prev_end, prev)) = last {
                if prev_inc == *inc && (prev_end.is_empty() || prev_end > *start) {
                    bad.push(format!(
                        "{prev} and {} serve overlapping rows at {now} ms",
                        regions[0].1
                    ));
                }
            }
            last = Some((inc, regions[0].0, regions[0].1));
        }
        drop(model);
        self.model.borrow_mut().violations.extend(bad);
    }

    /// After healing: every region of every enabled table is served, nothing is in transition, and
    /// the servers' region counts differ by at most one.
    fn check_all_served(&mut self) {
        let now = self.now.get();
        let mut served: BTreeSet<String> = BTreeSet::new();
        let mut per_server = Vec::new();
        for n in &self.servers {
            if let Some(rs) = &n.process {
                let regions = rs.served(now);
                per_server.push(regions.len());
                served.extend(regions.into_iter().map(|(r, _)| r));
            }
        }
        let (most, least) = (
            per_server.iter().max().copied().unwrap_or(0),
            per_server.iter().min().copied().unwrap_or(0),
        );
        if most > least + 1 {
            self.model
                .borrow_mut()
                .violations
                .push(format!("not balanced after healing: {per_server:?}"));
        }
        // Read etcd itself (not a master's image, which may be reloading at this instant).
        let store = self.store.borrow();
        let decode_all = |prefix: String| -> Vec<(String, Vec<u8>)> {
            store
                .peek_prefix(&prefix)
                .into_iter()
                .map(|kv| (kv.key[prefix.len()..].to_string(), kv.value))
                .collect()
        };
        let tables: Vec<(String, TableRecord)> = decode_all(self.layout.tables())
            .into_iter()
            .map(|(k, v)| (k, TableRecord::decode(&v).expect("table record")))
            .collect();
        let regions: Vec<(String, RegionRecord)> = decode_all(self.layout.regions())
            .into_iter()
            .map(|(k, v)| (k, RegionRecord::decode(&v).expect("region record")))
            .collect();
        let procs: Vec<(String, Procedure)> = decode_all(self.layout.procs())
            .into_iter()
            .map(|(k, v)| (k, Procedure::decode(&v).expect("procedure")))
            .collect();
        drop(store);
        let mut bad = Vec::new();
        if !procs.is_empty() {
            bad.push(format!("procedures still running after healing: {procs:?}"));
        }
        for (id, rec) in regions {
            if matches!(rec.state, RegionState::Split | RegionState::Merged) {
                if served.contains(&id) || rec.server.is_some() {
                    bad.push(format!("split or merged parent {id} is served: {rec:?}"));
                }
                continue;
            }
            let enabled = tables
                .iter()
                .any(|(t, r)| t == region_table(&id) && r.state == TableState::Enabled);
            if enabled && rec.state != RegionState::Closed && !served.contains(&id) {
                bad.push(format!("{id} not served after healing: {rec:?}"));
            }
            let disabled = tables
                .iter()
                .any(|(t, r)| t == region_table(&id) && r.state == TableState::Disabled);
            if disabled && (served.contains(&id) || rec.server.is_some()) {
                bad.push(format!("{id} of a disabled table is served: {rec:?}"));
            }
        }
        self.model.borrow_mut().violations.extend(bad);
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}
