//! Mutations: put, the four deletes, increment, append, row mutations, batches and
//! check-and-mutate. Every row mutation is atomic and isolated (row lock + MVCC).

use std::sync::atomic::Ordering;

use bytes::Bytes;
use strata_model::cell::{Cell, CellType};
use strata_model::ops::{
    escape, Append, CheckAndMutate, Condition, Delete, DeleteKind, Get, Increment, Mutation, Put,
    RowMutations,
};
use strata_model::schema::Durability;
use strata_sstable::CellRef;

use super::Region;
use crate::error::{Error, Result};
use crate::memtable::InsertHint;
use crate::wal::Entry;

/// What a row mutation did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutationResult {
    /// The sequence id it was given (0 when it wrote nothing).
    pub seq: u64,
    /// New values of incremented and appended columns (empty otherwise).
    pub cells: Vec<Cell>,
}

impl Region {
    /// Applies a put.
    ///
    /// # Errors
    /// Invalid input (nothing written), the WAL, or a closed region.
    pub fn put(&self, put: &Put) -> Result<MutationResult> {
        self.mutate_row(&RowMutations::new(put.row.clone()).with(put.clone())?)
    }

    /// Applies a delete. A delete with no markers deletes the whole row (every family).
    ///
    /// # Errors
    /// As [`Region::put`].
    pub fn delete(&self, delete: &Delete) -> Result<MutationResult> {
        self.mutate_row(&RowMutations::new(delete.row.clone()).with(delete.clone())?)
    }

    /// Adds `amount` to 8-byte big-endian counters (absent counts as 0); returns the new values.
    ///
    /// # Errors
    /// As [`Region::put`]; a present value that is not 8 bytes is invalid.
    pub fn increment(&self, increment: &Increment) -> Result<MutationResult> {
        self.mutate_row(&RowMutations::new(increment.row.clone()).with(increment.clone())?)
    }

    /// Appends bytes to values (absent counts as empty); returns the new values.
    ///
    /// # Errors
    /// As [`Region::put`].
    pub fn append(&self, append: &Append) -> Result<MutationResult> {
        self.mutate_row(&RowMutations::new(append.row.clone()).with(append.clone())?)
    }

    /// Applies several mutations of one row atomically.
    ///
    /// # Errors
    /// As [`Region::put`]; on error nothing of the row mutation is applied.
    pub fn mutate_row(&self, rm: &RowMutations) -> Result<MutationResult> {
        self.mutate_row_nonced(rm, None)
    }

    /// [`mutate_row`](Self::mutate_row) of a client operation with a nonce (an increment or
    /// append a client may send again): the WAL entry records it, so a server that replays
    /// the entry learns the operation is done ([`Region::take_replayed_nonces`], RFC 0032).
    ///
    /// # Errors
    /// As [`Region::put`].
    pub fn mutate_row_nonced(
        &self,
        rm: &RowMutations,
        nonce: Option<crate::wal::Nonce>,
    ) -> Result<MutationResult> {
        self.check_open()?;
        rm.validate()?;
        self.check_row(&rm.row)?;
        self.throttle();
        self.throttle_writes()?;
        let result = {
            let _lock = self.inner.row_locks.lock(vec![rm.row.clone()]);
            self.apply_locked(rm, nonce)
        };
        self.after_write();
        result
    }

    /// Applies `cam.mutations` if the condition holds; returns whether it did.
    ///
    /// # Errors
    /// As [`Region::put`].
    pub fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<bool> {
        Ok(self.check_and_mutate_result(cam)?.is_some())
    }

    /// Applies `cam.mutations` if the condition holds; returns what they did (the new values
    /// of incremented and appended columns, as HBase's `CheckAndMutateResult.getResult`), or
    /// `None` when the condition did not hold.
    ///
    /// # Errors
    /// As [`Region::put`].
    pub fn check_and_mutate_result(&self, cam: &CheckAndMutate) -> Result<Option<MutationResult>> {
        self.check_and_mutate_result_nonced(cam, None)
    }

