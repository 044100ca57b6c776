//! Throttles in a cluster (RFC 0029), as real processes on a real etcd
//! (`STRATA_ETCD_ENDPOINTS`): a master and two region servers, a table with a region on each.
//! A throttle set through one server is followed by both, each limiting what it serves (HBase's
//! MACHINE scope): reads of each server's region hold at the limit, together twice it; the RPC
//! throttle switch turned off through one server lifts it on both, and on again holds it
//! again; removing the throttle lifts it on both. Skipped with a message without etcd, unless
//! `STRATA_REQUIRE_ETCD` is set.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;
#[path = "support/throttle.rs"]
mod throttle;

use std::time::Duration;

use strata_client::access::quota::Subject;
use strata_client::{ClientOptions, Connection};
use strata_model::ops::Put;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use throttle::Load;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_server_limits_what_it_serves() {
    let Some(etcd) = support::etcd() else { return };
    tokio::time::timeout(Duration::from_secs(180), run(etcd))
        .await
        .expect("the test did not finish in 180 s");
}

async fn run(etcd: String) {
    let name = cluster::unique_name("quota");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root").display().to_string();
    let common = |cmd: &str| cluster::node_args(cmd, &etcd, &name, &root, &[]);
    let (_master, _) = cluster::start(&common("master"), "active");
    let servers = cluster::start_servers(&common("regionserver"), 2);
    let addrs: Vec<String> = servers.iter().map(|(_, a)| a.clone()).collect();
    let options = ClientOptions {
        operation_timeout: Duration::from_secs(30),
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&addrs, options).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("quota_t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[bytes::Bytes::from_static(b"m")])
        .await
        .unwrap();
    let table = conn.table("quota_t").unwrap();
    for row in ["a", "z"] {
        table.put(&Put::new(row).add("f", "q", "v")).await.unwrap();
    }
    let regions = conn.admin().regions("quota_t").await.unwrap();
    let hosts: std::collections::BTreeSet<_> = regions.iter().map(|r| r.server.clone()).collect();
    assert_eq!(hosts.len(), 2, "{regions:?}");

    // Set through one server (its admin service); the other follows its watch.
    let subject = Subject::table("quota_t");
    conn.admin()
        .set_throttle(&subject, "", "50req/sec")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (low, high) = (Load::start(&table, b"a", 4), Load::start(&table, b"z", 4));
    held_at_the_limit(&low, &high, "50req/sec per server").await;

    // The RPC throttle switch, turned off through one server: both stop refusing, the
    // throttle still listed; on again, both hold the limit again.
    assert!(conn
        .admin()
        .set_switch("rpc_throttle", false)
        .await
        .unwrap());
    assert!(!conn.admin().switch_enabled("rpc_throttle").await.unwrap());
    tokio::time::sleep(Duration::from_millis(500)).await;
    unthrottled(&low, &high, "RPC throttle off").await;
    assert_eq!(conn.admin().list_quotas().await.unwrap().len(), 1);
    assert!(!conn.admin().set_switch("rpc_throttle", true).await.unwrap());
    tokio::time::sleep(Duration::from_millis(500)).await;
    held_at_the_limit(&low, &high, "RPC throttle on again").await;

    conn.admin().remove_throttle(&subject, "").await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    unthrottled(&low, &high, "unthrottled").await;
    low.stop().await;
    high.stop().await;
}

/// Both servers' regions read at 50 a second, within 10% (after the initial allowance).
async fn held_at_the_limit(low: &Load, high: &Load, what: &str) {
    let (settle, window) = (Duration::from_millis(1500), Duration::from_secs(3));
    let (a, z) = tokio::join!(low.rate(settle, window), high.rate(settle, window));
    eprintln!("{what}: {a:.1} and {z:.1} gets/s");
    for rate in [a, z] {
        assert!(
            (45.0..=55.0).contains(&rate),
            "{what}: {a:.1} and {z:.1} gets/s"
        );
    }
}

/// Both servers' regions read far above the limit.
async fn unthrottled(low: &Load, high: &Load, what: &str) {
    let (settle, window) = (Duration::from_millis(100), Duration::from_secs(1));
    let (a, z) = tokio::join!(low.rate(settle, window), high.rate(settle, window));
    eprintln!("{what}: {a:.1} and {z:.1} gets/s");
    assert!(a > 150.0 && z > 150.0, "{what}: {a:.1} and {z:.1} gets/s");
}
