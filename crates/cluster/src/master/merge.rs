//! Region merges, carried out where both regions are served (HBase's
//! `MergeTableRegionsProcedure`): two adjacent open regions of an enabled table become one
//! region whose files reference both.
//!
//! ```text
//!  request ─▶ table next_seq += 1, the region on `server` held by the merge, the other moved
//!             onto `server` by a transit of its own, proc Colocate (one transaction)
//!             (both already on one server: straight to the order below)
//!  Colocate ── transit ended, both open on `server` ──▶ both `merging`,
//!          │     order `merge e_low high e_high merged` to `server`, proc Await
//!          └─ not co-located (or the table is no longer enabled) ─▶ released, proc deleted
//!  Await ── ack `merged e_low` ──▶ both `merged` (naming the merged region), the merged
//!          │                       region [low.start, high.end) with an assign transit
//!          │                       (target: `server`), the boundary dropped from the table's
//!          │                       split points, proc deleted (one transaction)
//!          ├─ ack `failed-merge e_low` ─▶ Undo{serves}
//!          └─ server dies ─▶ crash recovery takes both offline ─▶ Undo{!serves}
//!  Undo ─▶ delete the merged region's directory ─▶ both back `open` on `server` (it still
//!          serves them) or offline (reassigned by the sweep), proc deleted
//! ```
//!
//! Safety, as for a split: the merged region gets its open order only after the server
//! acknowledged the merge, i.e. after both regions stopped taking writes and flushed (every
//! write they acknowledged is in the files the merged region references); the commit swaps
//! the records in one transaction, so no key is ever served by two regions. A rollback
//! deletes a merged directory nobody opened, whose name is never used again (`next_seq` only
//! grows). The merged regions' files are deleted by the janitor once the merged region has
//! compacted its references away (see [`super::split`]).

use super::admin::{AdminError, Refusal, RefusalKind};
use super::{Halt, Kv, Master, Switch};
use crate::kv::Op;
use crate::layout::{incarnation_region_id, region_table};
use crate::record::{
    Ack, MergeStep, Order, Procedure, RegionRecord, RegionState, TableState, TransitStep,
};
use crate::wal::{Fence, WalFencer};

/// One merge procedure's fixed fields.
pub(super) struct MergeProc {
    pub regions: (String, String),
    pub merged: String,
    pub server: String,
}