    /// [`check_and_mutate_result`](Self::check_and_mutate_result) of a client operation with
    /// a nonce, logged with the mutations if the condition holds (RFC 0032).
    ///
    /// # Errors
    /// As [`Region::put`].
    pub fn check_and_mutate_result_nonced(
        &self,
        cam: &CheckAndMutate,
        nonce: Option<crate::wal::Nonce>,
    ) -> Result<Option<MutationResult>> {
        self.check_open()?;
        cam.validate()?;
        self.check_row(&cam.row)?;
        self.throttle_writes()?;
        let lock = self.inner.row_locks.lock(vec![cam.row.clone()]);
        let holds = match &cam.condition {
            Condition::Column {
                family,
                qualifier,
                op,
                expected,
            } => {
                self.check_family(family)?;
                let get = Get::new(cam.row.clone())
                    .with_column(family.clone(), qualifier.clone())
                    .with_time_range(cam.time_range);
                let current = self.get_unlocked(&get, u64::MAX)?;
                let actual = current.first().map(|c| &c.value);
                match (expected, actual) {
                    (None, actual) => actual.is_none(),
                    (Some(_), None) => false,
                    // HBase compares `expected op actual`.
                    (Some(e), Some(a)) => op.matches(e.as_ref().cmp(a.as_ref())),
                }
            }
            Condition::Filter(filter) => {
                let get = Get::new(cam.row.clone())
                    .with_time_range(cam.time_range)
                    .with_filter(filter.clone());
                !self.get_unlocked(&get, u64::MAX)?.is_empty()
            }
        };
        let result = if holds {
            Some(self.apply_locked(&cam.mutations, nonce)?)
        } else {
            None
        };
        drop(lock);
        self.after_write();
        Ok(result)
    }

    pub(crate) fn check_row(&self, row: &Bytes) -> Result<()> {
        let info = &self.inner.config.info;
        let below = row.as_ref() < info.start_row.as_ref();
        let above = !info.end_row.is_empty() && row.as_ref() >= info.end_row.as_ref();
        if below || above {
            return Err(Error::WrongRegion {
                row: escape(row),
                region: info.region_id,
                start: escape(&info.start_row),
                end: escape(&info.end_row),
            });
        }
        Ok(())
    }

    pub(crate) fn check_family(&self, family: &[u8]) -> Result<()> {
        if self.inner.stores.contains_key(family) {
            Ok(())
        } else {
            Err(Error::NoSuchFamily(escape(family)))
        }
    }

