//! Errors of manifest operations. Every I/O failure and corruption names the file.

use std::io;

use super::edit::EditError;

/// What went wrong creating, opening or updating a manifest.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file system failed an operation.
    #[error("{file}: I/O error: {source}")]
    Io {
        /// The file (or `.` for the directory).
        file: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The current manifest is damaged. Older manifests are not used in its place: they may
    /// lack files that compactions have since deleted.
    #[error("{file}: corrupt manifest at offset {offset}: {reason}")]
    Corruption {
        /// The file.
        file: String,
        /// Byte offset of the record where the damage was found.
        offset: u64,
        /// What was wrong.
        reason: String,
    },
    /// The manifest was written by a newer Strata in a format this one cannot read.
    #[error("{file}: manifest format version {version} is newer than this build reads")]
    UnsupportedVersion {
        /// The file.
        file: String,
        /// Its format version.
        version: u32,
    },
    /// Open found no manifest: the region was never created (or its creation did not finish).
    #[error("no manifest in the directory")]
    NotFound,
    /// Create found a manifest already.
    #[error("{file}: a manifest exists already")]
    AlreadyExists {
        /// The existing manifest.
        file: String,
    },
    /// The edit does not apply to the current version; nothing was written.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// An earlier update failed midway, so the durable state is unknown; reopen the manifest.
    #[error("an earlier manifest write failed; reopen the region")]
    Poisoned,
}

/// What a caller can do about an [`Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Retry may help (I/O).
    Unavailable,
    /// The manifest is damaged or unreadable; restore the region from a replica or backup.
    Data,
    /// Fix the request (a bad edit, creating twice, opening a region that does not exist).
    Invalid,
    /// This handle is unusable; reopen the region.
    Closed,
}

impl Error {
    /// The caller-facing classification.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io { .. } => ErrorKind::Unavailable,
            Error::Corruption { .. } | Error::UnsupportedVersion { .. } => ErrorKind::Data,
            Error::NotFound | Error::AlreadyExists { .. } | Error::Edit(_) => ErrorKind::Invalid,
            Error::Poisoned => ErrorKind::Closed,
        }
    }

    pub(crate) fn io(file: &str) -> impl FnOnce(io::Error) -> Error + '_ {
        move |source| Error::Io {
            file: file.to_owned(),
            source,
        }
    }
}

/// Result of manifest operations.
pub type Result<T> = std::result::Result<T, Error>;
