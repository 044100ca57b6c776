//! A cluster whose region servers lose their log store, on a MiniDFSCluster of the test's own
//! (`support/own_hdfs.rs`) and an etcd of its own (`support/own_etcd.rs`): its DataNode stops
//! (connections reset: writes fail at once), or the whole HDFS process is paused (nothing
//! answers, nothing is reset: writes hang). Each WAL write is bounded (`--wal-timeout-ms`): no put is left
//! hanging past the bound (each fails, never acknowledged, or succeeds), every server gives
//! up its lease and registers again as a new incarnation (processes stay up), and once the
//! DataNode is back every region is served again with every acknowledged write.
//!
//! Skipped without `STRATA_ETCD_ENDPOINTS` and `STRATA_HDFS_URL` (the engines are not on the
//! machine) unless `STRATA_REQUIRE_ETCD` / `STRATA_REQUIRE_HDFS`.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/own_etcd.rs"]
mod own_etcd;
#[path = "support/own_hdfs.rs"]
mod own_hdfs;
mod support;

use cluster::start;
use own_etcd::OwnEtcd;
use own_hdfs::OwnHdfs;
use support::Killed;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection};
use strata_cluster::etcd::EtcdKv;
use strata_cluster::layout::Layout;
use strata_cluster::record::{RegionRecord, RegionState};
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

/// The bound on one WAL write given to the servers.
const WAL_TIMEOUT_MS: u64 = 2000;

/// Registered servers' names (etcd's client blocks: called off the test's async workers).
fn registered(etcd: &str, layout: &Layout) -> Option<Vec<String>> {
    tokio::task::block_in_place(|| registered_now(etcd, layout))
}

fn registered_now(etcd: &str, layout: &Layout) -> Option<Vec<String>> {
    let kv = EtcdKv::connect(&[etcd.to_owned()], Duration::from_secs(2)).ok()?;
    let prefix = layout.servers();
    let page = strata_cluster::kv::range_all(&kv, &prefix, 1000).ok()?;
    Some(
        page.kvs
            .iter()
            .filter_map(|kv| kv.key.strip_prefix(&prefix).map(str::to_owned))
            .collect(),
    )
}

/// Regions open on a registered server.
fn served(etcd: &str, layout: &Layout) -> usize {
    tokio::task::block_in_place(|| served_now(etcd, layout))
}

fn served_now(etcd: &str, layout: &Layout) -> usize {
    let Some(live) = registered_now(etcd, layout) else {
        return 0;
    };
    let Ok(kv) = EtcdKv::connect(&[etcd.to_owned()], Duration::from_secs(2)) else {
        return 0;
    };
    let prefix = layout.regions();
    let Ok(page) = strata_cluster::kv::range_all(&kv, &prefix, 1000) else {
        return 0;
    };
    page.kvs
        .iter()
        .filter(|kv| {
            RegionRecord::decode(&kv.value).is_ok_and(|r| {
                r.state == RegionState::Open && r.server.is_some_and(|s| live.contains(&s))
            })
        })
        .count()
}

fn row(i: u32) -> String {
    format!("{:03}-{i:06}", (i * 7919) % 1000)
}

