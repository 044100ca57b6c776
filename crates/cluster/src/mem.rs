//! An in-memory model of etcd for the deterministic simulation and for unit tests: one
//! [`MemStore`] (revisions, keys, leases, an event log) shared by many [`MemKv`] client
//! handles, each with its own watches and its own [`Link`] through which faults are injected.
//!
//! Time is given, never read: [`MemStore::advance`] moves the store's clock and expires leases,
//! so a run is a pure function of its inputs.
//!
//! Thread safety: [`MemKv`] is single-threaded by design (`Rc`/`RefCell`); the simulator owns
//! everything. [`MemStore`] itself is a plain state machine that other stores embed behind their
//! own lock (the durable embedded store of `strata-embedded-kv` keeps one and logs its changes).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::kv::{
    Compare, Event, EventKind, KeyValue, Kv, KvError, KvResult, LeaseId, Op, Page, Revision, Txn,
    TxnOutcome, WatchId, MAX_TXN_OPS,
};

/// Milliseconds of simulated time.
pub type Millis = u64;

struct Lease {
    ttl_secs: i64,
    expires_at: Millis,
    keys: BTreeSet<String>,
}

/// The shared state of the modelled etcd.
pub struct MemStore {
    now: Millis,
    revision: Revision,
    keys: BTreeMap<String, KeyValue>,
    leases: BTreeMap<LeaseId, Lease>,
    next_lease: LeaseId,
    min_ttl_secs: i64,
    /// Every change in revision order since `log_start` (watches read from here).
    log: Vec<Event>,
    /// The oldest revision whose events `log` still holds (1 until [`MemStore::compact_events`]).
    log_start: Revision,
    /// Operations applied, for measurements.
    ops: u64,
    /// Most operations of one transaction (etcd's [`MAX_TXN_OPS`] unless
    /// [`MemStore::allow_txn_ops`] raised it).
    max_txn_ops: usize,
}

/// A shared [`MemStore`].
pub type SharedStore = Rc<RefCell<MemStore>>;

impl MemStore {
    /// An empty store at revision 1 whose leases are at least `min_ttl_secs` long.
    pub fn new(min_ttl_secs: i64) -> SharedStore {
        Rc::new(RefCell::new(MemStore::empty(min_ttl_secs)))
    }

    /// An empty store at revision 1, owned by the caller (to embed in another store).
    pub fn empty(min_ttl_secs: i64) -> MemStore {
        MemStore::restored(1, Vec::new(), 0x1000, min_ttl_secs)
    }

    /// A store at `revision` holding `keys` (as recovered from a durable copy), with no leases
    /// and no events before `revision + 1`; leases it grants start at `first_lease`.
    ///
    /// Requires: every key's revisions are at most `revision`.
    pub fn restored(
        revision: Revision,
        keys: Vec<KeyValue>,
        first_lease: LeaseId,
        min_ttl_secs: i64,
    ) -> MemStore {
        MemStore {
            now: 0,
            revision,
            keys: keys.into_iter().map(|kv| (kv.key.clone(), kv)).collect(),
            leases: BTreeMap::new(),
            next_lease: first_lease,
            min_ttl_secs,
            log: Vec::new(),
            // A new store's first revision has no events, so a watch may start there.
            log_start: if revision <= 1 { 1 } else { revision + 1 },
            ops: 0,
            max_txn_ops: MAX_TXN_OPS,
        }
    }

    /// The store's time.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// The current revision.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Operations applied so far (reads, writes, renewals).
    pub fn ops(&self) -> u64 {
        self.ops
    }

