//! A root on HDFS whose NameNode's WebHDFS cannot be reached (another port, or none): stores
//! work and HDFS's default policy (HOT) is left to inheritance, while another policy fails
//! naming `--hdfs-http`; the address is read from the Hadoop configuration when it has one.
#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use strata_model::schema::StoragePolicy;
use strata_shared_storage::{Hdfs, HdfsOptions};
use strata_storage::vfs::{FileStore, LogStore};

/// A client whose WebHDFS address answers nothing.
fn without_webhdfs() -> Option<Arc<Hdfs>> {
    let mut options = support::options()?;
    options.http_addr = "127.0.0.1:1".into();
    options.http_origin = "--hdfs-http".into();
    Some(Arc::new(
        Hdfs::connect(options, Duration::from_secs(20)).unwrap(),
    ))
}

#[test]
fn hot_needs_no_webhdfs_and_other_policies_name_the_flag() {
    let Some(hdfs) = without_webhdfs() else {
        return;
    };
    let dir = support::unique_dir("no-webhdfs");
    FileStore::create_dir_all(hdfs.as_ref(), &dir).unwrap();
    FileStore::set_storage_policy(hdfs.as_ref(), &dir, StoragePolicy::Hot).unwrap();
    LogStore::set_storage_policy(hdfs.as_ref(), &dir, StoragePolicy::Hot).unwrap();
    // Files are written and read as ever.
    hdfs.write_atomic(&dir.join("f"), b"bytes").unwrap();
    assert_eq!(
        FileStore::read(hdfs.as_ref(), &dir.join("f")).unwrap(),
        b"bytes"
    );
    let e = FileStore::set_storage_policy(hdfs.as_ref(), &dir, StoragePolicy::AllSsd).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("--hdfs-http"), "{text}");
    assert!(
        text.contains("ALL_SSD") && text.contains("127.0.0.1:1"),
        "{text}"
    );
}

#[test]
fn the_address_comes_from_the_hadoop_configuration() {
    let (Some(options), Ok(http)) = (support::options(), std::env::var("STRATA_HDFS_HTTP")) else {
        return;
    };
    let conf = tempfile::tempdir().unwrap();
    let authority = options.url.trim_start_matches("hdfs://").to_owned();
    let port = http.rsplit(':').next().unwrap();
    std::fs::write(
        conf.path().join("hdfs-site.xml"),
        format!(
            "<configuration>\
             <property><name>dfs.namenode.rpc-address</name><value>{authority}</value></property>\
             <property><name>dfs.namenode.http-address</name><value>0.0.0.0:{port}</value>\
             </property></configuration>"
        ),
    )
    .unwrap();
    // The only test of this binary that reads the variable.
    std::env::set_var("HADOOP_CONF_DIR", conf.path());
    let found = HdfsOptions::new(&options.url);
    std::env::remove_var("HADOOP_CONF_DIR");
    let host = authority.split(':').next().unwrap();
    assert_eq!(found.http_addr, format!("{host}:{port}"));
    assert!(
        found.http_origin.contains("dfs.namenode.http-address"),
        "{}",
        found.http_origin
    );
    let hdfs = Hdfs::connect(found, Duration::from_secs(20)).unwrap();
    let dir = support::unique_dir("conf-webhdfs");
    FileStore::create_dir_all(&hdfs, &dir).unwrap();
    FileStore::set_storage_policy(&hdfs, &dir, StoragePolicy::AllSsd).unwrap();
    let policy = hdfs
        .webhdfs()
        .storage_policy(dir.to_str().unwrap())
        .unwrap();
    assert!(policy.contains("ALL_SSD"), "{policy}");
}
