//! Errors of the store-file layer. Every corruption names the file and the byte offset.

use std::io;

/// What went wrong reading or writing a store file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The operating system failed a read or write.
    #[error("{file}: I/O error: {source}")]
    Io {
        /// The file.
        file: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The bytes are not a valid store file: a checksum failed, a length is out of range, a
    /// field is unknown. Nothing from the file should be trusted past this point.
    #[error("{file}: corrupt store file at offset {offset}: {reason}")]
    Corruption {
        /// The file.
        file: String,
        /// Byte offset in the file where the bad structure starts.
        offset: u64,
        /// What was wrong.
        reason: String,
    },
    /// The caller broke a contract (cells out of order, an oversized key, a bad option).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// What a caller can do about an [`Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Retry may help (I/O).
    Unavailable,
    /// The file is damaged; quarantine it and restore from a replica or backup.
    Data,
    /// Fix the request.
    Invalid,
}

impl Error {
    /// The caller-facing classification.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io { .. } => ErrorKind::Unavailable,
            Error::Corruption { .. } => ErrorKind::Data,
            Error::InvalidArgument(_) => ErrorKind::Invalid,
        }
    }

    pub(crate) fn corruption(file: &str, offset: u64, reason: impl Into<String>) -> Error {
        Error::Corruption {
            file: file.to_owned(),
            offset,
            reason: reason.into(),
        }
    }

    pub(crate) fn io(file: &str, source: io::Error) -> Error {
        Error::Io {
            file: file.to_owned(),
            source,
        }
    }
}

/// Result of store-file operations.
pub type Result<T> = std::result::Result<T, Error>;
