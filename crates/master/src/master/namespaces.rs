//! Namespaces (HBase's `CreateNamespace`, `DeleteNamespace`): names that group tables. Strata
//! keeps only the names, in the catalog; `default`, `hbase` and the namespace of every table
//! exist without being created.

use strata_model::schema::TableName;

use super::Master;
use crate::catalog::{namespace_of, DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
use crate::error::{MasterError, Result};

impl Master {
    /// Creates a namespace.
    ///
    /// # Errors
    /// A name breaking HBase's rules (`[A-Za-z0-9_]+`), a namespace that exists, or I/O.
    pub fn create_namespace(&self, name: &str) -> Result<()> {
        TableName::new(name, "t").map_err(|e| MasterError::InvalidArgument(e.to_string()))?;
        if name.is_empty() {
            return Err(MasterError::InvalidArgument(
                "namespace name must not be empty".into(),
            ));
        }
        let _admin = self.admin.lock();
        let mut catalog = self.catalog();
        if catalog.all_namespaces().contains(name) {
            return Err(MasterError::NamespaceExists(name.to_string()));
        }
        catalog.namespaces.insert(name.to_string());
        self.save(&catalog)
    }

    /// Deletes an empty namespace.
    ///
    /// # Errors
    /// `default` or `hbase`, a namespace that does not exist or still holds tables, or I/O.
    pub fn delete_namespace(&self, name: &str) -> Result<()> {
        if name == DEFAULT_NAMESPACE || name == SYSTEM_NAMESPACE {
            return Err(MasterError::InvalidArgument(format!(
                "reserved namespace {name} cannot be removed"
            )));
        }
        let _admin = self.admin.lock();
        let mut catalog = self.catalog();
        if !catalog.all_namespaces().contains(name) {
            return Err(MasterError::NamespaceNotFound(name.to_string()));
        }
        if catalog.tables.keys().any(|t| namespace_of(t) == name) {
            return Err(MasterError::NamespaceNotEmpty(name.to_string()));
        }
        catalog.namespaces.remove(name);
        self.save(&catalog)
    }
}
