//! What `MasterService` runs on: [`MasterOps`], the table lifecycle, schema, namespaces and
//! server list of a cluster (implemented by the cluster's admin path, RFC 0018). `master_svc` decodes HBase's requests and calls these;
//! each operation is finished (its regions open, or gone) when it returns.

use std::collections::BTreeMap;

use bytes::Bytes;
use strata_model::schema::TableDescriptor;

use crate::error::HResult;
use crate::meta::ServerIdentity;

/// A table's schema and whether it is enabled.
#[derive(Clone, Debug)]
pub struct TableEntry {
    /// The schema.
    pub descriptor: TableDescriptor,
    /// Enabled (served) or disabled.
    pub enabled: bool,
}

/// A namespace and its properties (HBase's `NamespaceDescriptor` and its configuration).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamespaceEntry {
    /// Its name.
    pub name: String,
    /// Its properties, e.g. `hbase.namespace.quota.maxtables`.
    pub properties: BTreeMap<String, String>,
}

/// One region open on a live server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerRegion {
    /// Its table.
    pub table: String,
    /// Its first row.
    pub start: Bytes,
    /// Its id.
    pub region_id: u64,
    /// Its statistics as its server last published them, if it has (a cluster's region
    /// servers publish theirs with their load reports, every few seconds).
    pub published: Option<RegionFigures>,
}

/// One region's statistics (HBase's `RegionLoad`): the region server's own type.
pub use strata_server::RegionFigures;

/// A live region server, for `Admin.getClusterMetrics()`.
#[derive(Clone, Debug)]
pub struct LiveServer {
    /// How clients name it.
    pub identity: ServerIdentity,
    /// The regions open on it.
    pub regions: Vec<ServerRegion>,
    /// Requests per second over its last load report's interval, if it reported one (HBase's
    /// `ServerMetrics.getRequestCountPerSecond`).
    pub requests_per_sec: Option<u64>,
}

/// Where one space quota stands (HBase's `SpaceQuotaSnapshot`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceQuotaState {
    /// The table (`ns:table` or `table`) or namespace.
    pub name: String,
    /// The quota's policy (HBase's `SpaceViolationPolicy` name).
    pub policy: String,
    /// Whether the policy is in force.
    pub in_violation: bool,
    /// Bytes counted against the limit.
    pub usage: u64,
    /// The limit.
    pub limit: u64,
}

/// The space quotas' states and the tables' sizes, as the master last decided them (HBase's
/// `GetQuotaStates` and `GetSpaceQuotaRegionSizes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpaceQuotaStates {
    /// Every table some live server reported: its bytes on storage.
    pub table_sizes: Vec<(String, u64)>,
    /// Each table under a space quota.
    pub tables: Vec<SpaceQuotaState>,
    /// Each namespace with a space quota (usage: its tables' sizes summed).
    pub namespaces: Vec<SpaceQuotaState>,
}

/// Which placement change [`MasterOps::place_region`] makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionMove {
    /// Close it and open it again, on this server if given (a start code of 0: any start
    /// code of that host and port).
    Move(Option<ServerIdentity>),
    /// Open a closed region.
    Assign,
    /// Close an open region.
    Unassign,
}

/// A complete snapshot (HBase's `SnapshotDescription`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotEntry {
    /// Its name.
    pub name: String,
    /// Its table, `ns:t` or `t`.
    pub table: String,
    /// When it began, ms since the epoch.
    pub creation_time_ms: i64,
    /// Taken of a disabled table (HBase's `DISABLED` type; else `FLUSH`).
    pub offline: bool,
}

