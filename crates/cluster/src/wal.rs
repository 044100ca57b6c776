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

/// Fencing and splitting of dead servers' WALs.
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
}
