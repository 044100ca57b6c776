//! [`ThriftError`]: the exceptions of HBase's Thrift1 IDL, and how client errors map to them.

use strata_client::Error;
use strata_proto::pb::ErrorCode;

use crate::protocol::{Struct, Value};

/// An exception a Thrift1 method throws.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ThriftError {
    /// `IOError {1: message, 2: canRetry}`: the request failed; nothing says it was wrong.
    #[error("IOError: {message}")]
    Io {
        /// What went wrong.
        message: String,
        /// True if the same request may succeed later.
        can_retry: bool,
    },
    /// `IllegalArgument {1: message}`: the request itself is wrong; nothing was changed.
    #[error("IllegalArgument: {0}")]
    IllegalArgument(String),
    /// `AlreadyExists {1: message}` (createTable only).
    #[error("AlreadyExists: {0}")]
    AlreadyExists(String),
}

impl ThriftError {
    /// An `IOError` that will fail again.
    pub fn io(message: impl Into<String>) -> ThriftError {
        ThriftError::Io {
            message: message.into(),
            can_retry: false,
        }
    }

    /// An `IllegalArgument`.
    pub fn illegal(message: impl Into<String>) -> ThriftError {
        ThriftError::IllegalArgument(message.into())
    }

    /// The result struct carrying this exception, for a method declaring `IllegalArgument`
    /// (field 2) and `AlreadyExists` (field 3) as told; undeclared ones become `IOError`
    /// (field 1), which every method declares.
    pub fn to_result(&self, declares_illegal: bool, declares_exists: bool) -> Struct {
        let message = |m: &str| Value::binary(m.as_bytes().to_vec());
        match self {
            ThriftError::IllegalArgument(m) if declares_illegal => {
                Struct::new().with(2, Value::Struct(Struct::new().with(1, message(m))))
            }
            ThriftError::AlreadyExists(m) if declares_exists => {
                Struct::new().with(3, Value::Struct(Struct::new().with(1, message(m))))
            }
            ThriftError::Io {
                message: m,
                can_retry,
            } => io_result(message(m), *can_retry),
            ThriftError::IllegalArgument(m) | ThriftError::AlreadyExists(m) => {
                io_result(message(m), false)
            }
        }
    }
}

fn io_result(message: Value, can_retry: bool) -> Struct {
    let io = Struct::new()
        .with(1, message)
        .with(2, Value::Bool(can_retry));
    Struct::new().with(1, Value::Struct(io))
}

impl From<Error> for ThriftError {
    fn from(e: Error) -> ThriftError {
        if e.is_invalid_argument() {
            ThriftError::IllegalArgument(e.to_string())
        } else if e.code == ErrorCode::TableExists {
            ThriftError::AlreadyExists(e.to_string())
        } else {
            ThriftError::Io {
                can_retry: e.is_retryable(),
                message: e.to_string(),
            }
        }
    }
}

impl From<strata_model::ops::OpError> for ThriftError {
    fn from(e: strata_model::ops::OpError) -> ThriftError {
        ThriftError::IllegalArgument(e.to_string())
    }
}

/// The result of a Thrift method.
pub type Result<T> = std::result::Result<T, ThriftError>;
