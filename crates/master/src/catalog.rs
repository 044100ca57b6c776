//! The catalog (RFC 0007, "Catalog"; HBase's `meta`): tables with their schema and state, and
//! regions with their range, server, split generation and split-parent state. The master owns it;
//! every change is stored through the [`Coordinator`](crate::coordinator::Coordinator) before it
//! takes effect on a region server.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use prost::Message;
use strata_model::schema::TableDescriptor;
use strata_proto::convert::{table_from_pb, table_to_pb};
use strata_proto::pb;
use strata_storage::manifest::RegionInfo;

use crate::error::{MasterError, Result};

/// A table's catalog entry.
#[derive(Clone, Debug, PartialEq)]
pub struct TableEntry {
    /// Its schema.
    pub descriptor: TableDescriptor,
    /// Serving (true) or disabled.
    pub enabled: bool,
}

/// A region's catalog entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionEntry {
    /// Table, id and key range.
    pub info: RegionInfo,
    /// The server it is assigned to.
    pub server: String,
    /// Splits since the table was created (its split size doubles with each).
    pub generation: u32,
    /// For a split parent awaiting cleanup, its daughters; `None` for a serving region.
    pub daughters: Option<(u64, u64)>,
}

impl RegionEntry {
    /// True for a region that serves rows (not a split parent).
    pub fn is_serving(&self) -> bool {
        self.daughters.is_none()
    }
}

/// Tables and regions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    /// Tables by name (`ns:table`, or `table` in the default namespace).
    pub tables: BTreeMap<String, TableEntry>,
    /// Regions by id.
    pub regions: BTreeMap<u64, RegionEntry>,
    /// The next region id to hand out.
    pub next_region_id: u64,
    /// Namespaces created explicitly (tables may also name others: see
    /// [`Catalog::all_namespaces`]).
    pub namespaces: BTreeSet<String>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog {
            next_region_id: 1,
            ..Catalog::default()
        }
    }

    /// Every namespace that exists: `default`, `hbase`, those created explicitly and those
    /// of tables.
    pub fn all_namespaces(&self) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = [DEFAULT_NAMESPACE, SYSTEM_NAMESPACE]
            .iter()
            .map(|s| s.to_string())
            .chain(self.namespaces.iter().cloned())
            .collect();
        out.extend(self.tables.keys().map(|t| namespace_of(t).to_string()));
        out
    }

    /// Hands out a fresh region id (unique across tables: regions share the WAL).
    pub fn allocate_id(&mut self) -> u64 {
        let id = self.next_region_id;
        self.next_region_id += 1;
        id
    }

    /// The table's entry.
    ///
    /// # Errors
    /// [`MasterError::TableNotFound`].
    pub fn table(&self, name: &str) -> Result<&TableEntry> {
        self.tables
            .get(name)
            .ok_or_else(|| MasterError::TableNotFound(name.to_string()))
    }

    /// Serving regions of `table`, ordered by start row.
    pub fn serving_regions(&self, table: &str) -> Vec<&RegionEntry> {
        let mut v: Vec<&RegionEntry> = self
            .regions
            .values()
            .filter(|r| r.info.table == table && r.is_serving())
            .collect();
        v.sort_by(|a, b| a.info.start_row.cmp(&b.info.start_row));
        v
    }

    /// Every region of `table`, split parents included.
    pub fn all_regions(&self, table: &str) -> Vec<u64> {
        self.regions
            .values()
            .filter(|r| r.info.table == table)
            .map(|r| r.info.region_id)
            .collect()
    }

    /// Adds fresh regions of `table` covering the whole key space split at `split_keys`
    /// (generation 0, assigned to `server`); returns them in key order.
    ///
    /// # Errors
    /// As [`ranges_for_splits`].
    pub fn add_regions(
        &mut self,
        table: &str,
        split_keys: &[Bytes],
        server: &str,
    ) -> Result<Vec<RegionInfo>> {
        let mut infos = Vec::new();
        for (start_row, end_row) in ranges_for_splits(split_keys)? {
            let info = RegionInfo {
                table: table.to_string(),
                region_id: self.allocate_id(),
                start_row,
                end_row,
            };
            self.regions.insert(
                info.region_id,
                RegionEntry {
                    info: info.clone(),
                    server: server.to_string(),
                    generation: 0,
                    daughters: None,
                },
            );
            infos.push(info);
        }
        Ok(infos)
    }

    /// Encodes the catalog.
    pub fn encode(&self) -> Vec<u8> {
        pb::Catalog {
            tables: self
                .tables
                .values()
                .map(|t| pb::CatalogTable {
                    schema: Some(table_to_pb(&t.descriptor)),
                    state: if t.enabled {
                        pb::TableState::Enabled
                    } else {
                        pb::TableState::Disabled
                    } as i32,
                })
                .collect(),
            regions: self
                .regions
                .values()
                .map(|r| pb::CatalogRegion {
                    table: r.info.table.clone(),
                    region_id: r.info.region_id,
                    start_row: r.info.start_row.clone(),
                    end_row: r.info.end_row.clone(),
                    server: r.server.clone(),
                    generation: r.generation,
                    state: if r.is_serving() {
                        pb::CatalogRegionState::Open
                    } else {
                        pb::CatalogRegionState::SplitParent
                    } as i32,
                    daughters: r.daughters.map(|(a, b)| vec![a, b]).unwrap_or_default(),
                })
                .collect(),
            next_region_id: self.next_region_id,
            namespaces: self.namespaces.iter().cloned().collect(),
        }
        .encode_to_vec()
    }

    /// Decodes a stored catalog.
    ///
    /// # Errors
    /// [`MasterError::Corrupt`] for bytes that are no valid catalog.
    pub fn decode(bytes: &[u8]) -> Result<Catalog> {
        let corrupt = |why: String| MasterError::Corrupt(why);
        let msg = pb::Catalog::decode(bytes).map_err(|e| corrupt(e.to_string()))?;
        let mut catalog = Catalog {
            next_region_id: msg.next_region_id.max(1),
            namespaces: msg.namespaces.into_iter().collect(),
            ..Catalog::default()
        };
        for t in msg.tables {
            let schema = t
                .schema
                .ok_or_else(|| corrupt("a table without schema".into()))?;
            let descriptor = table_from_pb(schema).map_err(|e| corrupt(e.to_string()))?;
            let enabled = t.state == pb::TableState::Enabled as i32;
            catalog.tables.insert(
                descriptor.name.to_string(),
                TableEntry {
                    descriptor,
                    enabled,
                },
            );
        }
        for r in msg.regions {
            let daughters = match (r.state, r.daughters.as_slice()) {
                (s, []) if s == pb::CatalogRegionState::Open as i32 => None,
                (s, [a, b]) if s == pb::CatalogRegionState::SplitParent as i32 => Some((*a, *b)),
                _ => return Err(corrupt(format!("region {} has a bad state", r.region_id))),
            };
            if r.region_id >= catalog.next_region_id {
                return Err(corrupt(format!(
                    "region id {} not below next id",
                    r.region_id
                )));
            }
            catalog.regions.insert(
                r.region_id,
                RegionEntry {
                    info: RegionInfo {
                        table: r.table,
                        region_id: r.region_id,
                        start_row: r.start_row,
                        end_row: r.end_row,
                    },
                    server: r.server,
                    generation: r.generation,
                    daughters,
                },
            );
        }
        Ok(catalog)
    }
}

