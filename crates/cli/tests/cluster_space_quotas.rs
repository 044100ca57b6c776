//! Space quotas in a cluster (RFC 0029), as real processes on a real etcd
//! (`STRATA_ETCD_ENDPOINTS`): a master and two region servers, a table with a region on each.
//! Each server reports its region's store files; the master adds them up, finds the table past
//! its limit and publishes the violation, which both servers enforce (neither region takes a
//! put, each refusing with HBase's message); removing the quota lifts it on both. Skipped with
//! a message without etcd, unless `STRATA_REQUIRE_ETCD` is set.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use std::time::{Duration, Instant};

use strata_client::access::quota::{SpacePolicy, Subject};
use strata_client::{ClientOptions, Connection, Table};
use strata_model::ops::Put;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_server_enforces_the_masters_decision() {
    let Some(etcd) = support::etcd() else { return };
    tokio::time::timeout(Duration::from_secs(180), run(etcd))
        .await
        .expect("the test did not finish in 180 s");
}

fn put(row: String, bytes: usize) -> Put {
    Put::new(row).add("f", "q", vec![b'x'; bytes])
}

/// Whether a put to `prefix…` is refused, and how.
async fn refusal(table: &Table, prefix: &str, i: usize) -> Option<(ErrorCode, String)> {
    table
        .put(&put(format!("{prefix}late{i}"), 1))
        .await
        .err()
        .map(|e| (e.code, e.message))
}

/// Waits (up to 15 s) until puts to both regions are refused (`refused`) or not.
async fn both(table: &Table, refused: bool, first: usize) {
    let start = Instant::now();
    for i in first.. {
        let (a, z) = tokio::join!(refusal(table, "a", i), refusal(table, "z", i));
        if a.is_some() == refused && z.is_some() == refused {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "puts refused {refused}: not within 15 s ({a:?}, {z:?})"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn run(etcd: String) {
    let name = cluster::unique_name("space");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root").display().to_string();
    let common = |cmd: &str| {
        cluster::node_args(
            cmd,
            &etcd,
            &name,
            &root,
            &["--space-quota-period-ms", "200"],
        )
    };
    let (_master, _) = cluster::start(&common("master"), "active");
    let servers = cluster::start_servers(&common("regionserver"), 2);
    let addrs: Vec<String> = servers.iter().map(|(_, a)| a.clone()).collect();
    let options = ClientOptions {
        operation_timeout: Duration::from_secs(30),
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&addrs, options).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("space_t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[bytes::Bytes::from_static(b"m")])
        .await
        .unwrap();
    let table = conn.table("space_t").unwrap();
    let regions = conn.admin().regions("space_t").await.unwrap();
    let hosts: std::collections::BTreeSet<_> = regions.iter().map(|r| r.server.clone()).collect();
    assert_eq!(hosts.len(), 2, "{regions:?}");

    let subject = Subject::table("space_t");
    conn.admin()
        .set_space_quota(&subject, "24K", SpacePolicy::NoWrites)
        .await
        .unwrap();
    // 16 KiB in each region: neither server alone holds more than the limit, both together do.
    for prefix in ["a", "z"] {
        for i in 0..16 {
            table
                .put(&put(format!("{prefix}{i:03}"), 1024))
                .await
                .unwrap();
        }
    }
    conn.admin().flush("space_t").await.unwrap();
    both(&table, true, 0).await;
    for prefix in ["a", "z"] {
        let (code, message) = refusal(&table, prefix, 999).await.unwrap();
        assert_eq!(code, ErrorCode::SpaceLimited, "{message}");
        assert_eq!(
            message,
            "NO_WRITES Puts are disallowed due to a space quota."
        );
    }
    let states = conn.admin().space_quota_states().await.unwrap();
    assert_eq!(states.len(), 1, "{states:?}");
    let state = states[0].1;
    eprintln!("refused on both servers: {state:?}");
    assert!(
        state.in_violation && state.usage > 24 << 10,
        "the usage of both servers counts: {state:?}"
    );

    conn.admin().remove_space_quota(&subject).await.unwrap();
    both(&table, false, 1000).await;
}
