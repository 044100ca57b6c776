//! [`RowMutations`]: several mutations of one row applied as one atomic step.

use bytes::Bytes;

use super::check::{check_row, escape};
use super::{Mutation, OpError};

/// Mutations of one row applied atomically and in order (HBase's `RowMutations`): a reader
/// sees all of them or none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowMutations {
    /// The row. Requires: every mutation's row equals it.
    pub row: Bytes,
    /// The mutations, in application order. Requires: at least one.
    pub mutations: Vec<Mutation>,
}

impl RowMutations {
    /// An empty group for `row`.
    pub fn new(row: impl Into<Bytes>) -> RowMutations {
        RowMutations {
            row: row.into(),
            mutations: Vec::new(),
        }
    }

    /// Appends a mutation.
    ///
    /// # Errors
    /// [`OpError::RowMismatch`] if it names another row; the group is unchanged then.
    pub fn add(&mut self, mutation: impl Into<Mutation>) -> Result<(), OpError> {
        let mutation = mutation.into();
        self.check_row_of(&mutation)?;
        self.mutations.push(mutation);
        Ok(())
    }

    /// Appends a mutation, builder-style.
    ///
    /// # Errors
    /// [`OpError::RowMismatch`] if it names another row.
    pub fn with(mut self, mutation: impl Into<Mutation>) -> Result<Self, OpError> {
        self.add(mutation)?;
        Ok(self)
    }

    /// Checks the row, that the group is non-empty, and every mutation.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        check_row(&self.row)?;
        if self.mutations.is_empty() {
            return Err(OpError::EmptyRowMutations {
                row: escape(&self.row),
            });
        }
        for m in &self.mutations {
            self.check_row_of(m)?;
            m.validate()?;
        }
        Ok(())
    }

    fn check_row_of(&self, mutation: &Mutation) -> Result<(), OpError> {
        if mutation.row() != &self.row {
            return Err(OpError::RowMismatch {
                expected: escape(&self.row),
                found: escape(mutation.row()),
            });
        }
        Ok(())
    }
}

impl From<Mutation> for RowMutations {
    fn from(m: Mutation) -> Self {
        RowMutations {
            row: m.row().clone(),
            mutations: vec![m],
        }
    }
}
