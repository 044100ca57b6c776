//! Writes to one row: [`Put`], [`Delete`], [`Increment`], [`Append`], and [`Mutation`], any
//! one of them.

mod delete;
mod increment;
mod put;
#[cfg(test)]
mod tests;
mod ttl_attribute;

use bytes::Bytes;

pub use delete::{Delete, DeleteKind, DeleteMarker};
pub use increment::{Append, AppendCell, Increment, IncrementCell};
pub use put::{Put, PutCell};
pub use ttl_attribute::{ttl_from_attribute, TTL_ATTRIBUTE};

use super::OpError;
use crate::schema::Durability;

/// Any single-row write. Each is atomic and isolated within its row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Write values.
    Put(Put),
    /// Write delete markers.
    Delete(Delete),
    /// Add to counters.
    Increment(Increment),
    /// Append to values.
    Append(Append),
}

impl Mutation {
    /// The row written.
    pub fn row(&self) -> &Bytes {
        match self {
            Mutation::Put(m) => &m.row,
            Mutation::Delete(m) => &m.row,
            Mutation::Increment(m) => &m.row,
            Mutation::Append(m) => &m.row,
        }
    }

    /// The requested durability (`USE_DEFAULT` defers to the table).
    pub fn durability(&self) -> Durability {
        match self {
            Mutation::Put(m) => m.durability,
            Mutation::Delete(m) => m.durability,
            Mutation::Increment(m) => m.durability,
            Mutation::Append(m) => m.durability,
        }
    }

    /// `put`, `delete`, `increment` or `append`.
    pub fn kind(&self) -> &'static str {
        match self {
            Mutation::Put(_) => "put",
            Mutation::Delete(_) => "delete",
            Mutation::Increment(_) => "increment",
            Mutation::Append(_) => "append",
        }
    }

    /// Checks the mutation (see each kind's `validate`).
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        match self {
            Mutation::Put(m) => m.validate(),
            Mutation::Delete(m) => m.validate(),
            Mutation::Increment(m) => m.validate(),
            Mutation::Append(m) => m.validate(),
        }
    }
}

impl From<Put> for Mutation {
    fn from(m: Put) -> Self {
        Mutation::Put(m)
    }
}

impl From<Delete> for Mutation {
    fn from(m: Delete) -> Self {
        Mutation::Delete(m)
    }
}

impl From<Increment> for Mutation {
    fn from(m: Increment) -> Self {
        Mutation::Increment(m)
    }
}

impl From<Append> for Mutation {
    fn from(m: Append) -> Self {
        Mutation::Append(m)
    }
}
