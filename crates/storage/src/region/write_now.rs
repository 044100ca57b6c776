//! Row writes that never wait for another thread (docs/rfcs/0013-request-path.md, "Writes
//! in place"): a server's request thread may apply a put or delete itself, without handing
//! it to a thread that may block, when nothing on the way would wait. Anything that could
//! wait declines *before* it changes anything, and the caller applies the row the usual way
//! ([`Region::mutate_row`], [`Region::batch`]) on a thread allowed to block.
//!
//! What declines: a row with an increment or append, or a delete of "the latest version"
//! (they read the row, which may read files); a process over its memtable budget or a store
//! with too many files (backpressure waits); a row lock someone holds; a flush or close
//! cutting the memtable (`updates` held); a WAL append that would wait (`FSYNC_WAL`, a batch
//! being written by another thread, a store across the network, a segment to roll: see
//! `Wal::try_append_now`). A declined WAL append abandons the sequence id it took (completed
//! with nothing logged or inserted: a gap, as a failed append leaves).
//!
//! Once logged, the row is inserted and its id completed as on the usual path; it is
//! acknowledged only when readers can see it. If an older write of the region is still in
//! flight after a short spin, the outcome is [`WriteNow::Pending`]: the caller waits with
//! [`Region::wait_visible`] on a thread allowed to block.

use strata_model::ops::{DeleteKind, Mutation, RowMutations};
use strata_model::schema::Durability;

use super::write::stronger;
use super::{MutationResult, Region};
use crate::error::{Error, Result};
use crate::wal::Entry;

/// What [`Region::try_mutate_row_now`] did.
#[derive(Debug)]
pub enum WriteNow {
    /// Applied and visible, or refused (bad input, closed region, the WAL failed): the
    /// outcome to answer.
    Done(Result<MutationResult>),
    /// Logged and applied, visible once [`Region::wait_visible`] returns for its `seq`.
    Pending(MutationResult),
    /// Not tried, nothing changed: apply the row the usual way.
    Declined,
}

impl Region {
    /// Applies a row of puts and deletes if that needs no wait for another thread (see the
    /// module header); otherwise changes nothing and declines.
    pub fn try_mutate_row_now(&self, rm: &RowMutations) -> WriteNow {
        if let Some(outcome) = self.check_now(rm) {
            return outcome;
        }
        let outcome = {
            let Some(_lock) = self.inner.row_locks.try_lock(&rm.row) else {
                return WriteNow::Declined;
            };
            self.apply_now_locked(rm)
        };
        if !matches!(outcome, WriteNow::Declined) {
            self.after_write();
        }
        outcome
    }

    /// The outcome of a row that is not to be written in place (declined, or refused before
    /// anything changed); `None` when it may be.
    pub(super) fn check_now(&self, rm: &RowMutations) -> Option<WriteNow> {
        if self.inner.config.background.is_none() || !rm.mutations.iter().all(writes_blindly) {
            return Some(WriteNow::Declined);
        }
        if let Err(e) = self
            .check_open()
            .and_then(|()| rm.validate().map_err(Error::from))
            .and_then(|()| self.check_row(&rm.row))
        {
            return Some(WriteNow::Done(Err(e)));
        }
        let over_budget = self
            .inner
            .config
            .budget
            .as_ref()
            .is_some_and(|b| b.used() > b.limit());
        (over_budget || self.has_too_many_files()).then_some(WriteNow::Declined)
    }

    /// Waits until readers see the write with sequence id `seq` (after
    /// [`WriteNow::Pending`]). May block.
    pub fn wait_visible(&self, seq: u64) {
        self.inner.mvcc.wait_for(seq);
    }

    /// Builds, logs and inserts the row's cells if nothing waits. Requires: the row is
    /// locked; it holds only blind writes (see [`writes_blindly`]).
    fn apply_now_locked(&self, rm: &RowMutations) -> WriteNow {
        match self.prepare_now_locked(rm) {
            Ok(prepared) => self.log_and_finish_now(prepared),
            Err(outcome) => outcome,
        }
    }

