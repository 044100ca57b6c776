//! A flush on a full volume fails: the failure is logged once with its table, region, family
//! and file, and counted on `/metrics`; the data stays in the memtable.
//!
//! The full volume is a 128 KiB tmpfs, which needs root to mount; without it the test says
//! so and is skipped, unless `STRATA_REQUIRE_MOUNT` is set (`scripts/test.sh` sets it when it
//! runs as root), when it fails instead.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use strata_testkit::Captured;

use strata_model::ops::{Get, Put};
use strata_model::schema::StoragePolicy;
use strata_storage::tiers::{StorageType, Volume};
use support::exposition::parse;
use support::{b, config, get, start_with, table};

/// A mounted tmpfs, unmounted on drop (also when the test fails).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(path: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(path).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(path.to_owned()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Log lines, kept for the test to read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flush_on_a_full_volume_is_logged_with_region_family_and_file_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let ssd = dir.path().join("ssd");
    let Some(full) = Tmpfs::mount(&ssd, "128k") else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_MOUNT").is_none(),
            "cannot mount a tmpfs, and STRATA_REQUIRE_MOUNT is set"
        );
        eprintln!(
            "SKIPPED: mounting a tmpfs needs root (set STRATA_REQUIRE_MOUNT to fail instead)"
        );
        return;
    };
    let captured = Captured::default();
    let sink = captured.clone();
    tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .init();

    let mut c = config(&dir.path().join("data"));
    c.server.volumes = vec![Volume {
        kind: StorageType::Ssd,
        path: ssd.clone(),
    }];
    let run = start_with(c).await;
    let mut desc = table("full_t", &["f"]);
    desc.families[0].storage_policy = StoragePolicy::AllSsd;
    run.conn.admin().create_table(&desc, &[]).await.unwrap();
    let t = run.conn.table("full_t").unwrap();
    let value = bytes::Bytes::from(vec![b'x'; 32 << 10]);
    for i in 0..16 {
        t.put(&Put::new(b(&format!("row{i:02}"))).add(b("f"), b("q"), value.clone()))
            .await
            .unwrap();
    }
    let err = run.conn.admin().flush("full_t").await.unwrap_err();
    assert!(err.to_string().contains("No space left"), "{err}");
    // Nothing is lost: the cells are still served from the memtable.
    assert_eq!(t.get(&Get::new(b("row07"))).await.unwrap().len(), 1);

    let log = captured.text();
    let failures: Vec<&str> = log.lines().filter(|l| l.contains("flush failed")).collect();
    assert_eq!(failures.len(), 1, "logged once:\n{log}");
    let line = failures[0];
    let region = run.server.region_server().hosted_regions()[0]
        .region
        .info()
        .region_id;
    for part in [
        "ERROR".to_owned(),
        "table=\"full_t\"".to_owned(),
        format!("region={region}"),
        "family=\"f\"".to_owned(),
        format!("file=\"{}", ssd.display()),
        "No space left".to_owned(),
    ] {
        assert!(line.contains(&part), "{part} missing from: {line}");
    }

    let metrics = support::get_openmetrics(run.http.addr()).await;
    let m = parse(&metrics.body).unwrap();
    assert_eq!(
        m.sum("strata_background_failures_total", &[("work", "flush")]),
        1.0,
        "{}",
        metrics.body
    );
    // And on the history page, with its region and the error.
    let history = get(run.http.addr(), "/history").await;
    assert_eq!(history.status, 200);
    assert!(
        history.body.contains("full_t") && history.body.contains("No space left"),
        "{}",
        history.body
    );
    // The final flush of the shutdown fails the same way: the stop fails, saying so, and the
    // WAL keeps the edits for the next start's replay.
    let err = run.server.stop().unwrap_err();
    assert!(err.contains("could not be flushed"), "{err}");
    // With room on the volume again (a larger one in its place: nothing was ever flushed to
    // it), the next start replays every edit.
    drop(full);
    let _mount = Tmpfs::mount(&ssd, "64m").unwrap();
    let mut c = config(&dir.path().join("data"));
    c.server.volumes = vec![Volume {
        kind: StorageType::Ssd,
        path: ssd.clone(),
    }];
    let again = start_with(c).await;
    let t = again.conn.table("full_t").unwrap();
    for i in 0..16 {
        let row = format!("row{i:02}");
        assert_eq!(t.get(&Get::new(b(&row))).await.unwrap().len(), 1, "{row}");
    }
    let _ = again.server.stop();
}
