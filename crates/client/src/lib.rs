//! Strata's Rust client.
//!
//! ```text
//! Connection ──▶ Admin ───────────────▶ master (Admin service: DDL, Locate, ListFiles, Status)
//!     │
//!     └──▶ Table ──▶ location cache ──▶ region servers (Data service)
//!            ├─ get / put / mutate_row / check_and_mutate: one region, retried
//!            ├─ get_many / batch / put_many / BufferedMutator: grouped per region
//!            └─ Scanner / ParallelScanner: the scan protocol, region by region
//! ```
//!
//! Module map:
//! - `connection`: channels (one per server, shared), the location cache, and the retry
//!   loop of single-region requests.
//! - `link` (a data-service stub over either protocol), `frames` (the framed protocol's
//!   connections).
//! - `locate`: which region holds a row, forward and reversed; the per-table cache.
//! - `retry`: back-off and the rule for requests that must not apply twice.
//! - `table` (single-row requests), `multi` (per-region grouping), `scanner`, `parallel`,
//!   `mutator`, `admin`, `error`, `options`.
//!
//! Regions are found with the master's `Locate` and cached per table. A request answered
//! with `NOT_SERVING_REGION` drops the table's cache, backs off and goes to the region's new
//! home; `REGION_TOO_BUSY` and `UNAVAILABLE` back off and retry. Increments, appends,
//! check-and-mutate, and puts and deletes stamped by the server's clock are retried only when
//! the server says it did not apply them or they were never sent: after a connection lost
//! mid-request or an attempt with no answer they fail with `UNAVAILABLE`, outcome unknown (a
//! repeat would be a new version, which can land after other clients' later writes).
//!
//! ```no_run
//! # async fn demo() -> Result<(), strata_client::Error> {
//! use strata_client::Connection;
//! use strata_model::ops::{Get, Put};
//!
//! let conn = Connection::connect("127.0.0.1:16000").await?;
//! let table = conn.table("t")?;
//! table.put(&Put::new("row1").add("f", "q", "v")).await?;
//! let cells = table.get(&Get::new("row1")).await?;
//! # Ok(()) }
//! ```

mod admin;
mod admin_access;
mod admin_namespace;
mod admin_placement;
mod admin_quota;
mod admin_servers;
mod admin_snapshot;
mod bulk;
mod bulk_cut;
mod connection;
mod error;
mod frames;
mod link;
mod locate;
mod multi;
mod mutator;
mod options;
mod parallel;
mod retry;
mod scan_row;
mod scanner;
mod table;

pub use admin::{Admin, CompactionState, StoreFileInfo, TableInfo};
pub use admin_access::WhoAmI;
pub use admin_namespace::NamespaceDescriptor;
pub use admin_placement::{BalanceOutcome, RegionPlacement};
pub use admin_servers::{CacheEvictionStats, ConfigurationUpdate, ProcedureInfo};
pub use admin_snapshot::SnapshotDescription;
pub use bulk::BulkLoadReport;
pub use bulk_cut::{bulk_files_in, BulkFile};
pub use connection::{Connection, MAX_ADMINS};
pub use error::Error;
pub use locate::RegionLocation;
pub use multi::MAX_ROWS_PER_RPC;
pub use mutator::BufferedMutator;
pub use options::{BufferedMutatorOptions, ClientOptions, Protocol};
pub use parallel::ParallelScanner;
pub use scan_row::ScanRow;
pub use scanner::Scanner;
/// Permissions and scopes for [`Admin::grant`] and its kin.
pub use strata_access as access;
pub use strata_proto::convert::CellView;
pub use table::Table;