    /// Logs a prepared row on its own if that waits for nothing, and inserts it.
    pub(super) fn log_and_finish_now(&self, prepared: Prepared<'_>) -> WriteNow {
        let wal = &self.inner.config.wal;
        match wal.try_append_now(&prepared.entry, prepared.durability) {
            None => {
                self.inner.mvcc.complete(prepared.entry.seq);
                WriteNow::Declined
            }
            Some(Err(e)) => {
                self.inner.mvcc.complete(prepared.entry.seq);
                WriteNow::Done(Err(e.into()))
            }
            Some(Ok(())) => self.finish_now(prepared),
        }
    }

    /// Builds the row's cells and takes its sequence id, under the region's `updates` lock
    /// (held by the result until the row is inserted); an outcome instead when the row is
    /// refused, empty or declined. Requires: as [`apply_now_locked`](Self::apply_now_locked).
    pub(super) fn prepare_now_locked(
        &self,
        rm: &RowMutations,
    ) -> std::result::Result<Prepared<'_>, WriteNow> {
        let inner = &self.inner;
        let config = &inner.config;
        if config.table.read_only {
            let e = Error::InvalidArgument(format!("table {} is read-only", config.table.name));
            return Err(WriteNow::Done(Err(e)));
        }
        let now = self.stamp_now();
        let mut cells = Vec::new();
        let mut durability = Durability::UseDefault;
        for m in &rm.mutations {
            durability = stronger(durability, m.durability());
            let built = match m {
                Mutation::Put(p) => self.put_cells(p, now, &mut cells),
                Mutation::Delete(d) => self.delete_cells(d, now, &mut cells),
                Mutation::Increment(_) | Mutation::Append(_) => return Err(WriteNow::Declined),
            };
            if let Err(e) = built {
                return Err(WriteNow::Done(Err(e)));
            }
        }
        if cells.iter().any(|c| c.row != rm.row) {
            let e = Error::InvalidArgument("a mutation names another row".into());
            return Err(WriteNow::Done(Err(e)));
        }
        if cells.is_empty() {
            return Err(WriteNow::Done(Ok(MutationResult {
                seq: 0,
                cells: Vec::new(),
            })));
        }
        let durability = durability.resolve(config.table.durability);
        let Some(updates) = inner.updates.try_read() else {
            return Err(WriteNow::Declined);
        };
        // A split or close sets `closed` before its flush takes `updates` exclusively.
        if let Err(e) = self.check_open() {
            return Err(WriteNow::Done(Err(e)));
        }
        let seq = inner.mvcc.begin();
        for c in &mut cells {
            c.seq = seq;
        }
        Ok(Prepared {
            entry: Entry {
                region: config.info.region_id,
                seq,
                cells,
                nonce: None,
            },
            durability,
            _updates: updates,
        })
    }

    /// Inserts a prepared row whose entry is logged, completing its sequence id.
    pub(super) fn finish_now(&self, prepared: Prepared<'_>) -> WriteNow {
        let inner = &self.inner;
        if let Err(e) = self.insert_logged(&prepared.entry, 1) {
            return WriteNow::Done(Err(e));
        }
        let seq = prepared.entry.seq;
        let result = MutationResult {
            seq,
            cells: Vec::new(),
        };
        if inner.mvcc.spin_for(seq) {
            WriteNow::Done(Ok(result))
        } else {
            WriteNow::Pending(result)
        }
    }
}

/// A row ready to be logged and inserted: its entry (cells stamped with its sequence id),
/// its durability, and the region's `updates` lock, held until the row is inserted.
pub(super) struct Prepared<'a> {
    pub(super) entry: Entry,
    pub(super) durability: Durability,
    _updates: parking_lot::RwLockReadGuard<'a, ()>,
}

/// True for a mutation that writes without reading the row: a put, or a delete that does
/// not delete "the latest version" of a column without a timestamp.
pub(super) fn writes_blindly(m: &Mutation) -> bool {
    match m {
        Mutation::Put(_) => true,
        Mutation::Delete(d) => {
            d.timestamp.is_some()
                || d.markers
                    .iter()
                    .all(|m| m.kind != DeleteKind::Version || m.timestamp.is_some())
        }
        Mutation::Increment(_) | Mutation::Append(_) => false,
    }
}
