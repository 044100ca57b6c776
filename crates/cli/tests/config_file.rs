//! The configuration file (RFC 0022) on a real `strata standalone`: its ports are used, a flag
//! overrides it, `/config` shows the effective values as `key = value` lines, and SIGHUP
//! reloads the log level without a restart; `strata config check` reports problems with
//! their line.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

fn file(dir: &std::path::Path, log_level: &str) -> String {
    format!(
        "# written by the test\nlog-level = \"{log_level}\"\n\n[standalone]\ndata-dir = \"{}\"\nlisten = \"127.0.0.1:26410\"\nhttp-listen = \"127.0.0.1:26411\"\nhbase-rpc-listen = \"127.0.0.1:0\"\nthrift-listen = \"127.0.0.1:26414\"\nmemtable-mib = 64\n",
        dir.join("data").display()
    )
}

#[test]
fn a_standalone_server_runs_on_its_file_under_its_flags_and_reloads_on_sighup() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("strata.toml");
    std::fs::write(&conf, file(dir.path(), "info")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("standalone")
        .arg("--config")
        .arg(&conf)
        .args(["--listen", "127.0.0.1:26412", "--memtable-mib", "32"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    // Drained all along: at debug level the log could fill a pipe and stall the server.
    let log = std::thread::spawn(move || {
        let mut log = String::new();
        let _ = stderr.read_to_string(&mut log);
        log
    });
    let child = support::Killed(child);
    let mut lines = BufReader::new(stdout).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(
        first.starts_with("strata standalone serving on 127.0.0.1:26412 "),
        "the flag overrides the file's listen: {first}"
    );
    let mut http = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("web UI and /metrics on http://") {
            http = Some(rest.trim().to_owned());
        }
        // The in-process Thrift gateway starts last.
        if line.starts_with("HBase Thrift1 gateway on") {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    let http = http.expect("the endpoint's address is printed");
    assert_eq!(http, "127.0.0.1:26411", "the file's http-listen is used");

    let page = get(&http, "/config");
    let default_block_cache = format!(
        "block-cache-mib = {}\n",
        (strata_server::machine_memory::machine_budget() / 4) >> 20
    );
    for want in [
        "listen = &quot;127.0.0.1:26412&quot;  # command line",
        "http-listen = &quot;127.0.0.1:26411&quot;  # configuration file",
        "memtable-mib = 32  # command line",
        "thrift-listen = &quot;127.0.0.1:26414&quot;  # configuration file",
        "Thrift = 127.0.0.1:26414",
        "log-level = &quot;info&quot;  # configuration file",
        default_block_cache.as_str(),
        "HBase RPC = 127.0.0.1:",
        "WAL segment size = 64 MiB",
        "compaction throughput = 50 MiB/s to 100 MiB/s as pressure rises",
    ] {
        assert!(page.contains(want), "{want:?} missing from /config: {page}");
    }
    assert!(!page.contains("WalOptions"), "no debug structs: {page}");
    assert!(
        !page.contains("HBase RPC = 127.0.0.1:0\n"),
        "the port bound, not the one asked for: {page}"
    );

    // A new log level and a new port in the file; SIGHUP applies the one and names the other.
    let mut changed = file(dir.path(), "debug");
    changed = changed.replace("26411", "26413");
    std::fs::write(&conf, changed).unwrap();
    let hup = Command::new("kill")
        .args(["-HUP", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(hup.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let page = get(&http, "/config");
        if page.contains("log-level = &quot;debug&quot;  # configuration file, reloaded") {
            assert!(
                page.contains("http-listen = &quot;127.0.0.1:26411&quot;"),
                "a key that needs a restart keeps its value: {page}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "no reload on /config: {page}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Still serving after the SIGHUP; its log says what changed and what waits.
    assert!(get(&http, "/metrics").starts_with("HTTP/1.1 200"));
    drop(child);
    let log = log.join().unwrap();
    assert!(log.contains("configuration reloaded"), "{log}");
    assert!(log.contains("log-level: info → debug"), "{log}");
    assert!(
        log.contains("http-listen: 127.0.0.1:26411 → 127.0.0.1:26413"),
        "{log}"
    );
    assert!(log.contains("need a restart"), "{log}");
}

#[test]
fn config_check_reports_each_problem_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(&good, file(dir.path(), "info")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["config", "check"])
        .arg(&good)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(": ok, 7 settings"),
        "{out:?}"
    );

    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[standalone]\nlisten = \"127.0.0.1:26414\"\nmemtable_mib = 64\nblock-cache-mib = \"lots\"\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["config", "check"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let path = bad.display();
    assert!(
        err.contains(&format!("{path}:3: unknown key 'memtable_mib'")),
        "{err}"
    );
    assert!(err.contains("did you mean 'memtable-mib'?"), "{err}");
    assert!(
        err.contains(&format!("{path}:4: invalid value 'lots'")),
        "{err}"
    );

    // `show` prints what the process would start with.
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["config", "show", "--for", "standalone"])
        .arg(&good)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("listen = \"127.0.0.1:26410\"  # configuration file"),
        "{shown}"
    );
    assert!(shown.contains("poll-us = 200\n"), "{shown}");
}

#[test]
fn a_reader_that_goes_away_ends_a_command_quietly() {
    // `strata config show … | head -1`, `strata cluster status | grep -q live`: the reader
    // closes the pipe before the command writes; the command ends with success and no panic.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("strata.toml");
    std::fs::write(&path, file(dir.path(), "info")).unwrap();
    for _ in 0..3 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["config", "show", "--for", "standalone"])
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{:?}: {err}", out.status);
        assert!(!err.contains("panicked"), "{err}");
    }
}
