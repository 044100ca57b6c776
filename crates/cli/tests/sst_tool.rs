//! `strata sst info|verify|dump` on real files, healthy and damaged.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use strata_model::cell::{Cell, CellType};
use strata_sstable::{CellRef, Writer, WriterOptions};

fn strata(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write_sample(path: &Path) {
    let mut w = Writer::create(
        path,
        WriterOptions {
            block_size: 1024,
            ..Default::default()
        },
    )
    .unwrap();
    for i in 0..500u32 {
        let row = format!("row{i:04}");
        if i == 7 {
            let d = Cell::delete(row.clone(), "cf", "", 50, CellType::DeleteFamily);
            w.add(&CellRef::from_cell(&d)).unwrap();
        }
        let c = Cell::put(row, "cf", "q", 100, format!("v{i}"));
        w.add(&CellRef::from_cell(&c)).unwrap();
    }
    w.finish_and_sync().unwrap();
}

#[test]
fn info_verify_and_dump_a_healthy_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sst");
    write_sample(&path);
    let p = path.to_str().unwrap();

    let (ok, out, err) = strata(&["sst", "info", p]);
    assert!(ok, "{err}");
    assert!(out.contains("cells:               501"), "{out}");
    assert!(out.contains("delete markers:      1 (1 family)"), "{out}");
    assert!(out.contains("bloom:               ROW"), "{out}");

    let (ok, out, err) = strata(&["sst", "verify", p]);
    assert!(ok, "{err}");
    assert!(out.contains("OK, 501 cells"), "{out}");

    let (ok, out, _) = strata(&["sst", "dump", p, "--start", "row0007", "--stop", "row0009"]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("row0007/cf:/50/DeleteFamily"), "{out}");
    assert!(lines[2].starts_with("row0008/cf:q/100/Put"), "{out}");

    let (ok, out, _) = strata(&[
        "sst",
        "dump",
        p,
        "--reverse",
        "--limit",
        "2",
        "--stop",
        "row0003",
    ]);
    assert!(ok);
    assert!(out.lines().next().unwrap().starts_with("row0002/"), "{out}");
    assert_eq!(out.lines().count(), 2);
}

#[test]
fn a_damaged_file_fails_with_its_name_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.sst");
    write_sample(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[100] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let p = path.to_str().unwrap();
    let (ok, _, err) = strata(&["sst", "verify", p]);
    assert!(!ok);
    assert!(
        err.contains("b.sst") && err.contains("offset 0") && err.contains("checksum"),
        "{err}"
    );

    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let (ok, _, err) = strata(&["sst", "info", p]);
    assert!(!ok);
    assert!(err.contains("corrupt"), "{err}");

    let (ok, _, err) = strata(&["sst", "info", "/nonexistent/x.sst"]);
    assert!(!ok);
    assert!(err.contains("/nonexistent/x.sst"), "{err}");
}
