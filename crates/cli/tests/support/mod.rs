//! Servers for the `strata` binary's tests: one in this process, or `strata standalone` as a
//! child process.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A one-process Strata in this process on `dir`, on free ports, with small memory settings.
pub async fn start(dir: &Path) -> strata_testkit::Single {
    strata_testkit::Single::start(dir)
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
    // Tests never take the well-known ports: a server of another test (or of the machine)
    // may hold them.
    for flag in ["--http-listen", "--hbase-rpc-listen"] {
        if !extra.iter().any(|a| a == flag) {
            c.args([flag, "127.0.0.1:0"]);
        }
    }
    c
}

/// Starts `strata standalone` and returns it with the address it printed; its stdout is
/// drained so it never blocks, its stderr is `stderr`.
pub fn spawn(data: &Path, extra: &[String], stderr: Stdio) -> (Child, String) {
    spawn_command(standalone(data, extra), stderr)
}

/// Starts `command` (a [`standalone`], perhaps with more settings) as [`spawn`] does.
pub fn spawn_command(mut command: Command, stderr: Stdio) -> (Child, String) {
    let mut child = command
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

/// A child process killed (SIGKILL) and reaped when dropped, so a failing test never leaves a
/// server running.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The row key of writer sequence number `i`.
pub fn key(i: u64) -> bytes::Bytes {
    bytes::Bytes::from(format!("row{i:08}"))
}

/// Starts `n` writers putting `key(k * n + w)` = `v{…}` into family `f`, each recording the
/// highest `k` acknowledged; they stop at their first error, which they print.
pub fn start_writers(
    table: &strata_client::Table,
    n: u64,
) -> (
    std::sync::Arc<Vec<std::sync::atomic::AtomicU64>>,
    Vec<tokio::task::JoinHandle<()>>,
) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let acked: std::sync::Arc<Vec<AtomicU64>> =
        std::sync::Arc::new((0..n).map(|_| AtomicU64::new(0)).collect());
    let writers = (0..n)
        .map(|w| {
            let table = table.clone();
            let acked = acked.clone();
            tokio::spawn(async move {
                for k in 1.. {
                    let i = k * n + w;
                    // Stamped here, so the client may repeat a put whose answer a killed
                    // server never sent (one stamped by the server's clock fails then,
                    // outcome unknown, and would stop this writer).
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap()
                        .as_millis() as i64;
                    let put = strata_model::ops::Put::new(key(i)).add_at(
                        "f",
                        "q",
                        now,
                        bytes::Bytes::from(format!("v{i}")),
                    );
                    if let Err(e) = table.put(&put).await {
                        eprintln!("writer {w} stopped: {e}");
                        return;
                    }
                    acked[w as usize].store(k, Ordering::SeqCst);
                }
            })
        })
        .collect();
    (acked, writers)
}

/// Stops the writers and returns how far each got acknowledged.
pub async fn stop_writers(
    acked: &[std::sync::atomic::AtomicU64],
    writers: Vec<tokio::task::JoinHandle<()>>,
) -> Vec<u64> {
    for w in writers {
        w.abort();
        let _ = w.await;
    }
    acked
        .iter()
        .map(|a| a.load(std::sync::atomic::Ordering::SeqCst))
        .collect()
}

/// Asserts every acknowledged row of [`start_writers`] reads back.
pub async fn assert_acknowledged(table: &strata_client::Table, acked: &[u64]) {
    let n = acked.len() as u64;
    for (w, &last) in acked.iter().enumerate() {
        for k in 1..=last {
            let i = k * n + w as u64;
            let got = table
                .get(&strata_model::ops::Get::new(key(i)))
                .await
                .unwrap();
            assert_eq!(
                got.first().map(|c| c.value.clone()),
                Some(bytes::Bytes::from(format!("v{i}"))),
                "acknowledged row {i} lost"
            );
        }
    }
}

/// The S3 endpoint and bucket `scripts/s3.sh start` exported, or `None` (the test skips) when
/// there is none; with `STRATA_REQUIRE_S3` set a missing one fails instead.
pub fn s3() -> Option<(String, String)> {
    let (Ok(endpoint), Ok(bucket)) = (
        std::env::var("STRATA_S3_ENDPOINT"),
        std::env::var("STRATA_S3_BUCKET"),
    ) else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_S3").is_none(),
            "STRATA_REQUIRE_S3 is set but STRATA_S3_ENDPOINT or STRATA_S3_BUCKET is not"
        );
        eprintln!("skipped: no S3 (eval \"$(scripts/s3.sh start)\")");
        return None;
    };
    Some((endpoint, bucket))
}

/// Milliseconds since the Unix epoch, as cell timestamps count them.
pub fn now_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

/// SIGTERM, then waits for a clean exit.
pub fn stop_gracefully(mut child: Child) {
    term_and_wait(&mut child);
}

fn term_and_wait(child: &mut Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success());
}

impl Killed {
    /// SIGTERM, then waits for a clean exit (a failing wait still kills it when dropped).
    pub fn stop_gracefully(mut self) {
        term_and_wait(&mut self.0);
    }
}

/// `strata standalone` with `extra` flags on `dir`: a table of three regions takes four
/// writers, the server is killed (SIGKILL) among them, and after a restart every acknowledged
/// write reads back; a graceful stop and restart then keeps every row.
pub async fn sigkill_then_restart(dir: &Path, extra: &[String]) {
    use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
    let (mut child, addr) = spawn(dir, extra, Stdio::inherit());
    let conn = strata_client::Connection::connect(&addr).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(500), key(1000)])
        .await
        .unwrap();
    let t = conn.table("t").unwrap();

    // Writers record the highest row each has had acknowledged; the server is killed
    // while they run.
    let (acked, writers) = start_writers(&t, 4);
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    child.kill().unwrap();
    child.wait().unwrap();
    let acked = stop_writers(&acked, writers).await;
    assert!(
        acked.iter().all(|&n| n > 10),
        "too few writes before the kill: {acked:?}"
    );

    let (child, addr) = spawn(dir, extra, Stdio::inherit());
    let conn = strata_client::Connection::connect(&addr).await.unwrap();
    let t = conn.table("t").unwrap();
    assert_acknowledged(&t, &acked).await;
    let all = strata_model::ops::Scan::default();
    let rows = t.scan_all(&all).await.unwrap().len();

    stop_gracefully(child);
    let (child, addr) = spawn(dir, extra, Stdio::inherit());
    let _child = Killed(child);
    let conn = strata_client::Connection::connect(&addr).await.unwrap();
    let t = conn.table("t").unwrap();
    assert_eq!(t.scan_all(&all).await.unwrap().len(), rows);
}

/// Runs `strata shell` with `args` and `script` on its input; returns (success, standard
/// output then standard error, as a user reads them).
pub fn run_shell(args: &[&str], script: &str) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("shell")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The etcd endpoints of `STRATA_ETCD_ENDPOINTS`; `None` (with a message, so the test skips)
/// when unset, unless `STRATA_REQUIRE_ETCD` is set (then the test fails).
pub fn etcd() -> Option<String> {
    match std::env::var("STRATA_ETCD_ENDPOINTS") {
        Ok(v) if !v.is_empty() => Some(v),
        _ => {
            assert!(
                std::env::var_os("STRATA_REQUIRE_ETCD").is_none(),
                "STRATA_REQUIRE_ETCD is set but STRATA_ETCD_ENDPOINTS is not"
            );
            eprintln!("skipped: needs etcd (scripts/etcd.sh start; STRATA_ETCD_ENDPOINTS)");
            None
        }
    }
}
