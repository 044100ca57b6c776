//! Crash recovery on local storage: a server's WAL is split per region and replayed by the
//! next opener, with every write and nothing twice; both steps are idempotent.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use strata_cluster_node::fencer::fence_wal;
use strata_cluster_node::names::{recovered_dir, region_id, server_dir, splitting_dir, wal_dir};
use strata_cluster_node::recovered::{open_recovered, split_wal};
use strata_model::ops::{Get, Put};
use strata_model::schema::TableDescriptor;
use strata_server::RegionServer;
use strata_storage::manifest::RegionInfo;
use strata_storage::vfs::Storage;
use strata_testkit::fixtures;

fn server(root: &Path, name: &str) -> Arc<RegionServer> {
    let mut config = fixtures::server_config(root, 64);
    config.wal_subdir = Some(server_dir(name));
    RegionServer::open(config).unwrap()
}

fn table() -> TableDescriptor {
    fixtures::table("t", &["f"])
}

fn info(region: &str, start: &str, end: &str) -> RegionInfo {
    let (_, id) = region_id(region).unwrap();
    fixtures::region("t", id, start, end)
}

fn value(server: &RegionServer, id: u64, row: &str) -> Option<Bytes> {
    let cells = server
        .hosted(id)
        .unwrap()
        .region
        .get(&Get::new(row.to_string()))
        .unwrap();
    cells.first().map(|c| c.value.clone())
}

/// Copies the files of directory `from` into `to` (made if missing).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
    }
}

/// The recovered-edits directories of region `id` written for dead server `a:1:1`.
fn edits_of_a(root: &Path, id: u64) -> Vec<std::path::PathBuf> {
    let dir = recovered_dir(root, id);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut found: Vec<_> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("a,1,1"))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn a_dead_servers_edits_reach_the_next_opener_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let storage = Storage::local();
    let (low, high) = (info("t,00000000", "", "m"), info("t,00000001", "m", ""));

    // Server a writes to two regions, flushes one write of the low region, and dies.
    let a = server(root, "a:1:1");
    for i in [&low, &high] {
        a.open_region(&table(), i).unwrap();
    }
    let put = |id: u64, row: &str, v: &str| {
        let p = Put::new(row.to_string()).add("f", "q", Bytes::from(v.to_string()));
        a.hosted(id).unwrap().region.put(&p).unwrap();
    };
    put(low.region_id, "b", "old");
    a.hosted(low.region_id).unwrap().region.flush().unwrap();
    put(low.region_id, "b", "new");
    put(low.region_id, "c", "c1");
    put(high.region_id, "x", "x1");
    drop(a);

    // The master fences its WAL (moving the directory away: a rerun finds it moved) and
    // splits it; a second split finds nothing left to do.
    fence_wal(&storage, root, "a:1:1").unwrap();
    assert!(!wal_dir(root, "a:1:1").exists());
    assert!(splitting_dir(root, "a:1:1").exists());
    fence_wal(&storage, root, "a:1:1").unwrap();
    assert_eq!(split_wal(&storage, root, "a:1:1").unwrap(), 4);
    assert_eq!(split_wal(&storage, root, "a:1:1").unwrap(), 0);
    assert_eq!(edits_of_a(root, low.region_id).len(), 1);
    assert!(
        !splitting_dir(root, "a:1:1").exists(),
        "the split deletes the fenced WAL"
    );

    // Server b opens both regions, replaying their edits in the open: every write is there,
    // the newest value wins, and the recovered edits are gone (flushed first).
    let b = server(root, "b:2:2");
    for i in [&low, &high] {
        assert_eq!(open_recovered(&b, root, &table(), i).unwrap(), 1);
    }
    assert_eq!(value(&b, low.region_id, "b").as_deref(), Some(&b"new"[..]));
    assert_eq!(value(&b, low.region_id, "c").as_deref(), Some(&b"c1"[..]));
    assert_eq!(value(&b, high.region_id, "x").as_deref(), Some(&b"x1"[..]));
    assert!(edits_of_a(root, low.region_id).is_empty());
    b.shutdown().unwrap();

    // Opened again elsewhere after b's death, nothing is replayed twice and nothing lost.
    let c = server(root, "c:3:3");
    for i in [&low, &high] {
        assert_eq!(open_recovered(&c, root, &table(), i).unwrap(), 0);
    }
    assert_eq!(value(&c, low.region_id, "b").as_deref(), Some(&b"new"[..]));
    assert_eq!(value(&c, high.region_id, "x").as_deref(), Some(&b"x1"[..]));
    c.shutdown().unwrap();
}

