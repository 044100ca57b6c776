//! Bulk load in cluster mode, as real processes on a real etcd and HDFS (skipped without them
//! unless `STRATA_REQUIRE_ETCD`/`HDFS`): two region servers on one HDFS root. A load is
//! killed midway (SIGKILL of a region server hosting part of the table) and run again; after
//! the failover every loaded cell is read exactly once, and a load acknowledged before a second
//! kill survives it (the files are on the shared root; the WAL is not involved).
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use std::io::Write;
use std::time::Duration;

use bytes::Bytes;
use strata_client::{bulk_files_in, ClientOptions, Connection};
use strata_model::ops::Scan;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

use cluster::{engines, Cluster};

const ROWS: u64 = 40_000;

fn row(i: u64) -> Bytes {
    Bytes::from(format!("r{i:06}"))
}

/// Every row holds exactly `f:a` = `a{i}` and `f:b` = `b{i}`.
async fn check(conn: &Connection, table: &str) {
    let rows = conn
        .table(table)
        .unwrap()
        .scan_all(&Scan::default())
        .await
        .unwrap();
    assert_eq!(rows.len() as u64, ROWS);
    for (i, cells) in rows.iter().enumerate() {
        let got: Vec<String> = cells
            .iter()
            .map(|c| String::from_utf8_lossy(&c.value).into_owned())
            .collect();
        assert_eq!(got, [format!("a{i}"), format!("b{i}")], "row {i}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_survives_region_server_kills_on_hdfs() {
    let Some(e) = engines() else { return };
    let mut c = Cluster::start(&e, "bulkload", 2);
    let options = ClientOptions {
        retry_max: Duration::from_millis(500),
        retries: 60,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&c.addrs(), options.clone())
        .await
        .unwrap();
    let t = TableDescriptor::new(TableName::parse("bl").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    let splits: Vec<Bytes> = (1..6).map(|k| row(k * ROWS / 6)).collect();
    conn.admin().create_table(&t, &splits).await.unwrap();

    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("in.csv");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tsv).unwrap());
        for i in 0..ROWS {
            writeln!(f, "r{i:06},a{i},b{i}").unwrap();
        }
    }
    let out = dir.path().join("load");
    let prepared = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "bulkload",
            "prepare",
            "--table",
            "bl",
            "--separator",
            "comma",
        ])
        .args(["--columns", "HBASE_ROW_KEY,f:a,f:b", "--timestamp", "5"])
        .arg("--input")
        .arg(&tsv)
        .arg("--out")
        .arg(&out)
        .args(["--server", &c.servers[0].1])
        .output()
        .unwrap();
    assert!(
        prepared.status.success(),
        "{}",
        String::from_utf8_lossy(&prepared.stderr)
    );
    let files = bulk_files_in(&out).unwrap();
    assert_eq!(files.len(), 6, "one file per region");

    // A load with a region server killed while it runs: whatever it reports, a second run
    // of the same load completes, and every cell reads once.
    let (load_conn, load_files, scratch) = (conn.clone(), files.clone(), out.join("_cut-1"));
    let first = tokio::spawn(async move { load_conn.bulk_load("bl", &load_files, scratch).await });
    tokio::time::sleep(Duration::from_millis(30)).await;
    let victim = c.servers.remove(0);
    drop(victim);
    let first = first.await.unwrap();
    eprintln!("the load during the kill: {first:?}");
    c.add_server();
    let conn = Connection::connect_any(&c.addrs(), options.clone())
        .await
        .unwrap();
    let report = conn
        .bulk_load("bl", &files, out.join("_cut-2"))
        .await
        .unwrap();
    assert_eq!(report.cells, 2 * ROWS);
    check(&conn, "bl").await;

    // Acknowledged, then the other original server killed: the load is in the root's
    // manifests and comes back with the regions.
    let victim = c.servers.remove(0);
    drop(victim);
    c.add_server();
    let conn = Connection::connect_any(&c.addrs(), options).await.unwrap();
    check(&conn, "bl").await;
}
