//! [`Put`]: write values into one row.

use bytes::Bytes;

use crate::cell::Timestamp;
use crate::ops::check::{check_column, check_row, check_timestamp, check_value};
use crate::ops::OpError;
use crate::schema::Durability;

/// One value of a [`Put`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PutCell {
    /// Column family.
    pub family: Bytes,
    /// Column qualifier.
    pub qualifier: Bytes,
    /// Version timestamp; `None` lets the server use its clock.
    pub timestamp: Option<Timestamp>,
    /// The value.
    pub value: Bytes,
}

/// Writes values into one row, atomically (HBase's `Put`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Put {
    /// The row.
    pub row: Bytes,
    /// The values. Requires: at least one.
    pub cells: Vec<PutCell>,
    /// Durability of this write; `USE_DEFAULT` takes the table's.
    pub durability: Durability,
    /// Time to live of the written cells in ms from their timestamps (HBase's
    /// `Mutation.setTTL`); it can only shorten the family's TTL. `None` for none.
    pub ttl: Option<u64>,
}

impl Put {
    /// A put on `row` with no values yet.
    pub fn new(row: impl Into<Bytes>) -> Put {
        Put {
            row: row.into(),
            cells: Vec::new(),
            durability: Durability::UseDefault,
            ttl: None,
        }
    }

    /// Adds a value stamped with the server's clock.
    #[must_use]
    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Self {
        self.cells.push(PutCell {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp: None,
            value: value.into(),
        });
        self
    }

    /// Adds a value with an explicit timestamp.
    #[must_use]
    pub fn add_at(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: Timestamp,
        value: impl Into<Bytes>,
    ) -> Self {
        self.cells.push(PutCell {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp: Some(timestamp),
            value: value.into(),
        });
        self
    }

    /// Sets the durability.
    #[must_use]
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Sets the written cells' own time to live, in ms from their timestamps.
    #[must_use]
    pub fn with_ttl(mut self, ttl_ms: u64) -> Self {
        self.ttl = Some(ttl_ms);
        self
    }

    /// Checks the row, every column, timestamp and value.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        check_row(&self.row)?;
        if self.cells.is_empty() {
            return Err(OpError::NoColumns { op: "put" });
        }
        for c in &self.cells {
            check_column(&c.family, &c.qualifier)?;
            check_timestamp(c.timestamp)?;
            check_value(&c.value)?;
        }
        Ok(())
    }
}
