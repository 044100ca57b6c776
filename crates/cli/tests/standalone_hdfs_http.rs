//! `strata standalone --root hdfs://…` when the NameNode's WebHDFS is not where the process
//! looks (here the Hadoop configuration names a port nothing listens on): it starts and
//! serves, HDFS's default policy needing no WebHDFS, and a table asking for another storage
//! policy is refused with an error naming `--hdfs-http`. Runs on the MiniDFSCluster of
//! `scripts/hdfs.sh` (`STRATA_HDFS_URL`; skipped without it unless `STRATA_REQUIRE_HDFS`).
#![allow(clippy::unwrap_used)]

mod support;

use std::process::Stdio;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use strata_client::Connection;
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, StoragePolicy, TableDescriptor, TableName};
use support::Killed;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starts_without_webhdfs_and_a_policy_needing_it_names_the_flag() {
    let Ok(url) = std::env::var("STRATA_HDFS_URL") else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_HDFS").is_none(),
            "STRATA_REQUIRE_HDFS is set but STRATA_HDFS_URL is not"
        );
        eprintln!("skipped: no HDFS (scripts/hdfs.sh start, then set STRATA_HDFS_URL)");
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let conf = scratch.path().join("hadoop");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(
        conf.join("hdfs-site.xml"),
        "<configuration><property><name>dfs.namenode.http-address</name>\
         <value>127.0.0.1:1</value></property></configuration>",
    )
    .unwrap();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let root = format!("{url}/e2e/no-webhdfs-{}-{nanos}", std::process::id());
    let mut command = support::standalone(scratch.path(), &["--root".into(), root]);
    command.env("HADOOP_CONF_DIR", &conf);
    let (child, addr) = support::spawn_command(command, Stdio::inherit());
    let _server = Killed(child);

    let conn = Connection::connect(&addr).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table("t").unwrap();
    table
        .put(&Put::new(Bytes::from_static(b"r")).add(
            Bytes::from_static(b"f"),
            Bytes::from_static(b"q"),
            Bytes::from_static(b"v"),
        ))
        .await
        .unwrap();
    conn.admin().flush("t").await.unwrap();
    let got = table
        .get(&Get::new(Bytes::from_static(b"r")))
        .await
        .unwrap();
    assert_eq!(
        got.first().map(|c| c.value.clone()),
        Some(Bytes::from_static(b"v"))
    );

    let mut ssd = FamilyDescriptor::new("f");
    ssd.storage_policy = StoragePolicy::AllSsd;
    let t = TableDescriptor::new(TableName::parse("ssd").unwrap()).with_family(ssd);
    let e = conn.admin().create_table(&t, &[]).await.unwrap_err();
    let text = e.to_string();
    assert!(text.contains("--hdfs-http"), "{text}");
    assert!(text.contains("dfs.namenode.http-address"), "{text}");
    // Refused before anything changed: no table `ssd`, and `t` still serves.
    let tables = conn.admin().list_tables().await.unwrap();
    assert!(
        tables
            .iter()
            .all(|t| t.descriptor.name.to_string() != "ssd"),
        "{tables:?}"
    );
    assert_eq!(
        table
            .get(&Get::new(Bytes::from_static(b"r")))
            .await
            .unwrap()
            .len(),
        1
    );
}