    /// Moves time forward to `now` and expires every lease due by then (each expiry deletes the
    /// lease's keys at one revision, as etcd's revoke does).
    pub fn advance(&mut self, now: Millis) {
        self.now = self.now.max(now);
        let due: Vec<LeaseId> = self
            .leases
            .iter()
            .filter(|(_, l)| l.expires_at <= self.now)
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            self.revoke_lease(id);
        }
    }

    /// Every key with `prefix` (a direct look for checkers, not a client operation).
    pub fn peek_prefix(&self, prefix: &str) -> Vec<KeyValue> {
        self.keys
            .range(prefix.to_string()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// Every key, in key order.
    pub fn keys(&self) -> impl Iterator<Item = &KeyValue> {
        self.keys.values()
    }

    /// The changes made after `revision`, in revision order (what a durable store must log).
    ///
    /// Requires: `revision + 1` is still in the event log (not compacted away).
    pub fn changes_after(&self, revision: Revision) -> &[Event] {
        let start = self.log.partition_point(|e| e.kv.mod_revision <= revision);
        &self.log[start..]
    }

    /// Forgets the events of revisions before `keep_from`; a watch that still needs them then
    /// fails with [`KvError::WatchLost`] (as etcd's compaction does).
    pub fn compact_events(&mut self, keep_from: Revision) {
        if keep_from <= self.log_start {
            return;
        }
        let cut = self.log.partition_point(|e| e.kv.mod_revision < keep_from);
        self.log.drain(..cut);
        self.log_start = keep_from;
    }

    /// Events in the log (for deciding when to compact).
    pub fn event_count(&self) -> usize {
        self.log.len()
    }

    /// Re-applies changes made at `revision` (read back from a durable log): puts keep their
    /// lease id without a lease behind it (see [`MemStore::drop_leased`]).
    ///
    /// Requires: `revision` is the store's revision plus one.
    pub fn replay(&mut self, revision: Revision, changes: &[Event]) {
        self.revision = revision;
        for e in changes {
            match e.kind {
                EventKind::Put => self.put_key(&e.kv.key, &e.kv.value, e.kv.lease),
                EventKind::Delete => {
                    self.delete_key(&e.kv.key);
                }
            }
        }
    }

    /// Deletes every key attached to a lease, at one new revision (a restarted store's leases
    /// ended with the process that held them). Returns how many keys went.
    pub fn drop_leased(&mut self) -> usize {
        let doomed: Vec<String> = self
            .keys
            .values()
            .filter(|kv| kv.lease != 0)
            .map(|kv| kv.key.clone())
            .collect();
        if !doomed.is_empty() {
            self.revision += 1;
            for key in &doomed {
                self.delete_key(key);
            }
        }
        self.leases.clear();
        doomed.len()
    }

    /// Grants a lease requested at `arrival` (see [`Kv::grant`]).
    pub fn grant_lease(&mut self, ttl_secs: i64, arrival: Millis) -> (LeaseId, i64) {
        self.grant(ttl_secs, arrival)
    }

    /// Renews a lease at `arrival` (see [`Kv::keep_alive`]).
    pub fn renew_lease(&mut self, id: LeaseId, arrival: Millis) -> Option<i64> {
        self.keep_alive(id, arrival)
    }

    /// Revokes a lease and deletes its keys (see [`Kv::revoke`]).
    pub fn revoke(&mut self, id: LeaseId) {
        self.ops += 1;
        self.revoke_lease(id);
    }

    /// The key, if present (see [`Kv::get`]).
    pub fn get(&mut self, key: &str) -> Option<KeyValue> {
        self.ops += 1;
        self.keys.get(key).cloned()
    }

    /// Lets one transaction hold up to `max` operations (a store that embeds this one and
    /// allows more than etcd does).
    pub fn allow_txn_ops(&mut self, max: usize) {
        self.max_txn_ops = max;
    }

    /// Runs a transaction (see [`Kv::txn`]).
    ///
    /// # Errors
    /// [`KvError::Invalid`].
    pub fn apply_txn(&mut self, txn: &Txn) -> KvResult<TxnOutcome> {
        self.txn(txn)
    }

    /// A page of keys (see [`Kv::range`]).
    pub fn read_range(&mut self, prefix: &str, after: Option<&str>, limit: usize) -> Page {
        self.range(prefix, after, limit)
    }

    /// The events under `prefix` from revision `from` on.
    ///
    /// # Errors
    /// [`KvError::WatchLost`] when events from `from` were compacted away.
    pub fn watch_events(&self, prefix: &str, from: Revision) -> KvResult<Vec<Event>> {
        if from < self.log_start {
            return Err(KvError::WatchLost(format!(
                "revision {from} was compacted (the oldest kept is {})",
                self.log_start
            )));
        }
        Ok(self.events_from(prefix, from))
    }

    fn revoke_lease(&mut self, id: LeaseId) {
        let Some(lease) = self.leases.remove(&id) else {
            return;
        };
        if lease.keys.is_empty() {
            return;
        }
        self.revision += 1;
        for key in lease.keys {
            self.delete_key(&key);
        }
    }

    /// Deletes `key` at the current revision (the caller advanced it).
    fn delete_key(&mut self, key: &str) -> bool {
        let Some(old) = self.keys.remove(key) else {
            return false;
        };
        if old.lease != 0 {
            if let Some(l) = self.leases.get_mut(&old.lease) {
                l.keys.remove(key);
            }
        }
        self.log.push(Event {
            kind: EventKind::Delete,
            kv: KeyValue {
                key: key.to_string(),
                value: Vec::new(),
                create_revision: 0,
                mod_revision: self.revision,
                lease: 0,
            },
        });
        true
    }

    fn put_key(&mut self, key: &str, value: &[u8], lease: LeaseId) {
        let create_revision = match self.keys.get(key) {
            Some(old) => {
                if old.lease != 0 && old.lease != lease {
                    if let Some(l) = self.leases.get_mut(&old.lease) {
                        l.keys.remove(key);
                    }
                }
                old.create_revision
            }
            None => self.revision,
        };
        if lease != 0 {
            if let Some(l) = self.leases.get_mut(&lease) {
                l.keys.insert(key.to_string());
            }
        }
        let kv = KeyValue {
            key: key.to_string(),
            value: value.to_vec(),
            create_revision,
            mod_revision: self.revision,
            lease,
        };
        self.log.push(Event {
            kind: EventKind::Put,
            kv: kv.clone(),
        });
        self.keys.insert(key.to_string(), kv);
    }

    fn compare_holds(&self, c: &Compare) -> bool {
        match c {
            Compare::CreateRevision(k, rev) => {
                self.keys.get(k).map_or(0, |kv| kv.create_revision) == *rev
            }
            Compare::ModRevision(k, rev) => {
                self.keys.get(k).map_or(0, |kv| kv.mod_revision) == *rev
            }
        }
    }

    fn grant(&mut self, ttl_secs: i64, arrival: Millis) -> (LeaseId, i64) {
        self.ops += 1;
        let ttl = ttl_secs.max(self.min_ttl_secs);
        let id = self.next_lease;
        self.next_lease += 1;
        let expires_at = arrival + secs_to_ms(ttl);
        self.leases.insert(
            id,
            Lease {
                ttl_secs: ttl,
                expires_at,
                keys: BTreeSet::new(),
            },
        );
        (id, ttl)
    }

    fn keep_alive(&mut self, id: LeaseId, arrival: Millis) -> Option<i64> {
        self.ops += 1;
        let lease = self.leases.get_mut(&id)?;
        // A renewal that arrives after expiry finds the lease gone (advance ran first).
        lease.expires_at = lease.expires_at.max(arrival + secs_to_ms(lease.ttl_secs));
        Some(lease.ttl_secs)
    }

    fn txn(&mut self, txn: &Txn) -> KvResult<TxnOutcome> {
        self.ops += 1;
        if txn.success.len() > self.max_txn_ops {
            return Err(KvError::Invalid(format!(
                "{} operations in one transaction",
                txn.success.len()
            )));
        }
        for op in &txn.success {
            if let Op::Put { lease, key, .. } = op {
                if *lease != 0 && !self.leases.contains_key(lease) {
                    return Err(KvError::Invalid(format!(
                        "lease {lease:x} not found for {key}"
                    )));
                }
            }
        }
        if !txn.compares.iter().all(|c| self.compare_holds(c)) {
            return Ok(TxnOutcome {
                succeeded: false,
                revision: self.revision,
            });
        }
        let writes = txn.success.iter().any(|op| match op {
            Op::Put { .. } => true,
            Op::Delete(k) => self.keys.contains_key(k),
            Op::DeletePrefix(p) => self
                .keys
                .range(p.clone()..)
                .next()
                .is_some_and(|(k, _)| k.starts_with(p.as_str())),
        });
        if writes {
            self.revision += 1;
            for op in &txn.success {
                match op {
                    Op::Put { key, value, lease } => self.put_key(key, value, *lease),
                    Op::Delete(k) => {
                        self.delete_key(k);
                    }
                    Op::DeletePrefix(p) => {
                        let doomed: Vec<String> = self
                            .keys
                            .range(p.clone()..)
                            .take_while(|(k, _)| k.starts_with(p.as_str()))
                            .map(|(k, _)| k.clone())
                            .collect();
                        for k in doomed {
                            self.delete_key(&k);
                        }
                    }
                }
            }
        }
        Ok(TxnOutcome {
            succeeded: true,
            revision: self.revision,
        })
    }

    fn range(&mut self, prefix: &str, after: Option<&str>, limit: usize) -> Page {
        self.ops += 1;
        let start = match after {
            Some(a) => format!("{a}\0"),
            None => prefix.to_string(),
        };
        let mut kvs: Vec<KeyValue> = self
            .keys
            .range(start..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .take(limit.saturating_add(1))
            .map(|(_, v)| v.clone())
            .collect();
        let more = kvs.len() > limit;
        kvs.truncate(limit);
        Page {
            kvs,
            more,
            revision: self.revision,
        }
    }

    fn events_from(&self, prefix: &str, from: Revision) -> Vec<Event> {
        let start = self.log.partition_point(|e| e.kv.mod_revision < from);
        self.log[start..]
            .iter()
            .filter(|e| e.kv.key.starts_with(prefix))
            .cloned()
            .collect()
    }
}

fn secs_to_ms(secs: i64) -> Millis {
    u64::try_from(secs).unwrap_or(0) * 1000
}

/// What the network does to one request of one client (decided by the simulator).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delivery {
    /// The request never reaches the store.
    pub drop_request: bool,
    /// The store applies the request but the answer is lost.
    pub drop_response: bool,
    /// How late the request reaches the store (only lease renewals and grants use it, so a
    /// lease's expiry counts from the arrival, as etcd's does).
    pub delay: Millis,
}

/// The fault injector of one client's link to the store.
pub trait Link {
    /// The fate of the next request.
    fn next(&self) -> Delivery;
    /// Whether a watch of this client breaks now (it must then be re-created).
    fn break_watch(&self) -> bool {
        false
    }
}

/// A link that never fails.
pub struct Perfect;

impl Link for Perfect {
    fn next(&self) -> Delivery {
        Delivery::default()
    }
}

struct MemWatch {
    prefix: String,
    next: Revision,
    lost: bool,
}

/// One client's view of a [`MemStore`].
pub struct MemKv {
    store: SharedStore,
    link: Rc<dyn Link>,
    watches: RefCell<BTreeMap<WatchId, MemWatch>>,
    next_watch: RefCell<WatchId>,
}

impl MemKv {
    /// A client of `store` whose requests go through `link`.
    pub fn new(store: SharedStore, link: Rc<dyn Link>) -> MemKv {
        MemKv {
            store,
            link,
            watches: RefCell::new(BTreeMap::new()),
            next_watch: RefCell::new(1),
        }
    }

    /// The store behind this client.
    pub fn store(&self) -> &SharedStore {
        &self.store
    }

    /// Runs `f` on the store if the link delivers the request; maps lost requests or answers to
    /// [`KvError::Unavailable`].
    fn call<T>(&self, f: impl FnOnce(&mut MemStore, Millis) -> KvResult<T>) -> KvResult<T> {
        let d = self.link.next();
        if d.drop_request {
            return Err(KvError::Unavailable("request lost".into()));
        }
        let mut store = self.store.borrow_mut();
        let arrival = store.now + d.delay;
        let out = f(&mut store, arrival)?;
        if d.drop_response {
            return Err(KvError::Unavailable("response lost".into()));
        }
        Ok(out)
    }
}

impl Kv for MemKv {
    fn grant(&self, ttl_secs: i64) -> KvResult<(LeaseId, i64)> {
        self.call(|s, at| Ok(s.grant(ttl_secs, at)))
    }

    fn keep_alive(&self, lease: LeaseId) -> KvResult<Option<i64>> {
        self.call(|s, at| Ok(s.keep_alive(lease, at)))
    }

    fn revoke(&self, lease: LeaseId) -> KvResult<()> {
        self.call(|s, _| {
            s.revoke(lease);
            Ok(())
        })
    }

    fn get(&self, key: &str) -> KvResult<Option<KeyValue>> {
        self.call(|s, _| Ok(s.get(key)))
    }

    fn range(&self, prefix: &str, after: Option<&str>, limit: usize) -> KvResult<Page> {
        self.call(|s, _| Ok(s.range(prefix, after, limit)))
    }

    fn txn(&self, txn: Txn) -> KvResult<TxnOutcome> {
        self.call(|s, _| s.txn(&txn))
    }

    fn watch(&self, prefix: &str, start: Revision) -> KvResult<WatchId> {
        self.call(|_, _| Ok(()))?;
        let mut next = self.next_watch.borrow_mut();
        let id = *next;
        *next += 1;
        self.watches.borrow_mut().insert(
            id,
            MemWatch {
                prefix: prefix.to_string(),
                next: start,
                lost: false,
            },
        );
        Ok(id)
    }

    fn poll(&self, watch: WatchId) -> KvResult<Vec<Event>> {
        let mut watches = self.watches.borrow_mut();
        let w = watches
            .get_mut(&watch)
            .ok_or_else(|| KvError::WatchLost(format!("no watch {watch}")))?;
        if w.lost || self.link.break_watch() {
            w.lost = true;
            return Err(KvError::WatchLost("stream broken".into()));
        }
        if self.link.next().drop_request {
            return Err(KvError::Unavailable("watch stream stalled".into()));
        }
        let events = self.store.borrow().watch_events(&w.prefix, w.next)?;
        if let Some(last) = events.last() {
            w.next = last.kv.mod_revision + 1;
        }
        Ok(events)
    }

    fn cancel(&self, watch: WatchId) {
        self.watches.borrow_mut().remove(&watch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv() -> MemKv {
        MemKv::new(MemStore::new(1), Rc::new(Perfect))
    }

    #[test]
    fn txn_compares_create_revision_and_advances_one_revision() {
        let kv = kv();
        let put = |v: &str| Txn {
            compares: vec![Compare::CreateRevision("a".into(), 0)],
            success: vec![Op::put("a", v), Op::put("b", v)],
        };
        let first = kv.txn(put("1")).unwrap();
        assert!(first.succeeded);
        assert_eq!(first.revision, 2);
        let second = kv.txn(put("2")).unwrap();
        assert!(!second.succeeded, "a exists: create-if-absent must fail");
        let a = kv.get("a").unwrap().unwrap();
        assert_eq!(
            (a.create_revision, a.mod_revision, a.value.as_slice()),
            (2, 2, b"1".as_slice())
        );
    }

    #[test]
    fn lease_expiry_deletes_keys_and_watch_sees_it() {
        let kv = kv();
        let (lease, ttl) = kv.grant(1).unwrap();
        assert_eq!(ttl, 1);
        kv.txn(Txn {
            compares: vec![],
            success: vec![Op::put_leased("rs/x", "v", lease)],
        })
        .unwrap();
        let w = kv.watch("rs/", 1).unwrap();
        assert_eq!(kv.poll(w).unwrap().len(), 1);
        kv.store().borrow_mut().advance(999);
        assert!(kv.get("rs/x").unwrap().is_some());
        kv.store().borrow_mut().advance(1000);
        assert!(kv.get("rs/x").unwrap().is_none());
        let ev = kv.poll(w).unwrap();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].kind, EventKind::Delete);
        assert_eq!(kv.keep_alive(lease).unwrap(), None);
    }

    #[test]
    fn range_pages_in_key_order() {
        let kv = kv();
        for i in 0..25 {
            kv.txn(Txn {
                compares: vec![],
                success: vec![Op::put(format!("p/{i:03}"), "v")],
            })
            .unwrap();
        }
        kv.txn(Txn {
            compares: vec![],
            success: vec![Op::put("q/0", "v")],
        })
        .unwrap();
        let all = crate::kv::range_all(&kv, "p/", 10).unwrap();
        assert_eq!(all.kvs.len(), 25);
        assert!(all.kvs.windows(2).all(|w| w[0].key < w[1].key));
        let page = kv.range("p/", Some("p/009"), 5).unwrap();
        assert_eq!(page.kvs[0].key, "p/010");
        assert!(page.more);
    }
}
