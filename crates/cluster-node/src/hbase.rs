//! HBase's Java client on a cluster (RFC 0018): each region server runs the HBase RPC listener
//! over its own regions and answers `hbase:meta` and the registry from etcd, through
//! [`EtcdDirectory`]. A server publishes its listener's address under
//! `<cluster>/endpoints/hbase-rpc/<server name>` (deleted when it leaves); meta names, for
//! each open region, the listener of the server its record says holds it. A client whose
//! cached location is stale gets `NotServingRegionException` from the old server and reads
//! meta again.
//!
//! A master with a listener publishes it under `<cluster>/endpoints/hbase-master/<advertised
//! address>` (value `host:port:startcode`); the registry names the one whose advertised
//! address holds the election as the active master, and lists only masters in the election.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use strata_cluster::kv::{range_all, Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_cluster::load::ServerLoad;
use strata_cluster::record::{RegionRecord, RegionState, TableRecord, TableState};
use strata_cluster::region_metrics::ServerMetrics;
use strata_hbase_rpc::meta::{rows_of, MetaRegion, MetaRow, ServerIdentity};
use strata_hbase_rpc::ops::{LiveServer, RegionFigures, ServerRegion};
use strata_hbase_rpc::{Directory, HBaseError};

use crate::names::region_id;
use crate::serve::Gate;

/// The prefix of published HBase RPC listeners.
pub fn endpoints_prefix(layout: &Layout) -> String {
    format!("{}endpoints/hbase-rpc/", layout.root())
}

/// The prefix of masters' published HBase RPC listeners.
pub fn master_endpoints_prefix(layout: &Layout) -> String {
    format!("{}endpoints/hbase-master/", layout.root())
}

/// The cluster id HBase clients are told: `strata-` and the cluster's name (its records'
/// prefix below `/strata/`), as a standalone server's id is `strata-` and its directory.
pub fn cluster_id(layout: &Layout) -> String {
    let root = layout.root().trim_matches('/');
    let name = root.strip_prefix("strata/").unwrap_or(root);
    format!("strata-{}", name.replace('/', "-"))
}

