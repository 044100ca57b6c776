//! A cluster with TLS and client certificates everywhere (RFC 0024), as real processes on a
//! real etcd (`STRATA_ETCD_ENDPOINTS`) with a local shared root: `strata master` with HBase
//! RPC and two `strata regionserver`s with `--tls-client-ca`. A client with a certificate
//! writes a table of three regions; a flush and a listing of files, which each region server
//! forwards to the other over TLS with its own certificate, succeed; a plaintext client is
//! refused naming TLS. Skipped with a message without etcd, unless `STRATA_REQUIRE_ETCD` is
//! set.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use strata_client::{ClientOptions, Connection};
use strata_model::ops::Put;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_tls::ca::{self, Request};
use strata_tls::{ClientFiles, ClientTls};
use support::key;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn region_servers_forward_over_tls_and_refuse_plaintext() {
    let Some(etcd) = support::etcd() else { return };
    tokio::time::timeout(Duration::from_secs(180), run(etcd))
        .await
        .expect("the test did not finish in 180 s");
}

async fn run(etcd: String) {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let cluster = format!("tls-{}-{nanos}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let certs = dir.path().join("certs");
    ca::init(&certs, 30).unwrap();
    for name in ["server", "client"] {
        let mut request = Request::new(name, 30);
        request.ips = vec!["127.0.0.1".parse().unwrap()];
        ca::issue(&certs, &request).unwrap();
    }
    let file = |name: &str| certs.join(name).display().to_string();
    let root = dir.path().join("root").display().to_string();
    let common = |cmd: &str| -> Vec<String> {
        [
            cmd,
            "--etcd",
            &etcd,
            "--cluster",
            &cluster,
            "--ttl",
            "2",
            "--root",
            &root,
            "--tls-cert",
            &file("server.pem"),
            "--tls-key",
            &file("server.key"),
            "--tls-client-ca",
            &file("ca.pem"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let mut master_args = common("master");
    master_args.extend(["--hbase-rpc", "127.0.0.1:0"].map(String::from));
    let (_master, _) = cluster::start(&master_args, "active");
    let mut servers = Vec::new();
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
            ]
            .map(String::from),
        );
        let (child, line) = cluster::start(&args, "serving on ");
        let addr = line
            .split("serving on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string();
        servers.push((child, addr));
    }
    let addrs: Vec<String> = servers.iter().map(|(_, a)| a.clone()).collect();
    let tls = ClientTls::load(ClientFiles {
        ca: ca::ca_cert(&certs),
        cert: Some(certs.join("client.pem")),
        key: Some(certs.join("client.key")),
    })
    .unwrap();
    let options = ClientOptions {
        retry_max: Duration::from_millis(500),
        retries: 100,
        tls: Some(tls),
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&addrs, options).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("tls_t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(100), key(200)])
        .await
        .unwrap();
    let table = conn.table("tls_t").unwrap();
    for i in 0..300 {
        table
            .put(&Put::new(key(i)).add("f", "q", bytes::Bytes::from(format!("v{i}"))))
            .await
            .unwrap();
    }
    // Both servers hold regions, so the flush and the listing reach the other server through
    // the one asked, over TLS.
    let regions = conn.admin().regions("tls_t").await.unwrap();
    let hosts: std::collections::BTreeSet<_> = regions.iter().map(|r| r.server.clone()).collect();
    assert_eq!(hosts.len(), 2, "{regions:?}");
    conn.admin().flush("tls_t").await.unwrap();
    let files = conn.admin().list_files("tls_t").await.unwrap();
    assert!(!files.is_empty(), "no store files after the flush");

    let plain = ClientOptions {
        retries: 1,
        ..ClientOptions::default()
    };
    let refused = async {
        let conn = Connection::connect_any(&addrs, plain).await?;
        conn.admin().table_exists("tls_t").await
    };
    let e = refused.await.unwrap_err();
    assert!(e.message.contains("requires TLS"), "{e}");
}
