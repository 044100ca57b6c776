//! Multi-row batches as mini-batches (HBase's `doMiniBatchMutate`): the rows of a batch that
//! only put and delete are locked together, logged as one WAL entry under one sequence id,
//! inserted, and made visible with one MVCC wait, instead of one WAL submit, one id and one
//! wait per row. Each row stays atomic on its own and gets its own result.
//!
//! A mini-batch ends before a row it already holds (a second mutation of a row must see the
//! first: it is applied in a later mini-batch), before an increment or append (they read the
//! row, so they run alone through [`Region::mutate_row`]), and at [`MAX_ROWS`] rows.
//!
//! Durability: a row asks for its strongest mutation's durability, resolved against the
//! table's; the mini-batch's entry is logged with the strongest of its rows' (so a
//! `SKIP_WAL` row beside logged rows is logged too, which only makes it more durable).
//!
//! Failure: a row that fails validation (outside the region, unknown family, malformed) gets
//! its error and is left out; a failure of the whole mini-batch (closed region, the WAL)
//! fails each of its rows, and none of them is applied.

use hashbrown::HashTable;
use strata_model::ops::{Mutation, RowMutations};
use strata_model::schema::Durability;

use super::write::stronger;
use super::{MutationResult, Region};
use crate::error::{Error, Result};

/// The most rows one mini-batch locks and logs together.
pub const MAX_ROWS: usize = 1_000;

