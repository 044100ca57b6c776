//! `strata standalone --root s3://… --wal-root DIR` as a real process on the SeaweedFS of
//! `scripts/s3.sh` (`STRATA_S3_ENDPOINT`, `STRATA_S3_BUCKET`, `AWS_*`; skipped without them
//! unless `STRATA_REQUIRE_S3`): SIGKILL under writers loses no acknowledged write, a second
//! process on the same root is refused, store files are listed by `s3://` URL; an unreachable
//! endpoint or refused credentials stop the start within seconds with a clear error.
#![allow(clippy::unwrap_used)]

mod support;

use support::{key, Killed};

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_client::Connection;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

struct Bucket {
    endpoint: String,
    bucket: String,
}

fn s3() -> Option<Bucket> {
    let (Ok(endpoint), Ok(bucket)) = (
        std::env::var("STRATA_S3_ENDPOINT"),
        std::env::var("STRATA_S3_BUCKET"),
    ) else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_S3").is_none(),
            "STRATA_REQUIRE_S3 is set but STRATA_S3_ENDPOINT or STRATA_S3_BUCKET is not"
        );
        eprintln!("skipped: no S3 (eval \"$(scripts/s3.sh start)\")");
        return None;
    };
    Some(Bucket { endpoint, bucket })
}

fn flags(b: &Bucket, scratch: &Path, name: &str) -> Vec<String> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let root = format!(
        "s3://{}/e2e/{name}-{}-{nanos}",
        b.bucket,
        std::process::id()
    );
    vec![
        "--root".into(),
        root,
        "--wal-root".into(),
        scratch.join("wal").display().to_string(),
        "--s3-endpoint".into(),
        b.endpoint.clone(),
        "--s3-cache-dir".into(),
        scratch.join("cache").display().to_string(),
        "--s3-cache-mib".into(),
        "64".into(),
    ]
}

/// Runs `cmd` to its end, failing the test if it takes longer than `limit`.
fn finish_within(mut cmd: Command, limit: Duration) -> (bool, String, Duration) {
    let started = Instant::now();
    let mut child: Child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            return (status.success(), err, started.elapsed());
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_on_s3_loses_no_acknowledged_write_and_a_second_process_is_refused() {
    let Some(b) = s3() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let flags = flags(&b, scratch.path(), "sigkill");
    let (child, addr) = support::spawn(scratch.path(), &flags, Stdio::inherit());
    let server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(500), key(1000)])
        .await
        .unwrap();

    // A second process on the same root is refused while the first holds it.
    let (ok, err, _) = finish_within(
        support::standalone(&scratch.path().join("other"), &flags),
        Duration::from_secs(60),
    );
    assert!(!ok);
    assert!(err.contains("in use by another Strata process"), "{err}");
    // It names the holder, its last renewal and the expiry.
    let pid = server.0.id();
    assert!(err.contains(&format!("process {pid} on ")), "{err}");
    assert!(
        err.contains("last renewed") && err.contains("expires"),
        "{err}"
    );

    let table = conn.table("t").unwrap();
    let (acked, writers) = support::start_writers(&table, 4);
    tokio::time::sleep(Duration::from_millis(3000)).await;
    conn.admin().flush("t").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    drop(server);
    let acked = support::stop_writers(&acked, writers).await;
    assert!(acked.iter().all(|&n| n > 5), "too few writes: {acked:?}");

    // The restart takes over the dead process's lock and replays its local WAL.
    let (child, addr) = support::spawn(scratch.path(), &flags, Stdio::inherit());
    let _server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    let table = conn.table("t").unwrap();
    support::assert_acknowledged(&table, &acked).await;
    let files = conn.admin().list_files("t").await.unwrap();
    assert!(!files.is_empty());
    assert!(
        files
            .iter()
            .all(|f| f.path.starts_with("s3://") && f.tier == "S3"),
        "{files:?}"
    );
}

#[test]
fn an_unreachable_endpoint_is_a_clear_error_within_seconds() {
    let scratch = tempfile::tempdir().unwrap();
    let b = Bucket {
        endpoint: "http://127.0.0.1:1".into(),
        bucket: "strata".into(),
    };
    let cmd = support::standalone(scratch.path(), &flags(&b, scratch.path(), "unreachable"));
    let (ok, err, took) = finish_within(cmd, Duration::from_secs(60));
    assert!(!ok);
    assert!(err.contains("127.0.0.1:1"), "{err}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn refused_credentials_are_a_clear_error_at_start() {
    let Some(b) = s3() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let mut cmd = support::standalone(scratch.path(), &flags(&b, scratch.path(), "creds"));
    cmd.env("AWS_SECRET_ACCESS_KEY", "not-the-secret");
    let (ok, err, took) = finish_within(cmd, Duration::from_secs(60));
    assert!(!ok);
    assert!(err.contains(&format!("s3://{}", b.bucket)), "{err}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
}
