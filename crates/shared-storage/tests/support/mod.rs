//! The HDFS these tests run against: `STRATA_HDFS_URL` (and `STRATA_HDFS_HTTP`), as
//! `scripts/hdfs.sh start` prints and `scripts/test.sh` exports. Without it the tests say so
//! and pass, unless `STRATA_REQUIRE_HDFS` is set (the test script sets it).
#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use strata_shared_storage::{Hdfs, HdfsOptions};

pub fn options() -> Option<HdfsOptions> {
    let Ok(url) = std::env::var("STRATA_HDFS_URL") else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_HDFS").is_none(),
            "STRATA_REQUIRE_HDFS is set but STRATA_HDFS_URL is not"
        );
        eprintln!("skipped: no HDFS (start one with scripts/hdfs.sh and set STRATA_HDFS_URL)");
        return None;
    };
    let mut options = HdfsOptions::new(&url);
    if let Ok(http) = std::env::var("STRATA_HDFS_HTTP") {
        options.http_addr = http;
    }
    options.op_timeout = Duration::from_secs(30);
    Some(options)
}

/// A new client (each is its own HDFS lease holder).
pub fn client() -> Option<Arc<Hdfs>> {
    let options = options()?;
    Some(Arc::new(
        Hdfs::connect(options, Duration::from_secs(20)).unwrap(),
    ))
}

/// A directory no other test uses.
pub fn unique_dir(name: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    PathBuf::from(format!("/tests/{name}-{}-{nanos}", std::process::id()))
}
