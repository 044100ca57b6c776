//! The active master's in-memory image of the catalog: tables, regions, procedures (each with the
//! mod revision it was read or written at), live servers and acknowledgements, plus the indexes
//! the master's loops need so a tick never scans every region.
//!
//! Invariant: between two ticks the image equals etcd's state at the revision of the last
//! successful write or watch event (the master is the only writer of tables, regions and
//! procedures); any doubt (a failed or unanswered write) discards the image.

use std::collections::{BTreeMap, BTreeSet};

use crate::kv::{Event, EventKind, Kv, KvResult, Op, Revision};
use crate::layout::Layout;
use crate::record::{Ack, Procedure, RegionRecord, RegionState, TableRecord};

/// Revision of an image entry written in the pending batch.
pub(crate) const PENDING: Revision = -1;

#[derive(Default)]
pub(crate) struct Image {
    pub tables: BTreeMap<String, (TableRecord, Revision)>,
    pub regions: BTreeMap<String, (RegionRecord, Revision)>,
    pub procs: BTreeMap<String, (Procedure, Revision)>,
    pub live: BTreeSet<String>,
    pub acks: BTreeMap<(String, String), Ack>,
    /// Regions whose record names a server, by server.
    pub by_server: BTreeMap<String, BTreeSet<String>>,
    /// Offline regions without a procedure.
    pub unassigned: BTreeSet<String>,
    /// Split and merged parents without a procedure (the janitor's work list).
    pub split_parents: BTreeSet<String>,
    /// Server-crash procedures by server.
    pub crashes: BTreeMap<String, String>,
    /// The balancer switch as persisted (`None`: never set, the configured default holds).
    pub balancer_on: Option<bool>,
    /// The split and merge switches as persisted (`None`: never set, on).
    pub split_on: Option<bool>,
    /// See `split_on`.
    pub merge_on: Option<bool>,
    /// Decommissioned servers (drained, assigned nothing).
    pub drained: BTreeSet<String>,
    /// Servers whose crash was recovered (listed by `status`).
    pub dead: BTreeSet<String>,
}