#[test]
fn recovered_edits_left_after_their_flush_are_not_replayed_over_newer_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let storage = Storage::local();
    let low = info("t,00000000", "", "");
    let a = server(root, "a:1:1");
    a.open_region(&table(), &low).unwrap();
    // Both writes at one timestamp: only their sequence ids order them, so an old edit
    // replayed again would hide the newer one.
    let put = |s: &RegionServer, v: &'static str| {
        let p = Put::new("r".to_string()).add_at("f", "q", 1_000, Bytes::from_static(v.as_bytes()));
        s.hosted(low.region_id).unwrap().region.put(&p).unwrap();
    };
    put(&a, "old");
    drop(a);
    fence_wal(&storage, root, "a:1:1").unwrap();
    split_wal(&storage, root, "a:1:1").unwrap();
    let edits = edits_of_a(root, low.region_id).remove(0);
    // Keep a copy: a server that died after its flush but before deleting them leaves them.
    let copy = tmp.path().join("copy");
    copy_dir(&edits, &copy);
    let b = server(root, "b:2:2");
    assert_eq!(open_recovered(&b, root, &table(), &low).unwrap(), 1);
    assert!(!edits.exists(), "deleted once flushed");
    put(&b, "new");
    b.hosted(low.region_id).unwrap().region.flush().unwrap();
    drop(b);
    copy_dir(&copy, &edits);
    fence_wal(&storage, root, "b:2:2").unwrap();
    split_wal(&storage, root, "b:2:2").unwrap();
    // c finds both dead servers' edits (b's "new", flushed, and the stale copy of a's).
    let c = server(root, "c:3:3");
    assert_eq!(open_recovered(&c, root, &table(), &low).unwrap(), 2);
    assert_eq!(value(&c, low.region_id, "r").as_deref(), Some(&b"new"[..]));
    c.shutdown().unwrap();
}

#[test]
fn an_interrupted_split_is_redone_from_the_whole_wal() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let storage = Storage::local();
    let low = info("t,00000000", "", "");
    let a = server(root, "a:1:1");
    a.open_region(&table(), &low).unwrap();
    let p = Put::new("r".to_string()).add("f", "q", Bytes::from_static(b"v"));
    a.hosted(low.region_id).unwrap().region.put(&p).unwrap();
    drop(a);
    // A split that died after writing part of a region's recovered edits left a torn
    // file in a directory of its own; the next split writes its own beside it and leaves
    // that one alone (it may be a deposed master's, still writing).
    let partial = recovered_dir(root, low.region_id).join("a,1,1.00000000000000aa");
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::write(partial.join("00000000000000000009.wal"), b"torn").unwrap();
    assert_eq!(split_wal(&storage, root, "a:1:1").unwrap(), 1);
    assert_eq!(edits_of_a(root, low.region_id).len(), 2);
    // The opener replays both (the torn tail cut, as a WAL's) and deletes both once flushed.
    let b = server(root, "b:2:2");
    assert_eq!(open_recovered(&b, root, &table(), &low).unwrap(), 2);
    assert_eq!(value(&b, low.region_id, "r").as_deref(), Some(&b"v"[..]));
    assert!(edits_of_a(root, low.region_id).is_empty());
    b.shutdown().unwrap();
}

