//! Cluster mode with data, as real processes on a real etcd (`STRATA_ETCD_ENDPOINTS`) and the
//! MiniDFSCluster of `scripts/hdfs.sh` (`STRATA_HDFS_URL`): one `strata master` and three
//! `strata regionserver`s on one HDFS root. A client that knows only the region servers
//! creates a table and writes; the region server holding the most regions is killed with
//! SIGKILL; every acknowledged write must read back and every region serve again, and the
//! time from the kill until then is printed and bounded. Skipped with a message when either
//! engine is missing, unless `STRATA_REQUIRE_ETCD` or `STRATA_REQUIRE_HDFS` is set. Finally the
//! table is dropped.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use cluster::{engines, start};

use support::{key, start_writers};

use std::collections::HashSet;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_client::{ClientOptions, Connection};
use strata_model::ops::Get;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_of_a_region_server_loses_no_acknowledged_write() {
    let Some(e) = engines() else { return };
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let cluster = format!("e2e-{}-{nanos}", std::process::id());
    let root = format!("{}/e2e/{cluster}", e.hdfs);
    let common = |cmd: &str| -> Vec<String> {
        [
            cmd,
            "--etcd",
            &e.etcd,
            "--cluster",
            &cluster,
            "--ttl",
            "2",
            "--root",
            &root,
            "--hdfs-http",
            &e.http,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let (_master, _) = start(&common("master"), "active");
    let mut servers = Vec::new();
    for _ in 0..3 {
        let mut args = common("regionserver");
        args.extend(
            [
                "--listen",
                "127.0.0.1:0",
                "--memtable-mib",
                "32",
                "--block-cache-mib",
                "8",
            ]
            .map(String::from),
        );
        let (child, line) = start(&args, "serving on ");
        let addr = line
            .split("serving on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string();
        servers.push((child, addr));
    }
    let addrs: Vec<String> = servers.iter().map(|(_, a)| a.clone()).collect();
    let options = ClientOptions {
        retry_max: Duration::from_millis(500),
        retries: 100,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&addrs, options).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(300), key(600), key(900)])
        .await
        .unwrap();
    let table = conn.table("t").unwrap();
    let (acked, writers) = start_writers(&table, 4);
    tokio::time::sleep(Duration::from_secs(3)).await;

    // Kill the server holding the most regions.
    let regions = conn.admin().regions("t").await.unwrap();
    assert_eq!(regions.len(), 4);
    let victim = (0..servers.len())
        .max_by_key(|&i| regions.iter().filter(|r| r.server == servers[i].1).count())
        .unwrap();
    let victim_addr = servers[victim].1.clone();
    let held = regions.iter().filter(|r| r.server == victim_addr).count();
    assert!(held > 0, "no region on {victim_addr}: {regions:?}");
    let before: u64 = acked
        .iter()
        .map(|a| a.load(std::sync::atomic::Ordering::SeqCst))
        .sum();
    assert!(before > 0, "no write acknowledged before the kill");
    let killed_at = Instant::now();
    drop(servers.remove(victim).0);

    // Until every region is open elsewhere and answers a read.
    let serving_again = loop {
        assert!(
            killed_at.elapsed() < Duration::from_secs(60),
            "regions did not serve again within 60 s of the kill"
        );
        if let Ok(regions) = conn.admin().regions("t").await {
            let moved = regions.len() == 4
                && regions
                    .iter()
                    .all(|r| !r.server.is_empty() && r.server != victim_addr);
            if moved {
                let mut all = true;
                for r in &regions {
                    let row = if r.start_row.is_empty() {
                        key(1)
                    } else {
                        r.start_row.clone()
                    };
                    all &= table.get(&Get::new(row)).await.is_ok();
                }
                if all {
                    break killed_at.elapsed();
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let acked = support::stop_writers(&acked, writers).await;
    let total: u64 = acked.iter().sum();
    eprintln!(
        "kill -9 of the server holding {held} of 4 regions: serving again after {:.2} s; \
         {total} writes acknowledged ({before} before the kill), all read back",
        serving_again.as_secs_f64()
    );
    assert!(total > before, "no write acknowledged after the failover");
    support::assert_acknowledged(&table, &acked).await;
    let live: HashSet<String> = conn
        .admin()
        .regions("t")
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.server)
        .collect();
    assert!(!live.contains(&victim_addr));
    assert!(
        serving_again < Duration::from_secs(30),
        "failover took {serving_again:?}"
    );

    // Disabled and dropped through the master's request path.
    conn.admin().disable_table("t").await.unwrap();
    conn.admin().delete_table("t").await.unwrap();
    assert!(conn.admin().regions("t").await.unwrap_err().is_not_found());
}
