//! Table lifecycle in cluster mode, as real processes on a real etcd and HDFS (see
//! `support/cluster.rs`; skipped without them unless `STRATA_REQUIRE_ETCD`/`HDFS`): a client
//! that knows only the region servers creates a table, writes, flushes (store files appear on
//! HDFS), compacts, alters it (a new family takes writes, earlier writes stay), disables it
//! (reads and writes refused), enables it, truncates it, drops it (its files are deleted) and
//! creates it again under the same name (empty and writable); `strata cluster drop-table`
//! deletes files too; bad requests get their error code and change nothing.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::{ClientOptions, Connection, Error, Table};
use strata_model::ops::{Get, Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;
use strata_storage::vfs::Storage;

use cluster::{engines, Cluster};
use support::key;

/// Files (not directories) below `dir`, recursively; 0 if it does not exist.
fn count_files(storage: &Storage, dir: &Path) -> usize {
    let Ok(entries) = storage.files.list(dir) else {
        return 0;
    };
    entries
        .iter()
        .map(|e| {
            let path = dir.join(&e.name);
            if e.is_dir {
                count_files(storage, &path)
            } else {
                1
            }
        })
        .sum()
}

fn table_dir(root: &Path, table: &str) -> PathBuf {
    strata_server::ServerConfig::new(root, String::new())
        .table_dir(&TableName::parse(table).unwrap())
}

async fn put(table: &Table, i: u64, family: &str) -> Result<(), Error> {
    table
        .put(&Put::new(key(i)).add(family.to_string(), "q", Bytes::from(format!("v{i}"))))
        .await
}

async fn value(table: &Table, i: u64, family: &str) -> Option<Bytes> {
    let row = table.get(&Get::new(key(i))).await.unwrap();
    row.into_iter()
        .find(|c| c.family.as_ref() == family.as_bytes() && c.qualifier.as_ref() == b"q")
        .map(|c| c.value)
}

/// Runs `cmd` to completion, killed (and the test failed) after `limit`.
fn run_bounded(cmd: &mut std::process::Command, limit: Duration) -> std::process::Output {
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .args(["-9", &id.to_string()])
                .status();
            panic!("{cmd:?} did not finish in {limit:?}");
        }
    }
}

