//! A NameNode in safe mode (as one is after it restarts, until its DataNodes have reported
//! their blocks) refuses every change and changes nothing. Strata's HDFS client tries such an
//! operation again until the NameNode leaves safe mode, within the operation's timeout: a
//! flush or a region's close that meets a NameNode just restarted succeeds a moment later,
//! instead of failing and giving up the server's regions (whose replay needs the NameNode out
//! of safe mode too). Past the timeout the operation fails, and nothing was changed.
//!
//! On a MiniDFSCluster of this test's own (`own_hdfs`); skipped without `STRATA_HDFS_URL`
//! unless `STRATA_REQUIRE_HDFS`.
#![allow(clippy::unwrap_used)]

mod own_hdfs;

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use own_hdfs::OwnHdfs;
use strata_storage::vfs::{FileStore, LogStore};

/// How long the NameNode stays in safe mode while the operations wait.
const HELD: Duration = Duration::from_secs(2);

/// Runs `change` while the NameNode is in safe mode for [`HELD`]: it must succeed, and only
/// once safe mode ended.
fn in_safe_mode(cluster: &OwnHdfs, what: &str, change: impl FnOnce() -> std::io::Result<()>) {
    cluster.run(&["safemode-enter", "0"], 1);
    let entered = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(HELD);
            cluster.run(&["safemode-leave", "0"], 1);
        });
        change().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            entered.elapsed() >= HELD - Duration::from_millis(200),
            "{what} answered {:?} after safe mode began, before it ended",
            entered.elapsed()
        );
    });
}

#[test]
fn changes_wait_for_the_namenode_to_leave_safe_mode_within_their_timeout() {
    let Some(cluster) = OwnHdfs::start(1) else {
        return;
    };
    let hdfs = cluster.client();
    let dir = PathBuf::from("/safe-mode");
    FileStore::create_dir_all(hdfs.as_ref(), &dir).unwrap();
    let mut before = FileStore::create(hdfs.as_ref(), &dir.join("before")).unwrap();
    before.write_all(b"written before").unwrap();
    before.close().unwrap();

    // Every kind of change made while the NameNode is in safe mode: each waits, then succeeds.
    in_safe_mode(&cluster, "create a store file", || {
        let mut file = FileStore::create(hdfs.as_ref(), &dir.join("flushed"))?;
        file.write_all(b"a store file")?;
        file.close()
    });
    FileStore::create_dir_all(hdfs.as_ref(), &dir.join("sub")).unwrap();
    FileStore::rename(
        hdfs.as_ref(),
        &dir.join("flushed"),
        &dir.join("sub/renamed"),
    )
    .unwrap();
    assert_eq!(
        FileStore::read(hdfs.as_ref(), &dir.join("sub/renamed")).unwrap(),
        b"a store file"
    );

    // The rest of the namespace changes, each in a safe mode of its own.
    let h = hdfs.as_ref();
    in_safe_mode(&cluster, "mkdirs", || {
        FileStore::create_dir_all(h, &dir.join("made"))
    });
    in_safe_mode(&cluster, "rename", || {
        FileStore::rename(h, &dir.join("sub/renamed"), &dir.join("moved"))
    });
    in_safe_mode(&cluster, "delete", || {
        FileStore::remove_file(h, &dir.join("before"))
    });
    in_safe_mode(&cluster, "create a log", || {
        let mut log = LogStore::create(h, &dir.join("log"))?;
        log.append(b"an edit")?;
        log.sync()
    });
    assert!(FileStore::len(hdfs.as_ref(), &dir.join("made"))
        .unwrap()
        .is_some());
    assert_eq!(
        FileStore::read(hdfs.as_ref(), &dir.join("moved")).unwrap(),
        b"a store file"
    );
    assert!(FileStore::len(hdfs.as_ref(), &dir.join("before"))
        .unwrap()
        .is_none());

    // Safe mode that outlasts the operation's timeout: the create fails within its bound and
    // leaves no file.
    let impatient = cluster.client_with(Duration::from_secs(2));
    cluster.run(&["safemode-enter", "0"], 1);
    let asked = Instant::now();
    let refused = FileStore::create(impatient.as_ref(), &dir.join("never"));
    let waited = asked.elapsed();
    cluster.run(&["safemode-leave", "0"], 1);
    let Err(e) = refused else {
        panic!("a create succeeded with the NameNode in safe mode throughout");
    };
    assert!(
        waited < Duration::from_secs(10),
        "the create failed only after {waited:?}: {e}"
    );
    assert!(FileStore::len(hdfs.as_ref(), &dir.join("never"))
        .unwrap()
        .is_none());
}
