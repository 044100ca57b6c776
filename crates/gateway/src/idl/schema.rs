//! `ColumnDescriptor` ⇄ Strata's [`FamilyDescriptor`], and `TRegionInfo`.
//!
//! `ColumnDescriptor {1: Text name, 2: i32 maxVersions, 3: string compression, 4: bool
//! inMemory, 5: string bloomFilterType, 6: i32 bloomFilterVectorSize, 7: i32
//! bloomFilterNbHashes, 8: bool blockCacheEnabled, 9: i32 timeToLive}`. Family names travel
//! with a trailing colon (`cf:`), as HBase writes them. Settings go through the family's
//! HBase-named string setters, so values are checked exactly as the shell checks them.

use strata_client::RegionLocation;
use strata_model::schema::{FamilyDescriptor, Ttl};

use super::fields::Fields;
use crate::error::{Result, ThriftError};
use crate::protocol::{Struct, Value};

/// A family from a `ColumnDescriptor`; unset fields keep Strata's defaults.
///
/// # Errors
/// `IllegalArgument` for a missing name, a mistyped field or a value the family refuses.
pub fn family_from_thrift(s: &Struct) -> Result<FamilyDescriptor> {
    let f = Fields::new(s, "ColumnDescriptor");
    let name = f.bytes(1, "name")?;
    let name = name.strip_suffix(b":").unwrap_or(&name);
    let name = String::from_utf8(name.to_vec())
        .map_err(|_| ThriftError::illegal("ColumnDescriptor: name is not UTF-8"))?;
    let mut family = FamilyDescriptor::new(name);
    let mut settings: Vec<(&str, String)> = Vec::new();
    if let Some(v) = f.opt_i32(2, "maxVersions")? {
        settings.push(("VERSIONS", v.to_string()));
    }
    if let Some(v) = f.opt_bytes(3, "compression")? {
        settings.push(("COMPRESSION", String::from_utf8_lossy(&v).into_owned()));
    }
    if let Some(v) = f.opt_bool(4, "inMemory")? {
        settings.push(("IN_MEMORY", v.to_string()));
    }
    if let Some(v) = f.opt_bytes(5, "bloomFilterType")? {
        settings.push(("BLOOMFILTER", String::from_utf8_lossy(&v).into_owned()));
    }
    f.opt_i32(6, "bloomFilterVectorSize")?;
    f.opt_i32(7, "bloomFilterNbHashes")?;
    if let Some(v) = f.opt_bool(8, "blockCacheEnabled")? {
        settings.push(("BLOCKCACHE", v.to_string()));
    }
    if let Some(v) = f.opt_i32(9, "timeToLive")? {
        // HBase's Thrift takes a non-positive TTL as "forever".
        let ttl = if v > 0 { v } else { i32::MAX };
        settings.push(("TTL", ttl.to_string()));
    }
    for (key, value) in settings {
        family
            .set(key, &value)
            .map_err(|e| ThriftError::illegal(e.to_string()))?;
    }
    family
        .validate()
        .map_err(|e| ThriftError::illegal(e.to_string()))?;
    Ok(family)
}

/// The `ColumnDescriptor` of a family.
pub fn family_to_thrift(family: &FamilyDescriptor) -> Value {
    let text = |s: &str| Value::binary(s.as_bytes().to_vec());
    let ttl = match family.ttl {
        Ttl::Forever => i32::MAX,
        Ttl::Seconds(s) => i32::try_from(s).unwrap_or(i32::MAX),
    };
    Value::Struct(
        Struct::new()
            .with(1, text(&format!("{}:", family.name)))
            .with(
                2,
                Value::I32(i32::try_from(family.versions).unwrap_or(i32::MAX)),
            )
            .with(3, text(family.compression.name()))
            .with(4, Value::Bool(family.in_memory))
            .with(5, text(family.bloom_filter.name()))
            .with(6, Value::I32(0))
            .with(7, Value::I32(0))
            .with(8, Value::Bool(family.block_cache))
            .with(9, Value::I32(ttl)),
    )
}

/// `TRegionInfo {1: startKey, 2: endKey, 3: i64 id, 4: name, 5: byte version, 6: serverName,
/// 7: i32 port}`; the name is HBase-style `table,startKey,id`.
pub fn region_to_thrift(table: &str, region: &RegionLocation) -> Value {
    let mut name = Vec::new();
    name.extend_from_slice(table.as_bytes());
    name.push(b',');
    name.extend_from_slice(&region.start_row);
    name.extend_from_slice(format!(",{}", region.region_id).as_bytes());
    let (host, port) = match region.server.rsplit_once(':') {
        Some((h, p)) => (h, p.parse::<i32>().unwrap_or(0)),
        None => (region.server.as_str(), 0),
    };
    Value::Struct(
        Struct::new()
            .with(1, Value::Binary(region.start_row.clone()))
            .with(2, Value::Binary(region.end_row.clone()))
            .with(
                3,
                Value::I64(i64::try_from(region.region_id).unwrap_or(i64::MAX)),
            )
            .with(4, Value::binary(name))
            .with(5, Value::Byte(1))
            .with(6, Value::binary(host.as_bytes().to_vec()))
            .with(7, Value::I32(port)),
    )
}
