//! Why a TLS configuration could not be made from its files.

use std::path::{Path, PathBuf};

/// A configuration's files are missing, unreadable, empty or inconsistent. The message names
/// the file and the setting it came from, for an operator to fix.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file cannot be read.
    #[error("{what} {}: {source}", path.display())]
    Read {
        /// What the file is for ("TLS certificate file", ...).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        source: std::io::Error,
    },
    /// The file was read but does not hold what it should.
    #[error("{what} {}: {why}", path.display())]
    Content {
        /// What the file is for.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The certificate and key do not belong together, or rustls refused them.
    #[error("{0}")]
    Config(String),
}

impl Error {
    pub(crate) fn content(what: &'static str, path: &Path, why: impl Into<String>) -> Error {
        Error::Content {
            what,
            path: path.to_path_buf(),
            why: why.into(),
        }
    }
}
