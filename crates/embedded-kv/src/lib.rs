//! The coordination store of a one-process Strata (RFC 0019): the [`Kv`] the cluster protocol
//! runs on, with etcd's semantics as that protocol uses them (one revision per write, guarded
//! transactions, leases that delete their keys, ordered watches), kept durably in a directory
//! of Strata's own storage (local files or HDFS) instead of an etcd cluster.
//!
//! The state machine is the cluster crate's [`MemStore`], the same model the deterministic
//! simulation runs against; this crate adds durability. Every write is journalled (one framed
//! record per revision, appended and synced) before the call returns, and the journal is
//! checkpointed into a snapshot as it grows ([`journal`]). Leases are not kept across runs:
//! their holders lived in the process that stopped, so a reopened store deletes their keys at
//! once, as etcd would on their expiry.
//!
//! Modules: [`codec`] (byte formats), [`journal`] (files, recovery, checkpoints).
//!
//! Thread safety: [`EmbeddedKv`] is a cheap handle (`Clone`, `Send`, `Sync`); one lock orders
//! every call, and a write's journal sync happens under it, so no caller ever reads a change
//! that is not durable yet. After a failed sync the store answers
//! [`KvError::Unavailable`] (the write's fate is then unknown, as with etcd) until it
//! resumes: at most every [`Options::resume_every_ms`], a call first writes a snapshot of the
//! state in memory and starts a new journal segment ([`journal::Journal::resume`]); once that
//! succeeds (the disk, HDFS or the bucket answers again) the store serves as before, with the
//! failed write durable. Its leases were held in this process and go on; those that expired
//! meanwhile are expired at the resuming call, as etcd expires leases its clients could not
//! renew.

pub mod codec;
pub mod journal;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;
use strata_cluster::kv::{
    Event, KeyValue, Kv, KvError, KvResult, LeaseId, Page, Revision, Txn, TxnOutcome, WatchId,
};
use strata_cluster::mem::{MemStore, Millis};
use strata_storage::clock::Clock;
use strata_storage::vfs::Storage;

use journal::{CheckpointError, Journal};
pub use journal::{OpenError, Recovery};

/// Settings of an [`EmbeddedKv`].
#[derive(Clone)]
pub struct Options {
    /// Shortest lease granted, in seconds.
    pub min_ttl_secs: i64,
    /// Journal bytes after which the store is checkpointed into a new snapshot.
    pub checkpoint_bytes: u64,
    /// Events kept for watches; a watch further behind fails with [`KvError::WatchLost`].
    pub keep_events: usize,
    /// The time leases expire by (milliseconds; only differences matter).
    pub clock: Arc<dyn Clock>,
    /// After a failed journal write, how long (milliseconds of `clock`) calls are refused
    /// before the next one tries to resume the journal.
    pub resume_every_ms: i64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            min_ttl_secs: 1,
            checkpoint_bytes: 8 << 20,
            keep_events: 100_000,
            clock: Arc::new(Monotonic(Instant::now())),
            resume_every_ms: 1000,
        }
    }
}

/// Milliseconds since a start instant: a clock that never jumps.
struct Monotonic(Instant);

impl Clock for Monotonic {
    fn now_ms(&self) -> i64 {
        i64::try_from(self.0.elapsed().as_millis()).unwrap_or(i64::MAX)
    }
}

struct Watch {
    prefix: String,
    next: Revision,
}

struct Inner {
    store: MemStore,
    journal: Journal,
    /// The revision up to which every change is in the journal.
    logged: Revision,
    /// Why the store stopped answering (a journal write failed).
    failed: Option<String>,
    /// When (ms of the options' clock) the next call may try to resume the journal.
    resume_at: i64,
    watches: BTreeMap<WatchId, Watch>,
    next_watch: WatchId,
}

struct Shared {
    inner: Mutex<Inner>,
    options: Options,
    url: String,
}

/// A durable, embedded coordination store. See the crate documentation.
#[derive(Clone)]
pub struct EmbeddedKv {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for EmbeddedKv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedKv")
            .field("dir", &self.shared.url)
            .finish()
    }
}

impl EmbeddedKv {
    /// Opens (creating if needed) the store kept in `dir` of `storage`, recovering every
    /// acknowledged write. Requires that no other process uses `dir` (the caller holds the
    /// root's lock).
    ///
    /// # Errors
    /// [`OpenError`]: storage failures, or damaged files (beyond an unfinished last write).
    pub fn open(
        storage: Storage,
        dir: &Path,
        options: Options,
    ) -> Result<(EmbeddedKv, Recovery), OpenError> {
        let url = storage.files.url(dir);
        let (journal, store, recovery) = Journal::open(storage, dir, options.min_ttl_secs)?;
        tracing::info!(
            dir = %url,
            revision = store.revision(),
            snapshot_revision = recovery.snapshot_revision,
            keys = recovery.snapshot_keys,
            replayed = recovery.replayed,
            torn_bytes = recovery.torn_bytes,
            leased_keys_dropped = recovery.leased_dropped,
            "coordination store opened"
        );
        let logged = store.revision();
        let kv = EmbeddedKv {
            shared: Arc::new(Shared {
                inner: Mutex::new(Inner {
                    store,
                    journal,
                    logged,
                    failed: None,
                    resume_at: 0,
                    watches: BTreeMap::new(),
                    next_watch: 1,
                }),
                options,
                url,
            }),
        };
        Ok((kv, recovery))
    }

    /// The current revision.
    pub fn revision(&self) -> Revision {
        self.shared.inner.lock().store.revision()
    }

