//! HBase's `update_config` on a real `strata standalone` started with a configuration file:
//! the shell's `update_config` and `update_all_config`, and HBase RPC's
//! `AdminService.UpdateConfiguration`, reload the file as SIGHUP does; `/config` shows the
//! new log level; a file with problems changes nothing and the shell names them.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use prost::Message;
use strata_hbase_rpc::frame::{decode_reply, encode_request, read_frame};
use strata_hbase_rpc::pb;
use tokio::io::AsyncWriteExt;

const HTTP: &str = "127.0.0.1:27011";
const HBASE: &str = "127.0.0.1:27012";

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

fn file(log_level: &str, memtable_mib: u32) -> String {
    format!("log-level = \"{log_level}\"\n\n[standalone]\nmemtable-mib = {memtable_mib}\n")
}

/// `strata shell --server addr` with `script` on its input: its output without `Took` lines.
fn shell(addr: &str, script: &str) -> String {
    let (_, text) = support::run_shell(&["--server", addr], script);
    text.lines()
        .filter(|l| !l.starts_with("Took "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Calls HBase RPC's `AdminService.UpdateConfiguration`: the exception's text, if any.
async fn hbase_update_configuration(addr: &str) -> Option<String> {
    let mut stream = tokio::time::timeout(
        Duration::from_secs(20),
        tokio::net::TcpStream::connect(addr),
    )
    .await
    .unwrap()
    .unwrap();
    let header = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: "test".into(),
            real_user: None,
        }),
        service_name: Some("AdminService".into()),
        ..pb::ConnectionHeader::default()
    }
    .encode_to_vec();
    let mut hello = b"HBas\x00\x50".to_vec();
    hello.extend_from_slice(&u32::try_from(header.len()).unwrap().to_be_bytes());
    hello.extend_from_slice(&header);
    stream.write_all(&hello).await.unwrap();
    let request = pb::UpdateConfigurationRequest {};
    stream
        .write_all(&encode_request(1, "UpdateConfiguration", &request, &[]))
        .await
        .unwrap();
    let frame = tokio::time::timeout(Duration::from_secs(20), read_frame(&mut stream, 1 << 30))
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let (header, _, _) = decode_reply(frame).unwrap();
    header.exception.map(|e| {
        format!(
            "{}: {}",
            e.exception_class_name.unwrap_or_default(),
            e.stack_trace.unwrap_or_default()
        )
    })
}

fn start(dir: &Path, conf: &Path) -> (support::Killed, String) {
    let log = std::fs::File::create(dir.join("stderr.log")).unwrap();
    let command = support::standalone(
        &dir.join("data"),
        &[
            "--config".into(),
            conf.display().to_string(),
            "--http-listen".into(),
            HTTP.into(),
            "--hbase-rpc-listen".into(),
            HBASE.into(),
        ],
    );
    let (child, addr) = support::spawn_command(command, Stdio::from(log));
    (support::Killed(child), addr)
}

/// `/config` once the HTTP endpoint answers (it starts after the first line is printed).
fn config_page() -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        if TcpStream::connect(HTTP).is_ok() {
            return get(HTTP, "/config");
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no HTTP endpoint on {HTTP}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_config_through_the_shell_and_hbase_rpc_reloads_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("strata.toml");
    std::fs::write(&conf, file("info", 64)).unwrap();
    let (server, addr) = start(dir.path(), &conf);
    let page = config_page();
    assert!(
        page.contains("log-level = &quot;info&quot;  # configuration file"),
        "{page}"
    );

    // A new log level (reloadable) and a new memtable size (needs a restart).
    std::fs::write(&conf, file("debug", 48)).unwrap();
    let a = addr.clone();
    let out = tokio::task::spawn_blocking(move || shell(&a, &format!("update_config '{a}'\n")))
        .await
        .unwrap();
    assert!(
        out.contains(&format!("{addr}: applied log-level: info → debug\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{addr}: waits for a restart: memtable-mib: 64 → 48\n"
        )),
        "{out}"
    );
    assert!(!out.contains("ERROR"), "{out}");
    let page = get(HTTP, "/config");
    assert!(
        page.contains("log-level = &quot;debug&quot;  # configuration file, reloaded"),
        "{page}"
    );
    assert!(
        page.contains("memtable-mib = 64  # configuration file"),
        "a key that needs a restart keeps its value: {page}"
    );

    // Every server (here, the one process): nothing new since.
    let a = addr.clone();
    let out = tokio::task::spawn_blocking(move || shell(&a, "update_all_config\n"))
        .await
        .unwrap();
    assert!(
        out.contains(&format!(
            "{addr}: waits for a restart: memtable-mib: 64 → 48\n"
        )),
        "{out}"
    );
    assert!(!out.contains("applied"), "{out}");

    // A file with problems: the shell names them, nothing changes.
    std::fs::write(&conf, "log-level = \"trace\"\nmemtable_mib = 1\n").unwrap();
    let a = addr.clone();
    let out = tokio::task::spawn_blocking(move || shell(&a, "update_all_config\n"))
        .await
        .unwrap();
    assert!(
        out.contains(&format!(
            "ERROR: update_all_config: not reloaded on {addr}: "
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("{}:2: unknown key 'memtable_mib'", conf.display())),
        "{out}"
    );
    let page = get(HTTP, "/config");
    assert!(
        page.contains("log-level = &quot;debug&quot;  # configuration file, reloaded"),
        "{page}"
    );

    // HBase RPC's AdminService: the same reload, its problems as the exception.
    let refused = hbase_update_configuration(HBASE).await;
    assert!(
        refused
            .as_deref()
            .is_some_and(|e| e.contains("unknown key 'memtable_mib'")),
        "{refused:?}"
    );
    std::fs::write(&conf, file("warn", 64)).unwrap();
    let answer = hbase_update_configuration(HBASE).await;
    assert_eq!(answer, None);
    let page = get(HTTP, "/config");
    assert!(
        page.contains("log-level = &quot;warn&quot;  # configuration file, reloaded"),
        "{page}"
    );
    drop(server);
    let log = std::fs::read_to_string(dir.path().join("stderr.log")).unwrap();
    assert!(
        log.contains("admin call: reloading the configuration"),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_a_file_reloads_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let command = support::standalone(&dir.path().join("data"), &[]);
    let (child, addr) = support::spawn_command(command, Stdio::null());
    let _server = support::Killed(child);
    let a = addr.clone();
    let out = tokio::task::spawn_blocking(move || shell(&a, "update_all_config\n"))
        .await
        .unwrap();
    assert!(
        out.contains(&format!(
            "ERROR: update_all_config: not reloaded on {addr}: no configuration file to reload"
        )),
        "{out}"
    );
}
