//! HBase 2.x's native RPC for Strata, so the unchanged HBase Java client
//! (`org.apache.hbase:hbase-client`) works against a Strata server.
//!
//! ```text
//!  TCP ─▶ frame (preamble, ConnectionHeader, call framing) ─▶ server (per-connection task)
//!        ─▶ spawn_blocking ─┬─ registry    ClientMetaService (cluster id, master, meta)
//!                           ├─ client_svc  ClientService: Get/Mutate/Multi/Scan
//!                           │               └─▶ HostedRegion (same calls as gRPC Data)
//!                           │               └─▶ meta (hbase:meta rows from the catalog)
//!                           └─ master_svc  MasterService ─▶ MasterOps: the standalone Master,
//!                                           or a cluster's admin path (both as gRPC Admin)
//! ```
//!
//! Modules: `frame` (the codec of connections and calls), `cellblock` (KeyValue cell
//! blocks), `convert` and `filters` (HBase protobufs to Strata operations), `schema`
//! (descriptors), `region_name` and `meta` (HBase's region names and `hbase:meta`), `ops`
//! (what `MasterService` runs on),
//! `scanners` (leased scanners), `error` (HBase exception classes).

pub mod access;
mod admin_svc;
pub mod cellblock;
mod client_svc;
mod config;
mod context;
pub mod convert;
pub mod error;
pub mod filters;
pub mod frame;
#[doc(hidden)]
pub mod fuzz;
mod kerberos;
mod master_access;
mod master_placement;
mod master_quota;
mod master_snapshot;
mod master_space;
mod master_svc;
pub mod meta;
mod nonced;
pub mod ops;
mod region_action;
pub mod region_name;
mod registry;
pub mod sasl;
mod scanners;
pub mod schema;
mod server;
mod slow_calls;
mod status;
mod table_pattern;
mod write_now;

pub use config::{HBaseRpcConfig, KerberosConfig};
pub use context::Directory;
pub use error::HBaseError;
pub use ops::MasterOps;
pub use server::HBaseRpcServer;

/// HBase's protobuf messages (package `hbase.pb`), generated from `proto/hbase.proto`.
#[allow(missing_docs, clippy::all)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/hbase.pb.rs"));
}
