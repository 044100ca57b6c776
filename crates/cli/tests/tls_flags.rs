//! TLS on a real `strata standalone` (RFC 0024): `strata cert` makes the files, the flags and
//! the configuration file turn TLS on, the shell connects with `--tls-ca` and is refused
//! without it, `/config` names the files, and bad files stop the start with the flag and file
//! named.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn strata(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .stdin(Stdio::null())
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

/// A CA and a certificate `server` for 127.0.0.1 in `dir`, made with `strata cert`.
fn certificates(dir: &Path) {
    let d = dir.to_str().unwrap();
    assert!(strata(&["cert", "init", d]).status.success());
    let out = strata(&["cert", "issue", d, "--name", "server", "--ip", "127.0.0.1"]);
    assert!(out.status.success(), "{}", text(&out));
    let again = strata(&["cert", "init", d]);
    assert!(!again.status.success() && text(&again).contains("already holds a CA"));
}

/// Runs `strata shell` against `server` with `flags`, reading `script`; bounded in time.
fn shell(server: &str, flags: &[&str], script: &str) -> Output {
    let mut child = Command::new("timeout")
        .args([
            "60",
            env!("CARGO_BIN_EXE_strata"),
            "shell",
            "--noninteractive",
            "--server",
            server,
        ])
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn bad_certificate_files_stop_the_start_with_the_flag_named() {
    let dir = tempfile::tempdir().unwrap();
    certificates(dir.path());
    let file = |name: &str| dir.path().join(name).display().to_string();
    let start = |extra: &[String]| {
        let out = support::standalone(&dir.path().join("data"), extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(!out.status.success());
        text(&out)
    };
    let missing = start(&[
        "--tls-cert".into(),
        file("nope.pem"),
        "--tls-key".into(),
        file("server.key"),
    ]);
    assert!(
        missing.contains("--tls-cert") && missing.contains("nope.pem"),
        "{missing}"
    );
    let alone = start(&["--tls-cert".into(), file("server.pem")]);
    assert!(alone.contains("--tls-cert needs --tls-key"), "{alone}");
    let mismatched = start(&[
        "--tls-cert".into(),
        file("server.pem"),
        "--tls-key".into(),
        file("ca.key"),
    ]);
    assert!(
        mismatched.contains("not the key of the certificate"),
        "{mismatched}"
    );
    let not_a_key = start(&[
        "--tls-cert".into(),
        file("server.pem"),
        "--tls-key".into(),
        file("ca.pem"),
    ]);
    assert!(
        not_a_key.contains("--tls-key") && not_a_key.contains("no private key"),
        "{not_a_key}"
    );
}

#[test]
fn a_standalone_server_from_its_file_speaks_tls_to_the_shell() {
    let dir = tempfile::tempdir().unwrap();
    certificates(dir.path());
    let p = |name: &str| dir.path().join(name).display().to_string();
    let conf = dir.path().join("strata.toml");
    std::fs::write(
        &conf,
        format!(
            "[standalone]\ntls-cert = \"{}\"\ntls-key = \"{}\"\ntls-ca = \"{}\"\n",
            p("server.pem"),
            p("server.key"),
            p("ca.pem")
        ),
    )
    .unwrap();
    let check = strata(&["config", "check", conf.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check));

    let mut command = support::standalone(&dir.path().join("data"), &[]);
    command.args(["--config", conf.to_str().unwrap()]);
    let (child, addr) = support::spawn_command(command, Stdio::null());
    let _server = support::Killed(child);

    let ca = p("ca.pem");
    let out = shell(
        &addr,
        &["--tls-ca", &ca],
        "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\nget 't', 'r'\n",
    );
    let said = text(&out);
    assert!(out.status.success() && said.contains("value=v"), "{said}");

    let plain = shell(&addr, &[], "list\n");
    let said = text(&plain);
    assert!(
        !plain.status.success() && said.contains("requires TLS"),
        "{said}"
    );
}
