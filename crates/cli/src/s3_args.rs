//! The settings of S3 stores: a root on S3 (`--root s3://…`) and the ARCHIVE tier as a bucket
//! (`--cold-root s3://…`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use strata_shared_storage::RootOptions;
use strata_storage::tiers::{StorageType, Volume};
use strata_storage::vfs::FileStore;

/// Flags of S3 stores (credentials come from the standard `AWS_*` variables).
#[derive(clap::Args, Clone, Debug)]
pub struct S3Args {
    /// The S3 endpoint URL, for S3-compatible services (`http://127.0.0.1:8333`); plain HTTP
    /// is allowed for a loopback host [default: AWS_ENDPOINT_URL, else AWS].
    #[arg(long)]
    pub s3_endpoint: Option<String>,
    /// The S3 region [default: AWS_REGION, else us-east-1].
    #[arg(long)]
    pub s3_region: Option<String>,
    /// The local disk cache of S3 pages, so warm reads send no request [default: a
    /// directory per root under the temporary directory]. Emptied at start; while another
    /// process holds it, the first free `DIR-<n>` beside it is used instead.
    #[arg(long)]
    pub s3_cache_dir: Option<PathBuf>,
    /// The disk cache's size in MiB (0 disables it).
    #[arg(long, default_value_t = 1024)]
    pub s3_cache_mib: u64,
}

impl S3Args {
    /// The options to open a root with.
    pub fn root_options(&self, hdfs_http: Option<String>, wal_root: Option<String>) -> RootOptions {
        RootOptions {
            hdfs_http,
            connect_timeout: Duration::from_secs(10),
            wal_root,
            s3_endpoint: self.s3_endpoint.clone(),
            s3_region: self.s3_region.clone(),
            s3_cache_dir: self.s3_cache_dir.clone(),
            s3_cache_bytes: self.s3_cache_mib << 20,
            ..RootOptions::new()
        }
    }

    /// The ARCHIVE volume on the bucket of `--cold-root URL` (`s3://bucket/prefix`) and its
    /// store, connected (blocking: up to the connect timeout).
    ///
    /// # Errors
    /// Not an `s3://` URL, or the bucket cannot be reached (the error names it).
    pub fn cold_volume(
        &self,
        url: &str,
        store_timeout: Duration,
    ) -> Result<(Volume, Arc<dyn FileStore>), String> {
        let mut options = self.root_options(None, None);
        options.store_timeout = store_timeout;
        let (s3, path) =
            strata_shared_storage::open_cold_root(url, &options).map_err(|e| e.to_string())?;
        let volume = Volume {
            kind: StorageType::Archive,
            path,
        };
        Ok((volume, s3))
    }
}
