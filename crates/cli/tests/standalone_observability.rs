//! `strata standalone` as a real process with its observability options: JSON log lines on
//! standard error naming every listener and the data directory, a rotated log file, and the
//! HTTP endpoint on the address given; the compact format on a pipe: no colours, the version
//! first, and no DEBUG lines of the HTTP and RPC libraries under `--log-level debug`.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::Duration;

#[test]
fn json_logs_name_the_listeners_and_the_endpoint_serves_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log_file = dir.path().join("logs").join("strata.log");
    let mut child = support::standalone(
        &data,
        &[
            "--http-listen".into(),
            "127.0.0.1:0".into(),
            "--log-format".into(),
            "json".into(),
            "--log-file".into(),
            log_file.display().to_string(),
            "--log-rotation".into(),
            "never".into(),
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Kill the server even if an assertion fails.
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let child = Kill(child);
    let mut http = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("web UI and /metrics on http://") {
            http = Some(rest.trim().to_owned());
            break;
        }
    }
    let http = http.expect("the endpoint's address is printed");
    let mut s = TcpStream::connect(&http).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("strata_regions"), "{response}");

    drop(child);
    let mut log = String::new();
    stderr.read_to_string(&mut log).unwrap();
    let messages: Vec<&str> = log.lines().filter(|l| l.starts_with('{')).collect();
    for expected in [
        "strata 0.1.0 starting",
        "gRPC services (data, admin) listening",
        "data directory",
        "HTTP endpoint (/metrics, web UI) listening",
    ] {
        assert!(
            messages.iter().any(|l| l.contains(expected)),
            "'{expected}' missing from the JSON log:\n{log}"
        );
    }
    assert!(messages.iter().any(|l| l.contains(&http)), "{log}");
    let file = std::fs::read_to_string(&log_file).unwrap();
    assert!(file.contains("data directory"), "{file}");
}

#[test]
fn compact_logs_on_a_pipe_have_no_colours_and_quiet_dependencies() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = support::standalone(
        &dir.path().join("data"),
        &[
            "--http-listen".into(),
            "127.0.0.1:0".into(),
            "--log-level".into(),
            "debug".into(),
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut http = None;
    for line in BufReader::new(stdout).lines() {
        if let Some(rest) = line.unwrap().strip_prefix("web UI and /metrics on http://") {
            http = Some(rest.trim().to_owned());
            break;
        }
    }
    let http = http.expect("the endpoint's address is printed");
    for _ in 0..3 {
        let mut s = TcpStream::connect(&http).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            s,
            "GET /metrics HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = String::new();
        s.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    }
    let _ = child.kill();
    let _ = child.wait();
    let mut log = String::new();
    stderr.read_to_string(&mut log).unwrap();
    assert!(!log.contains('\u{1b}'), "colour codes on a pipe:\n{log}");
    let first = log.lines().next().unwrap_or_default();
    assert!(first.contains("strata 0.1.0 starting"), "{log}");
    for line in log.lines().filter(|l| l.contains("DEBUG")) {
        for dep in [" hyper", " h2::", " tonic", " tower", " axum"] {
            assert!(!line.contains(dep), "{line}");
        }
    }
}
