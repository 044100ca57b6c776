//! Regions split under load (automatically, by size) while scanners run, and explicit
//! split and merge through the admin API.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::{b, key, start, table};
use bytes::Bytes;
use strata_client::{Connection, Table};
use strata_model::ops::{Get, Put, Scan};

const PRELOADED: u64 = 3000;

fn value(i: u64) -> Bytes {
    Bytes::from(vec![(i % 251) as u8; 1000])
}

async fn load(t: &Table, range: std::ops::Range<u64>) {
    let puts: Vec<Put> = range
        .map(|i| Put::new(key(i)).add(b("f"), b("q"), value(i)))
        .collect();
    for chunk in puts.chunks(200) {
        t.put_many(chunk).await.unwrap();
    }
}

/// Scans the whole table, checking rows come in order, each once, and all preloaded ones.
async fn check_scan(t: &Table, reversed: bool) {
    let mut scanner = t.scan(&Scan {
        reversed,
        caching: Some(50),
        ..Scan::default()
    });
    let mut seen = BTreeSet::new();
    let mut last: Option<Bytes> = None;
    while let Some(row) = scanner.next_row().await.unwrap() {
        let r = row[0].row.clone();
        if let Some(l) = &last {
            assert!(if reversed { r < *l } else { r > *l }, "out of order");
        }
        assert!(seen.insert(r.clone()), "row seen twice");
        last = Some(r);
    }
    for i in 0..PRELOADED {
        assert!(seen.contains(&key(i)), "row {i} missing");
    }
}

async fn regions(conn: &Connection) -> usize {
    conn.admin().regions("t").await.unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regions_split_under_load_and_scanners_see_every_row_once() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let mut schema = table("t", &["f"]);
    schema.set("MEMSTORE_FLUSHSIZE", "1MB").unwrap();
    schema.set("MAX_FILESIZE", "8MB").unwrap();
    conn.admin().create_table(&schema, &[]).await.unwrap();
    let t = conn.table("t").unwrap();
    load(&t, 0..PRELOADED).await;

    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let t = t.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut next = PRELOADED;
            while !stop.load(Ordering::Relaxed) && next < PRELOADED * 3 {
                load(&t, next..next + 200).await;
                next += 200;
            }
            next
        })
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut scans = 0;
    while (regions(&conn).await < 3 || scans < 4) && Instant::now() < deadline {
        check_scan(&t, scans % 2 == 1).await;
        scans += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let written = writer.await.unwrap();
    let n = regions(&conn).await;
    assert!(n >= 3, "only {n} regions after the load");

    // Every written row is readable, and a final scan sees them all exactly once.
    for i in (0..written).step_by(97) {
        let got = t.get(&Get::new(key(i))).await.unwrap();
        assert_eq!(got[0].value, value(i), "row {i}");
    }
    let all = t.scan_all(&Scan::default()).await.unwrap();
    assert_eq!(all.len() as u64, written);

    // Region boundaries tile the key space.
    let locs = conn.admin().regions("t").await.unwrap();
    assert!(locs[0].start_row.is_empty() && locs[locs.len() - 1].end_row.is_empty());
    for w in locs.windows(2) {
        assert_eq!(w[0].end_row, w[1].start_row);
    }
    server.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explicit_split_and_merge_keep_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let admin = conn.admin();
    admin.create_table(&table("t", &["f"]), &[]).await.unwrap();
    let t = conn.table("t").unwrap();
    load(&t, 0..500).await;

    admin.split("t", Some(key(250))).await.unwrap();
    let locs = admin.regions("t").await.unwrap();
    assert_eq!(locs.len(), 2);
    assert_eq!(locs[0].end_row, key(250));
    assert_eq!(t.scan_all(&Scan::default()).await.unwrap().len(), 500);
    // Writes land in the daughters.
    load(&t, 500..600).await;

    admin
        .merge("t", locs[1].region_id, locs[0].region_id)
        .await
        .unwrap();
    let merged = admin.regions("t").await.unwrap();
    assert_eq!(merged.len(), 1);
    assert!(merged[0].start_row.is_empty() && merged[0].end_row.is_empty());
    assert_eq!(t.scan_all(&Scan::default()).await.unwrap().len(), 600);

    // Upkeep compacts the references away and the janitor removes the parents' directories;
    // data survives a restart.
    let table_dir = dir.path().join("tables").join("default").join("t");
    let region_dirs = || std::fs::read_dir(&table_dir).unwrap().count();
    let deadline = Instant::now() + Duration::from_secs(60);
    while region_dirs() > 1 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(region_dirs(), 1, "parents not cleaned up");
    server.stop().unwrap();
    let (server, conn) = start(dir.path()).await;
    let t = conn.table("t").unwrap();
    assert_eq!(t.scan_all(&Scan::default()).await.unwrap().len(), 600);
    server.stop().unwrap();
}

