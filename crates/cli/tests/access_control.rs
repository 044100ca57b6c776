//! Access control on a real `strata standalone --auth` with mutual TLS (RFC 0026): users are
//! the names their client certificates prove; `grant`, `revoke`, `user_permission` and
//! `whoami` through the shell; reads narrowed to granted families, writes refused without
//! W, creators owning their tables, a dropped table's grants gone, denials in the audit log.
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

/// A CA, the server's certificate and one per user, made with `strata cert`.
fn certificates(dir: &Path, users: &[&str]) {
    let d = dir.to_str().unwrap();
    assert!(strata(&["cert", "init", d]).status.success());
    let out = strata(&["cert", "issue", d, "--name", "server", "--ip", "127.0.0.1"]);
    assert!(out.status.success(), "{}", text(&out));
    for user in users {
        let out = strata(&["cert", "issue", d, "--name", user]);
        assert!(out.status.success(), "{}", text(&out));
    }
}

/// A standalone server with access control on; `admin` is its superuser.
struct Secured {
    dir: tempfile::TempDir,
    addr: String,
    _server: support::Killed,
}

impl Secured {
    fn start(users: &[&str]) -> Secured {
        let dir = tempfile::tempdir().unwrap();
        certificates(dir.path(), users);
        let p = |name: &str| dir.path().join(name).display().to_string();
        let extra: Vec<String> = [
            "--tls-cert",
            &p("server.pem"),
            "--tls-key",
            &p("server.key"),
            "--tls-client-ca",
            &p("ca.pem"),
            "--auth",
            "--superuser",
            "admin",
            "--audit-log",
            &p("audit.jsonl"),
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let (child, addr) = support::spawn(&dir.path().join("data"), &extra, Stdio::null());
        Secured {
            dir,
            addr,
            _server: support::Killed(child),
        }
    }

    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// Runs `script` in the shell as `user` (its certificate); (success, what it printed).
    fn shell(&self, user: &str, script: &str) -> (bool, String) {
        let (ca, cert, key) = (
            self.file("ca.pem"),
            self.file(&format!("{user}.pem")),
            self.file(&format!("{user}.key")),
        );
        support::run_shell(
            &[
                "--noninteractive",
                "--server",
                &self.addr,
                "--tls-ca",
                &ca,
                "--tls-client-cert",
                &cert,
                "--tls-client-key",
                &key,
            ],
            script,
        )
    }
}

#[test]
fn grants_decide_what_each_user_may_do() {
    let s = Secured::start(&["admin", "alice", "bob", "carol"]);
    let (ok, said) = s.shell(
        "admin",
        "create 't', 'f', 'g'\nput 't', 'r1', 'f:q', 'v1'\nput 't', 'r1', 'g:q', 'w1'\n\
         grant 'alice', 'R', 't'\ngrant 'bob', 'W', 't', 'f'\ngrant 'carol', 'R', 't', 'f'\n\
         whoami\nuser_permission\n",
    );
    assert!(ok, "{said}");
    assert!(said.contains("admin (auth:CERTIFICATE)"), "{said}");
    for line in [
        "alice",
        "default,t,,: [Permission: actions=READ]",
        "bob",
        "default,t,f,: [Permission: actions=WRITE]",
    ] {
        assert!(said.contains(line), "missing {line}: {said}");
    }

    // alice reads everything and writes nothing.
    let (_, said) = s.shell(
        "alice",
        "whoami\nget 't', 'r1'\nput 't', 'r2', 'f:q', 'x'\n",
    );
    assert!(said.contains("alice (auth:CERTIFICATE)"), "{said}");
    assert!(
        said.contains("value=v1") && said.contains("value=w1"),
        "{said}"
    );
    assert!(
        said.contains("Insufficient permissions for user 'alice'") && said.contains("WRITE"),
        "{said}"
    );

    // bob writes family f only, and reads nothing.
    let (ok, said) = s.shell("bob", "put 't', 'r2', 'f:q', 'b'\n");
    assert!(ok, "{said}");
    let (_, said) = s.shell("bob", "put 't', 'r2', 'g:q', 'b'\n");
    assert!(
        said.contains("Insufficient permissions for user 'bob'") && said.contains("t/g/q"),
        "{said}"
    );
    let (_, said) = s.shell("bob", "get 't', 'r1'\n");
    assert!(
        said.contains("Insufficient permissions for user 'bob'") && said.contains("READ"),
        "{said}"
    );

    // carol reads family f only: the other family's cells are left out, without an error.
    let (ok, said) = s.shell("carol", "scan 't'\n");
    assert!(ok, "{said}");
    assert!(
        said.contains("value=v1") && said.contains("value=b"),
        "{said}"
    );
    assert!(!said.contains("value=w1"), "{said}");

    // Listing the grants and granting need A.
    for script in ["user_permission\n", "grant 'alice', 'RW', 't'\n"] {
        let (ok, said) = s.shell("alice", script);
        assert!(
            !ok && said.contains("Insufficient permissions"),
            "{script}: {said}"
        );
    }

    // A revoke is in force when it returns.
    let (ok, said) = s.shell("admin", "revoke 'alice', 't'\n");
    assert!(ok, "{said}");
    let (_, said) = s.shell("alice", "get 't', 'r1'\n");
    assert!(
        said.contains("Insufficient permissions for user 'alice'"),
        "{said}"
    );

    // Denials, grants and admin calls are in the audit log.
    let audit = std::fs::read_to_string(s.file("audit.jsonl")).unwrap();
    assert!(
        audit.lines().any(|l| l.contains("\"user\":\"alice\"")
            && l.contains("\"result\":\"denied\"")
            && l.contains("\"call\":\"mutate\"")),
        "{audit}"
    );
    assert!(
        audit
            .lines()
            .any(|l| l.contains("\"call\":\"grant\"") && l.contains("\"result\":\"allowed\"")),
        "{audit}"
    );
}

#[test]
fn creators_own_their_tables_and_grants_go_with_a_dropped_table() {
    let s = Secured::start(&["admin", "dave", "erin"]);
    let (ok, said) = s.shell("admin", "grant 'dave', 'C', '@default'\n");
    assert!(ok, "{said}");
    // dave may create in `default` and then owns the table; erin may not create at all.
    let (ok, said) = s.shell(
        "dave",
        "create 'mine', 'f'\nput 'mine', 'r', 'f:q', 'v'\nget 'mine', 'r'\nlist\n",
    );
    assert!(
        ok && said.contains("value=v") && said.contains("mine"),
        "{said}"
    );
    let (_, said) = s.shell("erin", "create 'theirs', 'f'\nlist\n");
    assert!(
        said.contains("Insufficient permissions for user 'erin'"),
        "{said}"
    );
    assert!(
        !said.contains("mine"),
        "erin lists no table she holds nothing on: {said}"
    );

    let (_, said) = s.shell("admin", "user_permission 'mine'\n");
    assert!(
        said.contains("dave") && said.contains("actions=READ,WRITE,EXEC,CREATE,ADMIN"),
        "{said}"
    );
    let (ok, said) = s.shell("dave", "disable 'mine'\ndrop 'mine'\n");
    assert!(ok, "{said}");
    let (_, said) = s.shell("admin", "user_permission 'mine'\n");
    assert!(said.contains("0 row(s)"), "{said}");
}

#[test]
fn auth_needs_client_certificates_and_settings_need_auth() {
    let dir = tempfile::tempdir().unwrap();
    let out = support::standalone(&dir.path().join("data"), &["--auth".to_owned()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("--tls-client-ca"), "{}", text(&out));
    let out = support::standalone(
        &dir.path().join("data"),
        &["--superuser".to_owned(), "x".to_owned()],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .output()
    .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("need --auth"), "{}", text(&out));
    // Listening beyond loopback without access control needs --insecure.
    let out = support::standalone(
        &dir.path().join("data"),
        &["--http-listen".to_owned(), "0.0.0.0:0".to_owned()],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .output()
    .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out).contains("--http-listen 0.0.0.0:0 is not a loopback address"),
        "{}",
        text(&out)
    );
}