/// Records that the master advertised as `advertise` takes HBase RPC calls as `me`.
///
/// # Errors
/// etcd is unavailable.
pub fn publish_master<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    advertise: &str,
    me: &ServerIdentity,
) -> Result<(), String> {
    let value = format!("{}:{}:{}", me.host, me.port, me.start_code);
    kv.txn(Txn {
        compares: Vec::new(),
        success: vec![Op::put(
            format!("{}{advertise}", master_endpoints_prefix(layout)),
            value.into_bytes(),
        )],
    })
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Removes what [`publish_master`] recorded.
///
/// # Errors
/// etcd is unavailable.
pub fn withdraw_master<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    advertise: &str,
) -> Result<(), String> {
    kv.txn(Txn {
        compares: Vec::new(),
        success: vec![Op::Delete(format!(
            "{}{advertise}",
            master_endpoints_prefix(layout)
        ))],
    })
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// `host:port:startcode` as an identity.
fn parse_listener(value: &str) -> Option<ServerIdentity> {
    let (addr, _) = value.rsplit_once(':')?;
    identity(value, addr)
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
    gate: Option<Arc<Gate>>,
    me: ServerIdentity,
}

impl<K: Kv + Send + Sync + 'static> EtcdDirectory<K> {
    /// The directory of the cluster under `layout`, for the process `me`: a region server
    /// whose lease `gate` reflects, or a master (`None`: it holds no regions). (The caller
    /// keeps a handle to `kv` and drops it last: etcd clients own a runtime.)
    pub fn new(kv: Arc<K>, layout: Layout, gate: Option<Arc<Gate>>, me: ServerIdentity) -> Self {
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

    /// How HBase's clients know each of `names` (`host:port:startcode`): its published HBase
    /// RPC listener, else its own address.
    fn identities_of(
        &self,
        names: Vec<String>,
    ) -> Result<Vec<(String, ServerIdentity)>, HBaseError> {
        let endpoints = self.endpoints().map_err(unavailable)?;
        Ok(names
            .into_iter()
            .filter_map(|name| {
                let addr = endpoints
                    .get(&name)
                    .cloned()
                    .unwrap_or_else(|| crate::names::server_address(&name).to_owned());
                let id = identity(&name, &addr)?;
                Some((name, id))
            })
            .collect())
    }

    /// HBase's names of the servers `names`.
    ///
    /// # Errors
    /// etcd is unavailable.
    pub fn identities(&self, names: Vec<String>) -> Result<Vec<ServerIdentity>, HBaseError> {
        Ok(self
            .identities_of(names)?
            .into_iter()
            .map(|(_, id)| id)
            .collect())
    }

    /// The name (`host:port:startcode`) of the live server HBase's clients know as `id` (a
    /// start code of 0 matches any); `id` printed as `host:port:startcode` when none does, for
    /// the admin path to refuse with the live servers listed.
    ///
    /// # Errors
    /// etcd is unavailable.
    pub fn server_name(&self, id: &ServerIdentity) -> Result<String, HBaseError> {
        let prefix = self.layout.servers();
        let live: Vec<String> = range_all(self.kv.as_ref(), &prefix, 1000)
            .map_err(unavailable)?
            .kvs
            .into_iter()
            .filter_map(|item| item.key.strip_prefix(&prefix).map(str::to_owned))
            .collect();
        let found = self.identities_of(live)?.into_iter().find(|(_, known)| {
            known.host == id.host
                && known.port == id.port
                && (id.start_code == 0 || known.start_code == id.start_code)
        });
        Ok(found.map_or_else(
            || format!("{}:{}:{}", id.host, id.port, id.start_code),
            |(name, _)| name,
        ))
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
            if !enabled.contains_key(&table)
                || matches!(rec.state, RegionState::Split | RegionState::Merged)
            {
                continue; // a split or merged parent: its successors cover its rows
            }
            let open_on = match (&rec.server, rec.state) {
                (Some(s), RegionState::Open) if enabled[&table] => {
                    endpoints.get(s).and_then(|addr| identity(s, addr))
                }
                _ => None,
            };
            let open = open_on.is_some();
            // A disabled table's region names this process, which answers
            // NotServingRegionException for it: the client then finds the table disabled
            // and raises TableNotEnabledException, as against HBase, whose meta keeps a
            // closed region's last server.
            let server = open_on.or_else(|| (!enabled[&table]).then(|| self.me.clone()));
            regions.push(MetaRegion {
                table,
                region_id: id,
                start: Bytes::from(rec.start),
                end: Bytes::from(rec.end),
                server,
                open,
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
        for (m, _) in self.masters() {
            if !out.contains(&m) {
                out.push(m);
            }
        }
        if !out.contains(&self.me) {
            out.insert(0, self.me.clone());
        }
        out
    }

    fn serving(&self) -> bool {
        self.gate.as_ref().is_none_or(|g| g.is_open())
    }

    fn masters(&self) -> Vec<(ServerIdentity, bool)> {
        self.read_masters().unwrap_or_default()
    }
}

impl<K: Kv + Send + Sync + 'static> EtcdDirectory<K> {
    /// Published master listeners of masters in the election, with whether each is active
    /// (the first in election order).
    fn read_masters(&self) -> Result<Vec<(ServerIdentity, bool)>, String> {
        let kv = self.kv.as_ref();
        let mut election = range_all(kv, &self.layout.election(), 100)
            .map_err(|e| e.to_string())?
            .kvs;
        election.sort_by_key(|m| m.create_revision);
        let candidates: Vec<String> = election
            .into_iter()
            .map(|m| String::from_utf8_lossy(&m.value).into_owned())
            .collect();
        let prefix = master_endpoints_prefix(&self.layout);
        let published: BTreeMap<String, ServerIdentity> = range_all(kv, &prefix, 100)
            .map_err(|e| e.to_string())?
            .kvs
            .into_iter()
            .filter_map(|item| {
                let advertise = item.key.strip_prefix(&prefix)?.to_owned();
                let id = parse_listener(std::str::from_utf8(&item.value).ok()?)?;
                Some((advertise, id))
            })
            .collect();
        Ok(candidates
            .iter()
            .enumerate()
            .filter_map(|(i, c)| published.get(c).map(|id| (id.clone(), i == 0)))
            .collect())
    }

    /// The registered region servers, named by their HBase RPC listener when they publish
    /// one (else by their gRPC address), with the regions open on each.
    ///
    /// # Errors
    /// etcd is unavailable.
    pub fn live_servers(&self) -> Result<Vec<LiveServer>, HBaseError> {
        let kv = self.kv.as_ref();
        let prefix = self.layout.servers();
        let names: Vec<String> = range_all(kv, &prefix, 1000)
            .map_err(unavailable)?
            .kvs
            .into_iter()
            .filter_map(|item| item.key.strip_prefix(&prefix).map(str::to_owned))
            .collect();
        // What each server last published of its regions' statistics (by region name): a
        // report that does not decode is left out, its regions answered without figures.
        let prefix = self.layout.metrics_prefix();
        let mut published: BTreeMap<(String, String), RegionFigures> = BTreeMap::new();
        for item in range_all(kv, &prefix, 1000).map_err(unavailable)?.kvs {
            let (Some(server), Ok(report)) = (
                item.key.strip_prefix(&prefix),
                ServerMetrics::decode(&item.value),
            ) else {
                continue;
            };
            for (region, m) in report.regions {
                let figures = RegionFigures {
                    stores: m.stores,
                    store_files: m.store_files,
                    store_bytes: m.store_bytes,
                    memtable_bytes: m.memtable_bytes,
                    reads: m.reads,
                    writes: m.writes,
                    last_major_compaction_ms: m.last_major_compaction_ms,
                };
                published.insert((server.to_owned(), region), figures);
            }
        }
        // Each server's request rate, from its last load report.
        let prefix = self.layout.loads();
        let mut rates: BTreeMap<String, u64> = BTreeMap::new();
        for item in range_all(kv, &prefix, 1000).map_err(unavailable)?.kvs {
            if let (Some(server), Ok(load)) = (
                item.key.strip_prefix(&prefix),
                ServerLoad::decode(&item.value),
            ) {
                rates.insert(server.to_owned(), load.total_milli / 1000);
            }
        }
        let mut regions: BTreeMap<String, Vec<ServerRegion>> = BTreeMap::new();
        let prefix = self.layout.regions();
        for item in range_all(kv, &prefix, 1000).map_err(unavailable)?.kvs {
            let Some(name) = item.key.strip_prefix(&prefix) else {
                continue;
            };
            let (Some((table, id)), Ok(rec)) = (region_id(name), RegionRecord::decode(&item.value))
            else {
                continue;
            };
            if let (Some(server), RegionState::Open) = (rec.server, rec.state) {
                let published = published.remove(&(server.clone(), name.to_owned()));
                regions.entry(server).or_default().push(ServerRegion {
                    table,
                    start: Bytes::from(rec.start),
                    region_id: id,
                    published,
                });
            }
        }
        Ok(self
            .identities_of(names)?
            .into_iter()
            .map(|(name, identity)| LiveServer {
                identity,
                regions: regions.remove(&name).unwrap_or_default(),
                requests_per_sec: rates.get(&name).copied(),
            })
            .collect())
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
        let m = parse_listener("10.0.0.1:16100:42").unwrap();
        assert_eq!(
            (m.host.as_str(), m.port, m.start_code),
            ("10.0.0.1", 16100, 42)
        );
        assert!(parse_listener("10.0.0.1:16100").is_none());
    }
}