    /// Turns the mutations into cells (reading current values for increments and appends),
    /// logs them (with `nonce`, if given) and inserts them. Requires: the row lock is held.
    fn apply_locked(
        &self,
        rm: &RowMutations,
        nonce: Option<crate::wal::Nonce>,
    ) -> Result<MutationResult> {
        if self.inner.config.table.read_only {
            return Err(Error::InvalidArgument(format!(
                "table {} is read-only",
                self.inner.config.table.name
            )));
        }
        let now = self.stamp_now();
        let mut cells = Vec::new();
        let mut results = Vec::new();
        let mut durability = Durability::UseDefault;
        for m in &rm.mutations {
            durability = stronger(durability, m.durability());
            match m {
                Mutation::Put(p) => self.put_cells(p, now, &mut cells)?,
                Mutation::Delete(d) => self.delete_cells(d, now, &mut cells)?,
                Mutation::Increment(i) => {
                    for c in &i.cells {
                        self.check_family(&c.family)?;
                        let (old, ts, old_ttl) = self.latest(&rm.row, &c.family, &c.qualifier)?;
                        let old = match old {
                            None => 0,
                            Some(v) => i64::from_be_bytes(v.as_ref().try_into().map_err(|_| {
                                Error::InvalidArgument(format!(
                                    "increment of {}:{}: value is {} bytes, not an 8-byte counter",
                                    escape(&c.family),
                                    escape(&c.qualifier),
                                    v.len()
                                ))
                            })?),
                        };
                        let new = old.wrapping_add(c.amount);
                        let cell = Cell {
                            ttl: i.ttl.or(old_ttl),
                            ..Cell::put(
                                rm.row.clone(),
                                c.family.clone(),
                                c.qualifier.clone(),
                                stamp(now, ts),
                                Bytes::copy_from_slice(&new.to_be_bytes()),
                            )
                        };
                        results.push(cell.clone());
                        // Adding 0 reads the counter and writes nothing (as HBase does).
                        if c.amount != 0 {
                            cells.push(cell);
                        }
                    }
                }
                Mutation::Append(a) => {
                    for c in &a.cells {
                        self.check_family(&c.family)?;
                        let (old, ts, old_ttl) = self.latest(&rm.row, &c.family, &c.qualifier)?;
                        let mut value = old.map(|v| v.to_vec()).unwrap_or_default();
                        value.extend_from_slice(&c.value);
                        let cell = Cell {
                            ttl: a.ttl.or(old_ttl),
                            ..Cell::put(
                                rm.row.clone(),
                                c.family.clone(),
                                c.qualifier.clone(),
                                stamp(now, ts),
                                Bytes::from(value),
                            )
                        };
                        results.push(cell.clone());
                        cells.push(cell);
                    }
                }
            }
        }
        for c in &cells {
            if c.row != rm.row {
                return Err(Error::InvalidArgument(
                    "a mutation names another row".into(),
                ));
            }
        }
        if cells.is_empty() {
            return Ok(MutationResult {
                seq: 0,
                cells: results,
            });
        }
        let durability = durability.resolve(self.inner.config.table.durability);
        let logged = nonce.map(|n| (n, self.inner.config.clock.now_ms()));
        let seq = self.log_and_apply(cells, durability, 1, logged)?;
        for c in &mut results {
            c.seq = seq;
        }
        Ok(MutationResult {
            seq,
            cells: results,
        })
    }

    /// Gives the cells (of `rows` row mutations) one sequence id, logs them as one entry
    /// (with the operation's nonce and the time, if it has one), inserts them, and publishes
    /// them.
    pub(super) fn log_and_apply(
        &self,
        mut cells: Vec<Cell>,
        durability: Durability,
        rows: u64,
        nonce: Option<(crate::wal::Nonce, i64)>,
    ) -> Result<u64> {
        let inner = &self.inner;
        let _updates = inner.updates.read();
        // A split or close sets `closed` before its flush takes `updates` exclusively.
        self.check_open()?;
        let seq = inner.mvcc.begin();
        for c in &mut cells {
            c.seq = seq;
        }
        let entry = Entry {
            region: inner.config.info.region_id,
            seq,
            cells,
            nonce,
        };
        if let Err(e) = inner.config.wal.append(&entry, durability) {
            inner.mvcc.complete(seq);
            return Err(e.into());
        }
        self.insert_logged(&entry, rows)?;
        // Acknowledge only once readers can see it (an older write may still be in flight).
        inner.mvcc.wait_for(seq);
        Ok(seq)
    }

    /// Inserts a logged entry's cells into the memtables and completes its sequence id
    /// (whether or not the insert succeeded). Requires: `updates` held for reading, the
    /// entry's id taken from `mvcc` and logged.
    pub(super) fn insert_logged(&self, entry: &Entry, rows: u64) -> Result<()> {
        let inner = &self.inner;
        let cells = &entry.cells;
        self.stamp_edit();
        // In store order (family, row, qualifier, newest first; stable, so cells with the
        // same key keep their order), each family's cells searched from the previous one's
        // place: a row's cells land side by side. A lone cell needs no sort (nor allocation).
        let mut sorted: Vec<&Cell> = Vec::new();
        let one;
        let in_order: &[&Cell] = if let [cell] = cells.as_slice() {
            one = cell;
            std::slice::from_ref(&one)
        } else {
            sorted.extend(cells);
            sorted.sort_by(|x, y| {
                (&x.family, &x.row, &x.qualifier)
                    .cmp(&(&y.family, &y.row, &y.qualifier))
                    .then(y.timestamp.cmp(&x.timestamp))
            });
            &sorted
        };
        let mut hint = InsertHint::default();
        let mut family = None;
        for &c in in_order {
            if family != Some(&c.family) {
                hint = InsertHint::default();
                family = Some(&c.family);
            }
            // Families were checked while building the cells.
            if let Some(store) = inner.stores.get(&c.family) {
                if let Err(e) = store
                    .memtable
                    .insert_hinted(&CellRef::from_cell(c), &mut hint)
                {
                    inner.mvcc.complete(entry.seq);
                    return Err(Error::InvalidArgument(e.to_string()));
                }
            }
        }
        inner.mvcc.complete(entry.seq);
        inner.counters.mutations.fetch_add(rows, Ordering::Relaxed);
        Ok(())
    }

