//! [`Increment`] and [`Append`]: read-modify-write of columns in one row.

use bytes::Bytes;

use crate::ops::check::{check_column, check_row, check_value};
use crate::ops::OpError;
use crate::schema::Durability;

/// One column of an [`Increment`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncrementCell {
    /// Column family.
    pub family: Bytes,
    /// Column qualifier.
    pub qualifier: Bytes,
    /// Added to the column's 8-byte big-endian value (an absent column counts as 0).
    pub amount: i64,
}

/// Adds to counters of one row, atomically (HBase's `Increment`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Increment {
    /// The row.
    pub row: Bytes,
    /// The counters. Requires: at least one.
    pub cells: Vec<IncrementCell>,
    /// Durability of this write; `USE_DEFAULT` takes the table's.
    pub durability: Durability,
    /// Return the new values. Default true.
    pub return_results: bool,
    /// Time to live of the written cells in ms from their timestamps (HBase's
    /// `Mutation.setTTL`); `None` keeps the TTL the column's current cell has, as HBase
    /// carries its TTL tag forward.
    pub ttl: Option<u64>,
}

impl Increment {
    /// An increment of `row` with no counters yet.
    pub fn new(row: impl Into<Bytes>) -> Increment {
        Increment {
            row: row.into(),
            cells: Vec::new(),
            durability: Durability::UseDefault,
            return_results: true,
            ttl: None,
        }
    }

    /// Adds `amount` to a counter.
    #[must_use]
    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        amount: i64,
    ) -> Self {
        self.cells.push(IncrementCell {
            family: family.into(),
            qualifier: qualifier.into(),
            amount,
        });
        self
    }

    /// Sets the written cells' own time to live, in ms from their timestamps.
    #[must_use]
    pub fn with_ttl(mut self, ttl_ms: u64) -> Self {
        self.ttl = Some(ttl_ms);
        self
    }

    /// Checks the row and every column.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        check_row(&self.row)?;
        if self.cells.is_empty() {
            return Err(OpError::NoColumns { op: "increment" });
        }
        for c in &self.cells {
            check_column(&c.family, &c.qualifier)?;
        }
        Ok(())
    }
}

/// One column of an [`Append`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppendCell {
    /// Column family.
    pub family: Bytes,
    /// Column qualifier.
    pub qualifier: Bytes,
    /// Appended to the column's latest value (an absent column counts as empty).
    pub value: Bytes,
}

/// Appends bytes to columns of one row, atomically (HBase's `Append`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Append {
    /// The row.
    pub row: Bytes,
    /// The columns. Requires: at least one.
    pub cells: Vec<AppendCell>,
    /// Durability of this write; `USE_DEFAULT` takes the table's.
    pub durability: Durability,
    /// Return the new values. Default true.
    pub return_results: bool,
    /// Time to live of the written cells in ms from their timestamps (HBase's
    /// `Mutation.setTTL`); `None` keeps the TTL the column's current cell has, as HBase
    /// carries its TTL tag forward.
    pub ttl: Option<u64>,
}

impl Append {
    /// An append to `row` with no columns yet.
    pub fn new(row: impl Into<Bytes>) -> Append {
        Append {
            row: row.into(),
            cells: Vec::new(),
            durability: Durability::UseDefault,
            return_results: true,
            ttl: None,
        }
    }

    /// Appends `value` to a column.
    #[must_use]
    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Self {
        self.cells.push(AppendCell {
            family: family.into(),
            qualifier: qualifier.into(),
            value: value.into(),
        });
        self
    }

    /// Sets the written cells' own time to live, in ms from their timestamps.
    #[must_use]
    pub fn with_ttl(mut self, ttl_ms: u64) -> Self {
        self.ttl = Some(ttl_ms);
        self
    }

    /// Checks the row, every column and value.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        check_row(&self.row)?;
        if self.cells.is_empty() {
            return Err(OpError::NoColumns { op: "append" });
        }
        for c in &self.cells {
            check_column(&c.family, &c.qualifier)?;
            check_value(&c.value)?;
        }
        Ok(())
    }
}
