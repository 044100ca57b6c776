//! Tables, regions, cells and region servers for tests, in the shapes most tests want: one
//! place instead of a copy per test file.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_server::{RegionServer, ServerConfig};
use strata_storage::manifest::RegionInfo;

/// Table `name` (`ns:table` or `table`) with `families` at HBase's defaults.
///
/// # Panics
/// `name` is not a valid table name.
pub fn table(name: &str, families: &[&str]) -> TableDescriptor {
    table_with(name, families, |_| {})
}

/// Table `name` with `families`, each adjusted by `edit` (versions, encodings, policies).
///
/// # Panics
/// `name` is not a valid table name.
pub fn table_with(
    name: &str,
    families: &[&str],
    edit: impl Fn(&mut FamilyDescriptor),
) -> TableDescriptor {
    let mut t = TableDescriptor::new(TableName::parse(name).unwrap());
    for f in families {
        let mut fd = FamilyDescriptor::new(*f);
        edit(&mut fd);
        t = t.with_family(fd);
    }
    t
}

/// Region `id` of table `table` from `start` to `end` (empty: an open end).
pub fn region(table: &str, id: u64, start: &str, end: &str) -> RegionInfo {
    RegionInfo::new(
        table,
        id,
        Bytes::copy_from_slice(start.as_bytes()),
        Bytes::copy_from_slice(end.as_bytes()),
    )
}

/// `s` as bytes.
pub fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

/// Row key `i` in a form that sorts numerically (`row00000042`).
pub fn key(i: u64) -> Bytes {
    Bytes::from(format!("row{i:08}"))
}

/// A region server's settings for a test on `dir`: no address, a memory budget of
/// `budget_mib`, the rest at their defaults.
pub fn server_config(dir: &Path, budget_mib: u64) -> ServerConfig {
    ServerConfig::new(dir, "test:0").with_memory_budget(budget_mib << 20)
}

/// A region server on `config` holding `regions` of `table`.
///
/// # Panics
/// The server or a region does not open.
pub fn server(
    config: ServerConfig,
    table: &TableDescriptor,
    regions: &[RegionInfo],
) -> Arc<RegionServer> {
    let server = RegionServer::open(config).unwrap();
    for info in regions {
        server.open_region(table, info).unwrap();
    }
    server
}