fn put(i: u32) -> Put {
    Put::new(Bytes::from(row(i))).add("f", "q", Bytes::from(format!("v{i}")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_whose_datanode_stops_fail_writes_at_once_and_give_up_their_regions() {
    lose_the_log_store(
        &["stop-datanode", "0"],
        &["restart-datanode", "0"],
        "DataNode stopped",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_whose_hdfs_stops_answering_fail_writes_within_the_bound_and_give_up_their_regions()
{
    lose_the_log_store(&["pause"], &["resume"], "HDFS paused (SIGSTOP)").await;
}

/// Runs a cluster on HDFS, applies `fault` (`scripts/hdfs.sh` arguments) while writing,
/// checks the servers answer within the bound and give up their regions, applies `heal`, and
/// checks every region is served again with every acknowledged write.
async fn lose_the_log_store(fault: &[&str], heal: &[&str], what: &str) {
    let Some(etcd) = OwnEtcd::start() else { return };
    let Some(hdfs) = OwnHdfs::start() else { return };
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let name = format!("walfault-{}-{nanos}", std::process::id());
    let layout = Layout::new(&format!("/strata/{name}"));
    let ep = etcd.endpoint();
    let common = |cmd: &str| -> Vec<String> {
        [
            cmd,
            "--etcd",
            &ep,
            "--cluster",
            &name,
            "--ttl",
            "2",
            "--root",
            &format!("{}/strata/{name}", hdfs.url()),
            "--hdfs-http",
            &format!("127.0.0.1:{}", hdfs.http),
            // A new incarnation's start waits at most this for HDFS.
            "--store-timeout-secs",
            "10",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let mut args = common("master");
    args.extend(["--advertise".into(), "127.0.0.1:17991".into()]);
    let (master, _) = tokio::task::block_in_place(|| start(&args, "active"));
    let mut master = master;
    let mut servers: Vec<(Killed, String)> = Vec::new();
    for _ in 0..2 {
        let mut args = common("regionserver");
        args.extend(
            [
                "--listen",
                "127.0.0.1:0",
                "--memtable-mib",
                "32",
                "--block-cache-mib",
                "8",
                "--wal-timeout-ms",
                &WAL_TIMEOUT_MS.to_string(),
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        let (child, line) = tokio::task::block_in_place(|| start(&args, "serving on "));
        let addr = line
            .split("serving on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string();
        servers.push((child, addr));
    }
    let addrs: Vec<String> = servers.iter().map(|(_, a)| a.clone()).collect();
    let conn = Connection::connect_any(
        &addrs,
        ClientOptions {
            retry_max: Duration::from_millis(500),
            retries: 100,
            ..ClientOptions::default()
        },
    )
    .await
    .unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(
            &t,
            &[Bytes::from("250"), Bytes::from("500"), Bytes::from("750")],
        )
        .await
        .unwrap();
    let table = conn.table("t").unwrap();
    let mut acked = Vec::new();
    let mut next = 0u32;
    for _ in 0..40 {
        table.put(&put(next)).await.unwrap();
        acked.push(next);
        next += 1;
    }
    // Each listens before it registers (at its first tick).
    let waiting = Instant::now();
    let before = loop {
        let names = registered(&ep, &layout).unwrap_or_default();
        if names.len() == 2 || waiting.elapsed() > Duration::from_secs(10) {
            break names;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(before.len(), 2, "{before:?}");

    // The log store goes: every WAL write fails or hangs. Puts sent straight to the servers
    // (no client retries): each is answered within a few times the bound (a write and a sync
    // are each bounded, and a put may queue behind a failing batch), none hangs for the
    // store timeout or more.
    tokio::task::block_in_place(|| hdfs.run(fault));
    let stopped = Instant::now();
    let direct = ClientOptions {
        retries: 0,
        operation_timeout: Duration::from_secs(30),
        ..ClientOptions::default()
    };
    let mut answered = Vec::new();
    for addr in &addrs {
        let Ok(c) = Connection::connect_with(addr, direct.clone()).await else {
            continue;
        };
        let t = c.table("t").unwrap();
        for _ in 0..3 {
            let sent = Instant::now();
            let outcome = t.put(&put(next)).await;
            let took = sent.elapsed();
            assert!(
                took < Duration::from_millis(4 * WAL_TIMEOUT_MS + 2000),
                "a put to {addr} took {took:?} with the DataNode down ({outcome:?})"
            );
            if outcome.is_ok() {
                acked.push(next);
            }
            answered.push((took, outcome.is_ok()));
            next += 1;
        }
    }
    assert!(
        answered.iter().any(|(_, ok)| !ok),
        "every put succeeded with the DataNode down: {answered:?}"
    );
    // Every server gave up its lease (its old name left etcd) and stayed up.
    loop {
        let now = registered(&ep, &layout).unwrap_or_default();
        if !now.iter().any(|n| before.contains(n)) {
            break;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(30),
            "servers keep their leases without a WAL: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let gave_up = stopped.elapsed();
    for (child, addr) in &mut servers {
        assert!(child.0.try_wait().unwrap().is_none(), "{addr} exited");
    }
    assert!(master.0.try_wait().unwrap().is_none(), "the master exited");

    // The log store returns: every region is served again, with every acknowledged write.
    tokio::task::block_in_place(|| hdfs.run(heal));
    let back = Instant::now();
    while served(&ep, &layout) < 4 {
        assert!(
            back.elapsed() < Duration::from_secs(120),
            "regions not all served 120 s after HDFS returned"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let recovered = back.elapsed();
    let live: Vec<String> = registered(&ep, &layout)
        .unwrap()
        .iter()
        .filter_map(|n| n.rsplit_once(':').map(|(a, _)| a.to_string()))
        .collect();
    let conn = Connection::connect_any(
        &live,
        ClientOptions {
            retry_max: Duration::from_millis(500),
            retries: 100,
            ..ClientOptions::default()
        },
    )
    .await
    .unwrap();
    let table = conn.table("t").unwrap();
    for _ in 0..10 {
        table.put(&put(next)).await.unwrap();
        acked.push(next);
        next += 1;
    }
    for &i in &acked {
        let got = table.get(&Get::new(row(i))).await.unwrap();
        assert_eq!(
            got.first().map(|c| c.value.clone()),
            Some(Bytes::from(format!("v{i}"))),
            "acknowledged write {i} lost"
        );
    }
    let worst = answered.iter().map(|(t, _)| *t).max().unwrap_or_default();
    eprintln!(
        "{what}: slowest direct put answered in {worst:?} (bound {WAL_TIMEOUT_MS} ms), every \
         server gave up its lease within {gave_up:?}; HDFS back: every region served after \
         {recovered:?}; {} acknowledged writes read back",
        acked.len()
    );
    drop(servers);
    drop(master);
}