/// Which image map a key belongs to.
enum Entry<'a> {
    Table(&'a str),
    Region(&'a str),
    Proc(&'a str),
    Ack(&'a str, &'a str),
    Setting(&'a str),
    Drain(&'a str),
    Dead(&'a str),
    Other,
}

fn classify<'a>(layout: &Layout, key: &'a str) -> Entry<'a> {
    let root = layout.root();
    let Some(rest) = key.strip_prefix(root) else {
        return Entry::Other;
    };
    if let Some(t) = rest.strip_prefix("table/") {
        Entry::Table(t)
    } else if let Some(r) = rest.strip_prefix("region/") {
        Entry::Region(r)
    } else if let Some(p) = rest.strip_prefix("proc/") {
        Entry::Proc(p)
    } else if let Some((s, r)) = rest
        .strip_prefix("ack/")
        .and_then(Layout::split_server_region)
    {
        Entry::Ack(s, r)
    } else if let Some(n) = rest.strip_prefix("setting/") {
        Entry::Setting(n)
    } else if let Some(n) = rest.strip_prefix("drain/") {
        Entry::Drain(n)
    } else if let Some(n) = rest.strip_prefix("dead/") {
        Entry::Dead(n)
    } else {
        Entry::Other
    }
}

/// Reads the catalog a few pages per tick, so a master loading a large catalog keeps renewing
/// its lease between ticks. Servers are read first: watches start after that first read, and
/// replaying events already reflected in later pages is harmless.
pub(crate) struct Loader {
    image: Image,
    from: Revision,
    prefixes: Vec<String>,
    stage: usize,
    after: Option<String>,
}

impl Loader {
    pub fn new(layout: &Layout) -> Loader {
        Loader {
            image: Image::default(),
            from: 0,
            prefixes: vec![
                layout.servers(),
                layout.tables(),
                layout.regions(),
                layout.procs(),
                layout.acks(),
                layout.settings(),
                layout.drains(),
                layout.deads(),
            ],
            stage: 0,
            after: None,
        }
    }

    /// Reads up to `pages` pages of `page` keys; once everything is read returns the image and
    /// the revision to watch from.
    pub fn step<K: Kv + ?Sized>(
        &mut self,
        kv: &K,
        layout: &Layout,
        page: usize,
        pages: usize,
    ) -> KvResult<Option<(Image, Revision)>> {
        for _ in 0..pages {
            let Some(prefix) = self.prefixes.get(self.stage) else {
                break;
            };
            let p = kv.range(prefix, self.after.as_deref(), page)?;
            if self.from == 0 {
                self.from = p.revision + 1;
            }
            for kv in &p.kvs {
                if self.stage == 0 {
                    if let Some(s) = kv.key.strip_prefix(prefix.as_str()) {
                        self.image.live.insert(s.to_string());
                    }
                } else {
                    self.image.put(layout, &kv.key, &kv.value, kv.mod_revision);
                }
            }
            match (p.more, p.kvs.last()) {
                (true, Some(last)) => self.after = Some(last.key.clone()),
                _ => {
                    self.stage += 1;
                    self.after = None;
                }
            }
        }
        if self.stage < self.prefixes.len() {
            return Ok(None);
        }
        Ok(Some((std::mem::take(&mut self.image), self.from)))
    }
}

impl Image {
    /// Applies a watch event on `rs/` or `ack/`.
    pub fn apply_event(&mut self, layout: &Layout, ev: &Event) {
        if let Some(s) = ev.kv.key.strip_prefix(&layout.servers()) {
            match ev.kind {
                EventKind::Put => self.live.insert(s.to_string()),
                EventKind::Delete => self.live.remove(s),
            };
            return;
        }
        match ev.kind {
            EventKind::Put => self.put(layout, &ev.kv.key, &ev.kv.value, ev.kv.mod_revision),
            EventKind::Delete => self.delete(layout, &ev.kv.key),
        }
    }

    /// Applies a write of this master (revision [`PENDING`] until its batch commits).
    pub fn apply_op(&mut self, layout: &Layout, op: &Op) {
        match op {
            Op::Put { key, value, .. } => self.put(layout, key, value, PENDING),
            Op::Delete(key) => self.delete(layout, key),
            Op::DeletePrefix(prefix) => {
                if let Some(server) = prefix
                    .strip_prefix(&layout.acks())
                    .and_then(|s| s.strip_suffix('/'))
                {
                    self.acks.retain(|(s, _), _| s != server);
                }
            }
        }
    }

    /// The revision a write of `key` must compare against, if the image tracks it.
    pub fn revision_of(&self, layout: &Layout, key: &str) -> Option<Revision> {
        Some(match classify(layout, key) {
            Entry::Table(t) => self.tables.get(t).map_or(0, |e| e.1),
            Entry::Region(r) => self.regions.get(r).map_or(0, |e| e.1),
            Entry::Proc(p) => self.procs.get(p).map_or(0, |e| e.1),
            // Written only by the active master, whose epoch guards every write.
            Entry::Ack(..)
            | Entry::Setting(_)
            | Entry::Drain(_)
            | Entry::Dead(_)
            | Entry::Other => return None,
        })
    }

    /// Records that `key`, written in a committed batch, now has `revision`.
    pub fn committed(&mut self, layout: &Layout, key: &str, revision: Revision) {
        let slot = match classify(layout, key) {
            Entry::Table(t) => self.tables.get_mut(t).map(|e| &mut e.1),
            Entry::Region(r) => self.regions.get_mut(r).map(|e| &mut e.1),
            Entry::Proc(p) => self.procs.get_mut(p).map(|e| &mut e.1),
            _ => None,
        };
        if let Some(rev) = slot {
            *rev = revision;
        }
    }

    fn put(&mut self, layout: &Layout, key: &str, value: &[u8], rev: Revision) {
        match classify(layout, key) {
            Entry::Table(t) => {
                if let Ok(rec) = TableRecord::decode(value) {
                    self.tables.insert(t.to_string(), (rec, rev));
                }
            }
            Entry::Region(r) => {
                if let Ok(rec) = RegionRecord::decode(value) {
                    self.set_region(r, Some((rec, rev)));
                }
            }
            Entry::Proc(p) => {
                if let Ok(proc) = Procedure::decode(value) {
                    self.set_proc(p, Some((proc, rev)));
                }
            }
            Entry::Ack(s, r) => {
                if let Ok(ack) = Ack::decode(value) {
                    self.acks.insert((s.to_string(), r.to_string()), ack);
                }
            }
            Entry::Setting("balancer") => self.balancer_on = Some(value == b"on".as_slice()),
            Entry::Setting("split") => self.split_on = Some(value == b"on".as_slice()),
            Entry::Setting("merge") => self.merge_on = Some(value == b"on".as_slice()),
            Entry::Drain(s) => {
                self.drained.insert(s.to_string());
            }
            Entry::Dead(s) => {
                self.dead.insert(s.to_string());
            }
            Entry::Setting(_) | Entry::Other => {}
        }
    }

    fn delete(&mut self, layout: &Layout, key: &str) {
        match classify(layout, key) {
            Entry::Table(t) => {
                self.tables.remove(t);
            }
            Entry::Region(r) => self.set_region(r, None),
            Entry::Proc(p) => self.set_proc(p, None),
            Entry::Ack(s, r) => {
                self.acks.remove(&(s.to_string(), r.to_string()));
            }
            Entry::Setting("balancer") => self.balancer_on = None,
            Entry::Setting("split") => self.split_on = None,
            Entry::Setting("merge") => self.merge_on = None,
            Entry::Drain(s) => {
                self.drained.remove(s);
            }
            Entry::Dead(s) => {
                self.dead.remove(s);
            }
            Entry::Setting(_) | Entry::Other => {}
        }
    }

    fn set_region(&mut self, id: &str, new: Option<(RegionRecord, Revision)>) {
        if let Some((old, _)) = self.regions.remove(id) {
            if let Some(s) = &old.server {
                if let Some(set) = self.by_server.get_mut(s) {
                    set.remove(id);
                    if set.is_empty() {
                        self.by_server.remove(s);
                    }
                }
            }
            self.unassigned.remove(id);
            self.split_parents.remove(id);
        }
        if let Some((rec, rev)) = new {
            if let Some(s) = &rec.server {
                self.by_server
                    .entry(s.clone())
                    .or_default()
                    .insert(id.to_string());
            }
            if rec.state == RegionState::Offline && rec.proc.is_none() {
                self.unassigned.insert(id.to_string());
            }
            if matches!(rec.state, RegionState::Split | RegionState::Merged) && rec.proc.is_none() {
                self.split_parents.insert(id.to_string());
            }
            self.regions.insert(id.to_string(), (rec, rev));
        }
    }

    fn set_proc(&mut self, id: &str, new: Option<(Procedure, Revision)>) {
        if let Some((Procedure::ServerCrash { server, .. }, _)) = self.procs.remove(id) {
            self.crashes.remove(&server);
        }
        if let Some((proc, rev)) = new {
            if let Procedure::ServerCrash { server, .. } = &proc {
                self.crashes.insert(server.clone(), id.to_string());
            }
            self.procs.insert(id.to_string(), (proc, rev));
        }
    }
}
