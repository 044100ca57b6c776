//! `strata snapshot export` and `import` between two one-process Stratas on local roots: the
//! export is killed (SIGKILL) and run again, staged files damaged on purpose are copied again
//! and the intact ones kept, and a table cloned from the imported snapshot on the target
//! equals the source's, cell by cell.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use strata_client::Connection;
use strata_model::ops::{Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use support::key;

fn strata(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "strata {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn export(from: &Path, to: &Path) -> String {
    let out = strata(&[
        "snapshot",
        "export",
        "--snapshot",
        "nightly",
        "--from",
        from.to_str().unwrap(),
        "--to",
        to.to_str().unwrap(),
    ]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every cell of `table` as (row, family, qualifier, timestamp, value).
async fn cells(conn: &Connection, table: &str) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>)> {
    let t = conn.table(table).unwrap();
    t.scan_all(&Scan::default())
        .await
        .unwrap()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c.row.to_vec(),
                c.family.to_vec(),
                c.qualifier.to_vec(),
                c.timestamp,
                c.value.to_vec(),
            )
        })
        .collect()
}

fn staged_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_type().unwrap().is_dir() {
            staged_files(&e.path(), out);
        } else {
            out.push(e.path());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_snapshot_restores_into_another_cluster_byte_for_byte() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let source = support::start(a.path()).await;
    let target = support::start(b.path()).await;
    let conn = Connection::connect(&source.address()).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("events").unwrap())
        .with_family(FamilyDescriptor::new("f"))
        .with_family(FamilyDescriptor::new("g"));
    conn.admin()
        .create_table(&t, &[key(300), key(600)])
        .await
        .unwrap();
    let table = conn.table("events").unwrap();
    for round in 0..3u64 {
        for i in (round..900).step_by(3) {
            let put = Put::new(key(i)).add("f", "q", format!("v{i}-{round}")).add(
                "g",
                format!("c{round}"),
                vec![u8::try_from(i % 251).unwrap(); 64],
            );
            table.put(&put).await.unwrap();
        }
        conn.admin().flush("events").await.unwrap();
    }
    conn.admin().snapshot("events", "nightly").await.unwrap();
    let expected = cells(&conn, "events").await;
    assert_eq!(expected.len(), 1800);

    // Killed at once, then run again: it completes.
    let mut killed = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["snapshot", "export", "--snapshot", "nightly", "--from"])
        .arg(a.path())
        .arg("--to")
        .arg(b.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let _ = killed.kill();
    killed.wait().unwrap();
    let report = export(a.path(), b.path());
    assert!(report.contains("exported snapshot nightly"), "{report}");

    // Damage two staged copies: one truncated, one with its bytes changed in place. Running
    // the export again copies exactly those.
    let mut staged = Vec::new();
    staged_files(&b.path().join(".snapshots/nightly/files"), &mut staged);
    staged.sort();
    assert!(staged.len() >= 6, "{staged:?}");
    let short = std::fs::read(&staged[0]).unwrap();
    std::fs::write(&staged[0], &short[..short.len() / 2]).unwrap();
    let mut flipped = std::fs::read(&staged[1]).unwrap();
    flipped[10] ^= 0xff;
    std::fs::write(&staged[1], &flipped).unwrap();
    let report = export(a.path(), b.path());
    let intact = staged.len() - 2;
    assert!(
        report.contains(&format!(
            "{} files, 2 copied, {intact} already there",
            staged.len()
        )),
        "{report}"
    );

    // Imported on the target, then cloned: the same cells.
    let out = strata(&[
        "snapshot",
        "import",
        "--snapshot",
        "nightly",
        "--server",
        &target.address(),
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("of table events"));
    let conn_b = Connection::connect(&target.address()).await.unwrap();
    let admin_b = conn_b.admin();
    let listed = admin_b.list_snapshots(None).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].table, "events");
    admin_b.clone_snapshot("nightly", "events").await.unwrap();
    assert_eq!(cells(&conn_b, "events").await, expected);
    assert_eq!(admin_b.regions("events").await.unwrap().len(), 3);
    assert!(!b.path().join(".snapshots/nightly/files").exists());
    // A second import of the same snapshot finishes nothing more and refuses nothing.
    strata(&[
        "snapshot",
        "import",
        "--snapshot",
        "nightly",
        "--server",
        &target.address(),
    ]);
    // An import of a snapshot never exported is refused.
    let missing = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "snapshot",
            "import",
            "--snapshot",
            "nope",
            "--server",
            &target.address(),
        ])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no exported snapshot nope"));
    // A nightly backup to a bucket, restored from it into a fresh cluster.
    if let Some((endpoint, bucket)) = support::s3() {
        let nanos = support::now_ms();
        let bucket_root = format!("s3://{bucket}/backups-{nanos}");
        let s3 = ["--s3-endpoint", endpoint.as_str()];
        let from = a.path().to_str().unwrap();
        let mut args = vec![
            "snapshot",
            "export",
            "--snapshot",
            "nightly",
            "--from",
            from,
        ];
        args.extend(["--to", bucket_root.as_str()]);
        args.extend(s3);
        strata(&args);
        let c = tempfile::tempdir().unwrap();
        let fresh = support::start(c.path()).await;
        let to = c.path().to_str().unwrap();
        let mut args = vec!["snapshot", "export", "--snapshot", "nightly"];
        args.extend(["--from", bucket_root.as_str(), "--to", to]);
        args.extend(s3);
        strata(&args);
        strata(&[
            "snapshot",
            "import",
            "--snapshot",
            "nightly",
            "--server",
            &fresh.address(),
        ]);
        let conn_c = Connection::connect(&fresh.address()).await.unwrap();
        conn_c
            .admin()
            .clone_snapshot("nightly", "events")
            .await
            .unwrap();
        assert_eq!(cells(&conn_c, "events").await, expected);
        fresh.stop().unwrap();
    }
    source.stop().unwrap();
    target.stop().unwrap();
}
