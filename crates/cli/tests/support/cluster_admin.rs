//! Working a running test cluster (`cluster.rs`) from a test: a standby master, the catalog's
//! records and admin requests through etcd, a client, writers, and bounded waits.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection, Table};
use strata_cluster::etcd::EtcdKv;
use strata_cluster::kv::range_all;
use strata_cluster::layout::Layout;
use strata_cluster::master::{submit_request, take_result, AdminRequest};
use strata_cluster::record::RegionRecord;
use strata_model::ops::Put;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

use crate::cluster::{start, Cluster, Engines};
use crate::support::Killed;

/// Client options that ride out region moves, splits and merges.
pub fn options() -> ClientOptions {
    ClientOptions {
        retry_max: Duration::from_millis(300),
        retries: 200,
        ..ClientOptions::default()
    }
}

/// Runs blocking `f` (the etcd client blocks on a runtime of its own) off the test's runtime.
pub fn blocking<T>(f: impl FnOnce() -> T) -> T {
    tokio::task::block_in_place(f)
}

/// An etcd client and the layout of cluster `cluster`.
pub fn etcd(e: &Engines, cluster: &str) -> (EtcdKv, Layout) {
    let kv = blocking(|| {
        EtcdKv::connect(std::slice::from_ref(&e.etcd), Duration::from_secs(5)).unwrap()
    });
    (kv, Layout::new(&format!("/strata/{cluster}")))
}

/// Starts a standby master of `c` advertising `advertise`, once it stands by.
pub fn standby(e: &Engines, c: &Cluster, advertise: &str) -> Killed {
    let args: Vec<String> = [
        "master",
        "--etcd",
        &e.etcd,
        "--cluster",
        &c.name,
        "--ttl",
        "2",
        "--root",
        &c.root,
        "--hdfs-http",
        &e.http,
        "--advertise",
        advertise,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    start(&args, "standing by").0
}

/// The region records of `table` by name.
pub fn regions(kv: &EtcdKv, layout: &Layout, table: &str) -> Vec<(String, RegionRecord)> {
    blocking(|| range_all(kv, &layout.table_regions(table), 1000))
        .unwrap()
        .kvs
        .into_iter()
        .map(|item| {
            let name = item
                .key
                .strip_prefix(&layout.regions())
                .unwrap()
                .to_string();
            (name, RegionRecord::decode(&item.value).unwrap())
        })
        .collect()
}

/// Waits (at most `limit`) until `done` holds.
pub fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        blocking(|| std::thread::sleep(Duration::from_millis(100)));
    }
}

/// Submits `req` through etcd as request `id`; answers the master's result.
pub fn request(kv: &EtcdKv, layout: &Layout, id: &str, req: &AdminRequest) -> String {
    blocking(|| submit_request(kv, layout, id, req)).unwrap();
    let mut result = None;
    wait_for(
        &format!("request {id} answered"),
        Duration::from_secs(20),
        || {
            result = blocking(|| take_result(kv, layout, id)).ok().flatten();
            result.is_some()
        },
    );
    result.unwrap()
}

/// Turns the balancer off: no balancing moves (a region in a move refuses a split or merge
/// request, "in transition").
pub fn balancer_off(kv: &EtcdKv, layout: &Layout) {
    request(
        kv,
        layout,
        "balancer-off",
        &AdminRequest::SetBalancer { on: false },
    );
}

/// A client of `c`, with table `t` (family `f`) created split at `splits`.
pub async fn connect_with_table(c: &Cluster, splits: &[Bytes]) -> (Connection, Table) {
    let conn = Connection::connect_any(&c.addrs(), options())
        .await
        .unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin().create_table(&t, splits).await.unwrap();
    let table = conn.table("t").unwrap();
    (conn, table)
}

/// The directory of `region` under the cluster's storage `root`.
pub fn region_dir(root: &Path, region: &str) -> PathBuf {
    let (table, id) = strata_cluster_node::names::region_id(region).unwrap();
    strata_server::ServerConfig::new(root, String::new())
        .table_dir(&TableName::parse(&table).unwrap())
        .join(strata_storage::region::region_dir_name(id))
}

/// `n` writers putting `row(i)` = `v<i>` for `i` from `from` on (writer `w` takes every
/// `n`th) until `stop`; each answers the `i` acknowledged.
pub fn writers(
    table: &Table,
    from: u64,
    n: u64,
    stop: &Arc<AtomicBool>,
    row: fn(u64) -> Bytes,
) -> Vec<tokio::task::JoinHandle<Vec<u64>>> {
    (0..n)
        .map(|w| {
            let (table, stop) = (table.clone(), stop.clone());
            tokio::spawn(async move {
                let mut acked = Vec::new();
                let mut i = from + w;
                while !stop.load(Ordering::Relaxed) {
                    let put = Put::new(row(i)).add("f", "q", Bytes::from(format!("v{i}")));
                    if table.put(&put).await.is_ok() {
                        acked.push(i);
                    }
                    i += n;
                }
                acked
            })
        })
        .collect()
}