/// The master operations `MasterService` needs.
pub trait MasterOps: Send + Sync + 'static {
    /// Every table.
    ///
    /// # Errors
    /// The tables cannot be read now.
    fn tables(&self) -> HResult<Vec<TableEntry>>;

    /// One table (`TableNotFoundException` if there is none).
    ///
    /// # Errors
    /// No such table, or the tables cannot be read now.
    fn table(&self, name: &str) -> HResult<TableEntry>;

    /// Every namespace (`default` and `hbase` always), by name.
    ///
    /// # Errors
    /// The namespaces cannot be read now.
    fn namespaces(&self) -> HResult<Vec<NamespaceEntry>>;

    /// One namespace (`NamespaceNotFoundException` if there is none).
    ///
    /// # Errors
    /// No such namespace, or the namespaces cannot be read now.
    fn namespace(&self, name: &str) -> HResult<NamespaceEntry>;

    /// Creates a namespace with its properties.
    ///
    /// # Errors
    /// It exists, or the name or a quota property is invalid.
    fn create_namespace(&self, namespace: NamespaceEntry) -> HResult<()>;

    /// Replaces a namespace's properties.
    ///
    /// # Errors
    /// It does not exist, or a quota property is invalid.
    fn modify_namespace(&self, namespace: NamespaceEntry) -> HResult<()>;

    /// Deletes an empty namespace.
    ///
    /// # Errors
    /// It does not exist, holds tables, or is a system namespace.
    fn delete_namespace(&self, name: &str) -> HResult<()>;

    /// Creates `table` with `splits.len() + 1` regions, open when this returns.
    ///
    /// # Errors
    /// It exists, or the schema or splits are invalid.
    fn create_table(&self, table: TableDescriptor, splits: &[Bytes]) -> HResult<()>;

    /// Deletes a disabled table.
    ///
    /// # Errors
    /// No such table, or it is enabled.
    fn delete_table(&self, name: &str) -> HResult<()>;

    /// Enables a disabled table (its regions open when this returns).
    ///
    /// # Errors
    /// No such table, or it is enabled.
    fn enable_table(&self, name: &str) -> HResult<()>;

    /// Disables an enabled table.
    ///
    /// # Errors
    /// No such table, or it is disabled.
    fn disable_table(&self, name: &str) -> HResult<()>;

    /// Empties a table (keeping its split points if `preserve_splits`).
    ///
    /// # Errors
    /// No such table, or it is enabled.
    fn truncate_table(&self, name: &str, preserve_splits: bool) -> HResult<()>;

    /// Replaces a table's schema (families missing from it are deleted).
    ///
    /// # Errors
    /// No such table, or the schema is invalid.
    fn alter_table(&self, table: TableDescriptor) -> HResult<()>;

    /// Flushes every region of a table.
    ///
    /// # Errors
    /// No such table, or it is disabled.
    fn flush_table(&self, name: &str) -> HResult<()>;

    /// Splits region `region_id` of `table` (at `row`, or its middle).
    ///
    /// # Errors
    /// No such serving region, or splitting is not available.
    fn split_region(&self, table: &str, region_id: u64, row: Option<Bytes>) -> HResult<()>;

    /// Merges two adjacent regions `a` and `b` of `table` (either order).
    ///
    /// # Errors
    /// No such region, not adjacent, the table disabled, or a region in transition.
    fn merge_regions(&self, table: &str, a: u64, b: u64) -> HResult<()>;

    /// The live region servers and their regions.
    ///
    /// # Errors
    /// The servers cannot be read now.
    fn live_servers(&self) -> HResult<Vec<LiveServer>>;

    /// Turns the cluster-wide switch `name` (`split` or `merge`) on or off; answers whether
    /// it was on.
    ///
    /// # Errors
    /// The caller may not (global A), or the master is unavailable.
    fn set_switch(&self, name: &str, on: bool) -> HResult<bool>;

    /// Whether the cluster-wide switch `name` (`split` or `merge`) is on.
    ///
    /// # Errors
    /// It cannot be read now.
    fn switch_enabled(&self, name: &str) -> HResult<bool>;

    /// Moves (to `target` if given), assigns or unassigns the region named `region` (HBase's
    /// full or encoded region name); returns once its procedure finished.
    ///
    /// # Errors
    /// No such region or live target server, or the master's refusal.
    fn place_region(&self, region: &str, how: RegionMove) -> HResult<()>;

    /// Runs the balancer once: whether it ran (not while off or while procedures are in
    /// progress) and the regions it moved.
    ///
    /// # Errors
    /// The master is unavailable.
    fn balance(&self) -> HResult<(bool, u32)>;

    /// Drains `servers` and assigns nothing to them.
    ///
    /// # Errors
    /// A server that is not live (nothing changed), or the master's refusal.
    fn decommission(&self, servers: &[ServerIdentity]) -> HResult<()>;

    /// Lets decommissioned `server` take regions again.
    ///
    /// # Errors
    /// The server is not decommissioned.
    fn recommission(&self, server: &ServerIdentity) -> HResult<()>;

    /// The decommissioned servers.
    ///
    /// # Errors
    /// They cannot be read now.
    fn decommissioned(&self) -> HResult<Vec<ServerIdentity>>;

    /// Takes snapshot `name` of `table` (finished when it returns).
    ///
    /// # Errors
    /// `SnapshotExistsException`, `TableNotFoundException`, or a failure.
    fn snapshot(&self, table: &str, name: &str) -> HResult<()>;

    /// Every complete snapshot.
    ///
    /// # Errors
    /// The snapshots cannot be read now.
    fn snapshots(&self) -> HResult<Vec<SnapshotEntry>>;

    /// Deletes snapshot `name`.
    ///
    /// # Errors
    /// `SnapshotDoesNotExistException`, or a failure.
    fn delete_snapshot(&self, name: &str) -> HResult<()>;

    /// Makes `table` from snapshot `name`: a restore if the table exists (it must be
    /// disabled, and stays so), else a clone.
    ///
    /// # Errors
    /// `SnapshotDoesNotExistException`, `TableNotDisabledException`, or a failure.
    fn restore_or_clone_snapshot(&self, name: &str, table: &str) -> HResult<()>;

    /// Sets (or with `merge` adds to) `user`'s permission on `scope` (RFC 0026).
    ///
    /// # Errors
    /// `AccessDeniedException` without `A` on the scope, or a failure.
    fn grant(
        &self,
        user: &str,
        perms: strata_access::Perms,
        scope: &strata_access::Scope,
        merge: bool,
    ) -> HResult<()>;

    /// Removes `perms` from `user`'s permission on `scope`.
    ///
    /// # Errors
    /// As [`MasterOps::grant`].
    fn revoke(
        &self,
        user: &str,
        perms: strata_access::Perms,
        scope: &strata_access::Scope,
    ) -> HResult<()>;

    /// The grants on `scope` and under it (`None`: every one), of `user` only if given.
    ///
    /// # Errors
    /// `AccessDeniedException`, or a failure.
    fn user_permissions(
        &self,
        scope: Option<&strata_access::Scope>,
        user: Option<&str>,
    ) -> HResult<Vec<strata_access::Grant>>;

    /// Throttles `subject` to `limit` (as HBase's shell writes it) of the requests
    /// `throttle_type` names (a `ThrottleType` name; empty: every request), or, without a
    /// limit, removes its throttles of that type (every one when empty) (RFC 0029).
    ///
    /// # Errors
    /// `AccessDeniedException` without global `A`, `TableNotFoundException`, a bad limit, or
    /// a failure.
    fn set_quota(
        &self,
        subject: &strata_access::quota::Subject,
        throttle_type: &str,
        limit: Option<&str>,
    ) -> HResult<()>;

    /// Sets `subject`'s (a table's or a namespace's) space quota to `limit` bytes under
    /// `policy`, or, without one, removes it (RFC 0029).
    ///
    /// # Errors
    /// As [`MasterOps::set_quota`].
    fn set_space_quota(
        &self,
        subject: &strata_access::quota::Subject,
        limit: Option<(u64, strata_access::quota::SpacePolicy)>,
    ) -> HResult<()>;

    /// The space quotas' states and the tables' sizes (RFC 0029).
    ///
    /// # Errors
    /// `AccessDeniedException` without global `A`, or a failure.
    fn space_quota_states(&self) -> HResult<SpaceQuotaStates>;
}
