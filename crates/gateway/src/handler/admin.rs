//! Table administration: create, delete, enable, disable, list, describe, regions, compact.

use bytes::Bytes;
use strata_model::schema::{TableDescriptor, TableName};

use super::Service;
use crate::error::{Result, ThriftError};
use crate::idl::{family_from_thrift, family_to_thrift, region_to_thrift, Fields};
use crate::protocol::{TType, Value};

/// Runs admin method `name`.
pub(super) async fn call(s: &Service, name: &str, f: &Fields<'_>) -> Result<Option<Value>> {
    let admin = s.conn.admin();
    let text = |t: &str| Value::binary(t.as_bytes().to_vec());
    Ok(match name {
        "enableTable" => {
            admin.enable_table(&f.string(1, "tableName")?).await?;
            None
        }
        "disableTable" => {
            admin.disable_table(&f.string(1, "tableName")?).await?;
            None
        }
        "isTableEnabled" => {
            let info = admin.describe_table(&f.string(1, "tableName")?).await?;
            Some(Value::Bool(info.enabled))
        }
        "compact" | "majorCompact" => {
            let table = f.string(1, "tableNameOrRegionName")?;
            admin.compact(&table, None, name == "majorCompact").await?;
            None
        }
        "getTableNames" => {
            let tables = admin.list_tables().await?;
            let names = tables
                .iter()
                .map(|t| text(&t.descriptor.name.to_string()))
                .collect();
            Some(Value::list(TType::String, names))
        }
        "getTableNamesWithIsTableEnabled" => {
            let tables = admin.list_tables().await?;
            let entries = tables
                .iter()
                .map(|t| (text(&t.descriptor.name.to_string()), Value::Bool(t.enabled)))
                .collect();
            Some(Value::Map {
                key: TType::String,
                value: TType::Bool,
                entries,
            })
        }
        "getColumnDescriptors" => {
            let info = admin.describe_table(&f.string(1, "tableName")?).await?;
            let entries = info
                .descriptor
                .families
                .iter()
                .map(|fam| (text(&format!("{}:", fam.name)), family_to_thrift(fam)))
                .collect();
            Some(Value::Map {
                key: TType::String,
                value: TType::Struct,
                entries,
            })
        }
        "getTableRegions" => {
            let table = f.string(1, "tableName")?;
            let regions = admin.regions(&table).await?;
            let items = regions
                .iter()
                .map(|r| region_to_thrift(&table, r))
                .collect();
            Some(Value::list(TType::Struct, items))
        }
        "createTable" => {
            create_table(s, f).await?;
            None
        }
        "deleteTable" => {
            admin.delete_table(&f.string(1, "tableName")?).await?;
            None
        }
        "getRegionInfo" => Some(region_info(s, &f.bytes(1, "row")?).await?),
        "getThriftServerType" => Some(Value::I32(1)),
        "getClusterId" => Some(text("strata")),
        _ => return Err(ThriftError::io(format!("{name} is not supported"))),
    })
}

async fn create_table(s: &Service, f: &Fields<'_>) -> Result<()> {
    let name = f.string(1, "tableName")?;
    let name = TableName::parse(&name).map_err(|e| ThriftError::illegal(e.to_string()))?;
    let families = f.struct_list(2, "columnFamilies")?;
    if families.is_empty() {
        return Err(ThriftError::illegal(
            "a table needs at least one column family",
        ));
    }
    let mut table = TableDescriptor::new(name);
    for family in families {
        table = table.with_family(family_from_thrift(family)?);
    }
    table
        .validate()
        .map_err(|e| ThriftError::illegal(e.to_string()))?;
    s.conn.admin().create_table(&table, &[]).await?;
    Ok(())
}

/// `getRegionInfo(row)`: `row` is a catalog key, `table,row[,...]`; the region of `table`
/// holding `row`.
async fn region_info(s: &Service, key: &Bytes) -> Result<Value> {
    let bad = || ThriftError::io("getRegionInfo takes a catalog row key: table,row,");
    let comma = key.iter().position(|&b| b == b',').ok_or_else(bad)?;
    let table = std::str::from_utf8(&key[..comma]).map_err(|_| bad())?;
    let rest = &key[comma + 1..];
    // HBase keys end with ",<region id or 99999999999999>"; the row is what comes before.
    let row = match rest.iter().rposition(|&b| b == b',') {
        Some(i) => &rest[..i],
        None => rest,
    };
    let regions = s.conn.admin().regions(table).await?;
    let region = regions
        .iter()
        .find(|r| r.contains(row))
        .ok_or_else(|| ThriftError::io(format!("no region of {table} holds that row")))?;
    Ok(region_to_thrift(table, region))
}
