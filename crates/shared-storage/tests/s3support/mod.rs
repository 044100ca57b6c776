//! The S3 these tests run against: `STRATA_S3_ENDPOINT` and `STRATA_S3_BUCKET` with the
//! standard `AWS_*` credentials, as `scripts/s3.sh start` prints and `scripts/test.sh`
//! exports. Without them the tests say so and pass, unless `STRATA_REQUIRE_S3` is set (the
//! test script sets it).
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use strata_shared_storage::{S3Options, S3};

/// Options for the test bucket, with a page cache in `cache_dir`.
pub fn options(cache_dir: Option<&Path>) -> Option<S3Options> {
    let (Ok(endpoint), Ok(bucket)) = (
        std::env::var("STRATA_S3_ENDPOINT"),
        std::env::var("STRATA_S3_BUCKET"),
    ) else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_S3").is_none(),
            "STRATA_REQUIRE_S3 is set but STRATA_S3_ENDPOINT or STRATA_S3_BUCKET is not"
        );
        eprintln!(
            "skipped: no S3 (start one with `eval \"$(scripts/s3.sh start)\"`, which sets \
             STRATA_S3_ENDPOINT, STRATA_S3_BUCKET and AWS_*)"
        );
        return None;
    };
    let mut options = S3Options::new(&bucket, cache_dir.map(Path::to_owned));
    options.endpoint = Some(endpoint);
    options.op_timeout = Duration::from_secs(30);
    Some(options)
}

/// A store on the test bucket, with a page cache in `cache_dir`.
pub fn store(cache_dir: Option<&Path>) -> Option<S3> {
    Some(S3::connect(options(cache_dir)?, Duration::from_secs(20)).unwrap())
}

/// A prefix no other test uses.
pub fn unique_dir(name: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    PathBuf::from(format!("/tests/{name}-{}-{nanos}", std::process::id()))
}
