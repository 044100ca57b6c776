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

    /// Starts closing every served region of `table` that is in no other procedure, and takes
    /// over a region whose assign has not sent an open order yet (its transit is at `Pick`
    /// and it names no server: nothing to close); answers whether every region is closed (no
    /// server, no procedure).
    pub(super) fn close_all(&mut self, table: &str) -> Result<bool, Halt> {
        let mut closed = true;
        for (region, rec) in self.regions_of(table) {
            if let Some(p) = &rec.proc {
                closed = false;
                if self.unsent_assign(&rec) {
                    let p = p.clone();
                    let idle = RegionRecord {
                        state: RegionState::Closed,
                        proc: None,
                        ..rec
                    };
                    self.stage(vec![self.del_proc(&p), self.put_region(&region, &idle)])?;
                }
            } else if rec.server.is_some() {
                closed = false;
                self.start_transit(&region, None, false, TransitStep::Close)?;
            }
        }
        Ok(closed)
    }

    /// Whether `rec` is in an assign whose open order is not sent yet (its transit is at
    /// `Pick` and it names no server): the region opens later, reading the schema then.
    fn unsent_assign(&mut self, rec: &RegionRecord) -> bool {
        let Some(p) = &rec.proc else {
            return false;
        };
        rec.server.is_none()
            && matches!(
                self.lead().image.procs.get(p),
                Some((
                    Procedure::Transit {
                        step: TransitStep::Pick,
                        ..
                    },
                    _
                ))
            )
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
            for (_, r) in &regions {
                if r.proc.is_some() && !self.unsent_assign(r) {
                    return Ok(()); // moves still running
                }
            }
            return self.stage(vec![self.del_proc(id)]);
        };
        if rec.proc.is_some() && !self.unsent_assign(&rec) {
            return Ok(()); // in another procedure: wait for it to end
        }
        let mut ops = vec![self.put_proc(id, &reopen(next + 1))];
        if let (Some(server), RegionState::Open, None) = (rec.server.clone(), rec.state, &rec.proc)
        {
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
                    next_seq: 0,
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

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use crate::layout::Layout;
    use crate::master::{AdminError, AdminRequest, Master, MasterConfig};
    use crate::mem::{MemKv, MemStore, Perfect};
    use crate::record::{Procedure, TableState, TransitStep};
    use crate::wal::MemWal;

    fn names(m: &Master<MemKv, MemWal>) -> Vec<String> {
        m.regions().into_iter().map(|(r, _)| r).collect()
    }

    /// Without servers only assign transits, waiting for one, stay.
    fn only_assigns(m: &Master<MemKv, MemWal>) {
        for (id, p) in m.procedures() {
            assert!(
                matches!(
                    p,
                    Procedure::Transit {
                        step: TransitStep::Pick,
                        open: true,
                        ..
                    }
                ),
                "{id}: {p:?} still running"
            );
        }
    }

    fn state(m: &Master<MemKv, MemWal>, table: &str) -> Option<TableState> {
        m.tables()
            .into_iter()
            .find(|(t, _)| t == table)
            .map(|(_, r)| r.state)
    }

    /// A master on an in-memory store with no region server, and a tick that moves time
    /// half a second through five ticks.
    fn serverless_master() -> (
        Master<MemKv, MemWal>,
        impl FnMut(&mut Master<MemKv, MemWal>),
    ) {
        let store = MemStore::new(1);
        let m = Master::new(
            MemKv::new(store.clone(), Rc::new(Perfect)),
            MemWal::new(0),
            Layout::new("/t"),
            "m:1".into(),
            MasterConfig::default(),
        );
        let mut now = 0;
        let tick = move |m: &mut Master<MemKv, MemWal>| {
            for _ in 0..5 {
                now += 100;
                store.borrow_mut().advance(now);
                m.tick(now);
            }
        };
        (m, tick)
    }

    /// Split keys follow HBase's `Admin.createTable` (and standalone): any order is sorted,
    /// an empty or repeated key is refused, and refusals keep their kind.
    #[test]
    fn split_keys_are_sorted_and_checked() {
        use crate::master::RefusalKind;
        let (mut m, mut tick) = serverless_master();
        tick(&mut m);
        let create = |table: &str, splits: &[&[u8]]| AdminRequest::CreateTable {
            table: table.into(),
            splits: splits.iter().map(|s| s.to_vec()).collect(),
        };
        m.submit(create("t", &[b"p", b"d", b"k"])).unwrap();
        tick(&mut m);
        let starts: Vec<Vec<u8>> = m.regions().into_iter().map(|(_, r)| r.start).collect();
        let mut sorted = starts.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            vec![b"".to_vec(), b"d".to_vec(), b"k".to_vec(), b"p".to_vec()]
        );
        let refusal = |r: Result<String, AdminError>| match r {
            Err(AdminError::Invalid(why)) => why,
            other => panic!("not refused: {other:?}"),
        };
        let dup = refusal(m.submit(create("u", &[b"b", b"a", b"b"])));
        assert_eq!(dup.kind, RefusalKind::Invalid);
        assert!(dup.message.contains("'b' appears twice"), "{dup}");
        let empty = refusal(m.submit(create("u", &[b"a", b""])));
        assert!(empty.message.contains("empty"), "{empty}");
        let exists = refusal(m.submit(create("t", &[])));
        assert_eq!(exists.kind, RefusalKind::TableExists);
    }

    /// The lifecycle on a master without region servers (no region is ever open, so every
    /// procedure finishes at once): states, rejections, and fresh region names for every
    /// incarnation.
    #[test]
    fn lifecycle_states_rejections_and_incarnations() {
        let (mut m, mut tick) = serverless_master();
        tick(&mut m);
        let req = |table: &str| AdminRequest::CreateTable {
            table: table.into(),
            splits: vec![b"m".to_vec()],
        };
        let invalid = |r: Result<String, AdminError>| match r {
            Err(AdminError::Invalid(why)) => why.message,
            other => panic!("not refused: {other:?}"),
        };
        m.submit(req("t")).unwrap();
        tick(&mut m);
        let first = names(&m);
        assert_eq!(first.len(), 2);
        assert_eq!(state(&m, "t"), Some(TableState::Enabled));
        let enable = |t: &str| AdminRequest::EnableTable { table: t.into() };
        let disable = |t: &str| AdminRequest::DisableTable { table: t.into() };
        assert!(invalid(m.submit(enable("t"))).contains("is enabled"));
        assert!(invalid(m.submit(disable("u"))).contains("table u does not exist"));
        assert!(
            invalid(m.submit(AdminRequest::ReopenTable { table: "u".into() }))
                .contains("does not exist")
        );

        m.submit(disable("t")).unwrap();
        tick(&mut m);
        assert_eq!(state(&m, "t"), Some(TableState::Disabled));
        assert!(invalid(m.submit(disable("t"))).contains("is disabled"));
        assert!(
            invalid(m.submit(AdminRequest::ReopenTable { table: "t".into() }))
                .contains("is disabled")
        );
        assert!(invalid(m.submit(AdminRequest::Assign {
            region: first[0].clone()
        }))
        .contains("is disabled"));
        m.submit(enable("t")).unwrap();
        tick(&mut m);
        assert_eq!(state(&m, "t"), Some(TableState::Enabled));
        m.submit(AdminRequest::ReopenTable { table: "t".into() })
            .unwrap();
        tick(&mut m);
        only_assigns(&m);
        assert_eq!(names(&m), first, "a reopen keeps the regions");

        assert!(invalid(m.submit(AdminRequest::TruncateTable {
            table: "t".into(),
            preserve: false,
        }))
        .contains("is enabled"));
        m.submit(AdminRequest::DisableTable { table: "t".into() })
            .unwrap();
        tick(&mut m);
        m.submit(AdminRequest::TruncateTable {
            table: "t".into(),
            preserve: false,
        })
        .unwrap();
        tick(&mut m);
        let truncated = names(&m);
        assert_eq!(truncated.len(), 1, "{truncated:?}");
        assert!(!first.contains(&truncated[0]));
        assert_eq!(state(&m, "t"), Some(TableState::Enabled));

        m.submit(AdminRequest::DropTable { table: "t".into() })
            .unwrap();
        tick(&mut m);
        assert!(m.tables().is_empty() && m.regions().is_empty());
        m.submit(req("t")).unwrap();
        tick(&mut m);
        let again = names(&m);
        assert_eq!(again.len(), 2);
        for r in &again {
            assert!(!first.contains(r) && !truncated.contains(r), "{r} reused");
            assert!(r.starts_with("t,"), "{r}");
        }
        only_assigns(&m);
    }
}
