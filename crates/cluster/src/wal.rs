//! What crash recovery needs from the write-ahead log, behind a narrow trait: fence a dead
//! server's WAL so it can never be appended again (HDFS `recover_lease` on every file of its
//! directory), then split it into per-region recovered edits. The log store on shared storage
//! implements it; [`MemWal`] is the model used by the simulation and the tests.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use thiserror::Error;

use crate::lease::Millis;

/// A WAL operation that failed (retry later).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("wal: {0}")]
pub struct WalError(pub String);

/// Progress of fencing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fence {
    /// No append by the dead server can succeed any more.
    Done,
    /// Lease recovery started; ask again later.
    Pending,
}

/// Whether a split parent's files could be deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParentFiles {
    /// Deleted (or already gone): the parent's record may go too.
    Removed,
    /// A daughter still references them (it has not compacted since the split).
    Referenced,
    /// Being checked or deleted; ask again later.
    Pending,
}

/// Fencing and splitting of dead servers' WALs, and deleting regions' files on shared storage.
pub trait WalFencer {
    /// Fences `server`'s WAL. Idempotent; call until it answers [`Fence::Done`].
    ///
    /// # Errors
    /// The log store failed; retry later.
    fn fence(&self, server: &str, now: Millis) -> Result<Fence, WalError>;

    /// Splits `server`'s fenced WAL into per-region recovered edits that the next opener of each
    /// region replays. Idempotent.
    ///
    /// Requires: `fence(server)` answered `Done`.
    ///
    /// # Errors
    /// The log store failed; retry later.
    fn split(&self, server: &str) -> Result<(), WalError>;

    /// Whether a fence, split or deletion this fencer started is still running in the
    /// background: the master then asks again after its busy tick rather than its idle one (a
    /// restart's or failover's fence and split are each one tick shorter). The default runs
    /// nothing in the background.
    fn working(&self) -> bool {
        false
    }

    /// Deletes the files of dropped (or truncated) `table` whose `regions` (cluster names)
    /// are all closed: its data and any recovered edits of those regions. Idempotent; call
    /// until it answers [`Fence::Done`]. The default (no storage) has nothing to delete.
    ///
    /// # Errors
    /// The store failed; retry later.
    fn remove_table(&self, table: &str, regions: &[String]) -> Result<Fence, WalError> {
        let _ = (table, regions);
        Ok(Fence::Done)
    }

    /// Deletes the directories (data and recovered edits) of `regions` (cluster names) that
    /// were never opened: the daughters of a split rolled back. Idempotent; call until it
    /// answers [`Fence::Done`]. The default (no storage) has nothing to delete.
    ///
    /// # Errors
    /// The store failed; retry later.
    fn remove_regions(&self, regions: &[String]) -> Result<Fence, WalError> {
        let _ = regions;
        Ok(Fence::Done)
    }

    /// Deletes split parent `parent`'s directory and recovered edits once none of
    /// `daughters` (those not split again since) references its files in its manifest.
    /// Idempotent. The default (no storage) answers [`ParentFiles::Removed`].
    ///
    /// # Errors
    /// The store failed; retry later.
    fn remove_split_parent(
        &self,
        parent: &str,
        daughters: &[String],
    ) -> Result<ParentFiles, WalError> {
        let _ = (parent, daughters);
        Ok(ParentFiles::Removed)
    }
}

#[derive(Default)]
struct WalState {
    /// Per server: appended edits (region, edit id).
    logs: BTreeMap<String, Vec<(String, u64)>>,
    /// Servers whose WAL is fenced.
    fenced: BTreeSet<String>,
    /// First fence call per server (recovery completes `recovery_ms` later).
    fencing_since: BTreeMap<String, Millis>,
    /// Per region: edits recovered from split WALs, not yet replayed.
    recovered: BTreeMap<String, BTreeSet<u64>>,
    recovery_ms: Millis,
    /// Split daughters whose files still reference their parent's: daughter → parent.
    references: BTreeMap<String, String>,
    /// Merged regions whose files still reference their two parents': merged → parents.
    merge_references: BTreeMap<String, BTreeSet<String>>,
    /// Regions whose directories were deleted (rolled-back daughters, removed parents).
    removed: BTreeSet<String>,
}

/// An in-memory model of per-server WALs with lease-recovery fencing that takes `recovery_ms`.
#[derive(Clone, Default)]
pub struct MemWal {
    state: Arc<Mutex<WalState>>,
}

impl MemWal {
    /// A model whose lease recovery completes `recovery_ms` after it is first asked for.
    pub fn new(recovery_ms: Millis) -> MemWal {
        let wal = MemWal::default();
        wal.lock().recovery_ms = recovery_ms;
        wal
    }

