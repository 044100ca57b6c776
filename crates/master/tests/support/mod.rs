//! A standalone server in a temporary directory, and helpers for tests.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use strata_client::{ClientOptions, Connection, Protocol};
use strata_master::{Standalone, StandaloneConfig};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

pub fn config(dir: &Path) -> StandaloneConfig {
    let mut c = StandaloneConfig::new(dir);
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.upkeep_interval = Duration::from_millis(100);
    c.server.memtable_budget_bytes = 64 << 20;
    c.server.block_cache_bytes = 8 << 20;
    c
}

pub async fn start(dir: &Path) -> (Standalone, Connection) {
    start_with(dir, Protocol::Grpc).await
}

/// A server, and a connection whose data requests use `protocol`.
pub async fn start_with(dir: &Path, protocol: Protocol) -> (Standalone, Connection) {
    let server = Standalone::start(config(dir)).await.unwrap();
    let options = ClientOptions {
        protocol,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_with(&server.addr().to_string(), options)
        .await
        .unwrap();
    (server, conn)
}

pub fn table(name: &str, families: &[&str]) -> TableDescriptor {
    let mut t = TableDescriptor::new(TableName::parse(name).unwrap());
    for f in families {
        let mut fd = FamilyDescriptor::new(*f);
        fd.versions = 3;
        t = t.with_family(fd);
    }
    t
}

pub fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

pub fn key(i: u64) -> Bytes {
    Bytes::from(format!("row{i:08}"))
}
