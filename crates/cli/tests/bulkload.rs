//! `strata bulkload prepare` then `load` into `strata standalone` (RFC 0027): a million cells
//! across ten regions, a file crossing three boundaries, a region split between prepare and
//! load and another during the load; every cell readable once, loaded cells newer than the
//! writes before the load and older than those after it. Bad loads change nothing.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use bytes::Bytes;
use strata_client::Connection;
use strata_model::cell::{Cell, CellType};
use strata_model::ops::{Get, Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_sstable::{CellRef, Writer, WriterOptions};
use support::{spawn, Killed};

const ROWS: u64 = 200_000;
const TS: i64 = 1_000;

fn row(i: u64) -> Bytes {
    Bytes::from(format!("row{i:07}"))
}

fn strata(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    eprintln!(
        "strata {}:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A store file of family `f`, qualifier `z`, for every 1000th row from `from` to `to`.
fn crossing_file(path: &Path, from: u64, to: u64) -> u64 {
    let mut w = Writer::create(
        path,
        WriterOptions {
            family: Bytes::from_static(b"f"),
            ..WriterOptions::default()
        },
    )
    .unwrap();
    let mut n = 0;
    for i in (from..=to).step_by(1000) {
        let cell = Cell {
            row: row(i),
            family: Bytes::from_static(b"f"),
            qualifier: Bytes::from_static(b"z"),
            timestamp: TS,
            cell_type: CellType::Put,
            seq: 0,
            value: Bytes::from(format!("z{i}")),
            ttl: None,
        };
        w.add(&CellRef::from_cell(&cell)).unwrap();
        n += 1;
    }
    w.finish_and_sync().unwrap();
    n
}

async fn create(conn: &Connection, name: &str) {
    let t = TableDescriptor::new(TableName::parse(name).unwrap())
        .with_family(FamilyDescriptor::new("f"))
        .with_family(FamilyDescriptor::new("g"));
    let splits: Vec<Bytes> = (1..10).map(|k| row(k * ROWS / 10)).collect();
    conn.admin().create_table(&t, &splits).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_cells_load_into_ten_regions_while_regions_split() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = spawn(&dir.path().join("data"), &[], Stdio::inherit());
    let _child = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    create(&conn, "bl").await;
    let table = conn.table("bl").unwrap();
    // Written before the load at the load's timestamp: the load wins.
    table
        .put(&Put::new(row(5)).add_at("f", "a", TS, "written-before"))
        .await
        .unwrap();

    let tsv = dir.path().join("day.tsv");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tsv).unwrap());
        for i in 0..ROWS {
            writeln!(f, "row{i:07}\ta{i}\tb{i}\tc{i}\tx{i}\ty{i}").unwrap();
        }
    }
    let out_dir = dir.path().join("load");
    let (tsv_s, out_s) = (tsv.display().to_string(), out_dir.display().to_string());
    let prepared = strata(&[
        "bulkload",
        "prepare",
        "--table",
        "bl",
        "--input",
        &tsv_s,
        "--columns",
        "HBASE_ROW_KEY,f:a,f:b,f:c,g:x,g:y",
        "--timestamp",
        "1000",
        "--sort-mib",
        "16",
        "--out",
        &out_s,
        "--server",
        &addr,
    ]);
    assert!(prepared.status.success());
    let said = String::from_utf8_lossy(&prepared.stdout);
    assert!(
        said.contains("prepared 1000000 cells from 200000 lines"),
        "{said}"
    );
    let files = |family: &str| std::fs::read_dir(out_dir.join(family)).unwrap().count();
    assert_eq!(
        (files("f"), files("g")),
        (10, 10),
        "a file per family and region"
    );
    // A file crossing three boundaries (rows 15,000 to 75,000).
    let crossing = crossing_file(&out_dir.join("f").join("zz-crossing.sst"), 15_000, 75_000);

    // A split between prepare and load: the file of [120000, 140000) now crosses a boundary.
    conn.admin().split("bl", Some(row(130_000))).await.unwrap();
    let admin = conn.admin();
    let splitter = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        admin.split("bl", Some(row(170_000))).await
    });
    let (out_s2, addr2) = (out_s.clone(), addr.clone());
    let loaded = tokio::task::spawn_blocking(move || {
        strata(&[
            "bulkload", "load", "--table", "bl", &out_s2, "--server", &addr2,
        ])
    })
    .await
    .unwrap();
    assert!(loaded.status.success());
    splitter.await.unwrap().unwrap();
    let said = String::from_utf8_lossy(&loaded.stdout);
    assert!(
        said.contains(&format!("loaded {} cells", 1_000_000 + crossing)),
        "{said}"
    );

    // Every cell once, with its value; the crossing file's cells too.
    let rows = table.scan_all(&Scan::default()).await.unwrap();
    assert_eq!(rows.len() as u64, ROWS);
    let mut cells = 0u64;
    for (i, r) in rows.iter().enumerate() {
        let i = i as u64;
        let got: Vec<(String, String)> = r
            .iter()
            .map(|c| {
                (
                    format!(
                        "{}:{}",
                        String::from_utf8_lossy(&c.family),
                        String::from_utf8_lossy(&c.qualifier)
                    ),
                    String::from_utf8_lossy(&c.value).into_owned(),
                )
            })
            .collect();
        let mut want = vec![
            ("f:a".to_owned(), format!("a{i}")),
            ("f:b".to_owned(), format!("b{i}")),
            ("f:c".to_owned(), format!("c{i}")),
        ];
        if (15_000..=75_000).contains(&i) && i.is_multiple_of(1000) {
            want.push(("f:z".to_owned(), format!("z{i}")));
        }
        want.push(("g:x".to_owned(), format!("x{i}")));
        want.push(("g:y".to_owned(), format!("y{i}")));
        assert_eq!(got, want, "row {i}");
        cells += got.len() as u64;
    }
    assert_eq!(cells, 1_000_000 + crossing);

    // Written after the load at the same timestamp: the write wins.
    table
        .put(&Put::new(row(6)).add_at("f", "a", TS, "written-after"))
        .await
        .unwrap();
    let got = table
        .get(&Get::new(row(6)).with_column("f", "a"))
        .await
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&got[0].value), "written-after");
    assert!(
        !out_dir
            .join(format!("_cut-{}", std::process::id()))
            .exists(),
        "the load's cut files are removed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_loads_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = spawn(&dir.path().join("data"), &[], Stdio::inherit());
    let _child = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    create(&conn, "bad").await;
    let load = dir.path().join("load");
    std::fs::create_dir_all(load.join("f")).unwrap();
    crossing_file(&load.join("f").join("1.sst"), 0, 50_000);
    let load_s = load.display().to_string();

    let missing = strata(&[
        "bulkload", "load", "--table", "nope", &load_s, "--server", &addr,
    ]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope"));

    // A family the table does not have.
    std::fs::create_dir_all(load.join("h")).unwrap();
    std::fs::copy(load.join("f").join("1.sst"), load.join("h").join("1.sst")).unwrap();
    let family = strata(&[
        "bulkload", "load", "--table", "bad", &load_s, "--server", &addr,
    ]);
    assert!(!family.status.success());
    std::fs::remove_dir_all(load.join("h")).unwrap();

    // A damaged file.
    let damaged = load.join("f").join("2.sst");
    std::fs::write(&damaged, b"not a store file").unwrap();
    let corrupt = strata(&[
        "bulkload", "load", "--table", "bad", &load_s, "--server", &addr,
    ]);
    assert!(!corrupt.status.success());
    assert!(String::from_utf8_lossy(&corrupt.stderr).contains("2.sst"));
    std::fs::remove_file(&damaged).unwrap();

    // Bad input to prepare: a line with a missing field names its line.
    let tsv = dir.path().join("bad.tsv");
    std::fs::write(&tsv, "r1\tv\nr2\n").unwrap();
    let tsv_s = tsv.display().to_string();
    let out_s = dir.path().join("out").display().to_string();
    let bad_line = strata(&[
        "bulkload",
        "prepare",
        "--table",
        "bad",
        "--input",
        &tsv_s,
        "--columns",
        "HBASE_ROW_KEY,f:a",
        "--out",
        &out_s,
        "--server",
        &addr,
    ]);
    assert!(!bad_line.status.success());
    assert!(String::from_utf8_lossy(&bad_line.stderr).contains("line 2"));

    let table = conn.table("bad").unwrap();
    assert!(
        table.scan_all(&Scan::default()).await.unwrap().is_empty(),
        "nothing of a refused load is visible"
    );
    // The good file alone loads.
    let ok = strata(&[
        "bulkload", "load", "--table", "bad", &load_s, "--server", &addr,
    ]);
    assert!(ok.status.success());
    assert_eq!(table.scan_all(&Scan::default()).await.unwrap().len(), 51);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_survives_kill_9_and_a_killed_load_runs_again() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (child, addr) = spawn(&data, &[], Stdio::inherit());
    let mut child = Killed(child);
    let conn = Connection::connect(&addr).await.unwrap();
    create(&conn, "k").await;
    let load = dir.path().join("load");
    std::fs::create_dir_all(load.join("f")).unwrap();
    let mut cells = 0;
    for k in 0..10u64 {
        let from = k * ROWS / 10;
        cells += crossing_file(
            &load.join("f").join(format!("{k}.sst")),
            from,
            from + 19_000,
        );
    }
    let load_s = load.display().to_string();

    // Killed while the load runs: after a restart, the same load runs again to its end.
    let (l, a) = (load_s.clone(), addr.clone());
    let running = std::thread::spawn(move || {
        strata(&["bulkload", "load", "--table", "k", &l, "--server", &a])
    });
    std::thread::sleep(Duration::from_millis(40));
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let _ = running.join().unwrap();
    let (restarted, addr) = spawn(&data, &[], Stdio::inherit());
    child = Killed(restarted);
    let conn = Connection::connect(&addr).await.unwrap();
    let ok = strata(&[
        "bulkload", "load", "--table", "k", &load_s, "--server", &addr,
    ]);
    assert!(ok.status.success());
    let table = conn.table("k").unwrap();
    let count = |rows: Vec<Vec<Cell>>| rows.iter().map(Vec::len).sum::<usize>() as u64;
    assert_eq!(
        count(table.scan_all(&Scan::default()).await.unwrap()),
        cells,
        "every cell once"
    );

    // Acknowledged, then killed: the load is in the manifests, not in the WAL.
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let (restarted, addr) = spawn(&data, &[], Stdio::inherit());
    let _child = Killed(restarted);
    let conn = Connection::connect(&addr).await.unwrap();
    let table = conn.table("k").unwrap();
    assert_eq!(
        count(table.scan_all(&Scan::default()).await.unwrap()),
        cells
    );
}
