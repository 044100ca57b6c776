//! Admin calls about servers on a cluster of real processes (a master and two region servers
//! on a real etcd, sharing a local root; skipped without `STRATA_ETCD_ENDPOINTS` unless
//! `STRATA_REQUIRE_ETCD`): `clear_block_cache` reaches every server hosting a region of the
//! table, `update_all_config` every live server, each with its own configuration file;
//! `alter_async` answers before the regions reopen and `alter_status` follows them.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection};
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

use cluster::start;

/// The region servers' data ports (within the range the tests of this file use).
const PORTS: [u16; 2] = [27031, 27032];

fn common(cmd: &str, etcd: &str, name: &str, root: &Path) -> Vec<String> {
    [
        cmd,
        "--etcd",
        etcd,
        "--cluster",
        name,
        "--ttl",
        "2",
        "--root",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([root.display().to_string()])
    .collect()
}

async fn wait_until<T>(what: &str, mut check: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(Instant::now() < deadline, "{what} within 60 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_calls_reach_every_server_of_a_cluster() {
    let Some(etcd) = support::etcd() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let name = format!("serverops-{}-{nanos}", std::process::id());
    let (_master, _) = start(&common("master", &etcd, &name, &root), "active");
    let mut servers = Vec::new();
    let mut addrs = Vec::new();
    for (i, port) in PORTS.iter().enumerate() {
        let conf = dir.path().join(format!("rs{i}.toml"));
        std::fs::write(&conf, "log-level = \"info\"\n").unwrap();
        let mut args = common("regionserver", &etcd, &name, &root);
        args.extend(
            [
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--memtable-mib",
                "32",
                "--block-cache-mib",
                "8",
                "--config",
                &conf.display().to_string(),
            ]
            .map(String::from),
        );
        servers.push((start(&args, "serving on ").0, conf));
        addrs.push(format!("127.0.0.1:{port}"));
    }
    let options = ClientOptions {
        retry_max: Duration::from_millis(300),
        retries: 200,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&addrs, options).await.unwrap();
    let admin = conn.admin();
    wait_until("both servers live", async || {
        let status = admin.status().await.ok()?;
        (status.servers.len() == 2).then_some(())
    })
    .await;

    // Four regions over the two servers.
    let table = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    let splits: Vec<Bytes> = ["4", "8", "c"].iter().map(|s| Bytes::from(*s)).collect();
    admin.create_table(&table, &splits).await.unwrap();
    wait_until("regions on both servers", async || {
        let regions = admin.regions("t").await.ok()?;
        let on: std::collections::BTreeSet<_> = regions.iter().map(|r| r.server.clone()).collect();
        (regions.len() == 4 && on.len() == 2 && !on.contains("")).then_some(())
    })
    .await;
    let t = conn.table("t").unwrap();
    let rows: Vec<String> = (0..64).map(|i| format!("{:x}{i:03}", i % 16)).collect();
    for row in &rows {
        let put = Put::new(Bytes::from(row.clone())).add(
            Bytes::from_static(b"f"),
            Bytes::from_static(b"q"),
            Bytes::from("v".repeat(300)),
        );
        t.put(&put).await.unwrap();
    }
    admin.flush("t").await.unwrap();
    for row in &rows {
        assert!(!t
            .get(&Get::new(Bytes::from(row.clone())))
            .await
            .unwrap()
            .is_empty());
    }

    // Both servers' caches: their capacities are summed, their evictions too.
    let stats = admin.clear_block_cache("t").await.unwrap();
    assert_eq!(stats.max_cache_size, 2 * (8 << 20), "{stats:?}");
    assert!(
        stats.evicted_blocks >= 4,
        "a block per region at least: {stats:?}"
    );
    assert!(stats.failed_regions.is_empty(), "{stats:?}");
    let again = admin.clear_block_cache("t").await.unwrap();
    assert_eq!(again.evicted_blocks, 0, "{again:?}");

    // One server's file changes: every server reloads, only it applies something.
    std::fs::write(&servers[1].1, "log-level = \"debug\"\n").unwrap();
    let mut all = admin.update_all_configuration().await.unwrap();
    all.sort_by(|a, b| a.server.cmp(&b.server));
    assert_eq!(
        all.iter().map(|u| u.server.clone()).collect::<Vec<_>>(),
        addrs,
        "{all:?}"
    );
    assert!(all.iter().all(|u| u.error.is_none()), "{all:?}");
    assert!(all[0].applied.is_empty(), "{all:?}");
    assert_eq!(all[1].applied, vec!["log-level: info → debug"], "{all:?}");
    // One server by its name: the other's file changes are not read.
    std::fs::write(&servers[0].1, "log-level = \"warn\"\n").unwrap();
    std::fs::write(&servers[1].1, "log-level = \"info\"\n").unwrap();
    let one = admin.update_configuration(&addrs[1]).await.unwrap();
    assert_eq!(one.server, addrs[1]);
    assert_eq!(one.applied, vec!["log-level: debug → info"], "{one:?}");
    let other = admin.update_configuration(&addrs[0]).await.unwrap();
    assert_eq!(other.applied, vec!["log-level: info → warn"], "{other:?}");

    // An alteration answered before its regions reopen, followed until every region serves
    // it; no procedure is left in progress then.
    let altered = table.clone().with_family(FamilyDescriptor::new("g"));
    admin.alter_table_async(&altered).await.unwrap();
    wait_until("every region reopened", async || {
        let (updated, regions) = admin.alter_status("t").await.ok()?;
        assert!(updated <= regions && regions == 4);
        (updated == regions).then_some(())
    })
    .await;
    wait_until("no procedure in progress", async || {
        admin.list_procedures().await.ok()?.is_empty().then_some(())
    })
    .await;
    let described = admin.describe_table("t").await.unwrap();
    assert!(described.descriptor.family(b"g").is_some());
    drop(servers);
}
