//! The procedures. Each step reads the image, decides, and stages the writes that record its
//! outcome together with its next step (so a new master resumes exactly there); the only effects
//! outside etcd are the WAL fencer's, which are idempotent. Orders to region servers are etcd
//! keys written in the same transaction as the step that sends them.
//!
//! Safety rules the steps keep:
//! - A region gets an open order only when its record names no server: after a clean close was
//!   acknowledged, or after its server's crash recovery fenced and split that server's WAL.
//! - Crash recovery starts only once the server's registration key is gone (its lease expired,
//!   so its self-fencing deadline has passed).

use super::merge::MergeProc;
use super::split::SplitProc;
use super::{Halt, Kv, Master};
use crate::kv::Op;
use crate::layout::region_table;
use crate::lease::Millis;
use crate::record::{
    Ack, CrashStep, CreateStep, DropStep, Order, Procedure, RegionRecord, RegionState, TableRecord,
    TableState, TransitStep,
};
use crate::wal::{Fence, WalFencer};

/// Regions handled by one staged step of crash recovery, table creation or drop.
pub(super) const CHUNK: usize = 32;

impl<K: Kv, F: WalFencer> Master<K, F> {
    pub(super) fn put_region(&self, id: &str, rec: &RegionRecord) -> Op {
        Op::put(self.layout.region(id), rec.encode())
    }

    pub(super) fn put_proc(&self, id: &str, p: &Procedure) -> Op {
        Op::put(self.layout.proc(id), p.encode())
    }

    pub(super) fn del_proc(&self, id: &str) -> Op {
        Op::Delete(self.layout.proc(id))
    }

    pub(super) fn order_ops(&self, server: &str, region: &str) -> [Op; 2] {
        [
            Op::Delete(self.layout.order(server, region)),
            Op::Delete(self.layout.ack(server, region)),
        ]
    }

    /// Starts crash recovery for every server that regions point at but that is not live.
    pub(super) fn start_crash_recoveries(&mut self) -> Result<(), Halt> {
        let image = &self.lead().image;
        let dead: Vec<String> = image
            .by_server
            .keys()
            .filter(|s| !image.live.contains(*s) && !image.crashes.contains_key(*s))
            .cloned()
            .collect();
        for server in dead {
            let id = self.new_proc_id();
            let p = Procedure::ServerCrash {
                server,
                step: CrashStep::Fence,
            };
            self.stage(vec![self.put_proc(&id, &p)])?;
        }
        Ok(())
    }

    /// Creates an assign procedure for offline regions of enabled tables.
    pub(super) fn sweep(&mut self) -> Result<(), Halt> {
        let limit = self.config.sweep_per_tick;
        let image = &self.lead().image;
        let todo: Vec<String> = image
            .unassigned
            .iter()
            .filter(|r| {
                image
                    .tables
                    .get(region_table(r))
                    .is_some_and(|(t, _)| t.state == TableState::Enabled)
            })
            .take(limit)
            .cloned()
            .collect();
        for region in todo {
            self.start_transit(&region, None, true, TransitStep::Pick)?;
        }
        Ok(())
    }

    /// Stages a new transit procedure for `region` (which must have none).
    pub(super) fn start_transit(
        &mut self,
        region: &str,
        target: Option<String>,
        open: bool,
        step: TransitStep,
    ) -> Result<String, Halt> {
        let Some((mut rec, _)) = self.lead().image.regions.get(region).cloned() else {
            return Err(Halt::Stale);
        };
        let id = self.new_proc_id();
        rec.proc = Some(id.clone());
        let p = Procedure::Transit {
            region: region.to_string(),
            target,
            open,
            step,
        };
        self.stage(vec![self.put_proc(&id, &p), self.put_region(region, &rec)])?;
        Ok(id)
    }

