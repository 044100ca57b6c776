//! A MiniDFSCluster of one test's own (`scripts/hdfs.sh` on `STRATA_HDFS_FAULT_PORT`/
//! `STRATA_HDFS_FAULT_HTTP_PORT`, default 9400/9974, in `STRATA_HDFS_FAULT_DIR`), for tests that
//! stop its DataNodes or put its NameNode in safe mode (which would break tests sharing one).
//! Test binaries run one after another, so the tests of several files share these ports.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use strata_shared_storage::{Hdfs, HdfsOptions};

/// Stopped when dropped.
pub struct OwnHdfs {
    _dir: tempfile::TempDir,
    state: PathBuf,
    port: String,
    http: String,
    replication: usize,
}

impl OwnHdfs {
    pub fn start(datanodes: usize) -> Option<OwnHdfs> {
        OwnHdfs::start_with(datanodes, 1)
    }

    /// With `replication` replicas per block.
    pub fn start_with(datanodes: usize, replication: usize) -> Option<OwnHdfs> {
        if std::env::var_os("STRATA_HDFS_URL").is_none() {
            assert!(
                std::env::var_os("STRATA_REQUIRE_HDFS").is_none(),
                "STRATA_REQUIRE_HDFS is set but STRATA_HDFS_URL is not"
            );
            eprintln!("skipped: no HDFS (scripts/hdfs.sh start, then set STRATA_HDFS_URL)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut hdfs = OwnHdfs {
            state: std::env::var_os("STRATA_HDFS_FAULT_DIR")
                .map_or_else(|| dir.path().join("hdfs"), PathBuf::from),
            _dir: dir,
            port: std::env::var("STRATA_HDFS_FAULT_PORT").unwrap_or_else(|_| "9400".into()),
            http: std::env::var("STRATA_HDFS_FAULT_HTTP_PORT").unwrap_or_else(|_| "9974".into()),
            replication: 1,
        };
        // Whatever an earlier test left on these ports has other DataNodes.
        hdfs.run(&["stop"], datanodes);
        hdfs.replication = replication;
        hdfs.run(&["start"], datanodes);
        Some(hdfs)
    }

    pub fn run(&self, args: &[&str], datanodes: usize) {
        let script = Path::new(
            &std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
        )
        .join("../../scripts/hdfs.sh");
        let status = Command::new("timeout")
            .arg("240")
            .arg(script)
            .args(args)
            .env("STRATA_HDFS_PORT", &self.port)
            .env("STRATA_HDFS_HTTP_PORT", &self.http)
            .env("STRATA_HDFS_DIR", &self.state)
            .env("STRATA_HDFS_DATANODES", datanodes.to_string())
            .env("STRATA_HDFS_REPLICATION", self.replication.to_string())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "scripts/hdfs.sh {args:?} failed");
    }

    pub fn client(&self) -> Arc<Hdfs> {
        self.client_with(Duration::from_secs(30))
    }

    /// A client whose NameNode and DataNode operations wait at most `op_timeout`.
    pub fn client_with(&self, op_timeout: Duration) -> Arc<Hdfs> {
        let mut options = HdfsOptions::new(&format!("hdfs://127.0.0.1:{}", self.port));
        options.http_addr = format!("127.0.0.1:{}", self.http);
        options.op_timeout = op_timeout;
        options.log_timeout = Duration::from_secs(10);
        Arc::new(Hdfs::connect(options, Duration::from_secs(20)).unwrap())
    }
}

impl Drop for OwnHdfs {
    fn drop(&mut self) {
        self.run(&["stop"], 3);
    }
}
