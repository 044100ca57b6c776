//! Cluster mode's data path (RFC 0012, "Storage"): a region server that opens the regions etcd
//! orders it to from the shared root and serves them over gRPC, the master's WAL fencer and
//! splitter on the shared log store, and the admin service that lets clients locate regions
//! from etcd's records without the master.
//!
//! Module map:
//! - [`names`]: region ids, server WAL directories and recovered-edits directories.
//! - [`schema`]: table schemas in etcd.
//! - [`recovered`]: splitting a dead server's WAL per region, replaying it at open.
//! - [`fencer`]: [`fencer::LogFencer`], the master's `WalFencer`.
//! - [`janitor`]: deleting recovered edits no region will replay.
//! - [`region_sweep`]: deleting region directories no record or procedure names, on the root
//!   and the cold bucket.
//! - [`host`]: [`host::StorageHost`], the region server's `RegionHost`.
//! - [`admin`]: [`admin::ClusterAdmin`], the admin service of a region server; `admin_acl`:
//!   its grant, revoke, user_permission and whoami calls; [`admin_logged`]: the access check
//!   and the log of every admin call, whichever front end made it.
//! - [`acl`]: grants in the coordination store, and every server's watch of them (RFC 0026).
//! - [`quota`]: throttles in the coordination store, and every server's watch of them
//!   (RFC 0029); `admin_quota`: the admin service's `SetQuota` and `ListQuotas`;
//!   `prefix_watch`: the watch both run on.
//! - [`policy_check`]: refusing a create or alter whose storage policies the root cannot set.
//! - [`route`]: flush and compaction forwarded to the servers hosting a table's regions.
//! - `server_admin`: admin calls about servers: reloading their configuration files,
//!   dropping a table's blocks from their block caches.
//! - [`procedures`]: the procedures in progress as the admin service lists them.
//! - [`serve`]: running a region server: gRPC, the lease gate, the coordination loop, and
//!   its incarnations after a lost lease or WAL (`incarnation`: one of them).
//! - [`single`]: Strata in one process, a cluster of one over the embedded coordination store.
//! - [`split`]: splitting a table's or a region's regions through the master, from a client.
//! - [`merge`]: merging two regions through the master, from a client.
//! - [`placement`]: moving, assigning and unassigning regions, the balancer and
//!   decommissioning, for every front end.
//! - [`switches`]: the cluster-wide split, merge and balancer switches.
//! - [`upkeep`]: a region server's background upkeep: compacting split daughters' references
//!   away, requesting the split of regions past their table's split size, and the periodic
//!   compaction check of idle regions.
//! - [`load_upkeep`]: the upkeep's splits by load (RFC 0028): hot regions proposed for a
//!   split at the row that balances their sampled requests.
//! - [`counted`]: counting etcd operations and region orders for `/metrics`.
//! - [`hbase`]: `hbase:meta` and the registry from etcd for the HBase RPC listener.
//! - [`hbase_ops`]: HBase RPC's `MasterService` on the cluster admin service.
//! - [`hbase_master`]: a master's HBase RPC listener (registry, meta and `MasterService`).
//! - [`http`]: what the HTTP endpoints of region servers and masters show (RFC 0018).
//! - [`heat`], [`heat_feed`]: the master's key-access heatmap of the cluster, fed from the
//!   region servers' load reports.
//!
//! This crate joins `strata-cluster` (no storage) and the storage and server crates (no
//! cluster), so neither depends on the other (ARCHITECTURE.md,
//! "Crates and what each may depend on").

pub mod acl;
pub mod admin;
pub mod admin_acl;
pub mod admin_logged;
mod admin_path;
mod admin_quota;
mod admin_space;
pub mod counted;
pub mod fencer;
pub mod hbase;
pub mod hbase_master;
pub mod hbase_ops;
pub mod heat;
pub mod heat_feed;
pub mod host;
pub mod http;
mod incarnation;
pub mod janitor;
pub mod load_upkeep;
pub mod merge;
pub mod names;
pub mod namespace;
pub mod placement;
pub mod policy_check;
pub mod prefix_watch;
pub mod procedures;
pub mod quota;
pub mod quota_space;
pub mod recovered;
pub mod region_sweep;
pub mod route;
pub mod schema;
pub mod serve;
mod server_admin;
pub mod single;
pub mod snapshot;
pub mod space_chore;
pub mod space_report;
pub mod split;
pub mod status;
pub mod switches;
pub mod upgrade;
pub mod upkeep;
