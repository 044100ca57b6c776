//! Strata's wire protocol: the gRPC services of `proto/strata.proto` ([`pb`]) and their
//! conversions to and from the data model ([`convert`]), and the error codes a client acts on
//! ([`error`]), and gRPC channels to Strata's servers over TLS ([`channel`]). This is the only
//! crate that compiles Strata's protobuf (ARCHITECTURE.md, "Crates and what each may depend
//! on").

pub mod bad_input;
pub mod channel;
pub mod convert;
pub mod error;
pub mod frame;
pub mod read_soon;
pub mod solo;
pub mod spare_core;

/// The generated protobuf messages and gRPC service stubs (package `strata.v1`).
#[allow(missing_docs, clippy::all, clippy::pedantic, clippy::unwrap_used)]
pub mod pb {
    tonic::include_proto!("strata.v1");
}

pub use convert::ConvertError;
pub use error::{code_of, status, ERROR_METADATA_KEY};

/// Largest message either side accepts (values may be up to the server's maximum, 10 MiB by
/// default, and a batch holds many).
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;
