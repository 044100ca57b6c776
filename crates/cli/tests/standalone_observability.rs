//! `strata standalone` as a real process with its observability options: JSON log lines on
//! standard error naming every listener and the data directory, a rotated log file, and the
//! HTTP endpoint on the address given.
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
