//! Headless Chromium for the web UI tests (Debian's `chromium`, installed by
//! `scripts/ui/install-chromium.sh`): find it, load a page with a bounded run, and pick the
//! console messages out of its log. Shared by the UI tests of standalone and cluster processes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a Chromium run may take before the test fails.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

/// Chromium on the `PATH`, if installed.
pub fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join(name))
                .find(|p| p.is_file())
        })
    })
}

/// What a Chromium run printed.
pub struct Output {
    /// How Chromium exited.
    pub status: std::process::ExitStatus,
    /// What it printed on stdout (the DOM with `--dump-dom`).
    pub stdout: Vec<u8>,
    /// Its log.
    pub stderr: Vec<u8>,
}

/// Runs Chromium headless on `url` with `mode` (`--dump-dom` or `--screenshot=FILE`),
/// killing it after [`BROWSER_TIMEOUT`]. Its output goes to files in `profile`'s parent (a
/// pipe nobody drains would block a large `--dump-dom`).
pub fn browse(browser: &Path, profile: &Path, mode: &str, url: &str) -> Output {
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
pub fn console_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Failed to load resource"))
        .collect()
}