    fn lock(&self) -> MutexGuard<'_, WalState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Appends and syncs an edit to `server`'s WAL.
    ///
    /// # Errors
    /// The WAL is fenced: the writer must stop (abort).
    pub fn append(&self, server: &str, region: &str, edit: u64) -> Result<(), WalError> {
        let mut s = self.lock();
        if s.fenced.contains(server) {
            return Err(WalError(format!(
                "{server}: lease recovered by another writer"
            )));
        }
        s.logs
            .entry(server.to_string())
            .or_default()
            .push((region.to_string(), edit));
        Ok(())
    }

    /// Whether `server`'s WAL is fenced.
    pub fn is_fenced(&self, server: &str) -> bool {
        self.lock().fenced.contains(server)
    }

    /// Takes the recovered edits of `region` (the opener replays them).
    pub fn take_recovered(&self, region: &str) -> BTreeSet<u64> {
        self.lock().recovered.remove(region).unwrap_or_default()
    }

    /// Records that `daughters` were created referencing `parent`'s files (a split).
    pub fn add_references(&self, parent: &str, daughters: &(String, String)) {
        let mut s = self.lock();
        for d in [&daughters.0, &daughters.1] {
            s.references.insert(d.clone(), parent.to_string());
        }
    }

    /// Records that `merged` was created referencing the files of `parents` (a merge).
    pub fn add_merge_references(&self, parents: (&str, &str), merged: &str) {
        let set = BTreeSet::from([parents.0.to_string(), parents.1.to_string()]);
        self.lock().merge_references.insert(merged.to_string(), set);
    }

    /// A parent whose files `daughter` still references, if any.
    pub fn referenced_parent(&self, daughter: &str) -> Option<String> {
        self.referenced_parents(daughter).into_iter().next()
    }

    /// Every parent whose files `region` still references (a split's parent, or a merge's
    /// two).
    pub fn referenced_parents(&self, region: &str) -> Vec<String> {
        let s = self.lock();
        let mut parents: Vec<String> = s.references.get(region).cloned().into_iter().collect();
        parents.extend(
            s.merge_references
                .get(region)
                .into_iter()
                .flatten()
                .cloned(),
        );
        parents
    }

    /// `daughter` rewrote its references into files of its own (a compaction).
    pub fn compacted(&self, daughter: &str) {
        let mut s = self.lock();
        s.references.remove(daughter);
        s.merge_references.remove(daughter);
    }

    /// Whether `region`'s directory was deleted.
    pub fn is_removed(&self, region: &str) -> bool {
        self.lock().removed.contains(region)
    }

    /// Forgets `server`'s edits of `region` (after a flush on a clean close made them durable).
    pub fn truncate(&self, server: &str, region: &str) {
        if let Some(log) = self.lock().logs.get_mut(server) {
            log.retain(|(r, _)| r != region);
        }
    }
}

impl WalFencer for MemWal {
    fn fence(&self, server: &str, now: Millis) -> Result<Fence, WalError> {
        let mut s = self.lock();
        if s.fenced.contains(server) {
            return Ok(Fence::Done);
        }
        let since = *s.fencing_since.entry(server.to_string()).or_insert(now);
        if now >= since + s.recovery_ms {
            s.fenced.insert(server.to_string());
            Ok(Fence::Done)
        } else {
            Ok(Fence::Pending)
        }
    }

    fn split(&self, server: &str) -> Result<(), WalError> {
        let mut s = self.lock();
        if !s.fenced.contains(server) {
            return Err(WalError(format!(
                "split of {server} before its WAL is fenced"
            )));
        }
        let edits = s.logs.remove(server).unwrap_or_default();
        for (region, edit) in edits {
            s.recovered.entry(region).or_default().insert(edit);
        }
        Ok(())
    }

    fn remove_regions(&self, regions: &[String]) -> Result<Fence, WalError> {
        let mut s = self.lock();
        for r in regions {
            s.references.remove(r);
            s.merge_references.remove(r);
            s.recovered.remove(r);
            s.removed.insert(r.clone());
        }
        Ok(Fence::Done)
    }

    fn remove_split_parent(
        &self,
        parent: &str,
        daughters: &[String],
    ) -> Result<ParentFiles, WalError> {
        let mut s = self.lock();
        let referenced = daughters.iter().any(|d| {
            s.references.get(d).is_some_and(|p| p == parent)
                || s.merge_references
                    .get(d)
                    .is_some_and(|p| p.contains(parent))
        });
        if referenced {
            return Ok(ParentFiles::Referenced);
        }
        s.recovered.remove(parent);
        s.removed.insert(parent.to_string());
        Ok(ParentFiles::Removed)
    }
}
