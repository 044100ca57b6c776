//! Engine errors as wire statuses with an actionable [`ErrorCode`].

use strata_proto::pb::ErrorCode;
use strata_proto::status;
use strata_storage::{Error, ErrorKind};
use tonic::Status;

/// The status for an engine error.
pub fn from_storage(e: &Error) -> Status {
    let code = match e {
        Error::NoSuchFamily(_) => ErrorCode::NoSuchFamily,
        // A row outside the region or a closed (splitting, moving) region: relocate, retry.
        Error::WrongRegion { .. } | Error::Closed(_) => ErrorCode::NotServingRegion,
        _ => match e.kind() {
            ErrorKind::Invalid => ErrorCode::InvalidArgument,
            ErrorKind::WrongRegion => ErrorCode::NotServingRegion,
            ErrorKind::Unavailable => ErrorCode::Unavailable,
            ErrorKind::Data => ErrorCode::Corruption,
        },
    };
    status(code, e.to_string())
}

/// An invalid-argument status.
pub fn invalid(message: impl std::fmt::Display) -> Status {
    status(ErrorCode::InvalidArgument, message.to_string())
}

/// No region of `table` here covers `row`.
pub fn not_serving(table: &str, row: &[u8]) -> Status {
    status(
        ErrorCode::NotServingRegion,
        format!(
            "no region of {table} serving row '{}' here",
            strata_model::ops::escape(row)
        ),
    )
}

/// A worker task died (a bug): reported, never a crash of the server.
pub fn internal(e: impl std::fmt::Display) -> Status {
    status(ErrorCode::Unknown, format!("internal error: {e}"))
}

/// The status of a refusal by the access guard (HBase's `AccessDeniedException`).
pub fn denied(d: strata_access::Denied) -> Status {
    status(ErrorCode::AccessDenied, d.message)
}

/// `THROTTLED`: a throttle refused the request before it ran (RFC 0029); the message is
/// HBase's `RpcThrottlingException`'s, ending in the wait.
pub fn throttled(t: strata_access::quota::Throttled) -> Status {
    strata_proto::status(ErrorCode::Throttled, t.to_string())
}

/// `SPACE_LIMITED`: a space quota in violation refused the write or bulk load (RFC 0029);
/// the message is HBase's `SpaceLimitingException`'s, the policy's name first.
pub fn space_limited(s: strata_access::quota::SpaceLimited) -> Status {
    strata_proto::status(ErrorCode::SpaceLimited, s.to_string())
}