/// Region ranges for a new table split at `keys` (sorted first, as HBase's `createTable`
/// does; they must be distinct and non-empty).
///
/// # Errors
/// Keys that are empty, duplicated or too long.
pub fn ranges_for_splits(keys: &[Bytes]) -> Result<Vec<(Bytes, Bytes)>> {
    let mut keys = keys.to_vec();
    keys.sort();
    for (i, k) in keys.iter().enumerate() {
        if k.is_empty() {
            return Err(MasterError::InvalidArgument("a split key is empty".into()));
        }
        if k.len() > strata_model::limits::MAX_ROW_LEN {
            return Err(MasterError::InvalidArgument(format!(
                "split key {i} is {} bytes, over the row limit",
                k.len()
            )));
        }
        if i > 0 && keys[i - 1] == *k {
            return Err(MasterError::InvalidArgument(format!(
                "split keys must be distinct; '{}' appears twice",
                strata_model::ops::escape(k)
            )));
        }
    }
    let mut bounds = vec![Bytes::new()];
    bounds.extend(keys.iter().cloned());
    bounds.push(Bytes::new());
    Ok(bounds
        .windows(2)
        .map(|w| (w[0].clone(), w[1].clone()))
        .collect())
}

/// The namespace of tables named without one.
pub const DEFAULT_NAMESPACE: &str = "default";
/// HBase's system namespace (where `hbase:meta` lives).
pub const SYSTEM_NAMESPACE: &str = "hbase";

/// The namespace of a table name (`ns:table`, or `default`).
pub fn namespace_of(table: &str) -> &str {
    table
        .split_once(':')
        .map_or(DEFAULT_NAMESPACE, |(ns, _)| ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_model::schema::{FamilyDescriptor, TableName};

    #[test]
    fn catalog_round_trips() {
        let mut c = Catalog::new();
        let t = TableDescriptor::new(TableName::parse("ns:t").unwrap())
            .with_family(FamilyDescriptor::new("f"));
        c.tables.insert(
            "ns:t".into(),
            TableEntry {
                descriptor: t,
                enabled: false,
            },
        );
        for (i, daughters) in [(None), Some((3, 4))].into_iter().enumerate() {
            let id = c.allocate_id();
            c.regions.insert(
                id,
                RegionEntry {
                    info: RegionInfo {
                        table: "ns:t".into(),
                        region_id: id,
                        start_row: Bytes::from(vec![i as u8]),
                        end_row: Bytes::new(),
                    },
                    server: "127.0.0.1:1".into(),
                    generation: 2,
                    daughters,
                },
            );
        }
        assert_eq!(Catalog::decode(&c.encode()).unwrap(), c);
        assert!(Catalog::decode(b"\xff\xff\xff").is_err());
    }

    #[test]
    fn split_keys_make_ranges() {
        let r = ranges_for_splits(&[Bytes::from("b"), Bytes::from("d")]).unwrap();
        let want: Vec<(Bytes, Bytes)> = vec![
            (Bytes::new(), Bytes::from("b")),
            (Bytes::from("b"), Bytes::from("d")),
            (Bytes::from("d"), Bytes::new()),
        ];
        assert_eq!(r, want);
        assert_eq!(ranges_for_splits(&[]).unwrap().len(), 1);
        assert_eq!(
            ranges_for_splits(&[Bytes::from("d"), Bytes::from("b")]).unwrap(),
            want
        );
        assert!(ranges_for_splits(&[Bytes::from("b"), Bytes::from("b")]).is_err());
        assert!(ranges_for_splits(&[Bytes::new()]).is_err());
    }
}
