//! Access control in a cluster (RFC 0026), as real processes on a real etcd
//! (`STRATA_ETCD_ENDPOINTS`): a master and two region servers with `--auth` and client
//! certificates. The superuser `admin` makes a table whose regions span both servers and
//! grants `alice` R through one server; every server follows the grant, so alice reads the
//! whole table and is refused writes and a flush; after a revoke every server refuses her. The
//! servers forward a flush to each other with their own certificate, a superuser's. Skipped
//! with a message without etcd, unless `STRATA_REQUIRE_ETCD` is set.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_client::access::{Perms, Scope};
use strata_client::{ClientOptions, Connection};
use strata_model::ops::{Get, Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;
use strata_tls::ca::{self, Request};
use strata_tls::{ClientFiles, ClientTls};
use support::key;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_server_follows_the_grants() {
    let Some(etcd) = support::etcd() else { return };
    tokio::time::timeout(Duration::from_secs(180), run(etcd))
        .await
        .expect("the test did not finish in 180 s");
}

async fn connect(addrs: &[String], certs: &std::path::Path, user: &str) -> Connection {
    let tls = ClientTls::load(ClientFiles {
        ca: ca::ca_cert(certs),
        cert: Some(certs.join(format!("{user}.pem"))),
        key: Some(certs.join(format!("{user}.key"))),
    })
    .unwrap();
    let options = ClientOptions {
        retry_max: Duration::from_millis(300),
        retries: 100,
        tls: Some(tls),
        ..ClientOptions::default()
    };
    Connection::connect_any(addrs, options).await.unwrap()
}

/// Waits until `f` holds (bounded).
async fn eventually<F, Fut>(what: &str, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !f().await {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what}: not within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn run(etcd: String) {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let cluster = format!("acl-{}-{nanos}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let certs = dir.path().join("certs");
    ca::init(&certs, 30).unwrap();
    for name in ["server", "admin", "alice"] {
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
            "--auth",
            "--superuser",
            "server",
            "--superuser",
            "admin",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let (_master, _) = cluster::start(&common("master"), "active");
    let servers = cluster::start_servers(&common("regionserver"), 2);
    let addrs: Vec<String> = servers.iter().map(|(_, a)| a.clone()).collect();
    let admin = connect(&addrs, &certs, "admin").await;
    let t = TableDescriptor::new(TableName::parse("acl_t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    admin
        .admin()
        .create_table(&t, &[key(100), key(200)])
        .await
        .unwrap();
    let table = admin.table("acl_t").unwrap();
    for i in 0..300 {
        table
            .put(&Put::new(key(i)).add("f", "q", bytes::Bytes::from(format!("v{i}"))))
            .await
            .unwrap();
    }
    let regions = admin.admin().regions("acl_t").await.unwrap();
    let hosts: std::collections::BTreeSet<_> = regions.iter().map(|r| r.server.clone()).collect();
    assert_eq!(hosts.len(), 2, "{regions:?}");
    // The servers forward the flush to each other as `server`, a superuser.
    admin.admin().flush("acl_t").await.unwrap();

    let alice = connect(&addrs, &certs, "alice").await;
    let theirs = alice.table("acl_t").unwrap();
    let e = theirs.get(&Get::new(key(1))).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::AccessDenied, "{e}");

    let scope = Scope::table("acl_t", None, None).unwrap();
    admin
        .admin()
        .grant("alice", Perms::parse("R").unwrap(), &scope, false)
        .await
        .unwrap();
    // Every server follows: the whole table, both servers' regions, reads.
    eventually("alice reads every region", || async {
        theirs
            .scan_all(&Scan::default())
            .await
            .is_ok_and(|rows| rows.len() == 300)
    })
    .await;
    let e = theirs
        .put(&Put::new(key(5)).add("f", "q", bytes::Bytes::from("x")))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::AccessDenied, "{e}");
    let e = alice.admin().flush("acl_t").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::AccessDenied, "{e}");
    let who = alice.admin().who_am_i().await.unwrap();
    assert_eq!(
        (who.user.as_str(), who.method.as_str()),
        ("alice", "CERTIFICATE")
    );

    admin
        .admin()
        .revoke("alice", Perms::ALL, &scope)
        .await
        .unwrap();
    for row in [key(1), key(150), key(250)] {
        eventually("every server refuses alice after the revoke", || async {
            matches!(theirs.get(&Get::new(row.clone())).await,
                     Err(e) if e.code == ErrorCode::AccessDenied)
        })
        .await;
    }
    let listed = admin
        .admin()
        .user_permissions(Some(&scope), None)
        .await
        .unwrap();
    assert!(listed.iter().all(|g| g.who != "alice"), "{listed:?}");
}
