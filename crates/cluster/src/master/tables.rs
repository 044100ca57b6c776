//! Table lifecycle procedures besides create and drop: disable, enable, reopen (after a schema
//! change) and truncate. Like every procedure, each step stages the writes recording its
//! outcome together with its next step, so a new master resumes it where it stopped, and a step
//! replayed after a lost answer changes nothing twice.
//!
//! - Disable: every region of the table is closed by an unassign transit (regions in another
//!   procedure are waited for), then the table is marked disabled. Offline regions stay
//!   offline: only regions of enabled tables are assigned.
//! - Enable: closed regions are marked offline (a chunk per step), then the table enabled; the
//!   master's sweep then assigns them like any offline region.
//! - Reopen: one move per region onto its own server (close with flush, open with the new
//!   schema), started in region-name order; `next` counts the regions started, written in the
//!   same transaction as the move, so none is reopened twice.
//! - Truncate: close every region, delete the table's files, delete the region records, then
//!   the procedure becomes the creation of a new incarnation (same id) with the old split points
//!   or none.

use super::procs::CHUNK;
use super::{Halt, Kv, Master};
use crate::kv::Op;
use crate::layout::incarnation_of;
use crate::record::{
    CreateStep, Procedure, RegionRecord, RegionState, TableRecord, TableState, TransitStep,
    TruncateStep,
};
use crate::wal::{Fence, WalFencer};

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// `table`'s region records, in name order.
    pub(super) fn regions_of(&mut self, table: &str) -> Vec<(String, RegionRecord)> {
        let prefix = format!("{table},");
        self.lead()
            .image
            .regions
            .range(prefix.clone()..)
            .take_while(|(r, _)| r.starts_with(&prefix))
            .map(|(r, (rec, _))| (r.clone(), rec.clone()))
            .collect()
    }

    /// Starts closing every served region of `table` that is in no other procedure; answers
    /// whether every region is closed (no server, no procedure).
    fn close_all(&mut self, table: &str) -> Result<bool, Halt> {
        let mut closed = true;
        for (region, rec) in self.regions_of(table) {
            if rec.proc.is_some() {
                closed = false;
            } else if rec.server.is_some() {
                closed = false;
                self.start_transit(&region, None, false, TransitStep::Close)?;
            }
        }
        Ok(closed)
    }

    /// Asks the fencer to delete `table`'s files; answers whether that is done (a failure is
    /// retried at the next step; the fencer reports it).
    pub(super) fn remove_files(&mut self, table: &str, regions: &[String]) -> bool {
        matches!(self.fencer.remove_table(table, regions), Ok(Fence::Done))
    }

    fn table_record(&mut self, table: &str) -> Option<TableRecord> {
        self.lead().image.tables.get(table).map(|(t, _)| t.clone())
    }

    fn put_table(&self, table: &str, rec: &TableRecord) -> Op {
        Op::put(self.layout.table(table), rec.encode())
    }

    pub(super) fn step_disable(&mut self, id: &str, table: &str) -> Result<(), Halt> {
        let Some(rec) = self.table_record(table) else {
            return self.stage(vec![self.del_proc(id)]);
        };
        if !self.close_all(table)? {
            return Ok(());
        }
        let disabled = TableRecord {
            state: TableState::Disabled,
            ..rec
        };
        self.stage(vec![self.put_table(table, &disabled), self.del_proc(id)])
    }

    pub(super) fn step_enable(&mut self, id: &str, table: &str) -> Result<(), Halt> {
        let Some(rec) = self.table_record(table) else {
            return self.stage(vec![self.del_proc(id)]);
        };
        let closed: Vec<(String, RegionRecord)> = self
            .regions_of(table)
            .into_iter()
            .filter(|(_, r)| r.state == RegionState::Closed && r.proc.is_none())
            .take(CHUNK)
            .collect();
        if !closed.is_empty() {
            let ops = closed
                .into_iter()
                .map(|(region, r)| {
                    let offline = RegionRecord {
                        state: RegionState::Offline,
                        server: None,
                        ..r
                    };
                    self.put_region(&region, &offline)
                })
                .collect();
            return self.stage(ops); // the rest at the next step
        }
        let enabled = TableRecord {
            state: TableState::Enabled,
            ..rec
        };
        self.stage(vec![self.put_table(table, &enabled), self.del_proc(id)])
    }

    pub(super) fn step_reopen(&mut self, id: &str, table: &str, next: u32) -> Result<(), Halt> {
        let enabled = self
            .table_record(table)
            .is_some_and(|t| t.state == TableState::Enabled);
        if !enabled {
            // Dropped, or being disabled: its regions open with the current schema later.
            return self.stage(vec![self.del_proc(id)]);
        }
        let regions = self.regions_of(table);
        let reopen = |next| Procedure::ReopenTable {
            table: table.to_string(),
            next,
        };
        let Some((region, rec)) = regions.get(next as usize).cloned() else {
            if regions.iter().any(|(_, r)| r.proc.is_some()) {
                return Ok(()); // moves still running
            }
            return self.stage(vec![self.del_proc(id)]);
        };
        if rec.proc.is_some() {
            return Ok(()); // in another procedure: wait for it to end
        }
        let mut ops = vec![self.put_proc(id, &reopen(next + 1))];
        if let (Some(server), RegionState::Open) = (rec.server.clone(), rec.state) {
            // The move: as `start_transit`, in the same transaction as `next`.
            let move_id = self.new_proc_id();
            let p = Procedure::Transit {
                region: region.clone(),
                target: Some(server),
                open: true,
                step: TransitStep::Close,
            };
            let moving = RegionRecord {
                proc: Some(move_id.clone()),
                ..rec
            };
            ops.push(self.put_proc(&move_id, &p));
            ops.push(self.put_region(&region, &moving));
        }
        // A region not open is opened later, reading the new schema then.
        self.stage(ops)
    }

    pub(super) fn step_truncate(
        &mut self,
        id: &str,
        table: &str,
        preserve: bool,
        step: TruncateStep,
    ) -> Result<(), Halt> {
        let Some(rec) = self.table_record(table) else {
            return self.stage(vec![self.del_proc(id)]);
        };
        let truncate = |step| Procedure::TruncateTable {
            table: table.to_string(),
            preserve,
            step,
        };
        match step {
            TruncateStep::Close => {
                if !self.close_all(table)? {
                    return Ok(());
                }
                self.stage(vec![self.put_proc(id, &truncate(TruncateStep::Files))])
            }
            TruncateStep::Files => {
                let names: Vec<String> =
                    self.regions_of(table).into_iter().map(|(r, _)| r).collect();
                if !self.remove_files(table, &names) {
                    return Ok(());
                }
                self.stage(vec![self.put_proc(id, &truncate(TruncateStep::Delete))])
            }
            TruncateStep::Delete => {
                let regions = self.regions_of(table);
                for chunk in regions.chunks(CHUNK) {
                    if self.over_budget() {
                        return Ok(()); // the rest next tick
                    }
                    let ops = chunk
                        .iter()
                        .map(|(r, _)| Op::Delete(self.layout.region(r)))
                        .collect();
                    self.stage(ops)?;
                }
                let fresh = TableRecord {
                    state: TableState::Creating,
                    splits: if preserve { rec.splits } else { Vec::new() },
                    incarnation: incarnation_of(id),
                };
                let create = Procedure::CreateTable {
                    table: table.to_string(),
                    step: CreateStep::Regions { next: 0 },
                };
                self.stage(vec![
                    self.put_table(table, &fresh),
                    self.put_proc(id, &create),
                ])
            }
        }
    }
}
