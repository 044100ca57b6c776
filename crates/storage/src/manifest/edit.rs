//! [`VersionEdit`]: a batch of changes applied to a [`Version`] all together or not at all.

use bytes::Bytes;

use super::version::{check_family, FamilyFiles, StoreFile, Version};

/// One change to a region's recorded state.
#[derive(Clone, Debug, PartialEq, Eq)]
// A file entry is the large variant; edits are few and short-lived, so it is not boxed.
#[allow(clippy::large_enum_variant)]
pub enum Change {
    /// A new, empty family.
    AddFamily(Bytes),
    /// Forget a family and its files (the caller deletes the files afterwards).
    DropFamily(Bytes),
    /// A new file in a family.
    AddFile {
        /// The family.
        family: Bytes,
        /// The file.
        file: StoreFile,
    },
    /// A file leaves a family (the caller deletes it once no reader uses it).
    RemoveFile {
        /// The family.
        family: Bytes,
        /// The file's name.
        name: String,
    },
    /// Raise a family's flushed sequence id.
    SetFlushedSeqId {
        /// The family.
        family: Bytes,
        /// The new flushed sequence id; never below the current one.
        seq_id: u64,
    },
}

/// An ordered batch of [`Change`]s that a manifest makes durable atomically: a flush adds its
/// file and raises the flushed sequence id; a compaction removes its inputs and adds its outputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionEdit {
    changes: Vec<Change>,
}

impl VersionEdit {
    /// An empty edit.
    pub fn new() -> VersionEdit {
        VersionEdit::default()
    }

    /// Adds a change.
    pub fn push(mut self, change: Change) -> VersionEdit {
        self.changes.push(change);
        self
    }

    /// Adds an empty family.
    pub fn add_family(self, family: impl Into<Bytes>) -> VersionEdit {
        self.push(Change::AddFamily(family.into()))
    }

    /// Drops a family and its files.
    pub fn drop_family(self, family: impl Into<Bytes>) -> VersionEdit {
        self.push(Change::DropFamily(family.into()))
    }

    /// Adds a file to a family.
    pub fn add_file(self, family: impl Into<Bytes>, file: StoreFile) -> VersionEdit {
        self.push(Change::AddFile {
            family: family.into(),
            file,
        })
    }

    /// Removes a file from a family.
    pub fn remove_file(self, family: impl Into<Bytes>, name: impl Into<String>) -> VersionEdit {
        self.push(Change::RemoveFile {
            family: family.into(),
            name: name.into(),
        })
    }

    /// Raises a family's flushed sequence id.
    pub fn set_flushed_seq_id(self, family: impl Into<Bytes>, seq_id: u64) -> VersionEdit {
        self.push(Change::SetFlushedSeqId {
            family: family.into(),
            seq_id,
        })
    }

    /// The changes, in order.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// No changes.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// Why an edit does not apply to a version. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The family does not exist.
    #[error("no family {0:?}")]
    UnknownFamily(Bytes),
    /// The family already exists, or its name is invalid.
    #[error("cannot add family {family:?}: {reason}")]
    BadFamily {
        /// The family.
        family: Bytes,
        /// What was wrong.
        reason: String,
    },
    /// The family already has a file of that name.
    #[error("family {family:?} already has file {name}")]
    FileExists {
        /// The family.
        family: Bytes,
        /// The file.
        name: String,
    },
    /// The family has no file of that name.
    #[error("family {family:?} has no file {name}")]
    UnknownFile {
        /// The family.
        family: Bytes,
        /// The file.
        name: String,
    },
    /// The file entry breaks a rule.
    #[error("invalid file entry: {0}")]
    InvalidFile(String),
    /// A flushed sequence id may only grow.
    #[error("family {family:?}: flushed sequence id {requested} is below {current}")]
    FlushedSeqIdRegressed {
        /// The family.
        family: Bytes,
        /// Its flushed sequence id now.
        current: u64,
        /// The edit's.
        requested: u64,
    },
}

impl Version {
    /// The version after `edit`'s changes, applied in order.
    ///
    /// # Errors
    /// The first change that does not apply; `self` is unchanged either way.
    pub fn apply(&self, edit: &VersionEdit) -> Result<Version, EditError> {
        let mut next = self.clone();
        for change in &edit.changes {
            next.apply_change(change)?;
        }
        Ok(next)
    }

    fn apply_change(&mut self, change: &Change) -> Result<(), EditError> {
        match change {
            Change::AddFamily(family) => {
                let bad = |reason: String| EditError::BadFamily {
                    family: family.clone(),
                    reason,
                };
                check_family(family).map_err(bad)?;
                if self.families.contains_key(family) {
                    return Err(bad("it exists".to_owned()));
                }
                self.families.insert(family.clone(), FamilyFiles::default());
            }
            Change::DropFamily(family) => {
                self.families
                    .remove(family)
                    .ok_or_else(|| EditError::UnknownFamily(family.clone()))?;
            }
            Change::AddFile { family, file } => {
                file.validate().map_err(EditError::InvalidFile)?;
                let f = self.family_mut(family)?;
                if f.files.contains_key(&file.name) {
                    return Err(EditError::FileExists {
                        family: family.clone(),
                        name: file.name.clone(),
                    });
                }
                f.files.insert(file.name.clone(), file.clone());
            }
            Change::RemoveFile { family, name } => {
                self.family_mut(family)?.files.remove(name).ok_or_else(|| {
                    EditError::UnknownFile {
                        family: family.clone(),
                        name: name.clone(),
                    }
                })?;
            }
            Change::SetFlushedSeqId { family, seq_id } => {
                let f = self.family_mut(family)?;
                if *seq_id < f.flushed_seq_id {
                    return Err(EditError::FlushedSeqIdRegressed {
                        family: family.clone(),
                        current: f.flushed_seq_id,
                        requested: *seq_id,
                    });
                }
                f.flushed_seq_id = *seq_id;
            }
        }
        Ok(())
    }

    fn family_mut(&mut self, family: &Bytes) -> Result<&mut FamilyFiles, EditError> {
        self.families
            .get_mut(family)
            .ok_or_else(|| EditError::UnknownFamily(family.clone()))
    }
}
