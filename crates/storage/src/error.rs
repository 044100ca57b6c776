//! Errors of the region engine, with a small [`ErrorKind`] that tells the caller what to do.

use strata_model::ops::OpError;

/// What went wrong in a region operation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request is malformed (oversized row, bad time range, row outside the region, …);
    /// nothing was written.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The request names a family the table does not have; nothing was written.
    #[error("no such column family: {0}")]
    NoSuchFamily(String),
    /// The row is not in this region's range (the caller's region cache is stale).
    #[error("row {row} is outside region {region} [{start}, {end})")]
    WrongRegion {
        /// The row, escaped.
        row: String,
        /// The region id.
        region: u64,
        /// Start row, escaped.
        start: String,
        /// End row, escaped (empty: unbounded).
        end: String,
    },
    /// The region is closed or closing.
    #[error("region {0} is closed")]
    Closed(u64),
    /// The write-ahead log failed (the write that needed it was not applied).
    #[error(transparent)]
    Wal(#[from] crate::wal::Error),
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] crate::manifest::Error),
    /// A store file failed (I/O or corruption).
    #[error(transparent)]
    Sstable(#[from] strata_sstable::Error),
    /// A file-system operation outside the WAL, manifest and store files failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl From<OpError> for Error {
    fn from(e: OpError) -> Error {
        Error::InvalidArgument(e.to_string())
    }
}

/// What a caller can do about an [`Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Fix the request.
    Invalid,
    /// Relocate the region and retry elsewhere.
    WrongRegion,
    /// Retry later (I/O, a full disk, a closed region being reopened).
    Unavailable,
    /// Data is damaged; an operator must look.
    Data,
}

impl Error {
    /// The caller-facing classification.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidArgument(_) | Error::NoSuchFamily(_) => ErrorKind::Invalid,
            Error::WrongRegion { .. } => ErrorKind::WrongRegion,
            Error::Closed(_) | Error::Io { .. } | Error::Wal(_) | Error::Manifest(_) => {
                ErrorKind::Unavailable
            }
            Error::Sstable(e) => match e.kind() {
                strata_sstable::ErrorKind::Data => ErrorKind::Data,
                strata_sstable::ErrorKind::Invalid => ErrorKind::Invalid,
                strata_sstable::ErrorKind::Unavailable => ErrorKind::Unavailable,
            },
        }
    }

    /// True if a store-file read was refused because the operation ran inside
    /// [`strata_sstable::cache_only::cache_only`] and the block was not cached: run the
    /// operation again where it may block. Nothing was changed.
    pub fn is_would_block(&self) -> bool {
        matches!(self, Error::Sstable(e) if strata_sstable::cache_only::is_would_block(e))
    }

    /// True for a file-system error saying the path does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }

    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// Result of region operations.
pub type Result<T> = std::result::Result<T, Error>;
