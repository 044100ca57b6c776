//! Where a process keeps its data, from one setting (HBase's `hbase.rootdir`): a local
//! directory, or `hdfs://host:port/path`.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use strata_storage::vfs::Storage;

use crate::hdfs::{Hdfs, HdfsOptions};

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
}

/// Opens `root`: `hdfs://host:port/path` connects to that NameNode (its WebHDFS endpoint at
/// `hdfs_http`, default the same host on port 9870) and checks it answers within
/// `connect_timeout`; anything else is a local directory.
///
/// # Errors
/// An unsupported scheme, a malformed URL, or an unreachable NameNode (the error names the
/// URL).
pub fn open_root(
    root: &str,
    hdfs_http: Option<&str>,
    connect_timeout: Duration,
) -> io::Result<Root> {
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
        let mut options = HdfsOptions::new(&url);
        if let Some(http) = hdfs_http {
            options.http_addr = http.to_owned();
        }
        let hdfs = Arc::new(Hdfs::connect(options, connect_timeout)?);
        return Ok(Root {
            storage: Storage {
                files: hdfs.clone(),
                logs: hdfs.clone(),
            },
            path: PathBuf::from(path),
            url: format!("{url}{path}"),
            hdfs: Some(hdfs),
        });
    }
    if let Some((scheme, _)) = root.split_once("://") {
        if scheme != "file" {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{root}: unsupported root scheme '{scheme}' (use a path or hdfs://)"),
            ));
        }
    }
    let path = PathBuf::from(root.strip_prefix("file://").unwrap_or(root));
    Ok(Root {
        storage: Storage::local(),
        url: format!("file://{}", path.display()),
        path,
        hdfs: None,
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
    }

    #[test]
    fn unreachable_namenode_fails_fast_naming_the_url() {
        let started = std::time::Instant::now();
        let e = open_root("hdfs://127.0.0.1:1/strata", None, Duration::from_secs(5)).unwrap_err();
        assert!(e.to_string().contains("127.0.0.1:1"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(30));
    }
}
