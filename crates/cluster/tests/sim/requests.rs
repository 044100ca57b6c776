//! What the simulated clients and operators ask of the active master: table lifecycle,
//! moves, splits, merges, balancer switches, (re)commissioning, each request injected from
//! the seed, and the restoring requests that let the final checks expect a balanced cluster.

use strata_cluster::layout::region_table;
use strata_cluster::master::AdminRequest;
use strata_cluster::record::{RegionRecord, RegionState, TableState};

use super::{SimMaster, World};

impl World {
    pub(super) fn active_master(&mut self) -> Option<&mut SimMaster> {
        let now = self.now.get();
        self.masters
            .iter_mut()
            .filter(|n| now >= n.paused_until)
            .filter_map(|n| n.process.as_mut())
            .find(|m| m.is_active())
    }

    pub(super) fn admin(&mut self, req: AdminRequest) -> bool {
        let text = format!("{req:?}");
        let lifecycle = matches!(
            req,
            AdminRequest::DisableTable { .. }
                | AdminRequest::EnableTable { .. }
                | AdminRequest::ReopenTable { .. }
                | AdminRequest::TruncateTable { .. }
        );
        let split = matches!(req, AdminRequest::Split { .. });
        let merge = matches!(req, AdminRequest::Merge { .. });
        let recreate = match &req {
            AdminRequest::CreateTable { table, .. } => self.dropped.contains(table),
            _ => false,
        };
        let Some(m) = self.active_master() else {
            return false;
        };
        match m.submit(req) {
            Ok(id) => {
                self.coverage.admin_accepted += 1;
                self.coverage.lifecycle_accepted += u64::from(lifecycle);
                self.coverage.recreated += u64::from(recreate);
                self.coverage.splits_accepted += u64::from(split);
                self.coverage.merges_accepted += u64::from(merge);
                self.log(format!("admin {text} accepted as {id}"));
                true
            }
            Err(_) => false,
        }
    }

