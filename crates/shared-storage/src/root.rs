//! Where a process keeps its data, from one setting (HBase's `hbase.rootdir`): a local
//! directory, `hdfs://host:port/path`, or `s3://bucket/prefix` with the WAL elsewhere
//! (`--wal-root`, a local directory or `hdfs://…`).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use strata_storage::vfs::Storage;

use crate::hdfs::{Hdfs, HdfsOptions};
use crate::s3::{S3Options, S3};
use crate::wal_root::Rebased;

/// An opened root: its stores and the root path inside them.
#[derive(Clone, Debug)]
pub struct Root {
    /// The file and log stores.
    pub storage: Storage,
    /// The root directory in the stores' namespace.
    pub path: PathBuf,
    /// The root as people read it.
    pub url: String,
    /// The HDFS client, when the root is on HDFS.
    pub hdfs: Option<Arc<Hdfs>>,
    /// The S3 store, when the root is on S3 (its request counters and page cache).
    pub s3: Option<Arc<S3>>,
}

/// Settings for [`open_root_with`] beyond the root URL.
#[derive(Clone, Debug)]
pub struct RootOptions {
    /// The HDFS NameNode's WebHDFS address, needed only to set storage policies other than
    /// HOT (default: `dfs.namenode.http-address` of this host's Hadoop configuration, else
    /// the NameNode's host, port 9870).
    pub hdfs_http: Option<String>,
    /// Longest wait for a remote store to answer at start.
    pub connect_timeout: Duration,
    /// Longest wait for one operation of a remote store (an HDFS NameNode or DataNode call,
    /// an S3 request, retries included): past it the operation fails with `TimedOut`, so an
    /// unreachable NameNode fails writes instead of holding them.
    pub store_timeout: Duration,
    /// Longest wait for one write or sync of a WAL segment on HDFS (`None`: `store_timeout`):
    /// past it the WAL's batch fails and every appender waiting on it gets the error, so a
    /// server cut off from its DataNodes answers within this bound and never acknowledges
    /// the write.
    pub wal_timeout: Option<Duration>,
    /// Where the WAL lives instead of under the root: a local directory or `hdfs://…`.
    /// Required for an `s3://` root (object storage has no appendable, syncable log).
    pub wal_root: Option<String>,
    /// The S3 endpoint URL (default `AWS_ENDPOINT_URL`, else AWS).
    pub s3_endpoint: Option<String>,
    /// The S3 region (default `AWS_REGION`, else `us-east-1`).
    pub s3_region: Option<String>,
    /// The local page cache's directory (default: under the temporary directory, one per
    /// root).
    pub s3_cache_dir: Option<PathBuf>,
    /// The page cache's size in bytes (0 disables it).
    pub s3_cache_bytes: u64,
}

impl RootOptions {
    /// Defaults: a 10 s connect bound, 60 s per remote operation (HDFS's own socket timeout),
    /// a 1 GiB S3 cache, the WAL under the root.
    pub fn new() -> RootOptions {
        RootOptions {
            hdfs_http: None,
            connect_timeout: Duration::from_secs(10),
            store_timeout: Duration::from_secs(60),
            wal_timeout: None,
            wal_root: None,
            s3_endpoint: None,
            s3_region: None,
            s3_cache_dir: None,
            s3_cache_bytes: 1 << 30,
        }
    }
}

impl Default for RootOptions {
    fn default() -> RootOptions {
        RootOptions::new()
    }
}

/// Opens `root`: `hdfs://host:port/path` connects to that NameNode and checks it answers
/// within `connect_timeout` (its WebHDFS endpoint, at `hdfs_http` or as [`HdfsOptions::new`]
/// finds it, is used only when a storage policy is set); anything else is a local directory.
///
/// # Errors
/// An unsupported scheme, a malformed URL, or an unreachable NameNode (the error names the
/// URL).
pub fn open_root(
    root: &str,
    hdfs_http: Option<&str>,
    connect_timeout: Duration,
) -> io::Result<Root> {
    let options = RootOptions {
        hdfs_http: hdfs_http.map(str::to_owned),
        connect_timeout,
        ..RootOptions::new()
    };
    open_root_with(root, &options)
}

/// Opens `root` as [`open_root`] does, and also `s3://bucket/prefix` (store files, manifests
/// and the catalog in the bucket, the WAL under `options.wal_root`); an HDFS root may also
/// keep its WAL under `options.wal_root`.
///
/// # Errors
/// As [`open_root`]; an `s3://` root without a WAL root, a local root with one; an unreachable S3 endpoint, a
/// missing bucket or refused credentials (the error names the bucket and endpoint).
pub fn open_root_with(root: &str, options: &RootOptions) -> io::Result<Root> {
    let mut opened = if let Some(rest) = root.strip_prefix("s3://") {
        open_s3(root, rest, options)?
    } else {
        open_plain(root, options)?
    };
    if let Some(wal_root) = &options.wal_root {
        if opened.storage.is_local() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{root}: --wal-root is for hdfs:// and s3:// roots; a local root places \
                     its WAL with --volume TYPE=PATH and --wal-storage-policy"
                ),
            ));
        }
        let wal = open_plain(wal_root, options)?;
        if wal.storage.is_local() {
            wal.storage.logs.create_dir_all(&wal.path)?;
        }
        opened.storage.logs = Arc::new(Rebased::new(
            wal.storage.logs.clone(),
            opened.path.clone(),
            wal.path,
        ));
        if opened.hdfs.is_none() {
            opened.hdfs = wal.hdfs;
        }
    }
    Ok(opened)
}

