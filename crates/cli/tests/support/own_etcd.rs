//! An etcd of one test's own, started, stopped and resumed (restarted with its data) by
//! `scripts/etcd.sh` on `STRATA_ETCD_FAULT_PORT`/`STRATA_ETCD_FAULT_PEER_PORT` (default
//! 24790/24800, beside the shared test etcd's 23790/23800) in `STRATA_ETCD_FAULT_DIR`, for tests that take etcd away (which would break
//! other tests sharing one). Test binaries run one after another; the tests of one binary that
//! use it hold [`OwnEtcd::lock`].
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};

/// Stopped when dropped.
pub struct OwnEtcd {
    _dir: tempfile::TempDir,
    state: PathBuf,
    port: String,
    peer_port: String,
    /// `STRATA_ETCD_TLS_DIR` of `scripts/etcd.sh`: clients over TLS with certificates.
    tls_dir: Option<PathBuf>,
    _guard: MutexGuard<'static, ()>,
}

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn script() -> PathBuf {
    Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
    )
    .join("../../scripts/etcd.sh")
}

impl OwnEtcd {
    /// `None` (the test is skipped) without `STRATA_ETCD_ENDPOINTS` (no etcd on this
    /// machine), unless `STRATA_REQUIRE_ETCD`.
    pub fn start() -> Option<OwnEtcd> {
        OwnEtcd::start_with(None)
    }

    /// As [`OwnEtcd::start`], serving clients over TLS and requiring their certificates when
    /// `tls_dir` is given (see `scripts/etcd.sh`, `STRATA_ETCD_TLS_DIR`).
    pub fn start_with(tls_dir: Option<&Path>) -> Option<OwnEtcd> {
        if std::env::var_os("STRATA_ETCD_ENDPOINTS").is_none() {
            assert!(
                std::env::var_os("STRATA_REQUIRE_ETCD").is_none(),
                "STRATA_REQUIRE_ETCD is set but STRATA_ETCD_ENDPOINTS is not"
            );
            eprintln!("skipped: no etcd (scripts/etcd.sh start, then set STRATA_ETCD_ENDPOINTS)");
            return None;
        }
        let guard = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = tempfile::tempdir().unwrap();
        let etcd = OwnEtcd {
            state: std::env::var_os("STRATA_ETCD_FAULT_DIR")
                .map_or_else(|| dir.path().join("etcd"), PathBuf::from),
            _dir: dir,
            port: std::env::var("STRATA_ETCD_FAULT_PORT").unwrap_or_else(|_| "24790".into()),
            peer_port: std::env::var("STRATA_ETCD_FAULT_PEER_PORT")
                .unwrap_or_else(|_| "24800".into()),
            tls_dir: tls_dir.map(Path::to_path_buf),
            _guard: guard,
        };
        etcd.run(&["start"]);
        Some(etcd)
    }

    /// `127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Runs `scripts/etcd.sh ARGS` on this etcd (at most 60 s) and asserts it succeeded.
    pub fn run(&self, args: &[&str]) {
        let mut command = Command::new("timeout");
        if let Some(dir) = &self.tls_dir {
            command.env("STRATA_ETCD_TLS_DIR", dir);
        }
        let status = command
            .arg("60")
            .arg(script())
            .args(args)
            .env("STRATA_ETCD_PORT", &self.port)
            .env("STRATA_ETCD_PEER_PORT", &self.peer_port)
            .env("STRATA_ETCD_DIR", &self.state)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "scripts/etcd.sh {args:?} failed");
    }
}

impl Drop for OwnEtcd {
    fn drop(&mut self) {
        self.run(&["stop"]);
    }
}
