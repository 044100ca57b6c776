//! Servers for the `strata` binary's tests: one in this process, or `strata standalone` as a
//! child process.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use strata_master::{Standalone, StandaloneConfig};

/// A standalone server in this process on `dir`, on a free port, with small memory settings.
pub async fn start(dir: &Path) -> Standalone {
    let mut config = StandaloneConfig::new(dir);
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.server.memtable_budget_bytes = 64 << 20;
    config.server.block_cache_bytes = 8 << 20;
    Standalone::start(config).await.unwrap()
}

/// `strata standalone` on `data` (no Thrift gateway, a free port) with `extra` flags, not
/// started.
pub fn standalone(data: &Path, extra: &[String]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_strata"));
    c.args([
        "standalone",
        "--no-thrift",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
    ])
    .arg(data)
    .args(extra);
    c
}

/// Starts `strata standalone` and returns it with the address it printed; its stdout is
/// drained so it never blocks, its stderr is `stderr`.
pub fn spawn(data: &Path, extra: &[String], stderr: Stdio) -> (Child, String) {
    let mut child = standalone(data, extra)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first
        .split("serving on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .to_string();
    std::thread::spawn(move || for _ in lines {});
    (child, addr)
}