    pub(super) fn random_admin(&mut self) {
        let Some(m) = self.active_master() else {
            return;
        };
        let regions = m.regions();
        let tables = m.tables();
        let servers = m.live_servers();
        let pick = |w: &World, n: usize| w.between(0, n.max(1) as u64) as usize;
        let drained = m.decommissioned();
        let choice = self.between(0, 23);
        let with_state = |state: TableState, t_too: bool| -> Vec<String> {
            tables
                .iter()
                .filter(|(n, t)| (t_too || n != "t") && t.state == state)
                .map(|(n, _)| n.clone())
                .collect()
        };
        let req = match choice {
            0..=3 if !regions.is_empty() => {
                let (r, _) = &regions[pick(self, regions.len())];
                let target = if servers.is_empty() || self.chance(0.3) {
                    None
                } else {
                    Some(servers[pick(self, servers.len())].clone())
                };
                AdminRequest::Move {
                    region: r.clone(),
                    target,
                }
            }
            4 if !regions.is_empty() => AdminRequest::Unassign {
                region: regions[pick(self, regions.len())].0.clone(),
            },
            5 | 6 => {
                let closed: Vec<&String> = regions
                    .iter()
                    .filter(|(_, r)| r.state == RegionState::Closed)
                    .map(|(id, _)| id)
                    .collect();
                if closed.is_empty() {
                    return;
                }
                AdminRequest::Assign {
                    region: closed[pick(self, closed.len())].clone(),
                }
            }
            7 => {
                let again: Vec<String> = self.dropped.iter().cloned().collect();
                let t = if !again.is_empty() && self.chance(0.5) {
                    again[pick(self, again.len())].clone()
                } else {
                    self.next_table += 1;
                    format!("t{}", self.next_table)
                };
                let n = self.between(1, 4) as u32;
                AdminRequest::CreateTable {
                    table: t,
                    splits: (1..n).map(|i| vec![b'a' + i as u8]).collect(),
                }
            }
            8 => {
                let mut droppable = with_state(TableState::Enabled, false);
                droppable.extend(with_state(TableState::Disabled, false));
                if droppable.is_empty() {
                    return;
                }
                let table = droppable[pick(self, droppable.len())].clone();
                self.dropped.insert(table.clone());
                AdminRequest::DropTable { table }
            }
            9 | 10 => {
                let state = if choice == 9 {
                    TableState::Enabled
                } else {
                    TableState::Disabled
                };
                let candidates = with_state(state, false);
                if candidates.is_empty() {
                    return;
                }
                let table = candidates[pick(self, candidates.len())].clone();
                if choice == 9 {
                    AdminRequest::DisableTable { table }
                } else {
                    AdminRequest::EnableTable { table }
                }
            }
            11 => {
                // The initial table too: its writes must survive the reopening.
                let candidates = with_state(TableState::Enabled, true);
                if candidates.is_empty() {
                    return;
                }
                AdminRequest::ReopenTable {
                    table: candidates[pick(self, candidates.len())].clone(),
                }
            }
            12 => {
                let candidates = with_state(TableState::Disabled, false);
                if candidates.is_empty() {
                    return;
                }
                AdminRequest::TruncateTable {
                    table: candidates[pick(self, candidates.len())].clone(),
                    preserve: self.chance(0.5),
                }
            }
            13 | 14 if !servers.is_empty() => AdminRequest::Decommission {
                server: servers[pick(self, servers.len())].clone(),
            },
            15 if !drained.is_empty() => AdminRequest::Recommission {
                server: drained[pick(self, drained.len())].clone(),
            },
            16 => AdminRequest::SetBalancer {
                on: self.chance(0.5),
            },
            17..=19 => {
                let open: Vec<&(String, RegionRecord)> = regions
                    .iter()
                    .filter(|(_, r)| r.state == RegionState::Open && r.proc.is_none())
                    .collect();
                if open.is_empty() {
                    return;
                }
                let (region, rec) = open[pick(self, open.len())];
                // Half at the server's middle key, half at a row near the region's start
                // (sometimes outside it: the master refuses those).
                let row = self.chance(0.5).then(|| {
                    let mut row = rec.start.clone();
                    let suffix = self.between(0, 10_000);
                    row.extend_from_slice(format!("{suffix:04}").as_bytes());
                    row
                });
                AdminRequest::Split {
                    region: region.clone(),
                    row,
                }
            }
            21 | 22 => {
                let open: Vec<&(String, RegionRecord)> = regions
                    .iter()
                    .filter(|(_, r)| r.state == RegionState::Open && r.proc.is_none())
                    .collect();
                if open.len() < 2 {
                    return;
                }
                let (a, rec) = open[pick(self, open.len())];
                // Mostly its neighbour above; sometimes any region (the master refuses a
                // region that is not adjacent, of another table, or itself).
                let neighbour = open.iter().find(|(n, r)| {
                    !rec.end.is_empty() && r.start == rec.end && region_table(n) == region_table(a)
                });
                let b = match neighbour {
                    Some((b, _)) if self.chance(0.8) => b.clone(),
                    _ => open[pick(self, open.len())].0.clone(),
                };
                AdminRequest::Merge { a: a.clone(), b }
            }
            _ => return,
        };
        if matches!(req, AdminRequest::Decommission { .. }) {
            self.coverage.decommissions += 1;
        }
        self.admin(req);
    }

    /// After healing: turns the balancer back on and recommissions every server, so that
    /// the final check can expect balanced servers.
    pub(super) fn restore_operations(&mut self) {
        let Some(m) = self.active_master() else {
            return;
        };
        let drained = m.decommissioned();
        let on = m.balancer_enabled();
        if on && drained.is_empty() {
            self.restore = false;
            return;
        }
        if !on {
            self.admin(AdminRequest::SetBalancer { on: true });
        }
        for server in drained {
            self.admin(AdminRequest::Recommission { server });
        }
    }
}
