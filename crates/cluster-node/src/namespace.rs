//! Namespaces (HBase's `TableNamespaceManager` and `NamespaceAuditor`, RFC 0023), kept in the
//! coordination store, for the admin service and every front end behind it.
//!
//! - A namespace created explicitly has the key `<root>namespace/<name>` holding its
//!   `NamespaceDescriptor` (protobuf; an empty value, as earlier releases wrote, is one without
//!   properties). `default` and `hbase` always exist, and so does the namespace of any table
//!   (tables created before namespaces were checked may be in one that has no key).
//! - Creating a table checks that its namespace exists and that the namespace's quotas
//!   (`hbase.namespace.quota.maxtables`, `hbase.namespace.quota.maxregions`) admit it, then
//!   writes the table's schema in one transaction with the namespace's key (rewritten unchanged,
//!   so its revision moves), guarded by the revision the check read. Deleting a namespace
//!   deletes its key guarded the same way after finding no table in it, so a namespace is never
//!   deleted under a table being created in it.
//! - A split checks `hbase.namespace.quota.maxregions` before it is requested.

use std::collections::BTreeMap;

use prost::Message;
use strata_cluster::kv::{range_all, Compare, Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_cluster::record::{RegionRecord, RegionState};
use strata_model::schema::{TableDescriptor, TableName};
use strata_proto::convert::table_to_pb;
use strata_proto::pb::{self, ErrorCode};
use tonic::Status;

use crate::admin::unavailable;

/// The namespace of tables named without one.
pub const DEFAULT: &str = "default";
/// HBase's system namespace.
pub const SYSTEM: &str = "hbase";
/// The property limiting a namespace's tables (HBase's `TableNamespaceManager.KEY_MAX_TABLES`).
pub const MAX_TABLES: &str = "hbase.namespace.quota.maxtables";
/// The property limiting a namespace's regions (`KEY_MAX_REGIONS`).
pub const MAX_REGIONS: &str = "hbase.namespace.quota.maxregions";

/// A namespace found, with the revision of its key (0: it has none — a system namespace, or
/// one that exists because tables are in it).
#[derive(Debug, Clone)]
pub struct Found {
    /// Its descriptor.
    pub descriptor: pb::NamespaceDescriptor,
    /// Its key's mod revision, 0 if it has no key.
    pub revision: i64,
}

fn not_found(name: &str) -> Status {
    strata_proto::status(ErrorCode::NamespaceNotFound, name)
}

fn constraint(message: String) -> Status {
    strata_proto::status(ErrorCode::Constraint, message)
}

fn changed(name: &str) -> Status {
    strata_proto::status(
        ErrorCode::Unavailable,
        format!("namespace {name} changed meanwhile; retry"),
    )
}

/// Checks a namespace's name as HBase does (`TableName.isLegalNamespaceName`).
///
/// # Errors
/// `INVALID_ARGUMENT` for an illegal name.
pub fn check_name(name: &str) -> Result<(), Status> {
    TableName::parse(&format!("{name}:t"))
        .ok()
        .filter(|t| t.namespace() == name)
        .map(|_| ())
        .ok_or_else(|| strata_server::status::invalid(format!("illegal namespace name '{name}'")))
}

/// A quota property's value: `None` when unset (no limit).
fn quota(props: &BTreeMap<String, String>, key: &str) -> Result<Option<i64>, Status> {
    match props.get(key).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => v.trim().parse::<i64>().map(Some).map_err(|_| {
            strata_server::status::invalid(format!("{key} must be a whole number, not '{v}'"))
        }),
    }
}

/// Checks the quota properties of `d` (HBase's `validateTableAndRegionCount`): each must be a
/// number above zero.
fn check_quotas(d: &pb::NamespaceDescriptor) -> Result<(), Status> {
    let props: BTreeMap<String, String> = d.properties.clone().into_iter().collect();
    if quota(&props, MAX_REGIONS)?.is_some_and(|n| n <= 0) {
        return Err(constraint(format!(
            "The max region quota for {} is less than or equal to zero.",
            d.name
        )));
    }
    if quota(&props, MAX_TABLES)?.is_some_and(|n| n <= 0) {
        return Err(constraint(format!(
            "The max tables quota for {} is less than or equal to zero.",
            d.name
        )));
    }
    Ok(())
}

