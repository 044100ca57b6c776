//! The web UI in a real browser: every page loads in headless Chromium with HTTP 200, logs no
//! console error, and shows the test's table and region; a screenshot of each page is written
//! to `<target>/tmp/ui-screenshots/`.
//!
//! Chromium is installed by `scripts/ui/install-chromium.sh`. Without it the test says so and
//! is skipped, unless `STRATA_REQUIRE_CHROMIUM` is set (`scripts/test.sh` sets it), when it
//! fails instead.
#![allow(clippy::unwrap_used)]

#[path = "support/browser.rs"]
mod browser;
mod support;

use std::path::PathBuf;

use browser::{browse, chromium, console_errors};
use strata_model::ops::{Get, Put};
use support::{b, get, start, table};

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
    let mut regions: Vec<_> = run
        .server
        .region_server()
        .hosted_regions()
        .iter()
        .map(|h| h.region.info().clone())
        .filter(|info| info.table == "ui_table")
        .collect();
    regions.sort_by(|a, b| a.start_row.cmp(&b.start_row));
    assert_eq!(regions.len(), 2);
    let region = regions[0].region_id;

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
            &["Table ui_table", "ui_table,", "k50"],
        ),
        (
            "region",
            format!("/region?id={region}"),
            &["ui_table", "Store files", ".sst", "HDD", "Memtables"],
        ),
        (
            "heatmap",
            "/table?name=ui_table".to_owned(),
            &["Key access", "<svg", "k00"],
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