    /// Advances every procedure by at most one step.
    pub(super) fn run_procedures(&mut self, now: Millis) -> Result<(), Halt> {
        let ids: Vec<String> = self.lead().image.procs.keys().cloned().collect();
        for id in ids {
            if self.over_budget() {
                break;
            }
            let Some((p, _)) = self.lead().image.procs.get(&id).cloned() else {
                continue;
            };
            match p {
                Procedure::Transit {
                    region,
                    target,
                    open,
                    step,
                } => {
                    self.step_transit(&id, &region, target, open, step)?;
                }
                Procedure::ServerCrash { server, step } => {
                    self.step_crash(&id, &server, step, now)?
                }
                Procedure::CreateTable { table, step } => self.step_create(&id, &table, step)?,
                Procedure::DropTable { table, step } => self.step_drop(&id, &table, step)?,
                Procedure::DisableTable { table } => self.step_disable(&id, &table)?,
                Procedure::EnableTable { table } => self.step_enable(&id, &table)?,
                Procedure::ReopenTable { table, next } => self.step_reopen(&id, &table, next)?,
                Procedure::TruncateTable {
                    table,
                    preserve,
                    step,
                } => self.step_truncate(&id, &table, preserve, step)?,
                Procedure::Split {
                    region,
                    daughters,
                    row,
                    server,
                    epoch,
                    step,
                } => {
                    let p = SplitProc {
                        region,
                        daughters,
                        row,
                        server,
                        epoch,
                    };
                    self.step_split(&id, &p, step)?;
                }
                Procedure::Merge {
                    regions,
                    merged,
                    server,
                    step,
                } => {
                    let p = MergeProc {
                        regions,
                        merged,
                        server,
                    };
                    self.step_merge(&id, &p, step)?;
                }
            }
        }
        Ok(())
    }

    fn step_transit(
        &mut self,
        id: &str,
        region: &str,
        target: Option<String>,
        open: bool,
        step: TransitStep,
    ) -> Result<(), Halt> {
        let Some((rec, _)) = self.lead().image.regions.get(region).cloned() else {
            return self.stage(vec![self.del_proc(id)]);
        };
        let transit = |step| Procedure::Transit {
            region: region.to_string(),
            target: target.clone(),
            open,
            step,
        };
        let image = &self.lead().image;
        match step {
            TransitStep::Close => match (&rec.server, rec.state) {
                (Some(server), _) => {
                    if !image.live.contains(server) {
                        return Ok(()); // its crash recovery takes the region over
                    }
                    let server = server.clone();
                    let epoch = rec.epoch;
                    let closing = RegionRecord {
                        state: RegionState::Closing,
                        ..rec
                    };
                    let next = transit(TransitStep::AwaitClose {
                        server: server.clone(),
                        epoch,
                    });
                    self.stage(vec![
                        self.put_region(region, &closing),
                        Op::put(
                            self.layout.order(&server, region),
                            Order::Close { epoch }.encode(),
                        ),
                        self.put_proc(id, &next),
                    ])
                }
                (None, _) if open => {
                    self.stage(vec![self.put_proc(id, &transit(TransitStep::Pick))])
                }
                (None, _) => {
                    let closed = RegionRecord {
                        state: RegionState::Closed,
                        proc: None,
                        ..rec
                    };
                    self.stage(vec![self.put_region(region, &closed), self.del_proc(id)])
                }
            },
            TransitStep::AwaitClose { server, epoch } => {
                if image.acks.get(&(server.clone(), region.to_string()))
                    != Some(&Ack::Closed(epoch))
                {
                    return Ok(());
                }
                let mut ops = self.order_ops(&server, region).to_vec();
                if open {
                    let offline = RegionRecord {
                        state: RegionState::Offline,
                        server: None,
                        ..rec
                    };
                    ops.push(self.put_region(region, &offline));
                    ops.push(self.put_proc(id, &transit(TransitStep::Pick)));
                } else {
                    let closed = RegionRecord {
                        state: RegionState::Closed,
                        server: None,
                        proc: None,
                        ..rec
                    };
                    ops.push(self.put_region(region, &closed));
                    ops.push(self.del_proc(id));
                }
                self.stage(ops)
            }
            TransitStep::Pick => {
                if rec.server.is_some() {
                    return self.stage(vec![self.put_proc(id, &transit(TransitStep::Close))]);
                }
                let Some(server) = self.pick_server(target.as_deref()) else {
                    return Ok(());
                };
                let epoch = rec.epoch + 1;
                let opening = RegionRecord {
                    state: RegionState::Opening,
                    server: Some(server.clone()),
                    epoch,
                    ..rec
                };
                let next = transit(TransitStep::AwaitOpen {
                    server: server.clone(),
                    epoch,
                });
                self.stage(vec![
                    self.put_region(region, &opening),
                    Op::put(
                        self.layout.order(&server, region),
                        Order::Open { epoch }.encode(),
                    ),
                    self.put_proc(id, &next),
                ])
            }
            TransitStep::AwaitOpen { server, epoch } => {
                let live = image.live.contains(&server);
                match image.acks.get(&(server.clone(), region.to_string())) {
                    Some(Ack::Opened(e)) if *e == epoch && live => {
                        let open_rec = RegionRecord {
                            state: RegionState::Open,
                            proc: None,
                            ..rec
                        };
                        let mut ops = self.order_ops(&server, region).to_vec();
                        ops.push(self.put_region(region, &open_rec));
                        ops.push(self.del_proc(id));
                        self.stage(ops)
                    }
                    Some(Ack::FailedOpen(e)) if *e == epoch => {
                        let offline = RegionRecord {
                            state: RegionState::Offline,
                            server: None,
                            ..rec
                        };
                        let mut ops = self.order_ops(&server, region).to_vec();
                        ops.push(self.put_region(region, &offline));
                        ops.push(self.put_proc(id, &transit(TransitStep::Pick)));
                        self.stage(ops)
                    }
                    _ => Ok(()),
                }
            }
        }
    }

