//! The cursor every cell source implements.

use strata_model::cell::CellKey;
use strata_sstable::{CellRef, Iter, Result};

/// A position in a sorted source of cells (store order), moving forward.
///
/// Moves return `Ok(true)` when positioned on a cell and `Ok(false)` past the end.
pub trait Cursor {
    /// True when positioned on a cell.
    fn valid(&self) -> bool;

    /// The current cell.
    ///
    /// Requires: `valid()`.
    fn current(&self) -> CellRef<'_>;

    /// Positions on the first cell with key ≥ `target`.
    ///
    /// # Errors
    /// I/O or corruption in the source.
    fn seek(&mut self, target: &CellKey) -> Result<bool>;

    /// Positions on the first cell with key ≥ `target`, a target at or after the current
    /// cell of a cursor that got there by forward moves (seeks and `next`): sources already
    /// at or past it need not move. Default: [`seek`](Cursor::seek).
    ///
    /// # Errors
    /// I/O or corruption in the source.
    fn reseek(&mut self, target: &CellKey) -> Result<bool> {
        self.seek(target)
    }

    /// Positions on the first cell.
    ///
    /// # Errors
    /// I/O or corruption in the source.
    fn seek_to_first(&mut self) -> Result<bool>;

    /// Positions on the last cell.
    ///
    /// # Errors
    /// I/O or corruption in the source.
    fn seek_to_last(&mut self) -> Result<bool>;

    /// Positions on the last cell with key ≤ `target`.
    ///
    /// # Errors
    /// I/O or corruption in the source.
    fn seek_for_prev(&mut self, target: &CellKey) -> Result<bool>;

    /// Moves to the next cell.
    ///
    /// # Errors
    /// I/O or corruption in the source.
    fn next(&mut self) -> Result<bool>;
}

impl Cursor for Iter {
    fn valid(&self) -> bool {
        Iter::valid(self)
    }

    fn current(&self) -> CellRef<'_> {
        Iter::current(self)
    }

    fn seek(&mut self, target: &CellKey) -> Result<bool> {
        Iter::seek(self, target)
    }

    fn reseek(&mut self, target: &CellKey) -> Result<bool> {
        Iter::reseek(self, target)
    }

    fn seek_to_first(&mut self) -> Result<bool> {
        Iter::seek_to_first(self)
    }

    fn seek_to_last(&mut self) -> Result<bool> {
        Iter::seek_to_last(self)
    }

    fn seek_for_prev(&mut self, target: &CellKey) -> Result<bool> {
        Iter::seek_for_prev(self, target)
    }

    fn next(&mut self) -> Result<bool> {
        Iter::next(self)
    }
}