/// The names of the tables recorded in namespace `name` (created, or being created: their
/// schema is written before the master records them).
fn tables_in<K: Kv + ?Sized>(kv: &K, layout: &Layout, name: &str) -> Result<Vec<String>, Status> {
    let mut out = std::collections::BTreeSet::new();
    for prefix in [layout.tables(), layout.schema("")] {
        for item in range_all(kv, &prefix, 1000).map_err(unavailable)?.kvs {
            if let Some(Ok(t)) = item.key.strip_prefix(&prefix).map(TableName::parse) {
                if t.namespace() == name {
                    out.insert(t.to_string());
                }
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// The namespaces that exist because a table record names them.
fn namespaces_of_tables<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<std::collections::BTreeSet<String>, Status> {
    let prefix = layout.tables();
    Ok(range_all(kv, &prefix, 1000)
        .map_err(unavailable)?
        .kvs
        .iter()
        .filter_map(|item| item.key.strip_prefix(&prefix))
        .filter_map(|t| TableName::parse(t).ok())
        .map(|t| t.namespace().to_string())
        .collect())
}

fn decode(name: &str, value: &[u8]) -> Result<pb::NamespaceDescriptor, Status> {
    let mut d = pb::NamespaceDescriptor::decode(value)
        .map_err(|e| unavailable(format!("namespace {name}: {e}")))?;
    d.name = name.to_string();
    Ok(d)
}

fn bare(name: &str) -> pb::NamespaceDescriptor {
    pb::NamespaceDescriptor {
        name: name.to_string(),
        properties: Default::default(),
    }
}

/// Namespace `name`, if it exists.
///
/// # Errors
/// The store failed, or holds a malformed descriptor.
pub fn get<K: Kv + ?Sized>(kv: &K, layout: &Layout, name: &str) -> Result<Option<Found>, Status> {
    if let Some(found) = kv.get(&layout.namespace(name)).map_err(unavailable)? {
        return Ok(Some(Found {
            descriptor: decode(name, &found.value)?,
            revision: found.mod_revision,
        }));
    }
    if name == DEFAULT || name == SYSTEM || namespaces_of_tables(kv, layout)?.contains(name) {
        return Ok(Some(Found {
            descriptor: bare(name),
            revision: 0,
        }));
    }
    Ok(None)
}

/// Namespace `name`, or `NAMESPACE_NOT_FOUND`.
///
/// # Errors
/// No such namespace, or the store failed.
pub fn require<K: Kv + ?Sized>(kv: &K, layout: &Layout, name: &str) -> Result<Found, Status> {
    get(kv, layout, name)?.ok_or_else(|| not_found(name))
}

/// Every namespace, by name.
///
/// # Errors
/// The store failed.
pub fn list<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<Vec<pb::NamespaceDescriptor>, Status> {
    let mut out: BTreeMap<String, pb::NamespaceDescriptor> = [DEFAULT, SYSTEM]
        .into_iter()
        .chain(namespaces_of_tables(kv, layout)?.iter().map(String::as_str))
        .map(|n| (n.to_string(), bare(n)))
        .collect();
    let prefix = layout.namespaces();
    for item in range_all(kv, &prefix, 1000).map_err(unavailable)?.kvs {
        if let Some(name) = item.key.strip_prefix(&prefix) {
            out.insert(name.to_string(), decode(name, &item.value)?);
        }
    }
    Ok(out.into_values().collect())
}

/// Creates namespace `d` (HBase's `createNamespace`).
///
/// # Errors
/// An illegal name or quota, the namespace exists (`NAMESPACE_EXISTS`), or the store failed.
pub fn create<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    d: &pb::NamespaceDescriptor,
) -> Result<(), Status> {
    check_name(&d.name)?;
    check_quotas(d)?;
    let exists = || {
        strata_proto::status(
            ErrorCode::NamespaceExists,
            format!("Namespace {} already exists", d.name),
        )
    };
    if get(kv, layout, &d.name)?.is_some() {
        return Err(exists());
    }
    let key = layout.namespace(&d.name);
    let out = kv
        .txn(Txn {
            compares: vec![Compare::CreateRevision(key.clone(), 0)],
            success: vec![Op::put(key, d.encode_to_vec())],
        })
        .map_err(unavailable)?;
    if out.succeeded {
        Ok(())
    } else {
        Err(exists())
    }
}

/// Replaces the properties of namespace `d.name` with `d`'s (HBase's `modifyNamespace`).
///
/// # Errors
/// No such namespace, an illegal quota, a concurrent change (`UNAVAILABLE`), or the store
/// failed.
pub fn modify<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    d: &pb::NamespaceDescriptor,
) -> Result<(), Status> {
    check_name(&d.name)?;
    let found = require(kv, layout, &d.name)?;
    check_quotas(d)?;
    let key = layout.namespace(&d.name);
    let out = kv
        .txn(Txn {
            compares: vec![Compare::ModRevision(key.clone(), found.revision)],
            success: vec![Op::put(key, d.encode_to_vec())],
        })
        .map_err(unavailable)?;
    if out.succeeded {
        Ok(())
    } else {
        Err(changed(&d.name))
    }
}

/// Deletes namespace `name` (HBase's `deleteNamespace`): only an empty one, never `default`
/// or `hbase`.
///
/// # Errors
/// No such namespace, a system one or one holding tables (`CONSTRAINT`), a concurrent change
/// (`UNAVAILABLE`), or the store failed.
pub fn delete<K: Kv + ?Sized>(kv: &K, layout: &Layout, name: &str) -> Result<(), Status> {
    let found = require(kv, layout, name)?;
    if name == DEFAULT || name == SYSTEM {
        return Err(constraint(format!(
            "Reserved namespace {name} cannot be removed."
        )));
    }
    let tables = tables_in(kv, layout, name)?;
    if !tables.is_empty() {
        return Err(constraint(format!(
            "Only empty namespaces can be removed. Namespace {name} has {} tables",
            tables.len()
        )));
    }
    let key = layout.namespace(name);
    let out = kv
        .txn(Txn {
            compares: vec![Compare::ModRevision(key.clone(), found.revision)],
            success: vec![Op::Delete(key)],
        })
        .map_err(unavailable)?;
    if out.succeeded {
        Ok(())
    } else {
        Err(changed(name))
    }
}

/// The open (not split or merged away) regions of the tables in namespace `name`.
fn regions_in<K: Kv + ?Sized>(kv: &K, layout: &Layout, name: &str) -> Result<i64, Status> {
    let mut count = 0i64;
    for table in tables_in(kv, layout, name)? {
        for item in range_all(kv, &layout.table_regions(&table), 1000)
            .map_err(unavailable)?
            .kvs
        {
            if RegionRecord::decode(&item.value)
                .is_ok_and(|r| !matches!(r.state, RegionState::Split | RegionState::Merged))
            {
                count += 1;
            }
        }
    }
    Ok(count)
}

fn quota_exceeded(message: String) -> Status {
    strata_proto::status(ErrorCode::QuotaExceeded, message)
}

/// Records `table`'s schema (to be created with `regions` regions) once its namespace exists
/// and admits it (HBase's `NamespaceStateManager.checkAndUpdateNamespaceTableCount`), in one
/// transaction with the namespace's key as the check read it.
///
/// # Errors
/// No such namespace (`NAMESPACE_NOT_FOUND`), a quota passed (`QUOTA_EXCEEDED`), the table
/// exists (`TABLE_EXISTS`), a concurrent change (`UNAVAILABLE`), or the store failed.
pub fn put_schema<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &TableDescriptor,
    regions: usize,
) -> Result<(), Status> {
    let name = table.name.to_string();
    let ns = table.name.namespace();
    let found = require(kv, layout, ns)?;
    let props: BTreeMap<String, String> = found.descriptor.properties.clone().into_iter().collect();
    let new_regions = i64::try_from(regions).unwrap_or(i64::MAX);
    if let Some(max) = quota(&props, MAX_TABLES)? {
        let tables = i64::try_from(tables_in(kv, layout, ns)?.len()).unwrap_or(i64::MAX);
        if tables >= max {
            return Err(quota_exceeded(format!(
                "The table {name} cannot be created as it would exceed maximum number of tables \
                 allowed  in the namespace.  The total number of tables permitted is {max}"
            )));
        }
    }
    if let Some(max) = quota(&props, MAX_REGIONS)? {
        let current = regions_in(kv, layout, ns)?;
        if current.saturating_add(new_regions) > max {
            return Err(quota_exceeded(format!(
                "The table {name} is not allowed to have {new_regions} regions. The total \
                 number of regions permitted is only {max}, while current region count is \
                 {current}. This may be transient, please retry later if there are any ongoing \
                 split operations in the namespace."
            )));
        }
    }
    let ns_key = layout.namespace(ns);
    let mut success = vec![Op::put(
        layout.schema(&name),
        table_to_pb(table).encode_to_vec(),
    )];
    if found.revision != 0 {
        success.push(Op::put(ns_key.clone(), found.descriptor.encode_to_vec()));
    }
    let out = kv
        .txn(Txn {
            compares: vec![
                Compare::CreateRevision(layout.table(&name), 0),
                Compare::ModRevision(ns_key, found.revision),
            ],
            success,
        })
        .map_err(unavailable)?;
    if out.succeeded {
        return Ok(());
    }
    if kv.get(&layout.table(&name)).map_err(unavailable)?.is_some() {
        return Err(strata_proto::status(
            ErrorCode::TableExists,
            format!("table {name} already exists"),
        ));
    }
    Err(changed(ns))
}

/// Checks that splitting a region of `table` keeps its namespace within
/// `hbase.namespace.quota.maxregions` (HBase's `checkAndUpdateNamespaceRegionCount`).
///
/// # Errors
/// `QUOTA_EXCEEDED`, or the store failed.
pub fn admit_split<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
    region: &str,
) -> Result<(), Status> {
    let Ok(name) = TableName::parse(table) else {
        return Ok(());
    };
    let Some(found) = get(kv, layout, name.namespace())? else {
        return Ok(());
    };
    let props: BTreeMap<String, String> = found.descriptor.properties.into_iter().collect();
    if let Some(max) = quota(&props, MAX_REGIONS)? {
        if regions_in(kv, layout, name.namespace())? + 1 > max {
            return Err(quota_exceeded(format!(
                "Region split not possible for :{region} as quota limits are exceeded "
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::rc::Rc;

    use strata_cluster::mem::{MemKv, MemStore, Perfect};
    use strata_cluster::record::{TableRecord, TableState};
    use strata_model::schema::FamilyDescriptor;

    use super::*;

    fn kv() -> (MemKv, Layout) {
        (
            MemKv::new(MemStore::new(1), Rc::new(Perfect)),
            Layout::new("/t/"),
        )
    }

    fn put(kv: &MemKv, key: String, value: Vec<u8>) {
        kv.txn(Txn {
            compares: vec![],
            success: vec![Op::put(key, value)],
        })
        .unwrap();
    }

    fn descriptor(name: &str) -> TableDescriptor {
        TableDescriptor::new(TableName::parse(name).unwrap())
            .with_family(FamilyDescriptor::new("f"))
    }

    fn code(s: Status) -> ErrorCode {
        strata_proto::code_of(&s)
    }

    #[test]
    fn namespaces_of_earlier_tables_and_empty_values_exist() {
        let (kv, layout) = kv();
        // An earlier release: a table in `old` recorded without a namespace key, and `kept`
        // with an empty value (an upgraded standalone's explicit namespace).
        let record = TableRecord {
            state: TableState::Enabled,
            splits: vec![],
            incarnation: String::new(),
            next_seq: 0,
        };
        put(&kv, layout.table("old:t"), record.encode());
        put(&kv, layout.namespace("kept"), Vec::new());
        let names: Vec<String> = list(&kv, &layout)
            .unwrap()
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(names, ["default", "hbase", "kept", "old"]);
        assert_eq!(require(&kv, &layout, "old").unwrap().revision, 0);
        assert!(require(&kv, &layout, "kept")
            .unwrap()
            .descriptor
            .properties
            .is_empty());
        // A new table goes into either; `old` cannot be created again or deleted while it
        // holds its table.
        put_schema(&kv, &layout, &descriptor("old:u"), 1).unwrap();
        put_schema(&kv, &layout, &descriptor("kept:u"), 1).unwrap();
        assert_eq!(
            code(
                create(
                    &kv,
                    &layout,
                    &pb::NamespaceDescriptor {
                        name: "old".into(),
                        ..Default::default()
                    }
                )
                .unwrap_err()
            ),
            ErrorCode::NamespaceExists
        );
        assert_eq!(
            code(delete(&kv, &layout, "old").unwrap_err()),
            ErrorCode::Constraint
        );
        assert_eq!(
            code(put_schema(&kv, &layout, &descriptor("none:u"), 1).unwrap_err()),
            ErrorCode::NamespaceNotFound
        );
    }

    #[test]
    fn a_table_being_created_keeps_its_namespace() {
        let (kv, layout) = kv();
        let ns = pb::NamespaceDescriptor {
            name: "ns".into(),
            ..Default::default()
        };
        create(&kv, &layout, &ns).unwrap();
        // The schema is written (the master has not recorded the table yet): the namespace
        // holds it.
        put_schema(&kv, &layout, &descriptor("ns:t"), 1).unwrap();
        assert_eq!(
            code(delete(&kv, &layout, "ns").unwrap_err()),
            ErrorCode::Constraint
        );
        // A delete that read the namespace before a create wrote its schema fails its guard.
        let seen = require(&kv, &layout, "ns").unwrap();
        put_schema(&kv, &layout, &descriptor("ns:u"), 1).unwrap();
        let out = kv
            .txn(Txn {
                compares: vec![Compare::ModRevision(layout.namespace("ns"), seen.revision)],
                success: vec![Op::Delete(layout.namespace("ns"))],
            })
            .unwrap();
        assert!(!out.succeeded, "the create moved the namespace's revision");
    }
}
