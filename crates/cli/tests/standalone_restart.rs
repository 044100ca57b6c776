//! `strata standalone` as a real process: a graceful restart keeps all data, and after a
//! SIGKILL in the middle of a write load no acknowledged write is lost.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Child, Stdio};

fn spawn(dir: &Path) -> (Child, String) {
    support::spawn(dir, &[], Stdio::inherit())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_loses_no_acknowledged_write_and_restart_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    support::sigkill_then_restart(dir.path(), &[]).await;
}

#[test]
fn a_second_process_on_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, _addr) = spawn(dir.path());
    let out = support::standalone(dir.path(), &[]).output().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in use by another Strata process"), "{err}");
}
