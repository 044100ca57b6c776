//! A data directory written by an earlier release's standalone master (a catalog file, a
//! split whose daughters still read their parent's file, a disabled table, a WAL with edits
//! not yet flushed, left by SIGKILL: `tests/data/legacy-root`) opens with today's `strata
//! standalone`, which upgrades it once into a cluster of one's root (RFC 0019): the shell then
//! prints what that release's shell printed, before and after a restart.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// What the earlier release's shell printed for [`STATEMENTS`] on a copy of the root.
const EXPECTED: &str = include_str!("data/legacy-root.expected");

const STATEMENTS: &str = "scan 't_split', {VERSIONS => 3}\nscan 'ns1:events'\n\
                          enable 't_off'\nscan 't_off'\n";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The shell's output for `statements`, without its timing lines.
fn shell(addr: &str, statements: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["shell", "--server", addr])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(statements.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("Took "))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn a_root_of_the_catalog_file_release_opens_with_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    copy_dir(
        &Path::new(
            &std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
        )
        .join("tests/data/legacy-root"),
        &root,
    );
    let (child, addr) = support::spawn(&root, &[], Stdio::inherit());
    let child = support::Killed(child);
    assert_eq!(shell(&addr, STATEMENTS), EXPECTED);
    assert!(!root.join("catalog").exists(), "the catalog file is gone");
    assert!(
        !root.join("upgrade").exists(),
        "the upgrade's marker is gone"
    );
    assert!(root.join("coordination").is_dir());
    child.stop_gracefully();

    // Upgraded once: the next start opens it as a cluster of one (t_off stays enabled).
    let (child, addr) = support::spawn(&root, &[], Stdio::inherit());
    let _child = support::Killed(child);
    let again = "scan 't_split', {VERSIONS => 3}\nscan 'ns1:events'\nscan 't_off'\n";
    assert_eq!(shell(&addr, again), EXPECTED);
}