    /// The live server to open a region on: `target` if live and not decommissioned, else the
    /// one with fewest regions among those not decommissioned (among all live ones if every
    /// live server is decommissioned: a region served beats a region offline).
    fn pick_server(&mut self, target: Option<&str>) -> Option<String> {
        let image = &self.lead().image;
        if let Some(t) = target {
            if image.live.contains(t) && !image.drained.contains(t) {
                return Some(t.to_string());
            }
        }
        let fewest = |drained_too: bool| {
            image
                .live
                .iter()
                .filter(|s| drained_too || !image.drained.contains(*s))
                .min_by_key(|s| image.by_server.get(*s).map_or(0, |r| r.len()))
                .cloned()
        };
        fewest(false).or_else(|| fewest(true))
    }

    fn step_crash(
        &mut self,
        id: &str,
        server: &str,
        step: CrashStep,
        now: Millis,
    ) -> Result<(), Halt> {
        let crash = |step| Procedure::ServerCrash {
            server: server.to_string(),
            step,
        };
        match step {
            CrashStep::Fence => match self.fencer.fence(server, now) {
                Ok(Fence::Done) => self.stage(vec![self.put_proc(id, &crash(CrashStep::Split))]),
                Ok(Fence::Pending) | Err(_) => Ok(()),
            },
            CrashStep::Split => match self.fencer.split(server) {
                Ok(()) => self.stage(vec![self.put_proc(id, &crash(CrashStep::Reassign))]),
                Err(_) => Ok(()),
            },
            CrashStep::Reassign => {
                loop {
                    if self.over_budget() {
                        return Ok(()); // the rest next tick
                    }
                    let image = &self.lead().image;
                    let chunk: Vec<String> = image
                        .by_server
                        .get(server)
                        .map(|s| s.iter().take(CHUNK).cloned().collect())
                        .unwrap_or_default();
                    if chunk.is_empty() {
                        break;
                    }
                    for region in chunk {
                        self.release_region(&region, server)?;
                    }
                }
                self.stage(vec![
                    self.del_proc(id),
                    Op::DeletePrefix(self.layout.inbox(server)),
                    Op::DeletePrefix(self.layout.server_acks(server)),
                ])
            }
        }
    }

