//! Strata's HBase Thrift1 gateway: HBase's `Hbase.thrift` service, wire-compatible, so
//! happybase and other Thrift1 clients work unchanged. It speaks to Strata only through
//! [`strata_client::Connection`], never to server internals.
//!
//! ```text
//! TCP ─▶ transport (buffered | framed, detected) ─▶ protocol (binary codec)
//!          ─▶ handler::Service ─┬─ admin  (createTable, getColumnDescriptors, ...)
//!                               ├─ read   (get*, getRow*, getRows*)
//!                               ├─ write  (mutateRow*, deleteAll*, increments, checkAndPut)
//!                               └─ scan   (scannerOpen*, scannerGet*, leased in `scanners`)
//!                                    └─▶ strata_client (gRPC to master and region servers)
//! ```
//!
//! Module map: `protocol` (values, decoder, encoder, messages), `transport` (framing),
//! `compact` (refusing clients of the compact protocol; warnings about bad input go through
//! `strata_proto::bad_input`, rate-limited),
//! `idl` (the IDL's structs), `handler` (one file per kind of request), `scanners` (the
//! leased scanner registry), `server` (accept loop, one task per connection), `config`,
//! `error` (IOError / IllegalArgument / AlreadyExists).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use strata_gateway::{Gateway, GatewayConfig};
//!
//! let conn = strata_client::Connection::connect("127.0.0.1:16000").await?;
//! let gateway = Gateway::start(GatewayConfig::default(), conn).await?;
//! println!("Thrift on {}", gateway.addr());
//! gateway.shutdown().await;
//! # Ok(()) }
//! ```

mod compact;
mod config;
mod error;
mod handler;
pub mod idl;
pub mod protocol;
mod scanners;
mod server;
pub mod transport;

pub use config::GatewayConfig;
pub use error::ThriftError;
pub use server::Gateway;
