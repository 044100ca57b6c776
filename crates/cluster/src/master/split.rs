//! Region splits, carried out where the region is served (HBase's split procedure), and the
//! janitor that deletes split (and merged) parents once their daughters (the merged region)
//! no longer need their files.
//!
//! ```text
//!  request ─▶ table next_seq += 2, parent `splitting`, order `split e d1 d2 row`, proc Await
//!               (one transaction)
//!  Await ── ack `split e row` ──▶ parent `split` (daughters named), d1 [start,row) and
//!          │                      d2 [row,end) with assign transits (target: the parent's
//!          │                      server), split row added to the table, proc deleted
//!          │                      (one transaction)
//!          ├─ ack `failed-split e` ─▶ Undo{serves}
//!          └─ server dies ─▶ crash recovery takes the parent offline ─▶ Undo{!serves}
//!  Undo ─▶ delete the daughters' directories ─▶ parent back `open` on its server (it still
//!          serves it) or offline (reassigned by the sweep), proc deleted
//! ```
//!
//! Safety: the daughters get open orders only after the server acknowledged the split, i.e.
//! after the parent stopped taking writes and flushed (every write it acknowledged is in the
//! files the daughters reference). A rollback deletes daughters nobody ever opened, and their
//! names are never used again (`next_seq` only grows), so a late write of a stalled server
//! into such a directory is garbage nobody reads.

use super::admin::{AdminError, Refusal, RefusalKind};
use super::{Halt, Kv, Master, Switch};
use crate::kv::Op;
use crate::layout::{incarnation_region_id, region_table};
use crate::lease::Millis;
use crate::record::{
    Ack, Order, Procedure, RegionRecord, RegionState, SplitStep, TableState, TransitStep,
};
use crate::wal::{Fence, ParentFiles, WalFencer};

/// Split parents the janitor looks at per round, at most.
const JANITOR_PER_ROUND: usize = 16;

/// Whether `row` is strictly inside `rec`'s key range (a split row must be).
pub(crate) fn inside(rec: &RegionRecord, row: &[u8]) -> bool {
    row > rec.start.as_slice() && (rec.end.is_empty() || row < rec.end.as_slice())
}

/// One split procedure's fixed fields.
pub(super) struct SplitProc {
    pub region: String,
    pub daughters: (String, String),
    pub row: Option<Vec<u8>>,
    pub server: String,
    pub epoch: u64,
}