impl Region {
    /// Applies many row mutations; each row is atomic on its own and gets its own result,
    /// in the order given. Rows that only put and delete are applied in mini-batches (see the
    /// module header); increments and appends one by one.
    pub fn batch(&self, rows: &[RowMutations]) -> Vec<Result<MutationResult>> {
        let mut results: Vec<Option<Result<MutationResult>>> =
            std::iter::repeat_with(|| None).take(rows.len()).collect();
        let mut pending: Vec<usize> = Vec::new();
        // The row-lock hashes of the pending rows, and per row its hash. A row whose hash is
        // pending starts a new mini-batch: a repeated row (or, rarely, another row with the
        // same 64-bit hash, which costs only that split).
        let locks = &self.inner.row_locks;
        let mut held: HashTable<u64> = HashTable::with_capacity(rows.len().min(MAX_ROWS));
        let mut hashes: Vec<u64> = Vec::with_capacity(rows.len());
        for (i, rm) in rows.iter().enumerate() {
            let plain = rm
                .mutations
                .iter()
                .all(|m| matches!(m, Mutation::Put(_) | Mutation::Delete(_)));
            let hash = locks.hash(&rm.row);
            hashes.push(hash);
            let repeated = held.find(hash, |&h| h == hash).is_some();
            if !plain || repeated || pending.len() >= MAX_ROWS {
                self.apply_mini_batch(rows, &hashes, &pending, &mut results);
                pending.clear();
                held.clear();
            }
            if plain {
                pending.push(i);
                held.insert_unique(hash, hash, |&h| h);
            } else {
                results[i] = Some(self.mutate_row(rm));
            }
        }
        self.apply_mini_batch(rows, &hashes, &pending, &mut results);
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::InvalidArgument("row was not applied".into()))))
            .collect()
    }

    /// Applies the plain (put and delete only) rows `which` of `rows`, no row twice, as one
    /// mini-batch, and stores each row's result. `hashes[i]` is row `i`'s row-lock hash.
    fn apply_mini_batch(
        &self,
        rows: &[RowMutations],
        hashes: &[u64],
        which: &[usize],
        results: &mut [Option<Result<MutationResult>>],
    ) {
        if which.is_empty() {
            return;
        }
        let mut valid = Vec::with_capacity(which.len());
        for &i in which {
            let rm = &rows[i];
            match self
                .check_open()
                .and_then(|()| rm.validate().map_err(Error::from))
                .and_then(|()| self.check_row(&rm.row))
            {
                Ok(()) => valid.push(i),
                Err(e) => results[i] = Some(Err(e)),
            }
        }
        if valid.is_empty() {
            return;
        }
        self.throttle();
        if let Err(e) = self.throttle_writes() {
            fail_each(&valid, &e, results);
            return;
        }
        let outcome = {
            let _lock = self.inner.row_locks.lock_hashed(
                valid
                    .iter()
                    .map(|&i| (hashes[i], rows[i].row.clone()))
                    .collect(),
            );
            self.apply_plain_locked(rows, &valid, results)
        };
        if let Err((e, applied)) = outcome {
            fail_each(&applied, &e, results);
        }
        self.after_write();
    }

    /// Builds the cells of every row of `valid`, logs them as one entry and inserts them.
    /// Rows that fail while their cells are built get their error; rows that write nothing
    /// succeed with sequence id 0. Requires: the rows are locked.
    ///
    /// # Errors
    /// The failure of the whole mini-batch, with the rows it fails.
    fn apply_plain_locked(
        &self,
        rows: &[RowMutations],
        valid: &[usize],
        results: &mut [Option<Result<MutationResult>>],
    ) -> std::result::Result<(), (Error, Vec<usize>)> {
        let config = &self.inner.config;
        if config.table.read_only {
            let e = Error::InvalidArgument(format!("table {} is read-only", config.table.name));
            return Err((e, valid.to_vec()));
        }
        let now = self.stamp_now();
        let mut cells = Vec::new();
        let mut durability = Durability::UseDefault;
        let mut logged = Vec::with_capacity(valid.len());
        for &i in valid {
            let rm = &rows[i];
            let start = cells.len();
            let mut wanted = Durability::UseDefault;
            let built = rm.mutations.iter().try_for_each(|m| {
                wanted = stronger(wanted, m.durability());
                match m {
                    Mutation::Put(p) => self.put_cells(p, now, &mut cells),
                    Mutation::Delete(d) => self.delete_cells(d, now, &mut cells),
                    Mutation::Increment(_) | Mutation::Append(_) => Err(Error::InvalidArgument(
                        "increments and appends are not applied in mini-batches".into(),
                    )),
                }
            });
            match built {
                Err(e) => {
                    cells.truncate(start);
                    results[i] = Some(Err(e));
                }
                Ok(()) if cells.len() == start => {
                    results[i] = Some(Ok(MutationResult {
                        seq: 0,
                        cells: Vec::new(),
                    }));
                }
                Ok(()) => {
                    durability = stronger(durability, wanted.resolve(config.table.durability));
                    logged.push(i);
                }
            }
        }
        if logged.is_empty() {
            return Ok(());
        }
        let rows_logged = logged.len() as u64;
        match self.log_and_apply(cells, durability, rows_logged, None) {
            Ok(seq) => {
                for i in logged {
                    results[i] = Some(Ok(MutationResult {
                        seq,
                        cells: Vec::new(),
                    }));
                }
                Ok(())
            }
            Err(e) => Err((e, logged)),
        }
    }
}

/// Gives each row of `which` its own copy of the mini-batch's error `e`.
fn fail_each(which: &[usize], e: &Error, results: &mut [Option<Result<MutationResult>>]) {
    for &i in which {
        results[i] = Some(Err(copy_of(e)));
    }
}

/// A copy of an error that failed a whole mini-batch, for each of its rows: the same variant
/// where it can be copied; otherwise (file errors, which a mini-batch's own steps do not
/// return) an I/O error with the same message.
fn copy_of(e: &Error) -> Error {
    match e {
        Error::InvalidArgument(s) => Error::InvalidArgument(s.clone()),
        Error::NoSuchFamily(s) => Error::NoSuchFamily(s.clone()),
        Error::WrongRegion {
            row,
            region,
            start,
            end,
        } => Error::WrongRegion {
            row: row.clone(),
            region: *region,
            start: start.clone(),
            end: end.clone(),
        },
        Error::Closed(id) => Error::Closed(*id),
        Error::Wal(w) => Error::Wal(w.clone()),
        Error::Io { path, source } => Error::Io {
            path: path.clone(),
            source: std::io::Error::new(source.kind(), source.to_string()),
        },
        other @ (Error::Manifest(_) | Error::Sstable(_)) => Error::Io {
            path: String::new(),
            source: std::io::Error::other(other.to_string()),
        },
    }
}