fn code<T: std::fmt::Debug>(r: Result<T, Error>) -> ErrorCode {
    r.unwrap_err().code
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_are_managed_end_to_end() {
    let Some(e) = engines() else { return };
    let started = Instant::now();
    let c = Cluster::start(&e, "tables", 2);
    let storage_root =
        strata_shared_storage::open_root(&c.root, Some(&e.http), Duration::from_secs(10)).unwrap();
    let (storage, root) = (storage_root.storage.clone(), storage_root.path.clone());
    let options = ClientOptions {
        retry_max: Duration::from_millis(500),
        retries: 40,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&c.addrs(), options).await.unwrap();
    let admin = conn.admin();
    let splits = [key(50)];
    let t = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    admin.create_table(&t, &splits).await.unwrap();
    let table = conn.table("t").unwrap();
    for i in 0..100 {
        put(&table, i, "f").await.unwrap();
    }

    // Flush: routed to the servers of both regions; store files appear on HDFS.
    let before = count_files(&storage, &table_dir(&root, "t"));
    admin.flush("t").await.unwrap();
    let after = count_files(&storage, &table_dir(&root, "t"));
    // A store file (at least) per region.
    assert!(
        after >= before + 2,
        "flush wrote no file ({before} → {after})"
    );
    admin.compact("t", Some("f"), true).await.unwrap();
    admin.compact("t", None, false).await.unwrap();

    // Bad requests: their code, nothing changed.
    assert_eq!(code(admin.enable_table("t").await), ErrorCode::TableEnabled);
    assert_eq!(code(admin.delete_table("t").await), ErrorCode::TableEnabled);
    assert_eq!(
        code(admin.disable_table("nope").await),
        ErrorCode::TableNotFound
    );
    assert_eq!(
        code(admin.enable_table("nope").await),
        ErrorCode::TableNotFound
    );
    assert_eq!(code(admin.flush("nope").await), ErrorCode::TableNotFound);
    assert_eq!(
        code(admin.truncate_table("nope", true).await),
        ErrorCode::TableNotFound
    );
    assert_eq!(
        code(admin.compact("t", Some("nofamily"), false).await),
        ErrorCode::NoSuchFamily
    );
    assert_eq!(
        code(admin.create_table(&t, &[]).await),
        ErrorCode::TableExists
    );
    let nope = TableDescriptor::new(TableName::parse("nope").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    assert_eq!(
        code(admin.alter_table(&nope).await),
        ErrorCode::TableNotFound
    );
    assert_eq!(value(&table, 7, "f").await.as_deref(), Some(&b"v7"[..]));

    // Alter: a new family takes writes; earlier writes stay.
    let info = admin.describe_table("t").await.unwrap();
    let altered = info
        .descriptor
        .clone()
        .with_family(FamilyDescriptor::new("g"));
    admin.alter_table(&altered).await.unwrap();
    let info = admin.describe_table("t").await.unwrap();
    assert!(info.descriptor.family(b"g").is_some(), "{info:?}");
    put(&table, 7, "g").await.unwrap();
    put(&table, 77, "g").await.unwrap();
    assert_eq!(value(&table, 7, "g").await.as_deref(), Some(&b"v7"[..]));
    for i in 0..100 {
        assert!(
            value(&table, i, "f").await.is_some(),
            "row {i} lost by alter"
        );
    }

    // Disable: reads and writes refused with TABLE_DISABLED; enable: all back.
    admin.disable_table("t").await.unwrap();
    assert!(!admin.describe_table("t").await.unwrap().enabled);
    assert_eq!(
        code(admin.disable_table("t").await),
        ErrorCode::TableDisabled
    );
    assert_eq!(code(put(&table, 1, "f").await), ErrorCode::TableDisabled);
    assert_eq!(
        code(table.get(&Get::new(key(1))).await),
        ErrorCode::TableDisabled
    );
    assert_eq!(code(admin.flush("t").await), ErrorCode::TableDisabled);
    admin.enable_table("t").await.unwrap();
    assert!(admin.describe_table("t").await.unwrap().enabled);
    assert_eq!(value(&table, 77, "g").await.as_deref(), Some(&b"v77"[..]));
    put(&table, 101, "f").await.unwrap();

    // Truncate (keeping the split) only a disabled table: empty, enabled again, writable,
    // still two regions.
    assert_eq!(
        code(admin.truncate_table("t", true).await),
        ErrorCode::TableEnabled
    );
    admin.disable_table("t").await.unwrap();
    admin.truncate_table("t", true).await.unwrap();
    assert!(admin.describe_table("t").await.unwrap().enabled);
    assert_eq!(admin.regions("t").await.unwrap().len(), 2);
    assert_eq!(value(&table, 7, "f").await, None);
    put(&table, 8, "f").await.unwrap();
    assert_eq!(value(&table, 8, "f").await.as_deref(), Some(&b"v8"[..]));

    // Drop: files gone; re-create under the same name: empty and writable.
    admin.flush("t").await.unwrap();
    assert!(count_files(&storage, &table_dir(&root, "t")) > 0);
    admin.disable_table("t").await.unwrap();
    admin.delete_table("t").await.unwrap();
    assert!(admin.regions("t").await.unwrap_err().is_not_found());
    assert_eq!(count_files(&storage, &table_dir(&root, "t")), 0);
    assert_eq!(
        code(admin.delete_table("t").await),
        ErrorCode::TableNotFound
    );
    admin.create_table(&t, &splits).await.unwrap();
    let rows = table.scan_all(&Scan::new()).await.unwrap();
    assert!(rows.is_empty(), "re-created table not empty: {rows:?}");
    for i in [1, 60] {
        put(&table, i, "f").await.unwrap();
        assert_eq!(
            value(&table, i, "f").await.as_deref(),
            Some(format!("v{i}").as_bytes())
        );
    }

    // `strata cluster drop-table` deletes the files too.
    admin.flush("t").await.unwrap();
    assert!(count_files(&storage, &table_dir(&root, "t")) > 0);
    let out = run_bounded(
        std::process::Command::new(env!("CARGO_BIN_EXE_strata")).args([
            "cluster",
            "drop-table",
            "t",
            "--etcd",
            &e.etcd,
            "--cluster",
            &c.name,
        ]),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{out:?}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while admin.table_exists("t").await.unwrap() {
        assert!(Instant::now() < deadline, "drop-table did not finish");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(count_files(&storage, &table_dir(&root, "t")), 0);
    // The shell in cluster mode: the same lifecycle as a user types it.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("lifecycle.txt");
    std::fs::write(
        &script,
        "create 's', 'f'\n\
         put 's', 'r1', 'f:q', 'v1'\n\
         flush 's'\n\
         major_compact 's'\n\
         alter 's', NAME => 'g'\n\
         put 's', 'r1', 'g:q', 'v2'\n\
         disable 's'\n\
         is_enabled 's'\n\
         enable 's'\n\
         get 's', 'r1'\n\
         truncate 's'\n\
         count 's'\n\
         disable 's'\n\
         drop 's'\n\
         exists 's'\n",
    )
    .unwrap();
    let out = run_bounded(
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["shell", "-n", "--etcd", &e.etcd, "--cluster", &c.name])
            .arg(&script),
        Duration::from_secs(180),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "shell failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for wanted in ["false", "v1", "v2", "0 row(s)", "Table s does not exist"] {
        assert!(
            text.contains(wanted),
            "no {wanted:?} in the shell's output:\n{text}"
        );
    }

    eprintln!(
        "table lifecycle in cluster mode: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let _ = storage.files.remove_dir_all(&root);
}
