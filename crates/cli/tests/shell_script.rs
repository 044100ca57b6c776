//! `strata shell` as a user runs it: the real binary with a script, piped input or no server,
//! against a standalone server in this process.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use support::start;

struct Run {
    ok: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `strata` with `args` (and `stdin` piped in) off the runtime's threads, so the
/// server keeps serving.
async fn strata(args: Vec<String>, stdin: &str) -> Run {
    let stdin = stdin.to_string();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        Run {
            ok: out.status.success(),
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| !l.starts_with("Took "))
                .map(|l| format!("{l}\n"))
                .collect(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    })
    .await
    .unwrap()
}

fn script(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

const SCRIPT: &str = "\
# a comment, then a statement over three lines
create 't', {NAME => 'f', VERSIONS => 2},
  {NAME => 'g'}
put 't', 'r1', 'f:a', 'v1', 1000
put 't', 'r2', 'f:a', 'v2', 2000
incr 't', 'r3', 'g:n', 3
scan 't', {COLUMNS => ['f']}
";

const SCAN_OUTPUT: &str = "\
Created table t
COUNTER VALUE = 3
ROW                            COLUMN+CELL
 r1                            column=f:a, timestamp=1000, value=v1
 r2                            column=f:a, timestamp=2000, value=v2
2 row(s)
";

#[tokio::test(flavor = "multi_thread")]
async fn a_script_runs_and_n_stops_at_the_first_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&dir.path().join("data")).await;
    let addr = server.address();
    let args = |file: &str, n: bool| {
        let mut a = vec![
            "shell".to_string(),
            "--server".into(),
            addr.clone(),
            file.into(),
        ];
        if n {
            a.push("-n".into());
        }
        a
    };

    let good = script(dir.path(), "good.txt", SCRIPT);
    let run = strata(args(&good, true), "").await;
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.stdout, SCAN_OUTPUT);
    assert_eq!(run.stderr, "");

    // -n: the failing put stops the script; nothing after it runs.
    let bad = script(
        dir.path(),
        "bad.txt",
        "exists 't'\nput 't', 'r9', 'nope:a', 'x'\nexists 'u'\n",
    );
    let run = strata(args(&bad, true), "").await;
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout, "Table t does exist\n");
    assert!(
        run.stderr
            .contains("ERROR: table 't': no such column family: nope\n"),
        "{}",
        run.stderr
    );
    assert!(run
        .stderr
        .contains("stopped at line 2: put 't', 'r9', 'nope:a', 'x'"));

    // Without -n the script goes on, and still exits with status 1.
    let run = strata(args(&bad, false), "").await;
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout, "Table t does exist\nTable u does not exist\n");
    assert!(run
        .stderr
        .contains("ERROR: table 't': no such column family: nope"));
    assert!(run.stderr.contains("1 statement failed"));
    assert!(
        run.stderr
            .contains("at line 2: put 't', 'r9', 'nope:a', 'x'\n"),
        "{}",
        run.stderr
    );

    // --timestamps iso: dates instead of HBase's epoch milliseconds.
    let scan = script(dir.path(), "scan.txt", "scan 't', {COLUMNS => ['f']}\n");
    let mut iso = args(&scan, true);
    iso.extend(["--timestamps".to_string(), "iso".into()]);
    let run = strata(iso, "").await;
    assert!(run.ok, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("column=f:a, timestamp=1970-01-01T00:00:01.000Z, value=v1"),
        "{}",
        run.stdout
    );

    // Piped input is a script too; `exit` ends it early.
    let shell = vec!["shell".to_string(), "--server".into(), addr.clone()];
    let run = strata(shell, "count 't'\nexit\nlist\n").await;
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.stdout, "3 row(s)\n");

    server.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn no_server_says_how_to_start_one() {
    // Bind and drop a listener to find a port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let run = strata(
        vec!["shell".into(), "--server".into(), addr.clone(), "-n".into()],
        "list\n",
    )
    .await;
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains(&format!("cannot reach a Strata server at {addr}")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("strata standalone"));
}