/// Two masters split one fenced WAL (one deposed mid-split, the new active one starting
/// over): the deposed one, still reading after the other's split finished, fails part way
/// as the WAL goes wrong under it. It must not have cleared the finished split's edits
/// first: each split writes directories of its own.
#[test]
fn a_failing_second_split_leaves_the_finished_ones_edits() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let storage = Storage::local();
    let low = info("t,00000000", "", "");
    let mut config = fixtures::server_config(root, 64);
    config.wal_subdir = Some(server_dir("a:1:1"));
    config.wal.segment_size = 4096;
    let a = RegionServer::open(config).unwrap();
    a.open_region(&table(), &low).unwrap();
    for i in 0..100 {
        let p = Put::new(format!("r{i:03}")).add("f", "q", Bytes::from(vec![b'v'; 200]));
        a.hosted(low.region_id).unwrap().region.put(&p).unwrap();
    }
    drop(a);
    fence_wal(&storage, root, "a:1:1").unwrap();
    // What the second split will read: the same WAL, its second segment gone bad.
    let fenced = splitting_dir(root, "a:1:1");
    let copy = tmp.path().join("copy");
    let mut segments: Vec<_> = std::fs::read_dir(&fenced)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| std::fs::metadata(p).unwrap().len() > 64)
        .collect();
    segments.sort();
    assert!(segments.len() > 3, "the WAL rolled: {segments:?}");
    copy_dir(&fenced, &copy);
    assert_eq!(split_wal(&storage, root, "a:1:1").unwrap(), 100);

    copy_dir(&copy, &fenced);
    let bad = fenced.join(segments[1].file_name().unwrap());
    let mut bytes = std::fs::read(&bad).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle..middle + 16].fill(0xff);
    std::fs::write(&bad, bytes).unwrap();
    assert!(split_wal(&storage, root, "a:1:1").is_err());

    let b = server(root, "b:2:2");
    open_recovered(&b, root, &table(), &low).unwrap();
    for i in 0..100 {
        let found = value(&b, low.region_id, &format!("r{i:03}"));
        assert_eq!(found.map(|v| v.len()), Some(200), "row {i}");
    }
    b.shutdown().unwrap();
}

#[test]
fn a_wal_of_many_segments_and_regions_is_split_whole_up_to_its_torn_tail() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let storage = Storage::local();
    // More regions than the split syncs at once, each with edits in several segments.
    let regions: Vec<RegionInfo> = (0..20u32)
        .map(|i| {
            let start = if i == 0 {
                String::new()
            } else {
                format!("r{i:02}")
            };
            let end = if i == 19 {
                String::new()
            } else {
                format!("r{:02}", i + 1)
            };
            info(&format!("t,{i:08x}"), &start, &end)
        })
        .collect();
    let mut config = fixtures::server_config(root, 64);
    config.wal_subdir = Some(server_dir("a:1:1"));
    config.wal.segment_size = 4096;
    let a = RegionServer::open(config).unwrap();
    for r in &regions {
        a.open_region(&table(), r).unwrap();
    }
    let mut last = None;
    for round in 0..5 {
        for (i, r) in regions.iter().enumerate() {
            let row = format!("r{i:02}-{round}");
            let p = Put::new(row.clone()).add("f", "q", Bytes::from(vec![b'v'; 200]));
            a.hosted(r.region_id).unwrap().region.put(&p).unwrap();
            last = Some((r.region_id, row));
        }
    }
    drop(a);
    // The dead server's last write was torn: a crash cut its record short.
    let wal = wal_dir(root, "a:1:1");
    let mut segments: Vec<_> = std::fs::read_dir(&wal)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| std::fs::metadata(p).unwrap().len() > 64)
        .collect();
    segments.sort();
    assert!(segments.len() > 3, "the WAL rolled: {segments:?}");
    let newest = segments.last().unwrap();
    let len = std::fs::metadata(newest).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(newest)
        .unwrap()
        .set_len(len - 5)
        .unwrap();

    fence_wal(&storage, root, "a:1:1").unwrap();
    assert_eq!(split_wal(&storage, root, "a:1:1").unwrap(), 99);
    let b = server(root, "b:2:2");
    for r in &regions {
        assert_eq!(open_recovered(&b, root, &table(), r).unwrap(), 1);
    }
    let (torn_region, torn_row) = last.unwrap();
    for round in 0..5 {
        for (i, r) in regions.iter().enumerate() {
            let row = format!("r{i:02}-{round}");
            let found = value(&b, r.region_id, &row);
            if (r.region_id, &row) == (torn_region, &torn_row) {
                assert_eq!(found, None, "the torn write was never whole");
            } else {
                assert_eq!(found.map(|v| v.len()), Some(200), "{row}");
            }
        }
    }
    b.shutdown().unwrap();
}
