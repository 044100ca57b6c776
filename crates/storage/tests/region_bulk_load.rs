//! Bulk load (RFC 0027): files written outside the region join it all at once, are read as
//! newer than every write acknowledged before the load and older than every write after it,
//! survive a reopen without the WAL, and bad files are refused without a trace.
#![allow(clippy::unwrap_used)]

mod region_support;

use bytes::Bytes;
use region_support::{get, put, s, table, Env};
use strata_model::cell::{Cell, CellType};
use strata_model::ops::{Get, Scan};
use strata_sstable::{CellRef, Writer, WriterOptions};
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::{ErrorKind, Region};

/// The bytes of a store file of family `family` holding `cells` (row, qualifier, ts, value),
/// which must be in store order.
fn file_of(family: &str, cells: &[(&str, &str, i64, &str)]) -> Vec<u8> {
    let mut fd = strata_model::schema::FamilyDescriptor::new(family);
    fd.versions = 3;
    let mut w = Writer::new(Vec::new(), "bulk", WriterOptions::for_family(&fd)).unwrap();
    for (row, q, ts, v) in cells {
        let cell = Cell {
            row: Bytes::copy_from_slice(row.as_bytes()),
            family: Bytes::copy_from_slice(family.as_bytes()),
            qualifier: Bytes::copy_from_slice(q.as_bytes()),
            timestamp: *ts,
            cell_type: CellType::Put,
            seq: 0,
            value: Bytes::copy_from_slice(v.as_bytes()),
            ttl: None,
        };
        w.add(&CellRef::from_cell(&cell)).unwrap();
    }
    w.finish().unwrap().0
}

/// Loads `files` ((family, bytes)) into `region` as one load.
fn load(region: &Region, files: &[(&str, Vec<u8>)], id: u64) -> strata_storage::Result<bool> {
    let mut staged = Vec::new();
    for (family, bytes) in files {
        let mut stage = region.bulk_stage(family.as_bytes())?;
        for chunk in bytes.chunks(1000) {
            stage.write(chunk)?;
        }
        staged.push(stage.finish(bytes.len() as u64, crc32c::crc32c(bytes))?);
    }
    Ok(region.bulk_commit(staged, id)?.loaded)
}

fn scan_all(region: &Region) -> Vec<(String, String, i64, String)> {
    let mut out = Vec::new();
    let mut scanner = region.scan(&Scan::new()).unwrap();
    while let Some(row) = scanner.next_row().unwrap() {
        for c in row {
            out.push((
                String::from_utf8_lossy(&c.row).into_owned(),
                String::from_utf8_lossy(&c.qualifier).into_owned(),
                c.timestamp,
                String::from_utf8_lossy(&c.value).into_owned(),
            ));
        }
    }
    out
}

#[test]
fn loaded_cells_are_ordered_by_the_load_and_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f", "g"]));
    let region = env.open();
    // Written before the load, at the timestamp the load also uses: the load wins.
    put(&region, "a", "f", "q", 10, "written-before");
    region.flush().unwrap();
    put(&region, "b", "f", "q", 10, "written-before-unflushed");
    let f = file_of(
        "f",
        &[
            ("a", "q", 10, "loaded"),
            ("b", "q", 10, "loaded"),
            ("c", "q", 10, "loaded"),
        ],
    );
    let g = file_of("g", &[("c", "x", 5, "loaded-g")]);
    assert!(load(&region, &[("f", f.clone()), ("g", g.clone())], 7).unwrap());
    // Written after the load: it wins.
    put(&region, "c", "f", "q", 10, "written-after");

    let expect = vec![
        (s("a"), s("q"), 10, s("loaded")),
        (s("b"), s("q"), 10, s("loaded")),
        (s("c"), s("q"), 10, s("written-after")),
        (s("c"), s("x"), 5, s("loaded-g")),
    ];
    assert_eq!(scan_all(&region), expect);
    assert_eq!(
        get(&region, Get::new("a")),
        vec![(s("f"), s("q"), 10, s("loaded"))]
    );

    // The same load id again: already there, nothing changes.
    assert!(!load(&region, &[("f", f), ("g", g)], 7).unwrap());
    assert_eq!(scan_all(&region), expect);

    // Reopened without a flush: the WAL holds the writes, the manifest the load; the order
    // between them is kept, and new writes still come after the load.
    region.abandon();
    drop(region);
    let region = env.open();
    assert_eq!(scan_all(&region), expect);
    put(&region, "a", "f", "q", 10, "written-after-reopen");
    assert_eq!(
        get(&region, Get::new("a")),
        vec![(s("f"), s("q"), 10, s("written-after-reopen"))]
    );

    // A major compaction keeps the result.
    region.flush().unwrap();
    region.compact(MajorRequest::User).unwrap();
    let mut after = expect.clone();
    after[0].3 = s("written-after-reopen");
    assert_eq!(scan_all(&region), after);
}

#[test]
fn bad_files_are_refused_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = Env::new(dir.path(), table(&["f"]));
    env.info.start_row = Bytes::from_static(b"b");
    env.info.end_row = Bytes::from_static(b"m");
    let region = env.open();
    let good = file_of("f", &[("c", "q", 1, "v")]);
    let refused = |files: &[(&str, Vec<u8>)], what: &str| {
        let e = load(&region, files, 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid, "{what}: {e}");
        e.to_string()
    };
    // A wrong checksum.
    let mut stage = region.bulk_stage(b"f").unwrap();
    stage.write(&good).unwrap();
    let e = stage.finish(good.len() as u64, 1).unwrap_err();
    assert!(e.to_string().contains("CRC32C"), "{e}");
    // Not a store file; a damaged one.
    refused(&[("f", b"garbage".to_vec())], "garbage");
    let mut damaged = good.clone();
    damaged[10] ^= 0xff;
    refused(&[("f", damaged)], "damaged");
    // Another family's file; rows outside the region.
    let msg = refused(&[("f", file_of("g", &[("c", "q", 1, "v")]))], "family");
    assert!(msg.contains("family"), "{msg}");
    let outside = [
        ("f", good.clone()),
        ("f", file_of("f", &[("m", "q", 1, "v")])),
    ];
    let e = load(&region, &outside, 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongRegion, "{e}");
    assert!(e.to_string().contains("outside region"), "{e}");
    // An unknown family.
    let e = load(&region, &[("nope", good.clone())], 1).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");

    assert!(
        scan_all(&region).is_empty(),
        "nothing of a refused load is visible"
    );
    let leftovers: Vec<_> = walk(dir.path())
        .into_iter()
        .filter(|p| p.contains("bulk"))
        .collect();
    assert!(leftovers.is_empty(), "no staged file stays: {leftovers:?}");
    assert!(load(&region, &[("f", good)], 2).unwrap());
    assert_eq!(scan_all(&region), vec![(s("c"), s("q"), 1, s("v"))]);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.display().to_string());
        }
    }
    out
}
