//! Error codes on the wire: a gRPC status carries a [`pb::ErrorCode`] name in the
//! `strata-error` metadata key, so a client can tell "look the region up again" from "fix the
//! request" without parsing messages.

use tonic::metadata::MetadataValue;
use tonic::{Code, Status};

use crate::pb::ErrorCode;

/// The metadata key that carries the error code's name.
pub const ERROR_METADATA_KEY: &str = "strata-error";

/// The gRPC code that best matches `code` (for clients that only look at it).
pub fn grpc_code(code: ErrorCode) -> Code {
    match code {
        ErrorCode::InvalidArgument | ErrorCode::NoSuchFamily => Code::InvalidArgument,
        ErrorCode::TableNotFound
        | ErrorCode::RegionNotFound
        | ErrorCode::NamespaceNotFound
        | ErrorCode::SnapshotNotFound => Code::NotFound,
        ErrorCode::TableExists | ErrorCode::NamespaceExists | ErrorCode::SnapshotExists => {
            Code::AlreadyExists
        }
        ErrorCode::TableDisabled | ErrorCode::TableEnabled | ErrorCode::Constraint => {
            Code::FailedPrecondition
        }
        ErrorCode::QuotaExceeded | ErrorCode::Throttled | ErrorCode::SpaceLimited => {
            Code::ResourceExhausted
        }
        ErrorCode::NotServingRegion | ErrorCode::RegionTooBusy | ErrorCode::Unavailable => {
            Code::Unavailable
        }
        ErrorCode::Corruption => Code::DataLoss,
        ErrorCode::AccessDenied => Code::PermissionDenied,
        ErrorCode::Unknown => Code::Internal,
    }
}

/// A status with `code` in its metadata and `message` as its text.
pub fn status(code: ErrorCode, message: impl Into<String>) -> Status {
    let mut status = Status::new(grpc_code(code), message);
    status.metadata_mut().insert(
        ERROR_METADATA_KEY,
        MetadataValue::from_static(code.as_str_name()),
    );
    status
}

/// The error code of a status: from its metadata, else guessed from the gRPC code (a status
/// made by the transport, such as a refused connection, is `UNAVAILABLE`).
pub fn code_of(status: &Status) -> ErrorCode {
    if let Some(code) = status
        .metadata()
        .get(ERROR_METADATA_KEY)
        .and_then(|v| v.to_str().ok())
        .and_then(ErrorCode::from_str_name)
    {
        return code;
    }
    match status.code() {
        Code::InvalidArgument | Code::OutOfRange => ErrorCode::InvalidArgument,
        Code::NotFound => ErrorCode::TableNotFound,
        Code::AlreadyExists => ErrorCode::TableExists,
        Code::Unavailable | Code::DeadlineExceeded | Code::Aborted | Code::ResourceExhausted => {
            ErrorCode::Unavailable
        }
        Code::DataLoss => ErrorCode::Corruption,
        Code::PermissionDenied | Code::Unauthenticated => ErrorCode::AccessDenied,
        _ => ErrorCode::Unknown,
    }
}

/// True for codes after which the same request may succeed if retried (after relocating the
/// region for `NOT_SERVING_REGION`; after the wait its message names for `THROTTLED`).
pub fn is_retryable(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::NotServingRegion
            | ErrorCode::RegionTooBusy
            | ErrorCode::Unavailable
            | ErrorCode::Throttled
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_survive_a_status() {
        for code in [
            ErrorCode::InvalidArgument,
            ErrorCode::TableNotFound,
            ErrorCode::TableExists,
            ErrorCode::TableDisabled,
            ErrorCode::TableEnabled,
            ErrorCode::NoSuchFamily,
            ErrorCode::NotServingRegion,
            ErrorCode::RegionTooBusy,
            ErrorCode::Unavailable,
            ErrorCode::Corruption,
            ErrorCode::RegionNotFound,
            ErrorCode::NamespaceNotFound,
            ErrorCode::NamespaceExists,
            ErrorCode::Constraint,
            ErrorCode::QuotaExceeded,
            ErrorCode::SnapshotExists,
            ErrorCode::AccessDenied,
            ErrorCode::SnapshotNotFound,
            ErrorCode::Throttled,
            ErrorCode::SpaceLimited,
        ] {
            let s = status(code, "x");
            assert_eq!(code_of(&s), code);
            assert_eq!(s.message(), "x");
        }
    }

    #[test]
    fn transport_errors_are_unavailable() {
        assert_eq!(
            code_of(&Status::unavailable("refused")),
            ErrorCode::Unavailable
        );
        assert!(is_retryable(ErrorCode::NotServingRegion));
        assert!(!is_retryable(ErrorCode::NoSuchFamily));
    }
}
