//! The data operations through happybase and `strata gateway`: the gateway holds the
//! certificate of the user `gw` and acts as it for its plaintext Thrift clients (RFC 0026),
//! so each case grants `gw` its permissions, runs the operation through a happybase process
//! (`happybase_driver.py`, one line per case) and revokes them.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use strata_client::access::Perms;

use super::cases::Case;
use super::scopes::{scope_of, target};
use super::server::{grant_with, Secured};
use super::Seen;
use crate::support::Killed;

/// The user the gateway acts as.
pub const GATEWAY_USER: &str = "gw";

/// The Python of a virtual environment with happybase (`STRATA_HAPPYBASE_PYTHON`); `None`
/// (with a message, so the test skips) when unset, unless `STRATA_REQUIRE_HAPPYBASE` is set.
pub fn python() -> Option<String> {
    match std::env::var("STRATA_HAPPYBASE_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            assert!(
                std::env::var_os("STRATA_REQUIRE_HAPPYBASE").is_none(),
                "STRATA_REQUIRE_HAPPYBASE is set but STRATA_HAPPYBASE_PYTHON is not"
            );
            eprintln!(
                "skipped: needs happybase (scripts/gateway/happybase-acl.sh; \
                 STRATA_HAPPYBASE_PYTHON)"
            );
            None
        }
    }
}

/// `strata gateway` as `gw`, and a happybase process talking to it.
pub struct Driver {
    _gateway: Killed,
    _python: Killed,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Driver {
    pub fn start(s: &Secured, python: &str) -> Driver {
        let certs = s.dir.path().join("certs");
        s.issue(GATEWAY_USER);
        let file = |name: &str| certs.join(name).display().to_string();
        let mut gateway = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args([
                "gateway",
                "--server",
                &s.addr,
                "--listen",
                "127.0.0.1:0",
                "--tls-ca",
                &file("ca.pem"),
                "--tls-client-cert",
                &file(&format!("{GATEWAY_USER}.pem")),
                "--tls-client-key",
                &file(&format!("{GATEWAY_USER}.key")),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(gateway.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let port = first
            .split("Thrift1 on ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|addr| addr.rsplit(':').next())
            .unwrap_or_else(|| panic!("unexpected first line of the gateway: {first}"))
            .to_owned();
        std::thread::spawn(move || for _ in lines {});
        let gateway = Killed(gateway);
        let mut child: Child = Command::new(python)
            .arg(format!(
                "{}/tests/acl_matrix/happybase_driver.py",
                std::env::var("CARGO_MANIFEST_DIR")
                    .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
            ))
            .arg(&port)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Driver {
            _gateway: gateway,
            _python: Killed(child),
            input,
            output,
        }
    }

    /// Runs `case` as the gateway's user: its grant, the operation, the revoke.
    pub async fn run(&mut self, s: &Secured, case: &Case) -> Result<Seen, String> {
        grant_with(&s.admin, case, GATEWAY_USER).await;
        writeln!(self.input, "{} {}", case.op.name, target(case)).map_err(|e| e.to_string())?;
        self.input.flush().map_err(|e| e.to_string())?;
        let mut line = String::new();
        self.output
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        if let Some(scope) = scope_of(case).filter(|_| !case.perms.is_empty()) {
            s.admin
                .admin()
                .revoke(GATEWAY_USER, Perms::ALL, &scope)
                .await
                .map_err(|e| format!("{}: revoking: {e}", case.describe()))?;
        }
        match line.trim() {
            "allowed" => Ok(Seen::Allowed),
            "refused" => Ok(Seen::Refused),
            "left_out" => Ok(Seen::LeftOut),
            other => Err(format!("{}: through happybase: {other}", case.describe())),
        }
    }
}