/// A store of its own for the ARCHIVE tier (`--cold-root s3://bucket/prefix`): the bucket's
/// file store, with the S3 settings and page cache of `options` (a cache directory of its
/// own), and the prefix's path in it.
///
/// # Errors
/// Not an `s3://` URL, an empty bucket, or the bucket cannot be reached (as for a root).
pub fn open_cold_root(url: &str, options: &RootOptions) -> io::Result<(Arc<S3>, PathBuf)> {
    let Some(rest) = url.strip_prefix("s3://") else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("--cold-root {url}: expected s3://bucket/prefix"),
        ));
    };
    let (s3, path, _) = connect_s3(url, rest, options, "cold")?;
    Ok((s3, path))
}

/// The bucket and prefix of `s3://bucket/prefix` (`rest` is what follows `s3://`), connected;
/// the page cache goes in its own directory per URL and `role`.
fn connect_s3(
    url: &str,
    rest: &str,
    options: &RootOptions,
    role: &str,
) -> io::Result<(Arc<S3>, PathBuf, String)> {
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let prefix = prefix.trim_matches('/');
    if bucket.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{url}: expected s3://bucket/prefix"),
        ));
    }
    let cache_dir = match &options.s3_cache_dir {
        Some(dir) if role == "root" => dir.clone(),
        Some(dir) => dir.join(role),
        // Shared by name by every process of this host on this URL: each takes the first
        // free `…-<n>` (`PageCache::open_first_free`, as for a directory given).
        None => {
            let key = if role == "root" {
                url.to_owned()
            } else {
                format!("{role}:{url}")
            };
            let id = crate::s3_cache::key_hash(&key);
            std::env::temp_dir().join(format!("strata-s3-cache-{:016x}", id as u64))
        }
    };
    let mut s3_options = S3Options::new(bucket, Some(cache_dir));
    s3_options.endpoint.clone_from(&options.s3_endpoint);
    s3_options.region.clone_from(&options.s3_region);
    s3_options.cache_bytes = options.s3_cache_bytes;
    s3_options.op_timeout = options.store_timeout;
    let s3 = Arc::new(S3::connect(s3_options, options.connect_timeout)?);
    Ok((
        s3,
        PathBuf::from(format!("/{prefix}")),
        format!("s3://{bucket}/{prefix}"),
    ))
}

fn open_s3(root: &str, rest: &str, options: &RootOptions) -> io::Result<Root> {
    if options.wal_root.is_none() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{root}: the WAL cannot live on object storage; give --wal-root (a local \
                 directory or hdfs://…)"
            ),
        ));
    }
    let (s3, path, url) = connect_s3(root, rest, options, "root")?;
    Ok(Root {
        storage: Storage {
            files: s3.clone(),
            // Replaced by the WAL root's log store.
            logs: Arc::new(strata_storage::vfs::Local),
        },
        url,
        path,
        hdfs: None,
        s3: Some(s3),
    })
}

/// A local or HDFS root.
fn open_plain(root: &str, options: &RootOptions) -> io::Result<Root> {
    if let Some(rest) = root.strip_prefix("hdfs://") {
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{root}: expected hdfs://host:port/path"),
            ));
        }
        let url = format!("hdfs://{authority}");
        let mut hdfs_options = HdfsOptions::new(&url);
        if let Some(http) = &options.hdfs_http {
            hdfs_options.http_addr.clone_from(http);
            hdfs_options.http_origin = "--hdfs-http".to_owned();
        }
        hdfs_options.op_timeout = options.store_timeout;
        hdfs_options.log_timeout = options.wal_timeout.unwrap_or(options.store_timeout);
        let hdfs = Arc::new(Hdfs::connect(hdfs_options, options.connect_timeout)?);
        return Ok(Root {
            storage: Storage {
                files: hdfs.clone(),
                logs: hdfs.clone(),
            },
            path: PathBuf::from(path),
            url: format!("{url}{path}"),
            hdfs: Some(hdfs),
            s3: None,
        });
    }
    if let Some((scheme, _)) = root.split_once("://") {
        if scheme != "file" {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{root}: unsupported root scheme '{scheme}' (use a path, hdfs:// or s3://)"
                ),
            ));
        }
    }
    let path = PathBuf::from(root.strip_prefix("file://").unwrap_or(root));
    Ok(Root {
        storage: Storage::local(),
        url: format!("file://{}", path.display()),
        path,
        hdfs: None,
        s3: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_roots_and_bad_schemes() {
        let r = open_root("data", None, Duration::from_secs(1)).unwrap();
        assert!(r.storage.is_local());
        assert_eq!(r.path, PathBuf::from("data"));
        let e = open_root("s4://x/y", None, Duration::from_secs(1)).unwrap_err();
        assert!(e.to_string().contains("unsupported root scheme"), "{e}");
        let e = open_root("hdfs:///x", None, Duration::from_secs(1)).unwrap_err();
        assert!(e.to_string().contains("host:port"), "{e}");
        let e = open_root("s3://bucket/prefix", None, Duration::from_secs(1)).unwrap_err();
        assert!(e.to_string().contains("--wal-root"), "{e}");
        let options = RootOptions {
            wal_root: Some("wal".into()),
            ..RootOptions::new()
        };
        let e = open_root_with("data", &options).unwrap_err();
        assert!(e.to_string().contains("--wal-root is for"), "{e}");
    }

    #[test]
    fn unreachable_namenode_fails_fast_naming_the_url() {
        let started = std::time::Instant::now();
        let e = open_root("hdfs://127.0.0.1:1/strata", None, Duration::from_secs(5)).unwrap_err();
        assert!(e.to_string().contains("127.0.0.1:1"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(30));
    }
}
