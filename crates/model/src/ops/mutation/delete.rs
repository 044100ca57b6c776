//! [`Delete`]: write delete markers into one row.

use bytes::Bytes;

use crate::cell::{CellType, Timestamp};
use crate::ops::check::{check_column, check_family, check_row, check_timestamp};
use crate::ops::OpError;
use crate::schema::Durability;

/// Which of the four delete markers (ARCHITECTURE.md, "Data model").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeleteKind {
    /// `Delete`: one version of one column (the latest if no timestamp is given).
    Version,
    /// `DeleteColumn`: every version of one column at or before the timestamp.
    Column,
    /// `DeleteFamily`: every column of the family at or before the timestamp.
    Family,
    /// `DeleteFamilyVersion`: exactly the timestamp, in every column of the family.
    FamilyVersion,
}

impl DeleteKind {
    /// The marker's cell type.
    pub fn cell_type(self) -> CellType {
        match self {
            DeleteKind::Version => CellType::Delete,
            DeleteKind::Column => CellType::DeleteColumn,
            DeleteKind::Family => CellType::DeleteFamily,
            DeleteKind::FamilyVersion => CellType::DeleteFamilyVersion,
        }
    }

    /// True for the kinds that apply to a whole family (and take no qualifier).
    pub fn is_family(self) -> bool {
        self.cell_type().is_family_delete()
    }
}

/// One marker of a [`Delete`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeleteMarker {
    /// What the marker masks.
    pub kind: DeleteKind,
    /// Column family.
    pub family: Bytes,
    /// Column qualifier. Requires: empty for family kinds.
    pub qualifier: Bytes,
    /// The marker's timestamp; `None` means the server's now (for `Version`: the latest
    /// version). Requires: `Some` for `FamilyVersion`.
    pub timestamp: Option<Timestamp>,
}

/// Deletes cells of one row, atomically (HBase's `Delete`). With no markers it deletes the
/// whole row: every family at or before `timestamp`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delete {
    /// The row.
    pub row: Bytes,
    /// The markers; empty means the whole row.
    pub markers: Vec<DeleteMarker>,
    /// For a whole-row delete, the newest timestamp deleted; `None` means now.
    pub timestamp: Option<Timestamp>,
    /// Durability of this write; `USE_DEFAULT` takes the table's.
    pub durability: Durability,
}

impl Delete {
    /// A delete of the whole row `row`; add markers to narrow it.
    pub fn new(row: impl Into<Bytes>) -> Delete {
        Delete {
            row: row.into(),
            markers: Vec::new(),
            timestamp: None,
            durability: Durability::UseDefault,
        }
    }

    fn mark(
        mut self,
        kind: DeleteKind,
        family: impl Into<Bytes>,
        qualifier: Bytes,
        timestamp: Option<Timestamp>,
    ) -> Self {
        self.markers.push(DeleteMarker {
            kind,
            family: family.into(),
            qualifier,
            timestamp,
        });
        self
    }

    /// Deletes the latest version of a column.
    #[must_use]
    pub fn version(self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.mark(DeleteKind::Version, family, qualifier.into(), None)
    }

    /// Deletes the version of a column at exactly `ts`.
    #[must_use]
    pub fn version_at(
        self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        ts: Timestamp,
    ) -> Self {
        self.mark(DeleteKind::Version, family, qualifier.into(), Some(ts))
    }

    /// Deletes every version of a column.
    #[must_use]
    pub fn column(self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.mark(DeleteKind::Column, family, qualifier.into(), None)
    }

    /// Deletes every version of a column at or before `ts`.
    #[must_use]
    pub fn column_upto(
        self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        ts: Timestamp,
    ) -> Self {
        self.mark(DeleteKind::Column, family, qualifier.into(), Some(ts))
    }

    /// Deletes every column of a family.
    #[must_use]
    pub fn family(self, family: impl Into<Bytes>) -> Self {
        self.mark(DeleteKind::Family, family, Bytes::new(), None)
    }

    /// Deletes every column of a family at or before `ts`.
    #[must_use]
    pub fn family_upto(self, family: impl Into<Bytes>, ts: Timestamp) -> Self {
        self.mark(DeleteKind::Family, family, Bytes::new(), Some(ts))
    }

    /// Deletes the versions at exactly `ts` in every column of a family.
    #[must_use]
    pub fn family_version(self, family: impl Into<Bytes>, ts: Timestamp) -> Self {
        self.mark(DeleteKind::FamilyVersion, family, Bytes::new(), Some(ts))
    }

    /// Sets the durability.
    #[must_use]
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Checks the row, every marker's column and timestamp, and the kind's requirements.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        check_row(&self.row)?;
        check_timestamp(self.timestamp)?;
        for m in &self.markers {
            let kind = m.kind.cell_type().name();
            if m.kind.is_family() {
                check_family(&m.family)?;
                if !m.qualifier.is_empty() {
                    let reason = "a family marker takes no qualifier";
                    return Err(OpError::BadDelete { kind, reason });
                }
            } else {
                check_column(&m.family, &m.qualifier)?;
            }
            if m.kind == DeleteKind::FamilyVersion && m.timestamp.is_none() {
                let reason = "needs a timestamp";
                return Err(OpError::BadDelete { kind, reason });
            }
            check_timestamp(m.timestamp)?;
        }
        Ok(())
    }
}