/// `SPLIT_ENABLED => false` stops automatic and asked-for splits, `MERGE_ENABLED => false`
/// merges (HBase's split and merge procedures refuse them), and so does the cluster's split
/// switch; turning them back on lets the same regions split (by size, unasked) and merge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn split_and_merge_enabled_false_refuse_splits_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start(dir.path()).await;
    let admin = conn.admin();
    let mut schema = table("t", &["f"]);
    schema.set("MEMSTORE_FLUSHSIZE", "1MB").unwrap();
    schema.set("MAX_FILESIZE", "2MB").unwrap();
    schema.set("SPLIT_ENABLED", "false").unwrap();
    schema.set("MERGE_ENABLED", "false").unwrap();
    admin.create_table(&schema, &[key(100)]).await.unwrap();
    let t = conn.table("t").unwrap();
    load(&t, 0..PRELOADED).await; // 3 MB, most of it past the split row
    admin.flush("t").await.unwrap();
    let described = admin.describe_table("t").await.unwrap().descriptor;
    assert!(!described.split_enabled && !described.merge_enabled);

    // Past the split size for several upkeep rounds (2 s each): no split.
    tokio::time::sleep(Duration::from_secs(7)).await;
    let locs = admin.regions("t").await.unwrap();
    assert_eq!(locs.len(), 2);
    let refused = admin.split("t", Some(key(2000))).await.unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("failed as region split is disabled for the table"),
        "{refused}"
    );
    let refused = admin
        .merge("t", locs[0].region_id, locs[1].region_id)
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("failed as region merge is disabled for the table"),
        "{refused}"
    );
    assert_eq!(admin.regions("t").await.unwrap().len(), 2);

    // Merges back on: the two regions merge.
    let mut on = described.clone();
    on.set("MERGE_ENABLED", "true").unwrap();
    admin.alter_table(&on).await.unwrap();
    let locs = admin.regions("t").await.unwrap();
    admin
        .merge("t", locs[0].region_id, locs[1].region_id)
        .await
        .unwrap();
    assert_eq!(admin.regions("t").await.unwrap().len(), 1);

    // Splits back on for the table, but the cluster's split switch off: still no split.
    assert!(admin.set_switch("split", false).await.unwrap());
    on.set("SPLIT_ENABLED", "true").unwrap();
    admin.alter_table(&on).await.unwrap();
    tokio::time::sleep(Duration::from_secs(7)).await;
    assert_eq!(regions(&conn).await, 1);
    assert!(!admin.switch_enabled("split").await.unwrap());

    // The switch back on: the region, past its split size, splits by itself.
    assert!(!admin.set_switch("SPLIT", true).await.unwrap());
    let deadline = Instant::now() + Duration::from_secs(90);
    while regions(&conn).await < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(regions(&conn).await >= 2, "no split once enabled");
    assert_eq!(
        t.scan_all(&Scan::default()).await.unwrap().len() as u64,
        PRELOADED
    );
    server.stop().unwrap();
}