impl MergeProc {
    fn at(&self, step: MergeStep) -> Procedure {
        Procedure::Merge {
            regions: self.regions.clone(),
            merged: self.merged.clone(),
            server: self.server.clone(),
            step,
        }
    }
}

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Checks a merge request and stages its first step; returns the procedure's id.
    #[allow(
        clippy::type_complexity,
        reason = "the pair is the one `stage_request` returns"
    )]
    pub(super) fn stage_merge(
        &mut self,
        a: &str,
        b: &str,
    ) -> Result<String, (Option<Halt>, AdminError)> {
        let invalid = |m: String| (None, AdminError::Invalid(m.into()));
        let refused = |r: Refusal| (None, AdminError::Invalid(r));
        if a == b {
            return Err(invalid(format!("cannot merge region {a} with itself")));
        }
        // HBase's merge procedure checks its switch first, with this message.
        if !self.switch_on(Switch::Merge) {
            return Err(invalid(format!(
                "Merge of [{a}, {b}] failed because merge switch is off"
            )));
        }
        let table = region_table(a).to_string();
        if region_table(b) != table {
            return Err(invalid(format!(
                "regions {a} and {b} are of different tables"
            )));
        }
        let mut trec = self
            .table_in(&table, &[TableState::Enabled])
            .map_err(refused)?;
        self.check_region(a, &[RegionState::Open])
            .map_err(refused)?;
        self.check_region(b, &[RegionState::Open])
            .map_err(refused)?;
        let image = &self.lead().image;
        let (Some((ra, _)), Some((rb, _))) = (image.regions.get(a), image.regions.get(b)) else {
            return Err(refused(Refusal::new(
                RefusalKind::RegionNotFound,
                format!("no region {a} or {b}"),
            )));
        };
        let ((low, lrec), (high, hrec)) = if ra.start <= rb.start {
            ((a, ra.clone()), (b, rb.clone()))
        } else {
            ((b, rb.clone()), (a, ra.clone()))
        };
        if lrec.end.is_empty() || lrec.end != hrec.start {
            return Err(invalid(format!("regions {a} and {b} are not adjacent")));
        }
        let live = |r: &RegionRecord| r.server.clone().filter(|s| image.live.contains(s));
        let (Some(ls), Some(hs)) = (live(&lrec), live(&hrec)) else {
            return Err(invalid(format!("region {a} or {b} has no live server")));
        };
        let server = match (image.drained.contains(&ls), image.drained.contains(&hs)) {
            (true, false) => hs.clone(),
            // Both on decommissioned servers: colocated on one that takes regions (a move
            // onto a decommissioned server would land elsewhere), both moved in turn.
            (true, true) if ls != hs => {
                let fewest = image
                    .live
                    .iter()
                    .filter(|s| !image.drained.contains(*s))
                    .min_by_key(|s| image.by_server.get(*s).map_or(0, |r| r.len()));
                let Some(t) = fewest else {
                    return Err(invalid(format!(
                        "regions {a} and {b} are on decommissioned servers {ls} and {hs}, and \
                         no live server takes regions to merge them on: recommission one"
                    )));
                };
                t.clone()
            }
            // On the lower region's server (both on it, or it takes regions).
            _ => ls.clone(),
        };
        let seq = trec.free_seq();
        let Some(next) = seq.checked_add(1) else {
            return Err(invalid(format!("table {table} has no region numbers left")));
        };
        let merged = incarnation_region_id(&table, &trec.incarnation, seq);
        if image.regions.contains_key(&merged) {
            return Err(invalid(format!("merged region name {merged} is taken")));
        }
        trec.next_seq = next;
        let id = self.new_proc_id();
        let p = MergeProc {
            regions: (low.to_string(), high.to_string()),
            merged,
            server: server.clone(),
        };
        let mut ops = vec![Op::put(self.layout.table(&table), trec.encode())];
        if ls == hs {
            ops.extend(self.order_merge(&id, &p, lrec, hrec));
        } else {
            // The region away from `server` moves there; the lower one if neither is on it
            // (the higher follows once it arrived, see `colocated`).
            let (held, mover) = if server == ls {
                ((low, lrec), (high, hrec))
            } else {
                ((high, hrec), (low, lrec))
            };
            ops.extend(self.colocate(&id, &p, held, mover));
        }
        self.stage(ops)
            .map_err(|h| (Some(h), AdminError::Unavailable))?;
        Ok(id)
    }

    /// The writes that hold region `held` for merge procedure `id` (at `Colocate`) and move
    /// region `mover` onto the merge's server by a transit of its own.
    fn colocate(
        &mut self,
        id: &str,
        p: &MergeProc,
        (held, hrec): (&str, RegionRecord),
        (mover, mut mrec): (&str, RegionRecord),
    ) -> Vec<Op> {
        let transit = self.new_proc_id();
        mrec.proc = Some(transit.clone());
        let t = Procedure::Transit {
            region: mover.to_string(),
            target: Some(p.server.clone()),
            open: true,
            step: TransitStep::Close,
        };
        vec![
            self.put_region(
                held,
                &RegionRecord {
                    proc: Some(id.to_string()),
                    ..hrec
                },
            ),
            self.put_region(mover, &mrec),
            self.put_proc(&transit, &t),
            self.put_proc(id, &p.at(MergeStep::Colocate)),
        ]
    }

    /// The writes that send the merge order: both regions `merging`, held by procedure `id`,
    /// and the procedure at `Await`.
    fn order_merge(
        &self,
        id: &str,
        p: &MergeProc,
        low: RegionRecord,
        high: RegionRecord,
    ) -> Vec<Op> {
        let order = Order::Merge {
            epoch: low.epoch,
            high: p.regions.1.clone(),
            high_epoch: high.epoch,
            merged: p.merged.clone(),
        };
        let step = MergeStep::Await {
            low: low.epoch,
            high: high.epoch,
        };
        let merging = |r: RegionRecord| RegionRecord {
            state: RegionState::Merging,
            proc: Some(id.to_string()),
            ..r
        };
        vec![
            self.put_region(&p.regions.0, &merging(low)),
            self.put_region(&p.regions.1, &merging(high)),
            Op::put(self.layout.order(&p.server, &p.regions.0), order.encode()),
            self.put_proc(id, &p.at(step)),
        ]
    }

    /// Advances merge procedure `id` by one step.
    pub(super) fn step_merge(
        &mut self,
        id: &str,
        p: &MergeProc,
        step: MergeStep,
    ) -> Result<(), Halt> {
        let image = &self.lead().image;
        let (Some((low, _)), Some((high, _))) = (
            image.regions.get(&p.regions.0).cloned(),
            image.regions.get(&p.regions.1).cloned(),
        ) else {
            return self.stage(vec![self.del_proc(id)]);
        };
        match step {
            MergeStep::Colocate => self.colocated(id, p, low, high),
            MergeStep::Await { low: epoch, .. } => {
                if low.state != RegionState::Merging || low.server.as_ref() != Some(&p.server) {
                    // Not where the order went (never expected): give both back.
                    return self.stage(vec![
                        self.put_proc(id, &p.at(MergeStep::Undo { serves: false }))
                    ]);
                }
                let ack = image
                    .acks
                    .get(&(p.server.clone(), p.regions.0.clone()))
                    .cloned();
                match ack {
                    Some(Ack::Merged(e)) if e == epoch => self.commit_merge(id, p, low, high),
                    Some(Ack::FailedMerge(e)) if e == epoch => self.stage(vec![
                        self.put_proc(id, &p.at(MergeStep::Undo { serves: true }))
                    ]),
                    _ => Ok(()),
                }
            }
            MergeStep::Undo { serves } => {
                if !matches!(
                    self.fencer.remove_regions(std::slice::from_ref(&p.merged)),
                    Ok(Fence::Done)
                ) {
                    return Ok(()); // asked again at the next step
                }
                let mut ops = self.order_ops(&p.server, &p.regions.0).to_vec();
                for (name, rec) in [(&p.regions.0, low), (&p.regions.1, high)] {
                    if rec.proc.as_deref() != Some(id) {
                        continue; // released already (never expected)
                    }
                    let live =
                        |s: &String| self.lead.as_ref().is_some_and(|l| l.image.live.contains(s));
                    let back = match &rec.server {
                        Some(s) if !live(s) => return Ok(()), // its crash recovery first
                        Some(_) if serves && rec.state == RegionState::Merging => RegionRecord {
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
                    ops.push(self.put_region(name, &back));
                }
                ops.push(self.del_proc(id));
                self.stage(ops)
            }
        }
    }

    /// `Colocate`: once the moved region's transit ended, sends the merge order if both are
    /// open on the merge's server (and the table still enabled); if only the moved one is (the
    /// merge's server is neither region's: both sat on decommissioned servers), moves the
    /// held one there too, holding the other; else gives up. The second move starts only
    /// with the held region away from the merge's server, which it then no longer is: at most
    /// two moves per merge.
    fn colocated(
        &mut self,
        id: &str,
        p: &MergeProc,
        low: RegionRecord,
        high: RegionRecord,
    ) -> Result<(), Halt> {
        let ours = |r: &RegionRecord| r.proc.as_deref() == Some(id);
        if !ours(&low) && !ours(&high) {
            // Crash recovery released the region the merge held.
            return self.stage(vec![self.del_proc(id)]);
        }
        let moving = |r: &RegionRecord| r.proc.is_some() && r.proc.as_deref() != Some(id);
        if moving(&low) || moving(&high) {
            return Ok(()); // the transit (or whatever took the region since) runs
        }
        let image = &self.lead().image;
        let here =
            |r: &RegionRecord| r.state == RegionState::Open && r.server.as_ref() == Some(&p.server);
        let enabled = image
            .tables
            .get(region_table(&p.regions.0))
            .is_some_and(|(t, _)| t.state == TableState::Enabled);
        let usable = image.live.contains(&p.server) && !image.drained.contains(&p.server);
        if here(&low) && here(&high) && image.live.contains(&p.server) && enabled {
            let ops = self.order_merge(id, p, low, high);
            return self.stage(ops);
        }
        let (held, arrived) = if ours(&low) {
            (
                (p.regions.0.as_str(), low.clone()),
                (p.regions.1.as_str(), high.clone()),
            )
        } else {
            (
                (p.regions.1.as_str(), high.clone()),
                (p.regions.0.as_str(), low.clone()),
            )
        };
        let serving = |r: &RegionRecord| {
            r.state == RegionState::Open
                && r.server.as_ref().is_some_and(|s| image.live.contains(s))
        };
        if usable && enabled && here(&arrived.1) && !here(&held.1) && serving(&held.1) {
            let ops = self.colocate(id, p, arrived, held);
            return self.stage(ops);
        }
        let mut ops = vec![self.del_proc(id)];
        for (name, rec) in [(&p.regions.0, low), (&p.regions.1, high)] {
            if ours(&rec) {
                ops.push(self.put_region(name, &RegionRecord { proc: None, ..rec }));
            }
        }
        self.stage(ops)
    }

    /// The merge happened: both regions are retired and the merged one created with its
    /// assign transit, in one transaction.
    fn commit_merge(
        &mut self,
        id: &str,
        p: &MergeProc,
        low: RegionRecord,
        high: RegionRecord,
    ) -> Result<(), Halt> {
        let mut ops = self.order_ops(&p.server, &p.regions.0).to_vec();
        let transit = self.new_proc_id();
        let mut merged = RegionRecord::new(low.start.clone(), high.end.clone());
        merged.proc = Some(transit.clone());
        ops.push(self.put_region(&p.merged, &merged));
        let t = Procedure::Transit {
            region: p.merged.clone(),
            target: Some(p.server.clone()),
            open: true,
            step: TransitStep::Pick,
        };
        ops.push(self.put_proc(&transit, &t));
        let table = region_table(&p.merged).to_string();
        if let Some((mut t, _)) = self.lead().image.tables.get(&table).cloned() {
            if let Ok(at) = t.splits.binary_search(&high.start) {
                // Kept current, so a truncate preserving splits keeps today's boundaries.
                t.splits.remove(at);
                ops.push(Op::put(self.layout.table(&table), t.encode()));
            }
        }
        for (name, rec) in [(&p.regions.0, low), (&p.regions.1, high)] {
            let retired = RegionRecord {
                state: RegionState::Merged,
                server: None,
                proc: None,
                daughters: Some((p.merged.clone(), p.merged.clone())),
                ..rec
            };
            ops.push(self.put_region(name, &retired));
        }
        ops.push(self.del_proc(id));
        self.stage(ops)
    }

    /// Crash recovery of a server holding `region`, which merge procedure `pid` holds: before
    /// the order, the region goes offline and the merge ends; after it, it goes offline (its
    /// files are whole whether or not the merge happened) and the merge rolls back.
    pub(super) fn release_merging(
        &mut self,
        region: &str,
        server: &str,
        rec: RegionRecord,
        pid: &str,
        p: &MergeProc,
        step: MergeStep,
    ) -> Result<(), Halt> {
        let mut ops = self.order_ops(server, region).to_vec();
        let offline = RegionRecord {
            state: RegionState::Offline,
            server: None,
            ..rec
        };
        if step == MergeStep::Colocate {
            ops.push(self.put_region(
                region,
                &RegionRecord {
                    proc: None,
                    ..offline
                },
            ));
            ops.push(self.del_proc(pid));
        } else {
            ops.push(self.put_region(region, &offline));
            ops.push(self.put_proc(pid, &p.at(MergeStep::Undo { serves: false })));
        }
        self.stage(ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::master::rig::Rig;
    use crate::master::AdminRequest;

    fn invalid(r: Result<String, AdminError>) -> String {
        match r {
            Err(AdminError::Invalid(why)) => why.message,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn merges_swap_the_records_at_once_and_bad_requests_change_nothing() {
        let mut rig = Rig::new(1);
        let r = rig.table(&["g", "p"]);
        let before = rig.master.regions();
        let (a, b, c) = (&r[0].0, &r[1].0, &r[2].0);
        assert!(invalid(rig.merge(a, a)).contains("with itself"));
        assert!(invalid(rig.merge(a, c)).contains("not adjacent"));
        assert!(invalid(rig.merge(a, "t,99999999")).contains("no region"));
        assert!(invalid(rig.merge(a, "u,00000001")).contains("different tables"));
        assert_eq!(rig.master.regions(), before, "refusals change nothing");
        assert!(rig.master.procedures().is_empty());

        let id = rig.merge(b, a).unwrap();
        // One tick: the order is out, both regions merging, held by the procedure.
        assert_eq!(rig.region(a).unwrap().state, RegionState::Merging);
        assert_eq!(rig.region(b).unwrap().proc.as_deref(), Some(id.as_str()));
        assert!(invalid(rig.merge(b, c)).contains("in transition"));
        rig.run(10);
        assert!(rig.master.procedures().is_empty());
        let live = rig.live();
        assert_eq!(live.len(), 2, "{live:?}");
        let (merged, rec) = &live[0];
        assert_eq!(rec.state, RegionState::Open);
        assert_eq!(
            (rec.start.as_slice(), rec.end.as_slice()),
            (&b""[..], &b"p"[..])
        );
        for parent in [a, b] {
            let p = rig.region(parent).unwrap();
            assert_eq!(p.state, RegionState::Merged);
            assert_eq!(p.merged_into(), Some(merged.as_str()));
            assert_eq!(p.server, None);
        }
        let tables = rig.master.tables();
        assert_eq!(tables[0].1.splits, vec![b"p".to_vec()], "boundary dropped");
        // The janitor deletes the parents (the model's merged region references nothing).
        rig.run(40);
        assert!(rig.region(a).is_none() && rig.region(b).is_none());
        assert!(rig.wal.is_removed(a) && rig.wal.is_removed(b));
    }

    #[test]
    fn a_failed_merge_gives_both_regions_back() {
        let mut rig = Rig::new(1);
        let r = rig.table(&["g"]);
        rig.hosts[0].fail.set(true);
        rig.merge(&r[0].0, &r[1].0).unwrap();
        rig.run(10);
        assert!(rig.master.procedures().is_empty());
        let live = rig.live();
        assert_eq!(live.len(), 2);
        assert!(live
            .iter()
            .all(|(_, r)| r.state == RegionState::Open && r.proc.is_none()));
        // The merged region's name was used: its directory is deleted, the name never reused.
        let merged = rig.master.tables()[0].1.free_seq() - 1;
        assert!(rig
            .wal
            .is_removed(&format!("{}{merged:08x}", &r[0].0[..r[0].0.len() - 8])));
        // Asked again (the regions still open at the same epochs), the merge is carried out.
        rig.hosts[0].fail.set(false);
        rig.merge(&r[1].0, &r[0].0).unwrap();
        rig.run(10);
        let live = rig.live();
        assert_eq!(live.len(), 1, "{live:?}");
        assert_eq!(live[0].1.state, RegionState::Open);
    }

    #[test]
    fn regions_apart_are_moved_together_first() {
        let mut rig = Rig::new(2);
        let r = rig.table(&["g"]);
        assert_ne!(r[0].1.server, r[1].1.server, "{r:?}");
        rig.merge(&r[0].0, &r[1].0).unwrap();
        rig.run(20);
        assert!(rig.master.procedures().is_empty());
        let live = rig.live();
        assert_eq!(live.len(), 1, "{live:?}");
        assert_eq!(live[0].1.state, RegionState::Open);
        assert_eq!(live[0].1.server, r[0].1.server);
    }

    /// Creates `t` split at `g` (one region on each of two servers) and decommissions both
    /// regions' servers in one go, before the drain moves anything; answers the regions and
    /// the index of the third server.
    fn both_on_decommissioned(rig: &mut Rig) -> (Vec<(String, RegionRecord)>, usize) {
        let r = rig.table(&["g"]);
        let servers: Vec<String> = r.iter().filter_map(|(_, rec)| rec.server.clone()).collect();
        assert_eq!(servers.len(), 2);
        assert_ne!(servers[0], servers[1], "{r:?}");
        let third = rig
            .servers
            .iter()
            .position(|s| !servers.iter().any(|h| h == s.name()))
            .unwrap();
        for server in servers {
            rig.master
                .submit(AdminRequest::Decommission { server })
                .unwrap();
        }
        (r, third)
    }

    #[test]
    fn regions_on_two_decommissioned_servers_merge_on_a_third() {
        let mut rig = Rig::new(3);
        let (r, third) = both_on_decommissioned(&mut rig);
        let third = rig.servers[third].name().to_string();
        rig.merge(&r[0].0, &r[1].0).unwrap();
        rig.run(40);
        assert!(
            rig.master.procedures().is_empty(),
            "{:?}",
            rig.master.procedures()
        );
        let live = rig.live();
        assert_eq!(live.len(), 1, "merged, not rolled back: {live:?}");
        assert_eq!(live[0].1.state, RegionState::Open);
        assert_eq!(live[0].1.server.as_ref(), Some(&third));
        assert_eq!(
            (live[0].1.start.as_slice(), live[0].1.end.as_slice()),
            (&b""[..], &b""[..])
        );
    }

    #[test]
    fn a_merge_with_nowhere_to_go_is_refused_up_front() {
        let mut rig = Rig::new(3);
        let (r, third) = both_on_decommissioned(&mut rig);
        // The only server that takes regions leaves before the drain could use it.
        rig.servers[third].leave();
        rig.run(10);
        let live = rig.live();
        assert_eq!(
            live.iter()
                .map(|(_, rec)| rec.server.clone())
                .collect::<Vec<_>>(),
            r.iter()
                .map(|(_, rec)| rec.server.clone())
                .collect::<Vec<_>>(),
            "nothing drained: no server to take the regions"
        );
        let before = rig.master.regions();
        let why = invalid(rig.merge(&r[0].0, &r[1].0));
        assert!(why.contains("decommissioned servers"), "{why}");
        assert!(why.contains("recommission"), "{why}");
        assert_eq!(rig.master.regions(), before, "the refusal changes nothing");
        assert!(rig.master.procedures().is_empty());
    }

    #[test]
    fn a_server_dying_during_the_merge_rolls_it_back() {
        let mut rig = Rig::new(2);
        let r = rig.table(&["g"]);
        // Hold the merge on the server: it never answers.
        rig.merge(&r[0].0, &r[1].0).unwrap();
        let holder = r[0].1.server.clone().unwrap();
        let i = rig.servers.iter().position(|s| s.name() == holder).unwrap();
        rig.run(6); // co-located, the order out
        rig.servers[i].leave();
        rig.run(60);
        assert!(
            rig.master.procedures().is_empty(),
            "{:?}",
            rig.master.procedures()
        );
        let live = rig.live();
        assert!(
            live.iter()
                .all(|(_, r)| r.state == RegionState::Open && r.server.is_some()),
            "{live:?}"
        );
        // Covered exactly once either way: merged, or both regions back.
        assert!(live.len() == 1 || live.len() == 2, "{live:?}");
    }
}
