//! Table schemas in etcd: `schema/<table>` holds the table's `TableSchema` (protobuf), written
//! by the client that creates the table, just before its create request (with its namespace's
//! checks: `crate::namespace::put_schema`), and read by the region servers that open its
//! regions.

use std::sync::Arc;

use prost::Message;
use strata_cluster::kv::{Compare, Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_model::schema::TableDescriptor;
use strata_proto::convert::{table_from_pb, table_to_pb};
use strata_proto::pb::{self, ErrorCode};

/// The key of `table`'s schema.
pub fn schema_key(layout: &Layout, table: &str) -> String {
    layout.schema(table)
}

/// `table`'s schema.
///
/// # Errors
/// No schema recorded, a malformed one, or etcd failed.
pub fn get_schema<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<TableDescriptor, String> {
    find_schema(kv, layout, table)
        .map_err(|e| e.message().to_string())?
        .ok_or_else(|| format!("no schema recorded for table {table}"))
}

/// `table`'s schema if one is recorded (`None` for a table that does not exist: the caller's
/// other checks name that), for checks of its settings by admin operations.
///
/// # Errors
/// `UNAVAILABLE` if etcd failed or the record is malformed.
pub fn find_schema<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &str,
) -> Result<Option<TableDescriptor>, tonic::Status> {
    let unavailable = |m: String| strata_proto::status(ErrorCode::Unavailable, m);
    let Some(found) = kv
        .get(&schema_key(layout, table))
        .map_err(|e| unavailable(e.to_string()))?
    else {
        return Ok(None);
    };
    let schema = pb::TableSchema::decode(found.value.as_slice())
        .map_err(|e| unavailable(format!("schema of {table}: {e}")))?;
    table_from_pb(schema)
        .map(Some)
        .map_err(|e| unavailable(format!("schema of {table}: {e}")))
}

/// Tables' schemas as last read, by table: (the schema key's revision, the schema). A region
/// open reads the key (cheap) but decodes the schema only when it changed, so a start opening
/// 10,000 regions of one table decodes it once.
#[derive(Default)]
pub struct SchemaCache {
    by_table: parking_lot::Mutex<std::collections::HashMap<String, (i64, Arc<TableDescriptor>)>>,
}

impl SchemaCache {
    /// `table`'s schema, as [`get_schema`] reads it.
    ///
    /// # Errors
    /// As [`get_schema`].
    pub fn get<K: Kv + ?Sized>(
        &self,
        kv: &K,
        layout: &Layout,
        table: &str,
    ) -> Result<Arc<TableDescriptor>, String> {
        let found = kv
            .get(&schema_key(layout, table))
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("no schema recorded for table {table}"))?;
        if let Some((rev, schema)) = self.by_table.lock().get(table) {
            if *rev == found.mod_revision {
                return Ok(schema.clone());
            }
        }
        let schema = pb::TableSchema::decode(found.value.as_slice())
            .map_err(|e| format!("schema of {table}: {e}"))?;
        let schema =
            Arc::new(table_from_pb(schema).map_err(|e| format!("schema of {table}: {e}"))?);
        self.by_table
            .lock()
            .insert(table.to_string(), (found.mod_revision, schema.clone()));
        Ok(schema)
    }
}

/// Writes `table`'s new schema if the table is still the incarnation created at revision
/// `created` (not dropped and re-created meanwhile).
///
/// # Errors
/// `UNAVAILABLE` if the table changed meanwhile or etcd failed.
pub fn replace_schema<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    table: &strata_model::schema::TableDescriptor,
    created: i64,
) -> Result<(), tonic::Status> {
    let name = table.name.to_string();
    let out = kv
        .txn(Txn {
            compares: vec![Compare::CreateRevision(layout.table(&name), created)],
            success: vec![Op::put(
                layout.schema(&name),
                table_to_pb(table).encode_to_vec(),
            )],
        })
        .map_err(|e| strata_proto::status(ErrorCode::Unavailable, format!("etcd: {e}")))?;
    if out.succeeded {
        Ok(())
    } else {
        Err(strata_proto::status(
            ErrorCode::Unavailable,
            format!("table {name} changed meanwhile; retry"),
        ))
    }
}
