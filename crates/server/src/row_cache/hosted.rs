//! The data operations of a hosted region, through the row cache: reads may be answered
//! from it, and every write invalidates the row before it is acknowledged. Each operation
//! also notes the rows it addresses in the region's load (`crate::load_split`).

use strata_model::cell::Cell;
use strata_model::ops::{CheckAndMutate, Get, RowMutations, Scan};
use strata_storage::region::{MutationResult, RegionScanner, WriteNow};
use strata_storage::Result;

use crate::host::HostedRegion;

impl HostedRegion {
    /// A get, from the row cache when it holds a valid result.
    ///
    /// # Errors
    /// As `Region::get`.
    pub fn get(&self, get: &Get) -> Result<Vec<Cell>> {
        self.load.note_read(&get.row);
        self.row_cache.get(&self.region, get)
    }

    /// Opens a scanner (one scan page, or an HBase scanner), noting its start row.
    ///
    /// # Errors
    /// As `Region::scan`.
    pub fn scan(&self, scan: &Scan) -> Result<RegionScanner> {
        self.load.note_read(&scan.start_row);
        self.region.scan(scan)
    }

    /// Applies a row mutation (puts, deletes, increments, appends) and invalidates the row.
    ///
    /// # Errors
    /// As `Region::mutate_row`.
    pub fn mutate_row(&self, rm: &RowMutations) -> Result<MutationResult> {
        self.mutate_row_nonced(rm, None)
    }

    /// [`mutate_row`](Self::mutate_row) of an operation with a nonce, logged with it
    /// (`Region::mutate_row_nonced`, RFC 0032).
    pub fn mutate_row_nonced(
        &self,
        rm: &RowMutations,
        nonce: Option<strata_storage::wal::Nonce>,
    ) -> Result<MutationResult> {
        self.load.note_write(&rm.row);
        self.row_cache
            .write(&rm.row, || self.region.mutate_row_nonced(rm, nonce))
    }

    /// Applies a row of puts and deletes on the calling thread if nothing on the way waits
    /// (`Region::try_mutate_row_now`). Declined for regions with a row cache: a
    /// [`WriteNow::Pending`] write would end its invalidation before readers see it.
    pub fn try_mutate_row_now(&self, rm: &RowMutations) -> WriteNow {
        if self.row_cache.is_enabled() {
            return WriteNow::Declined;
        }
        let now = self.region.try_mutate_row_now(rm);
        // A declined row comes back through `batch`, and is noted there.
        if !matches!(now, WriteNow::Declined) {
            self.load.note_write(&rm.row);
        }
        now
    }

    /// [`try_mutate_row_now`](Self::try_mutate_row_now) of several rows, each of its own
    /// hosted region, logged together (`Region::try_mutate_rows_now`); the outcomes in order.
    pub fn try_mutate_rows_now(rows: &[(&HostedRegion, &RowMutations)]) -> Vec<WriteNow> {
        let tried: Vec<_> = rows
            .iter()
            .filter(|(h, _)| !h.row_cache.is_enabled())
            .map(|&(h, rm)| (&h.region, rm))
            .collect();
        let mut outcomes = strata_storage::region::Region::try_mutate_rows_now(&tried).into_iter();
        rows.iter()
            .map(|&(h, rm)| {
                if h.row_cache.is_enabled() {
                    return WriteNow::Declined;
                }
                let now = outcomes.next().unwrap_or(WriteNow::Declined);
                // A declined row comes back through `batch`, and is noted there.
                if !matches!(now, WriteNow::Declined) {
                    h.load.note_write(&rm.row);
                }
                now
            })
            .collect()
    }

    /// Applies row mutations, each row on its own (in mini-batches), invalidating each row.
    pub fn batch(&self, rows: &[RowMutations]) -> Vec<Result<MutationResult>> {
        self.load.note_rows(rows.iter().map(|rm| rm.row.as_ref()));
        self.row_cache
            .write_rows(rows.iter().map(|rm| rm.row.as_ref()), || {
                self.region.batch(rows)
            })
    }

    /// Check-and-mutate; invalidates the row whether or not the condition held.
    ///
    /// # Errors
    /// As `Region::check_and_mutate`.
    pub fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<bool> {
        self.load.note_write(&cam.row);
        self.row_cache
            .write(&cam.row, || self.region.check_and_mutate(cam))
    }

    /// Check-and-mutate returning what the mutations did (`None`: the condition failed);
    /// invalidates the row whether or not the condition held.
    ///
    /// # Errors
    /// As `Region::check_and_mutate_result`.
    pub fn check_and_mutate_result(&self, cam: &CheckAndMutate) -> Result<Option<MutationResult>> {
        self.check_and_mutate_result_nonced(cam, None)
    }

    /// [`check_and_mutate_result`](Self::check_and_mutate_result) of an operation with a
    /// nonce (`Region::check_and_mutate_result_nonced`, RFC 0032).
    pub fn check_and_mutate_result_nonced(
        &self,
        cam: &CheckAndMutate,
        nonce: Option<strata_storage::wal::Nonce>,
    ) -> Result<Option<MutationResult>> {
        self.load.note_write(&cam.row);
        self.row_cache.write(&cam.row, || {
            self.region.check_and_mutate_result_nonced(cam, nonce)
        })
    }
}
