//! Namespaces through [`Admin`]: HBase's `createNamespace`, `modifyNamespace`,
//! `deleteNamespace`, `getNamespaceDescriptor` and `listNamespaceDescriptors`.

use std::collections::BTreeMap;

use strata_proto::pb;

use crate::admin::Admin;
use crate::error::Error;

/// A namespace and its properties (HBase's `NamespaceDescriptor`), such as
/// `hbase.namespace.quota.maxtables` and `hbase.namespace.quota.maxregions`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamespaceDescriptor {
    /// Its name.
    pub name: String,
    /// Its properties.
    pub properties: BTreeMap<String, String>,
}

impl NamespaceDescriptor {
    /// A namespace named `name` without properties.
    pub fn new(name: impl Into<String>) -> NamespaceDescriptor {
        NamespaceDescriptor {
            name: name.into(),
            properties: BTreeMap::new(),
        }
    }

    /// The same with property `key` set to `value`.
    #[must_use]
    pub fn with_property(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.properties.insert(key.into(), value.into());
        self
    }
}

impl From<pb::NamespaceDescriptor> for NamespaceDescriptor {
    fn from(d: pb::NamespaceDescriptor) -> NamespaceDescriptor {
        NamespaceDescriptor {
            name: d.name,
            properties: d.properties.into_iter().collect(),
        }
    }
}

impl From<&NamespaceDescriptor> for pb::NamespaceDescriptor {
    fn from(d: &NamespaceDescriptor) -> pb::NamespaceDescriptor {
        pb::NamespaceDescriptor {
            name: d.name.clone(),
            properties: d.properties.clone().into_iter().collect(),
        }
    }
}

fn request(name: &str) -> pb::NamespaceRequest {
    pb::NamespaceRequest {
        name: name.to_string(),
    }
}

impl Admin {
    /// Creates a namespace with its properties.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an illegal name or a quota that is not a number, `CONSTRAINT`
    /// for a quota at or below zero, `NAMESPACE_EXISTS`, or the master's error.
    pub async fn create_namespace(&self, namespace: &NamespaceDescriptor) -> Result<(), Error> {
        let d = pb::NamespaceDescriptor::from(namespace);
        self.change(|mut m| async move { m.create_namespace(d).await })
            .await
            .map(drop)
    }

    /// Replaces a namespace's properties with `namespace`'s.
    ///
    /// # Errors
    /// `NAMESPACE_NOT_FOUND`, an invalid quota (as [`Admin::create_namespace`]), or the
    /// master's error.
    pub async fn modify_namespace(&self, namespace: &NamespaceDescriptor) -> Result<(), Error> {
        let d = pb::NamespaceDescriptor::from(namespace);
        self.change(|mut m| async move { m.modify_namespace(d).await })
            .await
            .map(drop)
    }

    /// Deletes an empty namespace (`default` and `hbase` cannot be deleted).
    ///
    /// # Errors
    /// `NAMESPACE_NOT_FOUND`, `CONSTRAINT` (it holds tables, or is a system namespace), or
    /// the master's error.
    pub async fn delete_namespace(&self, name: &str) -> Result<(), Error> {
        let r = request(name);
        self.change(|mut m| async move { m.delete_namespace(r).await })
            .await
            .map(drop)
    }

    /// One namespace.
    ///
    /// # Errors
    /// `NAMESPACE_NOT_FOUND` or the master's error.
    pub async fn get_namespace(&self, name: &str) -> Result<NamespaceDescriptor, Error> {
        let r = request(name);
        self.read(|mut m| {
            let r = r.clone();
            async move { m.get_namespace(r).await }
        })
        .await
        .map(Into::into)
    }

    /// Every namespace, by name (`default` and `hbase` always).
    ///
    /// # Errors
    /// The master's error.
    pub async fn list_namespaces(&self) -> Result<Vec<NamespaceDescriptor>, Error> {
        let response = self
            .read(|mut m| async move { m.list_namespaces(pb::Empty {}).await })
            .await?;
        Ok(response.namespaces.into_iter().map(Into::into).collect())
    }
}
