//! The web UI in a real browser: every page loads in headless Chromium with HTTP 200, logs no
//! console error, and shows the test's table and region; a screenshot of each page is written
//! to `<target>/tmp/ui-screenshots/`.
//!
//! Chromium is installed by `scripts/ui/install-chromium.sh`. Without it the test says so and
//! is skipped, unless `STRATA_REQUIRE_CHROMIUM` is set (`scripts/test.sh` sets it), when it
//! fails instead.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use strata_model::ops::{Get, Put};
use support::{b, get, start, table};

/// Longest a Chromium run may take before the test fails.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join(name))
                .find(|p| p.is_file())
        })
    })
}

/// What a Chromium run printed.
struct Output {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs Chromium headless on `url` with `mode` (`--dump-dom` or `--screenshot=FILE`),
/// killing it after [`BROWSER_TIMEOUT`]. Its output goes to files in `profile`'s parent (a
/// pipe nobody drains would block a large `--dump-dom`).
fn browse(browser: &Path, profile: &Path, mode: &str, url: &str) -> Output {
    let out_path = profile.with_extension("stdout");
    let err_path = profile.with_extension("stderr");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            "--window-size=1280,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(mode)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Output {
                status,
                stdout: std::fs::read(&out_path).unwrap(),
                stderr: std::fs::read(&err_path).unwrap(),
            };
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium hung on {url}: {}",
                String::from_utf8_lossy(&std::fs::read(&err_path).unwrap())
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Console messages in Chromium's log. Headless Chromium logs every console message as
/// `INFO:CONSOLE` whatever its level, and the pages have no scripts, so any message at all
/// (an uncaught error, a refused resource) is a fault.
fn console_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Failed to load resource"))
        .collect()
}

#[test]
fn console_messages_are_recognised() {
    let log = "[1:1:1125/093357.950168:INFO:CONSOLE:1] \"boom\", source: x (1)\n\
               [1:1:1125/093357.950168:ERROR:dbus/bus.cc:405] Failed to connect to the bus";
    assert_eq!(console_errors(log).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_loads_in_chromium_without_errors_and_shows_the_table_and_region() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_CHROMIUM").is_none(),
            "chromium is not installed (scripts/ui/install-chromium.sh) and \
             STRATA_REQUIRE_CHROMIUM is set"
        );
        eprintln!("SKIPPED: chromium is not installed; run scripts/ui/install-chromium.sh");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = start(dir.path()).await;
    let admin = run.conn.admin();
    admin
        .create_table(&table("ui_table", &["f", "g"]), &[b("k50")])
        .await
        .unwrap();
    let t = run.conn.table("ui_table").unwrap();
    for i in 0..100 {
        let row = b(&format!("k{i:02}"));
        t.put(&Put::new(row.clone()).add(b("f"), b("q"), b("value")))
            .await
            .unwrap();
        if i % 10 == 0 {
            t.get(&Get::new(row)).await.unwrap();
        }
    }
    admin.flush("ui_table").await.unwrap();
    for i in 0..20 {
        t.put(&Put::new(b(&format!("k{i:02}"))).add(b("g"), b("q"), b("v")))
            .await
            .unwrap();
    }
    let regions = run
        .server
        .master()
        .catalog()
        .serving_regions("ui_table")
        .len();
    assert_eq!(regions, 2);
    let region = run.server.master().catalog().serving_regions("ui_table")[0]
        .info
        .region_id;

    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-screenshots");
    std::fs::create_dir_all(&out).unwrap();
    let base = format!("http://{}", run.http.addr());
    let region_name = region.to_string();
    let pages: [(&str, String, &[&str]); 7] = [
        (
            "server",
            "/".to_owned(),
            &["ui_table", "Requests", "Caches"],
        ),
        (
            "table",
            "/table?name=ui_table".to_owned(),
            &["Table ui_table", &region_name, "k50"],
        ),
        (
            "region",
            format!("/region?id={region}"),
            &["ui_table", "Store files", ".sst", "HDD", "Memtables"],
        ),
        (
            "heatmap",
            "/heatmap?table=ui_table".to_owned(),
            &["Key access: ui_table", "<svg", "k00"],
        ),
        ("slow", "/slow".to_owned(), &["Slow operations", "ui_table"]),
        (
            "history",
            "/history".to_owned(),
            &[
                "Flush and compaction history",
                "ui_table",
                "flush",
                &region_name,
            ],
        ),
        (
            "config",
            "/config".to_owned(),
            &["Configuration", "memtable budget"],
        ),
    ];
    for (name, path, expected) in pages {
        let url = format!("{base}{path}");
        assert_eq!(get(run.http.addr(), &path).await.status, 200, "{url}");
        let browser = browser.clone();
        let out = out.clone();
        let scratch = tempfile::tempdir().unwrap();
        let (dom, shot) = tokio::task::spawn_blocking(move || {
            let profile = scratch.path().join("profile");
            let dom = browse(&browser, &profile, "--dump-dom", &url);
            let file = out.join(format!("{name}.png"));
            let shot = browse(
                &browser,
                &profile,
                &format!("--screenshot={}", file.display()),
                &url,
            );
            (dom, (shot, file))
        })
        .await
        .unwrap();
        let html = String::from_utf8_lossy(&dom.stdout);
        let log = String::from_utf8_lossy(&dom.stderr);
        assert!(dom.status.success(), "{name}: chromium failed: {log}");
        for text in expected {
            assert!(html.contains(text), "{name}: '{text}' missing from {html}");
        }
        let errors = console_errors(&log);
        assert!(errors.is_empty(), "{name}: console errors: {errors:?}");
        let (shot, file) = shot;
        assert!(shot.status.success(), "{name}: screenshot failed");
        let png = std::fs::read(&file).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{name}: not a PNG");
        eprintln!("{name}: {} ({} bytes)", file.display(), png.len());
    }
    run.stop().await;
}
