//! A namespace operation that begins while the NameNode is down (killed, restarting) tries it
//! again about every second, as Java's client does for a single NameNode, and answers within
//! about a second of the NameNode's return — not after the HA failover back-off (500 ms
//! doubling up to 15 s) `hdfs-native` applies by default, under which a region's close that
//! met a dead NameNode answered long after it was back.
//!
//! On a MiniDFSCluster of this test's own (`own_hdfs`); skipped without `STRATA_HDFS_URL`
//! unless `STRATA_REQUIRE_HDFS`.
#![allow(clippy::unwrap_used)]

mod own_hdfs;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use own_hdfs::OwnHdfs;
use strata_storage::vfs::FileStore;

/// How long the NameNode stays down while the operation waits: long enough that the default
/// back-off's next try would fall 4–12 s after it returns.
const DOWN: Duration = Duration::from_secs(8);

#[test]
fn an_operation_waiting_for_a_dead_namenode_answers_soon_after_it_returns() {
    let Some(cluster) = OwnHdfs::start(1) else {
        return;
    };
    let hdfs = cluster.client_with(Duration::from_secs(90));
    let dir = PathBuf::from("/namenode-restart");
    FileStore::create_dir_all(hdfs.as_ref(), &dir).unwrap();

    cluster.run(&["stop-namenode", "0"], 1);
    let (answered, result) = std::thread::scope(|s| {
        let waiting = s.spawn(|| {
            let result = FileStore::create_dir_all(hdfs.as_ref(), &dir.join("made"));
            (Instant::now(), result)
        });
        std::thread::sleep(DOWN);
        cluster.run(&["restart-namenode", "0"], 1);
        let back = Instant::now();
        let (answered, result) = waiting.join().unwrap();
        (answered.saturating_duration_since(back), result)
    });
    result.unwrap();
    // `restart-namenode` returns once the NameNode is active, its DataNode registered and
    // safe mode left: the operation's next try is at most a second (plus jitter) away.
    assert!(
        answered <= Duration::from_millis(2500),
        "mkdirs answered {answered:?} after the NameNode was back"
    );
    eprintln!("mkdirs answered {answered:?} after the NameNode was back");
    assert!(FileStore::exists(hdfs.as_ref(), &dir.join("made")).unwrap());
}