    pub(super) fn put_cells(&self, p: &Put, now: i64, out: &mut Vec<Cell>) -> Result<()> {
        for c in &p.cells {
            self.check_family(&c.family)?;
            out.push(Cell {
                ttl: p.ttl,
                ..Cell::put(
                    p.row.clone(),
                    c.family.clone(),
                    c.qualifier.clone(),
                    c.timestamp.unwrap_or(now),
                    c.value.clone(),
                )
            });
        }
        Ok(())
    }

    pub(super) fn delete_cells(&self, d: &Delete, now: i64, out: &mut Vec<Cell>) -> Result<()> {
        let default_ts = d.timestamp.unwrap_or(now);
        if d.markers.is_empty() {
            // The whole row: every family.
            for family in self.inner.stores.keys() {
                out.push(Cell::delete(
                    d.row.clone(),
                    family.clone(),
                    Bytes::new(),
                    default_ts,
                    CellType::DeleteFamily,
                ));
            }
            return Ok(());
        }
        for m in &d.markers {
            self.check_family(&m.family)?;
            let ts = match (m.kind, m.timestamp.or(d.timestamp)) {
                (_, Some(ts)) => ts,
                // HBase: deleting "the latest version" means the newest existing one.
                (DeleteKind::Version, None) => {
                    match self.latest(&d.row, &m.family, &m.qualifier)? {
                        (Some(_), ts, _) => ts,
                        (None, _, _) => continue,
                    }
                }
                (_, None) => now,
            };
            let qualifier = if m.kind.is_family() {
                Bytes::new()
            } else {
                m.qualifier.clone()
            };
            out.push(Cell::delete(
                d.row.clone(),
                m.family.clone(),
                qualifier,
                ts,
                m.kind.cell_type(),
            ));
        }
        Ok(())
    }

    /// The newest visible value of a column and its timestamp (`i64::MIN` when absent).
    /// Requires: the row lock is held (every earlier write to the row is complete).
    fn latest(
        &self,
        row: &Bytes,
        family: &Bytes,
        qualifier: &Bytes,
    ) -> Result<(Option<Bytes>, i64, Option<u64>)> {
        // The value, its timestamp and its own TTL (carried forward by increments and
        // appends that set none, as HBase carries the TTL tag).
        let get = Get::new(row.clone()).with_column(family.clone(), qualifier.clone());
        let cells = self.get_unlocked(&get, u64::MAX)?;
        Ok(match cells.into_iter().next() {
            Some(c) => (Some(c.value), c.timestamp, c.ttl),
            None => (None, i64::MIN, None),
        })
    }
}

/// The stronger of two durabilities (a row mutation is logged as its strongest part asks).
pub(super) fn stronger(a: Durability, b: Durability) -> Durability {
    fn rank(d: Durability) -> u8 {
        match d {
            Durability::UseDefault => 0,
            Durability::SkipWal => 1,
            Durability::AsyncWal => 2,
            Durability::SyncWal => 3,
            Durability::FsyncWal => 4,
        }
    }
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// The timestamp of an increment's or append's new cell: now, or the current cell's own
/// timestamp when that is ahead of the clock (a client-set future timestamp). Equal
/// timestamps are ordered by sequence id, so the new cell still wins; never `latest + 1`,
/// which let fast counters run ahead of the clock and hide a following put stamped "now".
fn stamp(now: i64, latest: i64) -> i64 {
    now.max(latest)
}
