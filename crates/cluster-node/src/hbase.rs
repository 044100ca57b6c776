//! HBase's Java client on a cluster (RFC 0018): each region server runs the HBase RPC listener
//! over its own regions and answers `hbase:meta` and the registry from etcd, through
//! [`EtcdDirectory`]. A server publishes its listener's address under
//! `<cluster>/endpoints/hbase-rpc/<server name>` (deleted when it leaves); meta names, for
//! each open region, the listener of the server its record says holds it. A client whose
//! cached location is stale gets `NotServingRegionException` from the old server and reads
//! meta again.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use strata_cluster::kv::{range_all, Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_cluster::record::{RegionRecord, RegionState, TableRecord, TableState};
use strata_hbase_rpc::meta::{rows_of, MetaRegion, MetaRow, ServerIdentity};
use strata_hbase_rpc::{Directory, HBaseError};

use crate::names::region_id;
use crate::serve::Gate;

/// The prefix of published HBase RPC listeners.
pub fn endpoints_prefix(layout: &Layout) -> String {
    format!("{}endpoints/hbase-rpc/", layout.root())
}

/// Records that `server` (`host:port:startcode`) takes HBase RPC calls at `addr` (`host:port`).
///
/// # Errors
/// etcd is unavailable.
pub fn publish<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    server: &str,
    addr: &str,
) -> Result<(), String> {
    kv.txn(Txn {
        compares: Vec::new(),
        success: vec![Op::put(
            format!("{}{server}", endpoints_prefix(layout)),
            addr.as_bytes().to_vec(),
        )],
    })
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Removes what [`publish`] recorded.
///
/// # Errors
/// etcd is unavailable.
pub fn withdraw<K: Kv + ?Sized>(kv: &K, layout: &Layout, server: &str) -> Result<(), String> {
    kv.txn(Txn {
        compares: Vec::new(),
        success: vec![Op::Delete(format!("{}{server}", endpoints_prefix(layout)))],
    })
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The HBase identity of `server` (`host:port:startcode`) listening at `addr` (`host:port`).
pub fn identity(server: &str, addr: &str) -> Option<ServerIdentity> {
    let start_code = server.rsplit_once(':')?.1.parse::<u64>().ok()?;
    let (host, port) = addr.rsplit_once(':')?;
    Some(ServerIdentity {
        host: host.to_owned(),
        port: port.parse().ok()?,
        start_code,
    })
}

/// `hbase:meta` and the registry of a cluster, read from etcd at each request.
pub struct EtcdDirectory<K> {
    kv: Arc<K>,
    layout: Layout,
    gate: Arc<Gate>,
    me: ServerIdentity,
}

impl<K: Kv + Send + Sync + 'static> EtcdDirectory<K> {
    /// The directory of the cluster under `layout`, for the server `me` whose lease `gate`
    /// reflects. (The caller keeps a handle to `kv` and drops it last: etcd clients own a
    /// runtime.)
    pub fn new(kv: Arc<K>, layout: Layout, gate: Arc<Gate>, me: ServerIdentity) -> Self {
        EtcdDirectory {
            kv,
            layout,
            gate,
            me,
        }
    }

    fn endpoints(&self) -> Result<BTreeMap<String, String>, String> {
        let prefix = endpoints_prefix(&self.layout);
        Ok(range_all(self.kv.as_ref(), &prefix, 1000)
            .map_err(|e| e.to_string())?
            .kvs
            .into_iter()
            .filter_map(|kv| {
                let server = kv.key.strip_prefix(&prefix)?.to_owned();
                Some((server, String::from_utf8(kv.value).ok()?))
            })
            .collect())
    }
}

fn unavailable(e: impl std::fmt::Display) -> HBaseError {
    HBaseError {
        class: "java.io.IOException",
        message: format!("cannot read the cluster's records in etcd: {e}"),
        do_not_retry: false,
    }
}

impl<K: Kv + Send + Sync + 'static> Directory for EtcdDirectory<K> {
    fn meta_rows(&self) -> Result<Vec<MetaRow>, HBaseError> {
        let kv = self.kv.as_ref();
        let prefix = self.layout.tables();
        let mut tables = Vec::new();
        let mut enabled = BTreeMap::new();
        for item in range_all(kv, &prefix, 1000).map_err(unavailable)?.kvs {
            if let (Some(name), Ok(rec)) = (
                item.key.strip_prefix(&prefix),
                TableRecord::decode(&item.value),
            ) {
                let on = matches!(rec.state, TableState::Enabled);
                tables.push((name.to_owned(), on));
                enabled.insert(name.to_owned(), on);
            }
        }
        let endpoints = self.endpoints().map_err(unavailable)?;
        let prefix = self.layout.regions();
        let mut regions = Vec::new();
        for item in range_all(kv, &prefix, 1000).map_err(unavailable)?.kvs {
            let Some(name) = item.key.strip_prefix(&prefix) else {
                continue;
            };
            let (Some((table, id)), Ok(rec)) = (region_id(name), RegionRecord::decode(&item.value))
            else {
                continue;
            };
            if !enabled.contains_key(&table) || rec.state == RegionState::Split {
                continue; // a split parent: its daughters cover its rows
            }
            let server = match (&rec.server, rec.state) {
                (Some(s), RegionState::Open) if enabled[&table] => {
                    endpoints.get(s).and_then(|addr| identity(s, addr))
                }
                _ => None,
            };
            regions.push(MetaRegion {
                table,
                region_id: id,
                start: Bytes::from(rec.start),
                end: Bytes::from(rec.end),
                server,
            });
        }
        Ok(rows_of(&tables, &regions, self.me.start_code as i64))
    }

    fn servers(&self) -> Vec<ServerIdentity> {
        let live = range_all(self.kv.as_ref(), &self.layout.servers(), 1000)
            .map(|p| {
                p.kvs
                    .into_iter()
                    .filter_map(|kv| {
                        kv.key
                            .strip_prefix(&self.layout.servers())
                            .map(str::to_owned)
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let mut out: Vec<ServerIdentity> = self
            .endpoints()
            .unwrap_or_default()
            .iter()
            .filter(|(s, _)| live.contains(s))
            .filter_map(|(s, a)| identity(s, a))
            .collect();
        if !out.contains(&self.me) {
            out.insert(0, self.me.clone());
        }
        out
    }

    fn serving(&self) -> bool {
        self.gate.is_open()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_come_from_names_and_addresses() {
        let id = identity("127.0.0.1:16020:1700000000000", "127.0.0.1:16120").unwrap();
        assert_eq!(id.host, "127.0.0.1");
        assert_eq!(id.port, 16120);
        assert_eq!(id.start_code, 1_700_000_000_000);
        assert!(identity("no-start-code", "127.0.0.1:1").is_none());
        assert!(identity("h:1:2", "no-port").is_none());
    }
}
