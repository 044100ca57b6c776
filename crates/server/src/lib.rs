//! The region server (ARCHITECTURE.md, "The life of a write"; RFC 0007): hosts many regions of many
//! tables over one write-ahead log, one memtable budget with flush priorities, one block cache and
//! shared flush/compaction workers, and serves them through the gRPC data service.
//!
//! ```text
//!  gRPC Data ─▶ service (decode, validate) ─▶ inline if cached, else spawn_blocking
//!            ─▶ RegionServer::region_for
//!            ─▶ Region (storage engine) ─▶ encode ─▶ response
//!  master ─▶ RegionHost (open / close / flush / compact / split / stats)
//! ```
//!
//! Modules: `config` (settings and defaults), `config_reload` (the process's hook that reloads
//! its configuration file on an admin call), `host` (the set of open regions and routing),
//! `status` (errors to wire statuses), `service` (the Data service), `scan` (stateless scan
//! pages), `row_cache` (results of gets of hot rows, invalidated by every write), `files`
//! (the store files of a table's open regions), `frames` (the framed protocol beside gRPC,
//! on the same port), `observe` (request figures, slow operations
//! and key-access heatmaps for `/metrics` and the web UI), `load_split` (each region's request
//! count and sampled rows, for splits by load).

pub mod bulk;
pub mod caller;
pub mod compaction_throughput;
pub mod config;
pub mod config_reload;
pub mod files;
pub mod flush_check;
pub mod frames;
pub mod host;
pub mod inline;
pub mod load_split;
pub mod logged;
pub mod machine_memory;
pub mod memory_tuner;
pub mod nonces;
pub mod observe;
pub mod region_stats;
pub mod row_cache;
pub mod scan;
pub mod service;
pub mod status;
pub mod tls_port;
mod wal_place;
pub mod write_queue;

pub use config::ServerConfig;
pub use files::RegionFiles;
pub use host::{HostedRegion, RegionFigures, RegionServer, RegionStats, WorkDone};
pub use row_cache::{RowCache, RowCacheStats};
pub use service::DataService;
