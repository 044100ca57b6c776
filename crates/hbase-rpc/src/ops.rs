//! What `MasterService` runs on: [`MasterOps`], the table lifecycle, schema, namespaces and
//! server list of a standalone master ([`StandaloneOps`]) or of a cluster (implemented by the
//! cluster's admin path, RFC 0018). `master_svc` decodes HBase's requests and calls these;
//! each operation is finished (its regions open, or gone) when it returns.

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;
use strata_master::Master;
use strata_model::schema::TableDescriptor;

use crate::error::{HBaseError, HResult};
use crate::meta::ServerIdentity;

/// A table's schema and whether it is enabled.
#[derive(Clone, Debug)]
pub struct TableEntry {
    /// The schema.
    pub descriptor: TableDescriptor,
    /// Enabled (served) or disabled.
    pub enabled: bool,
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
}

/// A live region server, for `Admin.getClusterMetrics()`.
#[derive(Clone, Debug)]
pub struct LiveServer {
    /// How clients name it.
    pub identity: ServerIdentity,
    /// The regions open on it.
    pub regions: Vec<ServerRegion>,
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

    /// Every namespace (`default` and `hbase` always).
    ///
    /// # Errors
    /// The namespaces cannot be read now.
    fn namespaces(&self) -> HResult<BTreeSet<String>>;

    /// Creates a namespace.
    ///
    /// # Errors
    /// It exists, or the name is invalid.
    fn create_namespace(&self, name: &str) -> HResult<()>;

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
}

/// [`MasterOps`] of `strata standalone`: the one master and its region server, named by the
/// listener's identity.
pub struct StandaloneOps {
    master: Arc<Master>,
    me: ServerIdentity,
}

impl StandaloneOps {
    /// The operations of `master`, whose regions clients reach at `me`.
    pub fn new(master: Arc<Master>, me: ServerIdentity) -> Self {
        StandaloneOps { master, me }
    }
}

impl MasterOps for StandaloneOps {
    fn tables(&self) -> HResult<Vec<TableEntry>> {
        Ok(self
            .master
            .catalog()
            .tables
            .values()
            .map(|t| TableEntry {
                descriptor: t.descriptor.clone(),
                enabled: t.enabled,
            })
            .collect())
    }

    fn table(&self, name: &str) -> HResult<TableEntry> {
        let catalog = self.master.catalog();
        let t = catalog.table(name)?;
        Ok(TableEntry {
            descriptor: t.descriptor.clone(),
            enabled: t.enabled,
        })
    }

    fn namespaces(&self) -> HResult<BTreeSet<String>> {
        Ok(self.master.catalog().all_namespaces())
    }

    fn create_namespace(&self, name: &str) -> HResult<()> {
        Ok(self.master.create_namespace(name)?)
    }

    fn delete_namespace(&self, name: &str) -> HResult<()> {
        Ok(self.master.delete_namespace(name)?)
    }

    fn create_table(&self, table: TableDescriptor, splits: &[Bytes]) -> HResult<()> {
        Ok(self.master.create_table(table, splits)?)
    }

    fn delete_table(&self, name: &str) -> HResult<()> {
        Ok(self.master.delete_table(name)?)
    }

    fn enable_table(&self, name: &str) -> HResult<()> {
        Ok(self.master.enable_table(name)?)
    }

    fn disable_table(&self, name: &str) -> HResult<()> {
        Ok(self.master.disable_table(name)?)
    }

    fn truncate_table(&self, name: &str, preserve_splits: bool) -> HResult<()> {
        Ok(self.master.truncate_table(name, preserve_splits)?)
    }

    fn alter_table(&self, table: TableDescriptor) -> HResult<()> {
        Ok(self.master.alter_table(table)?)
    }

    fn flush_table(&self, name: &str) -> HResult<()> {
        Ok(self.master.flush_table(name)?)
    }

    fn split_region(&self, table: &str, region_id: u64, row: Option<Bytes>) -> HResult<()> {
        let entry = self.master.catalog().regions.get(&region_id).cloned();
        if entry.is_none_or(|e| e.info.table != table || !e.is_serving()) {
            return Err(HBaseError::unknown_region(format!(
                "no serving region {region_id} of {table}"
            )));
        }
        Ok(self.master.split_region(region_id, row)?)
    }

    fn merge_regions(&self, table: &str, a: u64, b: u64) -> HResult<()> {
        Ok(self.master.merge(table, a, b)?)
    }

    fn live_servers(&self) -> HResult<Vec<LiveServer>> {
        let regions = self
            .master
            .host()
            .hosted_regions()
            .iter()
            .map(|h| {
                let info = h.region.info();
                ServerRegion {
                    table: info.table.clone(),
                    start: info.start_row.clone(),
                    region_id: info.region_id,
                }
            })
            .collect();
        Ok(vec![LiveServer {
            identity: self.me.clone(),
            regions,
        }])
    }
}