    /// Takes `region` off dead `server`: offline for reassignment, or handed back to its transit.
    fn release_region(&mut self, region: &str, server: &str) -> Result<(), Halt> {
        let image = &self.lead().image;
        let Some((rec, _)) = image.regions.get(region).cloned() else {
            return Ok(());
        };
        if let Some((
            pid,
            Procedure::Split {
                region: r,
                daughters,
                row,
                server: s,
                epoch,
                ..
            },
        )) = rec.proc.as_ref().and_then(|p| {
            image
                .procs
                .get(p)
                .map(|(proc, _)| (p.clone(), proc.clone()))
        }) {
            let p = SplitProc {
                region: r,
                daughters,
                row,
                server: s,
                epoch,
            };
            return self.release_splitting(region, server, rec, &pid, &p);
        }
        if let Some((
            pid,
            Procedure::Merge {
                regions,
                merged,
                server: s,
                step,
            },
        )) = rec.proc.as_ref().and_then(|p| {
            image
                .procs
                .get(p)
                .map(|(proc, _)| (p.clone(), proc.clone()))
        }) {
            let p = MergeProc {
                regions,
                merged,
                server: s,
            };
            return self.release_merging(region, server, rec, &pid, &p, step);
        }
        let transit = rec.proc.as_ref().and_then(|p| match image.procs.get(p) {
            Some((
                Procedure::Transit {
                    region,
                    target,
                    open,
                    ..
                },
                _,
            )) => Some((p.clone(), region.clone(), target.clone(), *open)),
            _ => None,
        });
        let mut ops = self.order_ops(server, region).to_vec();
        match transit {
            Some((pid, r, target, true)) => {
                ops.push(self.put_region(
                    region,
                    &RegionRecord {
                        state: RegionState::Offline,
                        server: None,
                        ..rec
                    },
                ));
                let p = Procedure::Transit {
                    region: r,
                    target,
                    open: true,
                    step: TransitStep::Pick,
                };
                ops.push(self.put_proc(&pid, &p));
            }
            Some((pid, _, _, false)) => {
                let closed = RegionRecord {
                    state: RegionState::Closed,
                    server: None,
                    proc: None,
                    ..rec
                };
                ops.push(self.put_region(region, &closed));
                ops.push(self.del_proc(&pid));
            }
            None => {
                let offline = RegionRecord {
                    state: RegionState::Offline,
                    server: None,
                    proc: None,
                    ..rec
                };
                ops.push(self.put_region(region, &offline));
            }
        }
        self.stage(ops)
    }

    fn step_create(&mut self, id: &str, table: &str, step: CreateStep) -> Result<(), Halt> {
        let Some((rec, _)) = self.lead().image.tables.get(table).cloned() else {
            return self.stage(vec![self.del_proc(id)]);
        };
        match step {
            CreateStep::Regions { next } => {
                let n = rec.regions();
                let end = next.saturating_add(CHUNK as u32).min(n);
                let mut ops = Vec::with_capacity(CHUNK + 1);
                for i in next..end {
                    let (start, stop) = rec.range(i);
                    ops.push(
                        self.put_region(
                            &rec.region_name(table, i),
                            &RegionRecord::new(start, stop),
                        ),
                    );
                }
                let step = if end >= n {
                    CreateStep::Enable
                } else {
                    CreateStep::Regions { next: end }
                };
                ops.push(self.put_proc(
                    id,
                    &Procedure::CreateTable {
                        table: table.to_string(),
                        step,
                    },
                ));
                self.stage(ops)
            }
            CreateStep::Enable => {
                let enabled = TableRecord {
                    state: TableState::Enabled,
                    ..rec
                };
                self.stage(vec![
                    Op::put(self.layout.table(table), enabled.encode()),
                    self.del_proc(id),
                ])
            }
        }
    }

    fn step_drop(&mut self, id: &str, table: &str, step: DropStep) -> Result<(), Halt> {
        let prefix = format!("{table},");
        let regions: Vec<(String, RegionRecord)> = self
            .lead()
            .image
            .regions
            .range(prefix.clone()..)
            .take_while(|(r, _)| r.starts_with(&prefix))
            .map(|(r, (rec, _))| (r.clone(), rec.clone()))
            .collect();
        match step {
            DropStep::Close => {
                if !self.close_all(table)? {
                    return Ok(());
                }
                let p = Procedure::DropTable {
                    table: table.to_string(),
                    step: DropStep::Files,
                };
                self.stage(vec![self.put_proc(id, &p)])
            }
            DropStep::Files => {
                let names: Vec<String> = regions.into_iter().map(|(r, _)| r).collect();
                if !self.remove_files(table, &names) {
                    return Ok(());
                }
                let p = Procedure::DropTable {
                    table: table.to_string(),
                    step: DropStep::Delete,
                };
                self.stage(vec![self.put_proc(id, &p)])
            }
            DropStep::Delete => {
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
                self.stage(vec![
                    Op::Delete(self.layout.table(table)),
                    Op::Delete(self.layout.schema(table)),
                    self.del_proc(id),
                ])
            }
        }
    }
}
