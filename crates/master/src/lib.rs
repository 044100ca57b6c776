//! The master (ARCHITECTURE.md, "Bird's-eye view"; RFC 0007): owns the catalog of tables and
//! regions, assigns regions to region servers, splits regions as they grow (a split size that
//! starts small and doubles per generation up to `MAX_FILESIZE`), cleans up split parents, and
//! serves the gRPC admin service. In standalone the master and its one region server share a
//! process and the catalog lives in a local [`coordinator::LocalCoordinator`].
//!
//! Modules: `coordinator` (durable catalog storage), `catalog` (the data), `master` (the
//! operations), `service` (the Admin gRPC service), `error`.

pub mod catalog;
pub mod coordinator;
pub mod error;
pub mod master;
pub mod service;
pub mod standalone;

pub use coordinator::{Coordinator, LocalCoordinator};
pub use error::{MasterError, Result};
pub use master::Master;
pub use service::AdminService;
pub use standalone::{Standalone, StandaloneConfig};
