//! The settings of a root on S3 and of a WAL kept apart from the root (`--wal-root`).

use std::path::PathBuf;
use std::time::Duration;

use strata_shared_storage::RootOptions;

/// Flags for `--root s3://…` (credentials come from the standard `AWS_*` variables).
#[derive(clap::Args, Clone, Debug)]
pub struct S3Args {
    /// Where the WAL lives instead of under --root: a local directory or `hdfs://HOST:PORT/PATH`.
    /// Required with an `s3://` root (object storage cannot append or sync a log); not for a
    /// local root (use --volume and --wal-storage-policy).
    #[arg(long)]
    pub wal_root: Option<String>,
    /// The S3 endpoint URL, for S3-compatible services (`http://127.0.0.1:8333`); plain HTTP
    /// is allowed for a loopback host [default: AWS_ENDPOINT_URL, else AWS].
    #[arg(long)]
    pub s3_endpoint: Option<String>,
    /// The S3 region [default: AWS_REGION, else us-east-1].
    #[arg(long)]
    pub s3_region: Option<String>,
    /// The local disk cache of S3 pages, so warm reads send no request [default: a
    /// directory per root under the temporary directory]. Emptied at start.
    #[arg(long)]
    pub s3_cache_dir: Option<PathBuf>,
    /// The disk cache's size in MiB (0 disables it).
    #[arg(long, default_value_t = 1024)]
    pub s3_cache_mib: u64,
}

impl S3Args {
    /// The options to open a root with.
    pub fn root_options(&self, hdfs_http: Option<String>) -> RootOptions {
        RootOptions {
            hdfs_http,
            connect_timeout: Duration::from_secs(10),
            wal_root: self.wal_root.clone(),
            s3_endpoint: self.s3_endpoint.clone(),
            s3_region: self.s3_region.clone(),
            s3_cache_dir: self.s3_cache_dir.clone(),
            s3_cache_bytes: self.s3_cache_mib << 20,
            ..RootOptions::new()
        }
    }
}
