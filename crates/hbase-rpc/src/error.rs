//! Errors as the HBase client expects them: a Java exception class name it instantiates and
//! acts on (relocate, back off, fail at once), a message, and whether to retry.

use strata_storage::{Error as StorageError, ErrorKind};

use crate::pb;

const NOT_SERVING: &str = "org.apache.hadoop.hbase.NotServingRegionException";
const DO_NOT_RETRY: &str = "org.apache.hadoop.hbase.DoNotRetryIOException";

/// An exception for the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HBaseError {
    /// The Java class name (e.g. `org.apache.hadoop.hbase.TableNotFoundException`).
    pub class: &'static str,
    /// The message.
    pub message: String,
    /// True for `DoNotRetryIOException` and its subclasses.
    pub do_not_retry: bool,
}

impl HBaseError {
    fn new(class: &'static str, message: impl Into<String>, do_not_retry: bool) -> HBaseError {
        HBaseError {
            class,
            message: message.into(),
            do_not_retry,
        }
    }

    /// `DoNotRetryIOException`: a request that can never succeed (malformed, unsupported).
    pub fn do_not_retry(message: impl Into<String>) -> HBaseError {
        HBaseError::new(DO_NOT_RETRY, message, true)
    }

    /// `IOException`: a failure the client retries after its pause.
    pub fn retryable(message: impl Into<String>) -> HBaseError {
        HBaseError::new("java.io.IOException", message, false)
    }

    /// `NotServingRegionException`: the client relocates the region and retries.
    pub fn not_serving(message: impl Into<String>) -> HBaseError {
        HBaseError::new(NOT_SERVING, message, false)
    }

    /// `UnknownScannerException`: no open scanner has this id.
    pub fn unknown_scanner(id: u64) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.UnknownScannerException",
            format!("unknown scanner {id}: it was closed, expired, or never opened"),
            true,
        )
    }

    /// `OutOfOrderScannerNextException`: a `next` call repeated or skipped; the client
    /// reopens the scanner.
    pub fn out_of_order(id: u64, expected: u64, got: u64) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException",
            format!("scanner {id}: expected next_call_seq {expected}, got {got}"),
            true,
        )
    }

    /// `TableNotFoundException`.
    pub fn table_not_found(table: &str) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.TableNotFoundException",
            table,
            true,
        )
    }

    /// `NamespaceNotFoundException`.
    pub fn namespace_not_found(namespace: &str) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.NamespaceNotFoundException",
            namespace,
            true,
        )
    }

    /// `UnknownRegionException`: no such region (split, merged or dropped).
    pub fn unknown_region(message: impl Into<String>) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.UnknownRegionException",
            message,
            true,
        )
    }

    /// `NoSuchColumnFamilyException`.
    pub fn no_such_family(message: impl Into<String>) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
            message,
            true,
        )
    }

    /// `UnknownServiceException` for a connection header naming a service Strata lacks.
    pub fn unknown_service(service: &str) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.ipc.UnknownServiceException",
            format!("unknown service {service}"),
            true,
        )
    }

    /// `UnsupportedCellCodecException`.
    pub fn unsupported_codec(class: &str) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException",
            format!(
                "unsupported cell block codec {class}: use \
                 org.apache.hadoop.hbase.codec.KeyValueCodec"
            ),
            true,
        )
    }

    /// `UnsupportedCompressionCodecException`.
    pub fn unsupported_compressor(class: &str) -> HBaseError {
        HBaseError::new(
            "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException",
            format!("unsupported cell block compressor {class}"),
            true,
        )
    }

    /// A method the service does not have (or Strata does not implement).
    pub fn unknown_method(service: &str, method: &str) -> HBaseError {
        HBaseError::do_not_retry(format!(
            "method {method} of {service} is not supported by Strata"
        ))
    }

    /// The exception as a response header field.
    /// The kind of client mistake this answers (a missing table, an unknown family, a
    /// malformed or unsupported request), or `None` for the server's own conditions (a
    /// moved region, a busy server, a failure), which are no client's fault.
    pub fn client_mistake(&self) -> Option<&'static str> {
        let class = self.class.rsplit('.').next().unwrap_or(self.class);
        match class {
            "TableNotFoundException" => Some("missing table"),
            "NoSuchColumnFamilyException" => Some("unknown family"),
            "NamespaceNotFoundException" => Some("missing namespace"),
            "DoNotRetryIOException" => Some("invalid request"),
            "UnknownServiceException"
            | "UnsupportedCellCodecException"
            | "UnsupportedCompressionCodecException" => Some("malformed HBase RPC"),
            _ => None,
        }
    }

    /// The exception as HBase's RPC answers it.
    pub fn to_response(&self) -> pb::ExceptionResponse {
        pb::ExceptionResponse {
            exception_class_name: Some(self.class.to_string()),
            stack_trace: Some(self.message.clone()),
            hostname: None,
            port: None,
            do_not_retry: Some(self.do_not_retry),
        }
    }

    /// The exception as a per-action result of a multi call.
    pub fn to_name_bytes(&self) -> pb::NameBytesPair {
        pb::NameBytesPair {
            name: self.class.to_string(),
            value: Some(self.message.clone().into_bytes().into()),
        }
    }
}

impl From<&StorageError> for HBaseError {
    fn from(e: &StorageError) -> HBaseError {
        match e {
            StorageError::NoSuchFamily(_) => HBaseError::no_such_family(e.to_string()),
            StorageError::WrongRegion { .. } | StorageError::Closed(_) => {
                HBaseError::not_serving(e.to_string())
            }
            _ => match e.kind() {
                ErrorKind::Invalid => HBaseError::do_not_retry(e.to_string()),
                ErrorKind::WrongRegion => HBaseError::not_serving(e.to_string()),
                ErrorKind::Unavailable | ErrorKind::Data => {
                    HBaseError::new("java.io.IOException", e.to_string(), false)
                }
            },
        }
    }
}

impl From<StorageError> for HBaseError {
    fn from(e: StorageError) -> HBaseError {
        HBaseError::from(&e)
    }
}

/// Results of request handlers.
pub type HResult<T> = std::result::Result<T, HBaseError>;
