//! A DataNode that died without the NameNode noticing yet (it still counts it live, as for
//! the seconds to minutes before a heartbeat expires) is still handed out for new blocks: the
//! client abandons such a block and asks for another without that DataNode, so files and
//! logs are created and written as if it were not there. And a log whose pipeline loses a
//! DataNode goes on with the other at once, not after its timeout.
//!
//! On a MiniDFSCluster of this test's own with three DataNodes and one replica per block
//! (`scripts/hdfs.sh` on `STRATA_HDFS_FAULT_PORT`/`STRATA_HDFS_FAULT_HTTP_PORT`, default
//! 9400/9974, in `STRATA_HDFS_FAULT_DIR`), whose first DataNode is stopped: about one block in
//! three is placed on it. Skipped without `STRATA_HDFS_URL` unless `STRATA_REQUIRE_HDFS`.
#![allow(clippy::unwrap_used)]

mod own_hdfs;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use own_hdfs::OwnHdfs;
use strata_storage::vfs::{FileStore, LogStore};

/// The tests share the cluster's ports: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn new_blocks_avoid_a_datanode_that_died_before_the_namenode_noticed() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(cluster) = OwnHdfs::start(3) else {
        return;
    };
    let hdfs = cluster.client();
    let dir = PathBuf::from("/dead-datanode");
    FileStore::create_dir_all(hdfs.as_ref(), &dir).unwrap();
    // Stopped, not yet dead to the NameNode (its heartbeats expire after minutes).
    cluster.run(&["stop-datanode", "0"], 3);
    // One replica per block on three DataNodes: with 16 files and 16 logs, the chance that
    // no block lands on the stopped one is (2/3)^32, about 1 in 400,000.
    for i in 0..16 {
        let data: Vec<u8> = (0..4096u32).map(|j| ((i + j) % 251) as u8).collect();
        let path = dir.join(format!("file-{i}"));
        let mut w = FileStore::create(hdfs.as_ref(), &path)
            .unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
        w.write_all(&data)
            .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        w.close()
            .unwrap_or_else(|e| panic!("close {}: {e}", path.display()));
        assert_eq!(FileStore::read(hdfs.as_ref(), &path).unwrap(), data);

        let log = dir.join(format!("log-{i}"));
        let mut l = LogStore::create(hdfs.as_ref(), &log)
            .unwrap_or_else(|e| panic!("create {}: {e}", log.display()));
        l.append(&data)
            .unwrap_or_else(|e| panic!("append {}: {e}", log.display()));
        l.flush()
            .unwrap_or_else(|e| panic!("hflush {}: {e}", log.display()));
        l.sync()
            .unwrap_or_else(|e| panic!("hsync {}: {e}", log.display()));
    }
}

#[test]
fn logs_whose_pipeline_loses_a_datanode_go_on_at_once() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Two DataNodes, two replicas: every log's pipeline holds both, in an order of the
    // NameNode's choosing.
    let Some(cluster) = OwnHdfs::start_with(2, 2) else {
        return;
    };
    let hdfs = cluster.client();
    let dir = PathBuf::from("/pipeline-death");
    FileStore::create_dir_all(hdfs.as_ref(), &dir).unwrap();
    let mut logs = Vec::new();
    for i in 0..8 {
        let mut l = LogStore::create(hdfs.as_ref(), &dir.join(format!("log-{i}"))).unwrap();
        l.append(&[7; 1000]).unwrap();
        l.flush().unwrap();
        logs.push(l);
    }
    // One of the two stopped: the first DataNode of some pipelines (their connection breaks),
    // the second of the others (the first reports it failed). With 8 logs, the chance that it
    // is second in none is 1 in 256.
    cluster.run(&["stop-datanode", "0"], 2);
    for (i, l) in logs.iter_mut().enumerate() {
        let asked = std::time::Instant::now();
        let flushed = l.append(&[8; 1000]).and_then(|()| l.flush());
        assert!(
            flushed.is_ok() && asked.elapsed() < Duration::from_secs(5),
            "log {i}: the flush answered {flushed:?} after {:?}",
            asked.elapsed()
        );
    }
}
