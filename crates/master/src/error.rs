//! Master errors and their wire statuses.

use strata_proto::pb::ErrorCode;
use tonic::Status;

/// What an admin operation can fail with.
#[derive(Debug, thiserror::Error)]
pub enum MasterError {
    /// No such table.
    #[error("table {0} does not exist")]
    TableNotFound(String),
    /// The table exists already.
    #[error("table {0} already exists")]
    TableExists(String),
    /// The operation needs an enabled table.
    #[error("table {0} is disabled")]
    TableDisabled(String),
    /// The operation needs a disabled table.
    #[error("table {0} is enabled; disable it first")]
    TableEnabled(String),
    /// No such region.
    #[error("region {0} does not exist")]
    RegionNotFound(u64),
    /// The namespace exists already.
    #[error("namespace {0} already exists")]
    NamespaceExists(String),
    /// No such namespace.
    #[error("namespace {0} does not exist")]
    NamespaceNotFound(String),
    /// The namespace still holds tables.
    #[error("namespace {0} still holds tables; only empty namespaces can be removed")]
    NamespaceNotEmpty(String),
    /// The request is malformed.
    #[error("{0}")]
    InvalidArgument(String),
    /// The stored catalog is damaged.
    #[error("catalog is damaged: {0}")]
    Corrupt(String),
    /// A file-system operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The storage engine failed.
    #[error(transparent)]
    Storage(#[from] strata_storage::Error),
}

impl MasterError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> MasterError {
        MasterError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// The wire status.
    pub fn to_status(&self) -> Status {
        let code = match self {
            MasterError::TableNotFound(_) => ErrorCode::TableNotFound,
            MasterError::TableExists(_) => ErrorCode::TableExists,
            MasterError::TableDisabled(_) => ErrorCode::TableDisabled,
            MasterError::TableEnabled(_) => ErrorCode::TableEnabled,
            MasterError::RegionNotFound(_) => ErrorCode::RegionNotFound,
            MasterError::InvalidArgument(_)
            | MasterError::NamespaceExists(_)
            | MasterError::NamespaceNotFound(_)
            | MasterError::NamespaceNotEmpty(_) => ErrorCode::InvalidArgument,
            MasterError::Corrupt(_) => ErrorCode::Corruption,
            MasterError::Io { .. } => ErrorCode::Unavailable,
            MasterError::Storage(e) => return strata_server::status::from_storage(e),
        };
        strata_proto::status(code, self.to_string())
    }
}

/// Results of master operations.
pub type Result<T> = std::result::Result<T, MasterError>;
