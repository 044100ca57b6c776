//! [`Error`]: what every client call returns on failure, an [`ErrorCode`] the caller can act on
//! and a message for people.

use std::fmt;

use strata_model::ops::OpError;
use strata_proto::pb::ErrorCode;
use tonic::Status;

/// A failed client call: the server's (or the client's) error code and a message.
///
/// The code says what to do: `NOT_SERVING_REGION`, `REGION_TOO_BUSY`, `UNAVAILABLE` and
/// `THROTTLED` are worth retrying later (the client already retried them as its options
/// allow); the others will fail again unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", code_name(*code))]
pub struct Error {
    /// What went wrong, as a code.
    pub code: ErrorCode,
    /// What went wrong, in words.
    pub message: String,
    /// The request was never sent (the connection could not be made, or broke before the
    /// request was handed to it): it cannot have been applied, so any request may be sent
    /// again after it.
    unsent: bool,
}

/// Metadata a client-made status carries when its request was never sent.
const UNSENT_METADATA_KEY: &str = "strata-unsent";

/// Marks `status` (made by the client for a failed connect) as one whose request was never
/// sent.
pub(crate) fn unsent(mut status: Status) -> Status {
    status.metadata_mut().insert(
        UNSENT_METADATA_KEY,
        tonic::metadata::MetadataValue::from_static("1"),
    );
    status
}

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            unsent: false,
        }
    }

    /// An `INVALID_ARGUMENT` error.
    pub fn invalid(message: impl fmt::Display) -> Error {
        Error::new(ErrorCode::InvalidArgument, message.to_string())
    }

    /// An error from a gRPC status, with the code from its metadata (see
    /// [`strata_proto::code_of`]). A status the transport made for a connection lost
    /// mid-request (gRPC `UNKNOWN` with a transport error as its source, no code from a
    /// server) is `UNAVAILABLE`: the server may be gone, and only requests safe to repeat are
    /// retried after it.
    ///
    /// A refusal by TLS (a failed handshake, or a TLS server refusing a plaintext client) is
    /// `UNKNOWN`, not retried: it fails the same way until the configuration changes.
    pub fn from_status(status: &Status) -> Error {
        let mut unsent = status.metadata().contains_key(UNSENT_METADATA_KEY);
        if std::error::Error::source(status).is_some() {
            let text = strata_proto::channel::explain(status);
            if strata_proto::channel::refused_by_tls(&text) {
                return Error::new(ErrorCode::Unknown, text);
            }
            // gRPC's connector failed before a request could go out.
            unsent |= text.contains("tcp connect error");
        }
        let mut code = strata_proto::code_of(status);
        let from_server = status
            .metadata()
            .contains_key(strata_proto::ERROR_METADATA_KEY);
        if code == ErrorCode::Unknown
            && !from_server
            && (std::error::Error::source(status).is_some()
                || status.message() == "transport error")
        {
            code = ErrorCode::Unavailable;
        }
        Error {
            unsent,
            ..Error::new(code, status.message())
        }
    }

    /// True if the request was never sent, so it cannot have been applied.
    pub fn was_unsent(&self) -> bool {
        self.unsent
    }

    /// An `UNKNOWN` error for a response the client cannot read.
    pub(crate) fn bad_response(message: impl fmt::Display) -> Error {
        Error::new(ErrorCode::Unknown, format!("bad response: {message}"))
    }

    /// True for `TABLE_NOT_FOUND`, `REGION_NOT_FOUND` and `NAMESPACE_NOT_FOUND`.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self.code,
            ErrorCode::TableNotFound | ErrorCode::RegionNotFound | ErrorCode::NamespaceNotFound
        )
    }

    /// True for `INVALID_ARGUMENT` and `NO_SUCH_FAMILY`: the request itself is wrong.
    pub fn is_invalid_argument(&self) -> bool {
        matches!(
            self.code,
            ErrorCode::InvalidArgument | ErrorCode::NoSuchFamily
        )
    }

    /// True if the same request may succeed later (see [`strata_proto::error::is_retryable`]).
    pub fn is_retryable(&self) -> bool {
        strata_proto::error::is_retryable(self.code)
    }
}

impl From<Status> for Error {
    fn from(status: Status) -> Error {
        Error::from_status(&status)
    }
}

impl From<OpError> for Error {
    fn from(e: OpError) -> Error {
        Error::invalid(e)
    }
}

/// `NOT_SERVING_REGION` for `ERROR_CODE_NOT_SERVING_REGION`.
fn code_name(code: ErrorCode) -> &'static str {
    let name = code.as_str_name();
    name.strip_prefix("ERROR_CODE_").unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_connection_is_unavailable() {
        let lost = Status::new(tonic::Code::Unknown, "transport error");
        assert_eq!(Error::from_status(&lost).code, ErrorCode::Unavailable);
        let from_server = strata_proto::status(ErrorCode::Unknown, "internal error: x");
        assert_eq!(Error::from_status(&from_server).code, ErrorCode::Unknown);
    }

    #[test]
    fn display_names_the_code() {
        let e = Error::new(ErrorCode::NotServingRegion, "region 7 moved");
        assert_eq!(e.to_string(), "NOT_SERVING_REGION: region 7 moved");
        assert!(e.is_retryable());
    }

    #[test]
    fn status_metadata_sets_the_code() {
        let s = strata_proto::status(ErrorCode::TableNotFound, "no table t");
        let e = Error::from(s);
        assert!(e.is_not_found());
        assert_eq!(e.message, "no table t");
        let e = Error::from(Status::unavailable("connection refused"));
        assert_eq!(e.code, ErrorCode::Unavailable);
    }
}
