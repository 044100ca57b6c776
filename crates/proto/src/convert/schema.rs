//! Table schemas: settings travel as HBase names and values and are validated by the model's
//! string setters, the same path the shell's `create` and `alter` take.

use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

use super::ConvertError;
use crate::pb;

/// A table descriptor as a wire schema.
pub fn table_to_pb(table: &TableDescriptor) -> pb::TableSchema {
    pb::TableSchema {
        name: table.name.to_string(),
        settings: table
            .settings()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        families: table.families.iter().map(family_to_pb).collect(),
        metadata: custom_to_pb(&table.metadata),
        configuration: custom_to_pb(&table.configuration),
    }
}

fn custom_to_pb(
    map: &std::collections::BTreeMap<String, String>,
) -> std::collections::HashMap<String, String> {
    map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// A family descriptor as a wire schema (every setting, `NAME` left out).
pub fn family_to_pb(family: &FamilyDescriptor) -> pb::FamilySchema {
    pb::FamilySchema {
        name: family.name.clone(),
        settings: family
            .settings()
            .into_iter()
            .filter(|(k, _)| *k != "NAME")
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        metadata: custom_to_pb(&family.metadata),
        configuration: custom_to_pb(&family.configuration),
    }
}

/// A wire schema as a validated table descriptor.
///
/// # Errors
/// A bad table name, family name, setting key or value, or an invalid combination.
pub fn table_from_pb(schema: pb::TableSchema) -> Result<TableDescriptor, ConvertError> {
    let name = TableName::parse(&schema.name).map_err(|e| ConvertError(e.to_string()))?;
    let mut table = TableDescriptor::new(name);
    for (key, value) in sorted(schema.settings) {
        table
            .set(&key, &value)
            .map_err(|e| ConvertError(e.to_string()))?;
    }
    // A custom value whose key has since become a setting (a schema written before
    // `SPLIT_ENABLED` had its effect, say) sets it; any other is kept as given.
    for (key, value) in sorted(schema.metadata) {
        if table.set(&key, &value).is_err() {
            table.metadata.insert(key, value);
        }
    }
    table.configuration = schema.configuration.into_iter().collect();
    for family in schema.families {
        table.families.push(family_from_pb(family)?);
    }
    table.validate().map_err(|e| ConvertError(e.to_string()))?;
    Ok(table)
}

/// A wire family schema as a validated family descriptor.
///
/// # Errors
/// A bad name, an unknown setting or a bad value, naming the family.
pub fn family_from_pb(schema: pb::FamilySchema) -> Result<FamilyDescriptor, ConvertError> {
    let mut family = FamilyDescriptor::new(schema.name.clone());
    // `settings()` order first (VERSIONS before MIN_VERSIONS, ...), so dependent checks see
    // their dependencies; then anything else in name order.
    let order: Vec<&'static str> = family.settings().into_iter().map(|(k, _)| k).collect();
    let mut pairs: Vec<(String, String)> = sorted(schema.settings);
    pairs.sort_by_key(|(k, _)| {
        order
            .iter()
            .position(|o| o.eq_ignore_ascii_case(k))
            .unwrap_or(usize::MAX)
    });
    for (key, value) in pairs {
        family
            .set(&key, &value)
            .map_err(|e| ConvertError(format!("family '{}': {e}", schema.name)))?;
    }
    for (key, value) in sorted(schema.metadata) {
        if family.set(&key, &value).is_err() {
            family.metadata.insert(key, value);
        }
    }
    family.configuration = schema.configuration.into_iter().collect();
    family
        .validate()
        .map_err(|e| ConvertError(format!("family '{}': {e}", schema.name)))?;
    Ok(family)
}

fn sorted(map: std::collections::HashMap<String, String>) -> Vec<(String, String)> {
    let mut pairs: Vec<_> = map.into_iter().collect();
    pairs.sort();
    pairs
}
