//! Errors of the write-ahead log. A corruption names the file and the byte offset; an I/O
//! failure names the operation and the file.

use std::io;
use std::path::Path;
use std::sync::Arc;

/// What went wrong in the WAL.
///
/// `Clone` because one failed write fails every appender of its batch: each gets a copy.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Error {
    /// The operating system failed an operation on a WAL file (a full disk, a failed fsync).
    /// For a failed append, nothing of the batch is in the log and later appends work again
    /// once the cause is gone.
    #[error("wal {op} failed on {file}: {source}")]
    Io {
        /// What the WAL was doing: "write", "sync", "create", "truncate", "read", "remove",
        /// "list".
        op: &'static str,
        /// The file or directory.
        file: String,
        /// The underlying error.
        #[source]
        source: Arc<io::Error>,
    },
    /// The bytes of a segment are not a valid WAL: a checksum failed in the middle of the log,
    /// a header is damaged, a record does not decode. Open with
    /// [`WalOptions::skip_corrupt`](super::WalOptions::skip_corrupt) to skip such records.
    #[error("{file}: corrupt wal at offset {offset}: {reason}")]
    Corruption {
        /// The segment file.
        file: String,
        /// Byte offset in the file where the bad bytes start.
        offset: u64,
        /// What was wrong.
        reason: String,
    },
    /// The caller broke a contract (an oversized entry, a bad option).
    #[error("wal: invalid argument: {0}")]
    InvalidArgument(String),
    /// The WAL was closed; nothing more is accepted.
    #[error("wal is closed")]
    Closed,
}

/// What a caller can do about an [`Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The write was not logged; retrying may succeed once the disk has room or recovers.
    Unavailable,
    /// A segment is damaged: restore it, or reopen skipping corrupt records (losing them).
    Data,
    /// Fix the request or the options.
    Invalid,
    /// The WAL is closed; reopen it.
    Closed,
}

impl Error {
    /// The caller-facing classification.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io { .. } => ErrorKind::Unavailable,
            Error::Corruption { .. } => ErrorKind::Data,
            Error::InvalidArgument(_) => ErrorKind::Invalid,
            Error::Closed => ErrorKind::Closed,
        }
    }

    /// True when the error is the disk being full (`ENOSPC` or `EDQUOT`).
    pub fn is_disk_full(&self) -> bool {
        match self {
            Error::Io { source, .. } => matches!(
                source.kind(),
                io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
            ),
            _ => false,
        }
    }

    pub(crate) fn io(op: &'static str, file: &Path, source: io::Error) -> Error {
        Error::Io {
            op,
            file: file.display().to_string(),
            source: Arc::new(source),
        }
    }

    pub(crate) fn corruption(file: &Path, offset: u64, reason: impl Into<String>) -> Error {
        Error::Corruption {
            file: file.display().to_string(),
            offset,
            reason: reason.into(),
        }
    }
}

/// Result of WAL operations.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_full_is_unavailable_and_says_so() {
        let e = Error::io(
            "write",
            Path::new("/w/1.wal"),
            io::Error::from_raw_os_error(28),
        );
        assert!(e.is_disk_full());
        assert_eq!(e.kind(), ErrorKind::Unavailable);
        let text = e.to_string();
        assert!(text.starts_with("wal write failed on /w/1.wal: "), "{text}");
        assert!(text.contains("No space left on device"), "{text}");
    }
}
