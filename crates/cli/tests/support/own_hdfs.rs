//! A MiniDFSCluster of one test's own, started and stopped by `scripts/hdfs.sh` on
//! `STRATA_HDFS_FAULT_PORT`/`STRATA_HDFS_FAULT_HTTP_PORT` (default 9400/9974) in
//! `STRATA_HDFS_FAULT_DIR`, for tests that stop its DataNode or NameNode (which would break
//! other tests sharing one). Test binaries run one after another, so the fault tests of
//! several files share these ports safely.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bytes::Bytes;
use strata_client::Table;
use strata_model::ops::{Get, Put};

/// Stopped when dropped.
pub struct OwnHdfs {
    _dir: tempfile::TempDir,
    /// Its state directory: `STRATA_HDFS_FAULT_DIR` (so the test script can stop it even if
    /// this process is killed), else a temporary one.
    state: PathBuf,
    port: String,
    pub http: String,
}

fn script() -> PathBuf {
    Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
    )
    .join("../../scripts/hdfs.sh")
}

impl OwnHdfs {
    /// `None` (the test is skipped) without `STRATA_HDFS_URL`, unless `STRATA_REQUIRE_HDFS`.
    pub fn start() -> Option<OwnHdfs> {
        if std::env::var_os("STRATA_HDFS_URL").is_none() {
            assert!(
                std::env::var_os("STRATA_REQUIRE_HDFS").is_none(),
                "STRATA_REQUIRE_HDFS is set but STRATA_HDFS_URL is not"
            );
            eprintln!("skipped: no HDFS (scripts/hdfs.sh start, then set STRATA_HDFS_URL)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let hdfs = OwnHdfs {
            state: std::env::var_os("STRATA_HDFS_FAULT_DIR")
                .map_or_else(|| dir.path().join("hdfs"), PathBuf::from),
            _dir: dir,
            port: std::env::var("STRATA_HDFS_FAULT_PORT").unwrap_or_else(|_| "9400".into()),
            http: std::env::var("STRATA_HDFS_FAULT_HTTP_PORT").unwrap_or_else(|_| "9974".into()),
        };
        hdfs.run(&["start"]);
        Some(hdfs)
    }

    pub fn url(&self) -> String {
        format!("hdfs://127.0.0.1:{}", self.port)
    }

    /// `strata standalone` flags for a root on this HDFS.
    pub fn standalone_flags(&self) -> Vec<String> {
        vec![
            "--root".into(),
            format!("{}/strata", self.url()),
            "--hdfs-http".into(),
            format!("127.0.0.1:{}", self.http),
        ]
    }

    /// Runs `scripts/hdfs.sh ARGS` on this cluster (at most 240 s) and asserts it succeeded.
    pub fn run(&self, args: &[&str]) {
        let status = Command::new("timeout")
            .arg("240")
            .arg(script())
            .args(args)
            .env("STRATA_HDFS_PORT", &self.port)
            .env("STRATA_HDFS_HTTP_PORT", &self.http)
            .env("STRATA_HDFS_DIR", &self.state)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "scripts/hdfs.sh {args:?} failed");
    }
}

impl Drop for OwnHdfs {
    fn drop(&mut self) {
        self.run(&["stop"]);
    }
}

/// The row key of test write `i`.
pub fn row(i: u32) -> Bytes {
    Bytes::from(format!("row{i:06}"))
}

/// Test write `i`: `f:q = v<i>`.
pub fn put(i: u32) -> Put {
    Put::new(row(i)).add("f", "q", Bytes::from(format!("v{i}")))
}

/// Every acknowledged write reads back.
pub async fn assert_present(table: &Table, acked: &[u32]) {
    for &i in acked {
        let got = table.get(&Get::new(row(i))).await.unwrap();
        assert_eq!(
            got.first().map(|c| c.value.clone()),
            Some(Bytes::from(format!("v{i}"))),
            "acknowledged row {i} lost"
        );
    }
}