impl SplitProc {
    fn at(&self, step: SplitStep) -> Procedure {
        Procedure::Split {
            region: self.region.clone(),
            daughters: self.daughters.clone(),
            row: self.row.clone(),
            server: self.server.clone(),
            epoch: self.epoch,
            step,
        }
    }
}

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Checks a split request and stages its first step; returns the procedure's id.
    #[allow(
        clippy::type_complexity,
        reason = "the pair is the one `stage_request` returns"
    )]
    pub(super) fn stage_split(
        &mut self,
        region: &str,
        row: Option<Vec<u8>>,
    ) -> Result<String, (Option<Halt>, AdminError)> {
        let invalid = |m: String| (None, AdminError::Invalid(m.into()));
        let refused = |r: Refusal| (None, AdminError::Invalid(r));
        self.check_region(region, &[RegionState::Open])
            .map_err(refused)?;
        // HBase's split procedure checks its switch first, with this message.
        if !self.switch_on(Switch::Split) {
            return Err(invalid(format!(
                "Split region {region} failed due to split switch off"
            )));
        }
        let table = region_table(region).to_string();
        let mut trec = self
            .table_in(&table, &[TableState::Enabled])
            .map_err(refused)?;
        let image = &self.lead().image;
        let Some((rec, _)) = image.regions.get(region).cloned() else {
            return Err(refused(Refusal::new(
                RefusalKind::RegionNotFound,
                format!("no region {region}"),
            )));
        };
        let Some(server) = rec.server.clone().filter(|s| image.live.contains(s)) else {
            return Err(invalid(format!("region {region} has no live server")));
        };
        if let Some(r) = &row {
            if !inside(&rec, r) {
                return Err(invalid(format!(
                    "split row {} is not strictly inside region {region}",
                    String::from_utf8_lossy(r)
                )));
            }
        }
        let seq = trec.free_seq();
        let Some(next) = seq.checked_add(2) else {
            return Err(invalid(format!("table {table} has no region numbers left")));
        };
        let daughters = (
            incarnation_region_id(&table, &trec.incarnation, seq),
            incarnation_region_id(&table, &trec.incarnation, seq + 1),
        );
        if image.regions.contains_key(&daughters.0) || image.regions.contains_key(&daughters.1) {
            return Err(invalid(format!("daughter names of {region} are taken")));
        }
        trec.next_seq = next;
        let id = self.new_proc_id();
        let p = SplitProc {
            region: region.to_string(),
            daughters: daughters.clone(),
            row: row.clone(),
            server: server.clone(),
            epoch: rec.epoch,
        };
        let splitting = RegionRecord {
            state: RegionState::Splitting,
            proc: Some(id.clone()),
            ..rec
        };
        let order = Order::Split {
            epoch: p.epoch,
            daughters,
            row,
        };
        self.stage(vec![
            Op::put(self.layout.table(&table), trec.encode()),
            self.put_region(region, &splitting),
            Op::put(self.layout.order(&server, region), order.encode()),
            self.put_proc(&id, &p.at(SplitStep::Await)),
        ])
        .map_err(|h| (Some(h), AdminError::Unavailable))?;
        Ok(id)
    }

    /// Advances split procedure `id` by one step.
    pub(super) fn step_split(
        &mut self,
        id: &str,
        p: &SplitProc,
        step: SplitStep,
    ) -> Result<(), Halt> {
        let Some((rec, _)) = self.lead().image.regions.get(&p.region).cloned() else {
            return self.stage(vec![self.del_proc(id)]);
        };
        match step {
            SplitStep::Await => {
                if rec.state != RegionState::Splitting || rec.server.as_ref() != Some(&p.server) {
                    // Not where the order went (never expected): give the parent back.
                    return self.stage(vec![
                        self.put_proc(id, &p.at(SplitStep::Undo { serves: false }))
                    ]);
                }
                let ack = self
                    .lead()
                    .image
                    .acks
                    .get(&(p.server.clone(), p.region.clone()))
                    .cloned();
                match ack {
                    Some(Ack::Split(e, row)) if e == p.epoch => {
                        if !inside(&rec, &row) || p.row.as_ref().is_some_and(|r| *r != row) {
                            // Split elsewhere than asked (never expected): the server no
                            // longer serves the parent, whose files are whole.
                            return self.stage(vec![
                                self.put_proc(id, &p.at(SplitStep::Undo { serves: false }))
                            ]);
                        }
                        self.commit_split(id, p, rec, row)
                    }
                    Some(Ack::FailedSplit(e)) if e == p.epoch => self.stage(vec![
                        self.put_proc(id, &p.at(SplitStep::Undo { serves: true }))
                    ]),
                    _ => Ok(()),
                }
            }
            SplitStep::Undo { serves } => {
                let daughters = [p.daughters.0.clone(), p.daughters.1.clone()];
                if !matches!(self.fencer.remove_regions(&daughters), Ok(Fence::Done)) {
                    return Ok(()); // asked again at the next step
                }
                let live =
                    |s: &String| self.lead.as_ref().is_some_and(|l| l.image.live.contains(s));
                let back = match &rec.server {
                    Some(s) if !live(s) => return Ok(()), // its crash recovery releases it first
                    Some(_) if serves && rec.state == RegionState::Splitting => RegionRecord {
                        state: RegionState::Open,
                        proc: None,
                        ..rec
                    },
                    _ => RegionRecord {
                        state: RegionState::Offline,
                        server: None,
                        proc: None,
                        ..rec
                    },
                };
                let mut ops = self.order_ops(&p.server, &p.region).to_vec();
                ops.push(self.put_region(&p.region, &back));
                ops.push(self.del_proc(id));
                self.stage(ops)
            }
        }
    }

    /// The split happened: the parent is retired and both daughters created with their
    /// assign transits, in one transaction.
    fn commit_split(
        &mut self,
        id: &str,
        p: &SplitProc,
        rec: RegionRecord,
        row: Vec<u8>,
    ) -> Result<(), Halt> {
        let mut ops = self.order_ops(&p.server, &p.region).to_vec();
        let halves = [
            (p.daughters.0.clone(), rec.start.clone(), row.clone()),
            (p.daughters.1.clone(), row.clone(), rec.end.clone()),
        ];
        for (name, start, end) in halves {
            let transit = self.new_proc_id();
            let mut daughter = RegionRecord::new(start, end);
            daughter.proc = Some(transit.clone());
            ops.push(self.put_region(&name, &daughter));
            let t = Procedure::Transit {
                region: name,
                target: Some(p.server.clone()),
                open: true,
                step: TransitStep::Pick,
            };
            ops.push(self.put_proc(&transit, &t));
        }
        let table = region_table(&p.region).to_string();
        if let Some((mut t, _)) = self.lead().image.tables.get(&table).cloned() {
            if let Err(at) = t.splits.binary_search(&row) {
                // Kept current, so a truncate preserving splits keeps today's boundaries.
                t.splits.insert(at, row);
                ops.push(Op::put(self.layout.table(&table), t.encode()));
            }
        }
        let retired = RegionRecord {
            state: RegionState::Split,
            server: None,
            proc: None,
            daughters: Some(p.daughters.clone()),
            ..rec
        };
        ops.push(self.put_region(&p.region, &retired));
        ops.push(self.del_proc(id));
        self.stage(ops)
    }

    /// Crash recovery of the server a split order went to: the parent goes offline (its
    /// files are whole whether or not the split happened) and the split rolls back.
    pub(super) fn release_splitting(
        &mut self,
        region: &str,
        server: &str,
        rec: RegionRecord,
        pid: &str,
        p: &SplitProc,
    ) -> Result<(), Halt> {
        let mut ops = self.order_ops(server, region).to_vec();
        ops.push(self.put_region(
            region,
            &RegionRecord {
                state: RegionState::Offline,
                server: None,
                ..rec
            },
        ));
        ops.push(self.put_proc(pid, &p.at(SplitStep::Undo { serves: false })));
        self.stage(ops)
    }

    /// Deletes split parents whose daughters no longer reference their files, a few per
    /// round, every `janitor_period_ms`; not while a crash recovery may be writing recovered
    /// edits.
    pub(super) fn janitor(&mut self, now: Millis) -> Result<(), Halt> {
        if now < self.next_janitor {
            return Ok(());
        }
        self.next_janitor = now + self.config.janitor_period_ms;
        let image = &self.lead().image;
        if !image.crashes.is_empty() {
            return Ok(());
        }
        let mut work = Vec::new();
        for parent in image.split_parents.iter().take(JANITOR_PER_ROUND) {
            let Some((rec, _)) = image.regions.get(parent) else {
                continue;
            };
            let enabled = image
                .tables
                .get(region_table(parent))
                .is_some_and(|(t, _)| t.state == TableState::Enabled);
            let Some((a, b)) = rec.daughters.clone().filter(|_| enabled) else {
                continue;
            };
            // A daughter split or merged since (or already deleted as a parent) had compacted
            // its references away first: only the others are asked about. A merged parent
            // names its merged region twice.
            let mut pending: Vec<String> = [a, b]
                .into_iter()
                .filter(|d| {
                    image.regions.get(d).is_some_and(|(r, _)| {
                        !matches!(r.state, RegionState::Split | RegionState::Merged)
                    })
                })
                .collect();
            pending.dedup();
            work.push((parent.clone(), pending));
        }
        for (parent, daughters) in work {
            if let Ok(ParentFiles::Removed) = self.fencer.remove_split_parent(&parent, &daughters) {
                self.stage(vec![Op::Delete(self.layout.region(&parent))])?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::master::rig::Rig;
    use crate::master::AdminRequest;

    /// Splits `region` at `m` and lets the procedure end; answers the regions then.
    fn split_at_m(rig: &mut Rig, region: &str) -> Vec<(String, RegionRecord)> {
        rig.split(region, "m").unwrap();
        rig.run(5);
        assert!(
            rig.master.procedures().is_empty(),
            "{:?}",
            rig.master.procedures()
        );
        rig.live()
    }

    #[test]
    fn a_failed_split_is_tried_again_after_a_growing_back_off() {
        let mut rig = Rig::new(1);
        let region = rig.table(&[])[0].0.clone();
        let host = rig.hosts[0].clone();
        host.fail_splits.set(2);
        // Fails: the region is served again, at the same epoch.
        let live = split_at_m(&mut rig, &region);
        assert_eq!(live.len(), 1, "{live:?}");
        assert_eq!(live[0].1.state, RegionState::Open);
        assert_eq!(host.splits.get(), 1);
        // Asked again within the back-off (2 s): refused at once, not tried.
        assert_eq!(split_at_m(&mut rig, &region).len(), 1);
        assert_eq!(host.splits.get(), 1, "not tried within the back-off");
        // Past it (2 s after the failure): tried, and fails again.
        rig.run(20);
        assert_eq!(split_at_m(&mut rig, &region).len(), 1);
        assert_eq!(host.splits.get(), 2);
        // The back-off doubled (4 s): 3 s later still refused, 5 s later tried and done.
        rig.run(25);
        assert_eq!(split_at_m(&mut rig, &region).len(), 1);
        assert_eq!(
            host.splits.get(),
            2,
            "not tried within the doubled back-off"
        );
        rig.run(20);
        let live = split_at_m(&mut rig, &region);
        assert_eq!(host.splits.get(), 3);
        assert_eq!(live.len(), 2, "split at last: {live:?}");
        assert_eq!(live[1].1.start, b"m".to_vec());
        assert!(live.iter().all(|(_, r)| r.state == RegionState::Open));
    }

    #[test]
    fn split_requests_round_trip_and_bad_ones_are_refused() {
        for row in [None, Some(b"m\x00".to_vec())] {
            let req = AdminRequest::Split {
                region: "ns:t,1a-3.00000002".into(),
                row,
            };
            assert_eq!(AdminRequest::decode(&req.encode()).unwrap(), req);
        }
        for bad in [
            "req1 split t,00000001",
            "req1 split t,00000001 zz",
            "req1 split t,00000001 6 extra",
        ] {
            assert!(AdminRequest::decode(bad.as_bytes()).is_err(), "{bad}");
        }
        let mut rec = RegionRecord::new(b"b".to_vec(), b"d".to_vec());
        assert!(inside(&rec, b"c"));
        assert!(!inside(&rec, b"b"), "the start row is not strictly inside");
        assert!(!inside(&rec, b"d"));
        rec.end.clear();
        assert!(inside(&rec, b"zzz"));
    }

    #[test]
    fn the_split_and_merge_switches_refuse_their_procedures_until_turned_back_on() {
        let mut rig = Rig::new(1);
        let live = rig.table(&["g"]);
        let (a, b) = (live[0].0.clone(), live[1].0.clone());
        let switch = |switch, on| AdminRequest::SetSwitch { switch, on };
        let said = rig.master.submit(switch(Switch::Split, false)).unwrap();
        assert_eq!(said, "split was on");
        let said = rig.master.submit(switch(Switch::Merge, false)).unwrap();
        assert_eq!(said, "merge was on");
        let refused = rig.split(&b, "m").unwrap_err();
        assert!(
            format!("{refused:?}").contains("failed due to split switch off"),
            "{refused:?}"
        );
        let refused = rig.merge(&a, &b).unwrap_err();
        assert!(
            format!("{refused:?}").contains("failed because merge switch is off"),
            "{refused:?}"
        );
        rig.run(5);
        assert_eq!(rig.live().len(), 2);
        assert!(rig.master.procedures().is_empty());
        // Encoded as submitted through the coordination store.
        for on in [true, false] {
            let req = switch(Switch::Merge, on);
            assert_eq!(AdminRequest::decode(&req.encode()).unwrap(), req);
        }
        // Back on (and persisted: a new image reads the same).
        let said = rig.master.submit(switch(Switch::Split, true)).unwrap();
        assert_eq!(said, "split was off");
        let live = split_at_m(&mut rig, &b);
        assert_eq!(live.len(), 3);
        let said = rig.master.submit(switch(Switch::Merge, true)).unwrap();
        assert_eq!(said, "merge was off");
        rig.merge(&a, &live[1].0).unwrap();
        rig.run(10);
        assert_eq!(rig.live().len(), 2);
    }
}
