//! `strata standalone --data-dir DIR --cold-root s3://…` as a real process on the SeaweedFS
//! of `scripts/s3.sh` (`STRATA_S3_ENDPOINT`, `STRATA_S3_BUCKET`, `AWS_*`; skipped without
//! them unless `STRATA_REQUIRE_S3`): a date-tiered window past its cold age moves from the
//! local data directory to the bucket, is listed with its `s3://` URL as ARCHIVE, reads back
//! through the client before and after a restart, `files` in the shell shows it, and the
//! local copy is gone; a cold root
//! that is not `s3://` stops the start with a clear error.
#![allow(clippy::unwrap_used)]

mod support;

use support::{key, now_ms, s3, Killed};

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::Connection;
use strata_model::ops::{Put, Scan};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_shared_storage::{S3Options, S3};
use strata_storage::vfs::FileStore;

const DAY: i64 = 86_400_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_past_its_cold_age_moves_to_the_bucket_and_reads_back() {
    let Some((endpoint, bucket)) = s3() else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let data = scratch.path().join("data");
    let prefix = format!("e2e/cold-{}-{}", std::process::id(), now_ms());
    let flags: Vec<String> = [
        "--cold-root",
        &format!("s3://{bucket}/{prefix}"),
        "--s3-endpoint",
        &endpoint,
        "--s3-cache-dir",
        &scratch.path().join("cache").display().to_string(),
        "--s3-cache-mib",
        "64",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (child, addr) = support::spawn(&data, &flags, Stdio::inherit());
    let server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    let mut family = FamilyDescriptor::new("f");
    family.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        storage_policy_enable: true,
        hot_window_age_ms: DAY,
        hot_window_storage_policy: StoragePolicy::Hot,
        warm_window_age_ms: 7 * DAY,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family);
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table("t").unwrap();
    let (now, old) = (now_ms(), now_ms() - 90 * DAY);
    for i in 0..100u64 {
        let at = i64::try_from(i).unwrap();
        let value = Bytes::from(vec![b'x'; 100]);
        let put = Put::new(key(i)).add_at("f", "old", old + at, value.clone());
        table.put(&put).await.unwrap();
        let put = Put::new(key(i)).add_at("f", "new", now + at, value);
        table.put(&put).await.unwrap();
    }
    conn.admin().flush("t").await.unwrap();
    // A major compaction splits the windows (the old one written locally), and the mover it
    // runs after copies the old one to the bucket.
    conn.admin().compact("t", None, true).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let files = loop {
        let files = conn.admin().list_files("t").await.unwrap();
        if files.iter().any(|f| f.tier == "ARCHIVE") {
            break files;
        }
        assert!(Instant::now() < deadline, "nothing moved: {files:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(files.len(), 2, "{files:?}");
    let cold = files.iter().find(|f| f.tier == "ARCHIVE").unwrap();
    let hot = files.iter().find(|f| f.tier != "ARCHIVE").unwrap();
    assert_eq!(cold.time_range.unwrap().1, old + 99, "{files:?}");
    assert_eq!(hot.tier, "HDD", "{files:?}");
    let expected = format!("s3://{bucket}/{prefix}/");
    assert!(cold.path.starts_with(&expected), "{cold:?}");
    assert!(Path::new(&hot.path).exists(), "{hot:?}");
    // The object is in the bucket; no local file of that name remains.
    let mut o = S3Options::new(&bucket, None);
    o.endpoint = Some(endpoint.clone());
    let store = S3::connect(o, Duration::from_secs(20)).unwrap();
    let key_path = cold.path.strip_prefix(&format!("s3://{bucket}")).unwrap();
    assert_eq!(store.len(Path::new(key_path)).unwrap(), Some(cold.size));
    let local_dir = Path::new(&hot.path).parent().unwrap();
    assert!(!local_dir.join(&cold.name).exists());

    let rows = table.scan_all(&Scan::default()).await.unwrap();
    assert_eq!(rows.iter().map(Vec::len).sum::<usize>(), 200);

    // The shell's `files` shows the object's URL and its tier.
    let script = scratch.path().join("files.rb");
    std::fs::write(&script, "files 't'\n").unwrap();
    let shell_addr = addr.clone();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["shell", "--server", &shell_addr])
            .arg(&script)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    let line = listed
        .lines()
        .find(|l| l.contains(&cold.name))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(
        line.contains("ARCHIVE") && line.contains(&cold.path),
        "{line}"
    );

    // A restart opens the manifest's ARCHIVE file from the bucket.
    drop(server);
    let (child, addr) = support::spawn(&data, &flags, Stdio::inherit());
    let _server = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    let table = conn.table("t").unwrap();
    let rows = table.scan_all(&Scan::default()).await.unwrap();
    assert_eq!(rows.len(), 100);
    assert_eq!(rows.iter().map(Vec::len).sum::<usize>(), 200);
    store
        .remove_dir_all(Path::new(&format!("/{prefix}")))
        .unwrap();
}

#[test]
fn a_cold_root_that_is_not_a_bucket_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let out = support::standalone(
        scratch.path(),
        &["--cold-root".to_string(), "/mnt/archive".to_string()],
    )
    .output()
    .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected s3://bucket/prefix"), "{err}");
}
