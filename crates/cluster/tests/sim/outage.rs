//! A scripted scenario over the simulation: a healthy cluster under client writes loses etcd
//! (every master and server at once) for a while, then gets it back, with no other fault.
//! Every server must stop serving by its deadline, stay up, and register again as a new
//! incarnation; every region must be served again soon after etcd returns; the invariants
//! of every step hold throughout (no region served twice, no acknowledged write lost).

use strata_cluster::lease::Millis;
use strata_cluster::master::AdminRequest;

use super::World;

/// What a scripted outage showed.
#[derive(Debug, Clone)]
pub struct Outage {
    /// Regions served just before etcd was lost.
    pub served_before: usize,
    /// The most regions served at once from the lease's deadline until etcd returned (must
    /// be 0: every lease lapsed).
    pub served_while_lost: usize,
    /// Time from etcd's return until every region was served again, ms (`None`: not within
    /// the run).
    pub recovered_after: Option<Millis>,
    /// Servers that registered again as new incarnations.
    pub reincarnations: u64,
    /// Invariant violations (must be empty).
    pub violations: Vec<String>,
}

impl World {
    /// Creates a table of the configured regions, lets it settle for `settle_ms`, cuts every
    /// process from etcd for `outage_ms`, then runs `after_ms` more.
    pub fn run_outage(&mut self, settle_ms: Millis, outage_ms: Millis, after_ms: Millis) -> Outage {
        for i in 0..self.masters.len() {
            self.start_master(i);
        }
        for i in 0..self.servers.len() {
            self.start_server(i);
        }
        let splits: Vec<Vec<u8>> = (1..self.config.initial_regions)
            .map(|i| format!("row{i:04}").into_bytes())
            .collect();
        let lost_at = settle_ms;
        let back_at = lost_at + outage_ms;
        let end = back_at + after_ms;
        // Leases lapse within a TTL (2 s here) of the last renewal.
        let all_lapsed_at = lost_at + 2_500;
        let mut created = false;
        let mut outcome = Outage {
            served_before: 0,
            served_while_lost: 0,
            recovered_after: None,
            reincarnations: 0,
            violations: Vec::new(),
        };
        while self.now.get() < end {
            let now = self.now.get() + self.config.step_ms;
            self.now.set(now);
            self.store.borrow_mut().advance(now);
            if now >= lost_at && now - self.config.step_ms < lost_at {
                outcome.served_before = self.served_now();
                self.cut_everyone_from_etcd(back_at);
            }
            self.restart_crashed();
            self.tick_nodes();
            if !created {
                created = self.admin(AdminRequest::CreateTable {
                    table: "t".into(),
                    splits: splits.clone(),
                });
            }
            self.client_writes();
            if std::mem::take(&mut self.served_changed) {
                self.check_single_server();
            }
            if (all_lapsed_at..back_at).contains(&now) {
                outcome.served_while_lost = outcome.served_while_lost.max(self.served_now());
            }
            if now >= back_at
                && outcome.recovered_after.is_none()
                && self.served_now() == self.config.initial_regions as usize
            {
                outcome.recovered_after = Some(now - back_at);
                self.log(format!(
                    "every region served again {} ms after etcd returned",
                    now - back_at
                ));
            }
            if !self.model.borrow().violations.is_empty() {
                break;
            }
        }
        outcome.reincarnations = self.coverage.reincarnations;
        outcome.violations = self.model.borrow().violations.clone();
        outcome
    }

    /// Regions served by some server now (each counted once).
    fn served_now(&self) -> usize {
        let now = self.now.get();
        let mut served = std::collections::BTreeSet::new();
        for n in &self.servers {
            if let Some(rs) = &n.process {
                served.extend(rs.served_regions(now).map(str::to_owned));
            }
        }
        served.len()
    }
}
