//! etcd over TLS with client certificates (RFC 0024, "etcd"): an etcd of the test's own
//! (`support/own_etcd.rs`) serving clients over TLS with `--client-cert-auth`; a master, a
//! region server, `strata cluster` and the shell reach it with `--etcd-ca`, `--etcd-cert` and
//! `--etcd-key`, and data goes through. Without a client certificate, with one from another
//! CA, without TLS, or with half the flags, a command fails with a clear error.
//!
//! Skipped without `STRATA_ETCD_ENDPOINTS` (no etcd on the machine) unless
//! `STRATA_REQUIRE_ETCD`.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/own_etcd.rs"]
mod own_etcd;
mod support;

use std::path::Path;
use std::process::{Command, Output};

use cluster::start;
use own_etcd::OwnEtcd;

/// Runs `strata ARGS…` (at most 60 s).
fn strata(args: &[&str]) -> Output {
    Command::new("timeout")
        .arg("60")
        .arg(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A CA in `dir` with certificates `etcd` (for 127.0.0.1), `client` (etcd's health check)
/// and `node` (Strata's processes).
fn certificates(dir: &Path) {
    let d = dir.to_str().unwrap();
    for args in [
        vec!["cert", "init", d],
        vec!["cert", "issue", d, "--name", "etcd", "--ip", "127.0.0.1"],
        vec!["cert", "issue", d, "--name", "client"],
        vec!["cert", "issue", d, "--name", "node"],
    ] {
        let out = strata(&args);
        assert!(out.status.success(), "strata {args:?}: {}", text(&out));
    }
}

#[test]
fn a_cluster_reaches_etcd_over_tls_with_client_certificates() {
    let certs = tempfile::tempdir().unwrap();
    certificates(certs.path());
    let other = tempfile::tempdir().unwrap();
    certificates(other.path());
    let Some(etcd) = OwnEtcd::start_with(Some(certs.path())) else {
        return;
    };
    let file = |dir: &Path, name: &str| dir.join(name).to_str().unwrap().to_owned();
    let (ca, cert, key) = (
        file(certs.path(), "ca.pem"),
        file(certs.path(), "node.pem"),
        file(certs.path(), "node.key"),
    );
    let endpoint = etcd.endpoint();
    let root = tempfile::tempdir().unwrap();
    let name = format!("etcd-tls-{}", std::process::id());
    let common: Vec<String> = [
        "--etcd",
        &endpoint,
        "--cluster",
        &name,
        "--etcd-ca",
        &ca,
        "--etcd-cert",
        &cert,
        "--etcd-key",
        &key,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let node = |cmd: &str, extra: &[&str]| {
        let mut args = vec![cmd.to_owned()];
        args.extend(common.iter().cloned());
        args.extend(
            ["--ttl", "2", "--root", root.path().to_str().unwrap()]
                .iter()
                .chain(extra)
                .map(|s| s.to_string()),
        );
        args
    };
    let _master = start(
        &node("master", &["--advertise", "127.0.0.1:17991"]),
        "active",
    );
    let _server = start(
        &node(
            "regionserver",
            &[
                "--listen",
                "127.0.0.1:0",
                "--memtable-mib",
                "32",
                "--block-cache-mib",
                "8",
            ],
        ),
        "serving on ",
    );

    // The shell, through etcd over TLS: a table, a put and a get.
    let shell: Vec<&str> = common.iter().map(String::as_str).collect();
    // "serving on" is printed once the server is registered in etcd; the master may see it a
    // moment later, and until then the shell finds no server (and changes nothing), so it is
    // asked again.
    let started = std::time::Instant::now();
    let (ok, out) = loop {
        let (ok, out) = support::run_shell(
            &shell,
            "create 't', 'f'\nput 't', 'r1', 'f:q', 'v1'\nget 't', 'r1'\n",
        );
        if ok || !out.contains("is registered in etcd") || started.elapsed().as_secs() > 20 {
            break (ok, out);
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(ok && out.contains("value=v1"), "{out}");
    // `strata cluster`, the same way.
    let mut status = vec!["cluster", "status"];
    status.extend(shell.iter().copied());
    let out = strata(&status);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("t"), "{}", text(&out));

    // Refused, each with a clear error.
    let base = ["cluster", "status", "--etcd", &endpoint, "--cluster", &name];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend(extra);
        let out = strata(&args);
        assert!(!out.status.success(), "{args:?} succeeded: {}", text(&out));
        text(&out)
    };
    let plaintext = with(&[]);
    assert!(plaintext.contains("if etcd serves TLS"), "{plaintext}");
    let no_client_cert = with(&["--etcd-ca", &ca]);
    assert!(
        no_client_cert.contains("TLS without a client certificate"),
        "{no_client_cert}"
    );
    let (other_cert, other_key) = (
        file(other.path(), "node.pem"),
        file(other.path(), "node.key"),
    );
    let untrusted = with(&[
        "--etcd-ca",
        &ca,
        "--etcd-cert",
        &other_cert,
        "--etcd-key",
        &other_key,
    ]);
    assert!(untrusted.contains("etcd must trust its CA"), "{untrusted}");
    let half = with(&["--etcd-ca", &ca, "--etcd-cert", &cert]);
    assert!(
        half.contains("--etcd-cert and --etcd-key go together"),
        "{half}"
    );
    let http = format!("http://{endpoint}");
    let mut clear = vec!["cluster", "status", "--etcd", &http, "--cluster", &name];
    clear.extend(["--etcd-ca", &ca, "--etcd-cert", &cert, "--etcd-key", &key]);
    let out = strata(&clear);
    assert!(
        !out.status.success() && text(&out).contains("is plaintext"),
        "{}",
        text(&out)
    );
}