    /// Why the store stopped answering, if it did (until it resumes).
    pub fn failure(&self) -> Option<String> {
        self.shared.inner.lock().failed.clone()
    }

    /// Runs `f` on the state at the current time, then journals what it changed (lease
    /// expiries included) before answering.
    fn call<T>(&self, f: impl FnOnce(&mut MemStore, Millis) -> KvResult<T>) -> KvResult<T> {
        let options = &self.shared.options;
        let mut g = self.shared.inner.lock();
        let inner = &mut *g;
        let now_ms = options.clock.now_ms();
        inner.resume(options, &self.shared.url, now_ms)?;
        let now = u64::try_from(now_ms).unwrap_or(0);
        inner.store.advance(now);
        let out = f(&mut inner.store, now);
        inner.persist(options, &self.shared.url, now_ms)?;
        out
    }
}

impl Inner {
    /// Journals the changes since the last call, then trims the event log and checkpoints
    /// when due.
    fn persist(&mut self, options: &Options, url: &str, now_ms: i64) -> KvResult<()> {
        let revision = self.store.revision();
        if revision == self.logged {
            return Ok(());
        }
        let appended = self.journal.append(self.store.changes_after(self.logged));
        if let Err(e) = appended {
            let why = format!("journal write failed: {e}");
            return Err(self.fail(options, url, &why, now_ms));
        }
        self.logged = revision;
        self.trim_events(options.keep_events);
        if self.journal.written() >= options.checkpoint_bytes {
            match self.journal.checkpoint(&self.store) {
                Ok(()) => {}
                Err(CheckpointError::Snapshot(e)) => {
                    tracing::warn!(dir = url, error = %e, "checkpoint postponed");
                }
                Err(e @ CheckpointError::Segment(_)) => {
                    // The write itself is durable: answer it, then refuse what follows.
                    let _ = self.fail(options, url, &e.to_string(), now_ms);
                }
            }
        }
        Ok(())
    }

    fn fail(&mut self, options: &Options, url: &str, why: &str, now_ms: i64) -> KvError {
        tracing::error!(dir = url, reason = why, "coordination store stopped");
        let why = format!("coordination store {url} stopped: {why}");
        self.failed = Some(why.clone());
        self.resume_at = now_ms.saturating_add(options.resume_every_ms);
        KvError::Unavailable(why)
    }

    /// If the store stopped, and a resume is due, tries to start the journal over; refuses
    /// the call while it stays stopped.
    fn resume(&mut self, options: &Options, url: &str, now_ms: i64) -> KvResult<()> {
        let Some(why) = &self.failed else {
            return Ok(());
        };
        if now_ms < self.resume_at {
            return Err(KvError::Unavailable(why.clone()));
        }
        match self.journal.resume(&self.store) {
            Ok(()) => {
                tracing::info!(
                    dir = url,
                    revision = self.store.revision(),
                    "coordination store resumed"
                );
                self.logged = self.store.revision();
                self.failed = None;
                Ok(())
            }
            Err(e) => {
                self.resume_at = now_ms.saturating_add(options.resume_every_ms);
                Err(KvError::Unavailable(format!("{why}; resuming failed: {e}")))
            }
        }
    }

    /// Keeps at most about `keep` events (whole revisions) for watches.
    fn trim_events(&mut self, keep: usize) {
        let n = self.store.event_count();
        if n <= keep.saturating_mul(2) {
            return;
        }
        let changes = self.store.changes_after(0);
        let from = changes[n - keep].kv.mod_revision;
        self.store.compact_events(from);
    }
}

/// Most operations of one transaction here: a transaction is one journal record and one sync
/// whatever its size, so batching writers (the master assigning 10,000 regions at a start)
/// need a 32nd of etcd's transactions. 4,096 catalog writes are well under a megabyte.
pub const MAX_TXN_OPS: usize = 4096;

impl Kv for EmbeddedKv {
    fn max_txn_ops(&self) -> usize {
        MAX_TXN_OPS
    }

    fn grant(&self, ttl_secs: i64) -> KvResult<(LeaseId, i64)> {
        self.call(|s, now| Ok(s.grant_lease(ttl_secs, now)))
    }

    fn keep_alive(&self, lease: LeaseId) -> KvResult<Option<i64>> {
        self.call(|s, now| Ok(s.renew_lease(lease, now)))
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
        self.call(|s, _| Ok(s.read_range(prefix, after, limit)))
    }

    fn txn(&self, txn: Txn) -> KvResult<TxnOutcome> {
        self.call(|s, _| s.apply_txn(&txn))
    }

    fn watch(&self, prefix: &str, start: Revision) -> KvResult<WatchId> {
        self.call(|_, _| Ok(()))?;
        let mut g = self.shared.inner.lock();
        let id = g.next_watch;
        g.next_watch += 1;
        g.watches.insert(
            id,
            Watch {
                prefix: prefix.to_string(),
                next: start,
            },
        );
        Ok(id)
    }

    fn poll(&self, watch: WatchId) -> KvResult<Vec<Event>> {
        self.call(|_, _| Ok(()))?;
        let mut g = self.shared.inner.lock();
        let inner = &mut *g;
        let w = inner
            .watches
            .get_mut(&watch)
            .ok_or_else(|| KvError::WatchLost(format!("no watch {watch}")))?;
        let events = inner.store.watch_events(&w.prefix, w.next)?;
        w.next = w.next.max(inner.store.revision() + 1);
        Ok(events)
    }

    fn cancel(&self, watch: WatchId) {
        self.shared.inner.lock().watches.remove(&watch);
    }
}
